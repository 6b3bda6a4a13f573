"""Counts, sizes and staleness of both indexes (``mem stats``, ``mem verify``), and the build folders
and generations no pointer names (left by a crash) removed."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import MemError, StoreIOError
from mem.format.index.common import (
    LEXICAL_KIND,
    LEXICAL_POINTER,
    VECTORS_KIND,
    VECTORS_POINTER,
    garbage,
    read_pointer,
    remove_tree,
    tree_bytes,
)
from mem.format.index.session import _read_pending
from mem.format.index.staleness import _missing_vectors, _open_vectors, _plan

if TYPE_CHECKING:
    from mem.format.index.lexical import LexicalIndex
    from mem.format.store.store import Store


@dataclass
class IndexStats:
    lexical: dict[str, Any]
    vectors: dict[str, Any]
    #: build folders and generations no pointer names (left by an interrupted rebuild/compact)
    garbage: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"lexical": self.lexical, "vectors": self.vectors, "garbage": self.garbage}


def index_stats(store: Store) -> IndexStats:
    """Counts, sizes and staleness of both indexes (never loads the model)."""
    from mem.format.index.lexical import LexicalIndex

    lexd: dict[str, Any] = {"present": False, "generation": None, "docs": 0, "deleted_docs": 0, "pending": 0,
                            "segments": 0, "bytes": 0, "stale_scopes": [], "corrupt": None}
    vecd: dict[str, Any] = {"present": False, "generation": None, "space": None, "space_matches": None,
                            "text_recipe": None,
                            "vectors": 0, "delta": 0, "dead": 0, "missing": 0, "bytes": 0, "corrupt": None}
    lex = None
    try:
        lex = LexicalIndex.open(store.index_dir)
        if lex is None:  # none, or one of an older schema (not present: the next refresh rebuilds it)
            m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
            lexd["generation"] = None if m is None else m["generation"]
        else:
            lexd.update(present=True, generation=lex.generation, bytes=tree_bytes(lex.path))
            ts = lex.stats()
            docs = lex.doc_count()
            lexd.update(docs=docs, segments=ts["segments"], deleted_docs=_deleted_docs(lex),
                        pending=len(_read_pending(store)))
            st = _plan(store, lex, False)
            lexd["stale_scopes"] = sorted(set(st.staleness.scopes_changed))
    except StoreIOError:
        raise  # the file system refused (a full disk): the truth, never "corrupt"
    except MemError as exc:
        lexd["corrupt"] = str(exc)
    try:
        vec = _open_vectors(store)
        if vec is not None:
            try:
                from mem.format.embed import configured_space

                c = vec.counts()
                vecd.update(present=True, generation=vec.generation, space=vec.space.to_dict(),
                            text_recipe=vec.text_recipe,
                            vectors=c["vectors"], delta=c["delta"], dead=c["dead"],
                            bytes=tree_bytes(vec.path))
                try:
                    vecd["space_matches"] = vec.space == configured_space(store.config, recorded=vec.space)
                except MemError:
                    vecd["space_matches"] = False
                if lex is not None and lexd["corrupt"] is None:
                    vecd["missing"] = len(_missing_vectors(lex, vec, full=True))
            finally:
                vec.close()
    except StoreIOError:
        if lex is not None:
            lex.close()
        raise
    except MemError as exc:
        vecd["corrupt"] = str(exc)
    if lex is not None:
        lex.close()
    live = {str(g) for g in (lexd["generation"], vecd["generation"]) if g}
    if lexd["corrupt"] or vecd["corrupt"]:
        garb: list[str] = []  # which generation a damaged pointer meant is unknown: name none
    else:
        garb = sorted(p.name for p in garbage(store.index_dir, live))
    return IndexStats(lexd, vecd, garb)


def _deleted_docs(lex: LexicalIndex) -> int:
    """Documents tantivy still stores but marked deleted (dropped by compact)."""
    import json

    try:
        meta = json.loads((lex.path / "meta.json").read_text("utf-8"))
    except (OSError, ValueError):
        return 0
    total = 0
    for seg in meta.get("segments", []):
        d = seg.get("deletes")
        if isinstance(d, dict):
            total += int(d.get("num_deleted_docs", 0))
    return total


def cleanup_garbage(store: Store) -> list[str]:
    """Remove generation/build directories no manifest names (left by a crash)."""
    live: set[str] = set()
    for pointer, kind in ((LEXICAL_POINTER, LEXICAL_KIND), (VECTORS_POINTER, VECTORS_KIND)):
        with contextlib.suppress(MemError):
            m = read_pointer(store.index_dir, pointer, kind)
            if m is not None:
                live.add(str(m["generation"]))
    out = []
    with store.lock:
        for p in garbage(store.index_dir, live):
            remove_tree(p)
            out.append(p.name)
    return out
