"""``mem compact``: remove what deletes leave behind, without losing anything live.

* stale temporary files (``*.mem-tmp-*``, left by interrupted writes) anywhere in the store;
* garbage in the index directory: build directories and generations no manifest names (left by
  a crash in a rebuild or an earlier compaction);
* in the indexes: vectors of forgotten or changed records (dead rows), the vector delta side
  table (merged into the main matrices / HNSW graphs), deleted tantivy documents and extra
  segments (merged).

The indexes are rebuilt as new generations beside the live ones, from the records, reusing every
valid vector (no re-embedding unless a record has no vector yet), and swapped in with an atomic
replace of the pointer file (:func:`mem.format.index.derived.compact`). A crash at any point leaves the
old generations live and valid; the half-built directory is garbage that the next ``compact``
(or ``rebuild``) removes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from mem.format.base.errors import MemError
from mem.format.base.fsutil import TMP_MARKER, remove_file
from mem.format.store.store import Store

T = TypeVar("T")
Progress = Callable[[Iterable[T], int | None, str], Iterable[T]]

#: A temp file younger than this may belong to a write in progress by a process that does not
#: take the writer lock (e.g. an editor); it is left alone.
MIN_TEMP_AGE_S = 60.0


def _temp_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        out.extend(Path(dirpath) / f for f in filenames if TMP_MARKER in f)
    return sorted(out)


def _index_present(store: Store) -> bool:
    d = store.root / ".mem" / "index"
    return d.is_dir() and any(d.iterdir())


def _summary(stats: dict[str, Any]) -> dict[str, Any]:
    lex, vec = stats["lexical"], stats["vectors"]
    return {
        "bytes": int(lex.get("bytes") or 0) + int(vec.get("bytes") or 0),
        "lexical": {k: lex.get(k) for k in ("present", "docs", "deleted_docs", "segments", "bytes")},
        "vectors": {k: vec.get(k) for k in ("present", "vectors", "delta", "dead", "missing", "bytes")},
    }


def _predicted(store: Store, stats: dict[str, Any]) -> dict[str, Any]:
    """What a compaction would leave (a dry run's ``after``): it rebuilds from the records, so
    one document and, when the vector index is of the configured space, one vector per record
    file, with nothing deleted, dead or in the delta. Sizes and segments are not known before
    the build (null)."""
    records = sum(1 for _ in store.iter_paths())
    vec = dict(_summary(stats)["vectors"])
    if vec["present"] and stats["vectors"].get("space_matches"):
        vec.update(vectors=records, delta=0, dead=0, missing=0, bytes=None)
    return {
        "bytes": None,
        "lexical": {"present": True, "docs": records, "deleted_docs": 0, "segments": None, "bytes": None},
        "vectors": vec,
    }


def compact_store(
    store: Store,
    *,
    dry_run: bool = False,
    min_temp_age: float = MIN_TEMP_AGE_S,
    progress: Progress[Any] | None = None,
) -> dict[str, Any]:
    """Compact ``store``; returns what was removed and the index sizes and counts before/after.

    ``dry_run`` reports what would be removed (temp files, garbage), the current sizes and the
    predicted counts (:func:`_predicted`), and changes nothing.
    """
    from mem.format.index.common import (
        LEXICAL_KIND,
        LEXICAL_POINTER,
        VECTORS_KIND,
        VECTORS_POINTER,
        garbage,
        read_pointer,
    )
    from mem.format.index.derived import cleanup_garbage, index_stats
    from mem.format.index.derived import compact as compact_indexes

    has_index = _index_present(store)
    stats = index_stats(store).to_dict() if has_index else None
    before = _summary(stats) if stats is not None else None
    now = time.time()
    result: dict[str, Any] = {"store": str(store.root), "dry_run": dry_run}
    with store.lock:  # no mem write runs while we look at temp files
        stale: list[Path] = []
        for p in _temp_files(store.root):
            try:
                age = now - p.stat().st_mtime
            except FileNotFoundError:
                continue
            if age >= min_temp_age:
                stale.append(p)
        if not dry_run:
            for p in stale:
                remove_file(p)
        result["temp_files_removed"] = [p.relative_to(store.root).as_posix() for p in stale]
        if not has_index:
            result.update(index=False, before=None, after=None, lexical=None, vectors=None)
            return result
        if dry_run:
            live: set[str] = set()
            for name, kind in ((LEXICAL_POINTER, LEXICAL_KIND), (VECTORS_POINTER, VECTORS_KIND)):
                try:
                    m = read_pointer(store.index_dir, name, kind)
                except MemError:  # a corrupt pointer: compact would fail and say so
                    m = None
                if m is not None:
                    live.add(str(m["generation"]))
            result["garbage_removed"] = sorted(p.name for p in garbage(store.index_dir, live))
            assert stats is not None
            result.update(index=True, before=before, after=_predicted(store, stats), lexical=None, vectors=None)
            return result
        result["garbage_removed"] = sorted(cleanup_garbage(store))
        done = compact_indexes(store, progress=progress)
        result["garbage_removed"] += [g for g in cleanup_garbage(store) if g not in result["garbage_removed"]]
    after = _summary(index_stats(store).to_dict())
    result.update(index=True, before=before, after=after, lexical=done.get("lexical"),
                  vectors=done.get("vectors"))
    return result


__all__ = ["MIN_TEMP_AGE_S", "compact_store"]
