"""Building index generations from the records alone (``build_indexes``), swapping them in
(``swap_in``), and the two whole rebuilds: ``rebuild`` and ``compact`` (the vector delta merged,
dead vectors and deleted documents dropped); a first, empty vector index."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import MemError
from mem.format.index.apply import secure
from mem.format.index.common import (
    LEXICAL_KIND,
    LEXICAL_POINTER,
    VECTORS_KIND,
    VECTORS_POINTER,
    build_failure,
    new_build_dir,
    read_pointer,
    remove_tree,
    write_pointer,
)
from mem.format.index.lexread import PENDING_FILE
from mem.format.index.reading import Progress, _reading
from mem.format.index.session import _session_of
from mem.format.index.staleness import _open_vectors
from mem.format.index.stats import index_stats

if TYPE_CHECKING:
    from mem.format.embed import Embedder
    from mem.format.index.vecstream import VectorStream
    from mem.format.store.store import Store


@dataclass
class BuiltIndexes:
    build_dir: Path
    lexical: dict[str, Any] | None = None
    vectors: dict[str, Any] | None = None
    records: int = 0
    embedded: int = 0
    reused: int = 0
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "lexical": None if self.lexical is None else {"generation": self.lexical["generation"],
                                                          "docs": self.lexical["docs"]},
            "vectors": None if self.vectors is None else {"generation": self.vectors["generation"],
                                                          "space": self.vectors["space"],
                                                          "embedded": self.embedded,
                                                          "reused": self.reused},
            "records": self.records,
            "skipped": self.skipped,
        }


def _vector_stream(store: Store, dest: Path, embedder: Embedder | None, reuse: bool, batch: int,
                   window: int | None, scopes: dict[str, int]) -> VectorStream:
    """The vectors of a build (index/vecstream.py), reusing the live index's when ``reuse``."""
    from mem.format.index.backlog import BULK_WINDOW
    from mem.format.index.space import store_embedder
    from mem.format.index.vecstream import VectorStream, reusable

    emb = embedder or store_embedder(store)
    old = None
    if reuse:
        try:
            old = reusable(_open_vectors(store), emb.space)
        except (MemError, OSError, ValueError):
            old = None
    return VectorStream(dest / "vectors-made", emb, scopes, reuse=old, window=window or BULK_WINDOW, batch=batch)


def build_indexes(
    store: Store,
    dest: Path,
    *,
    lexical: bool = True,
    vectors: bool = True,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    reuse_vectors: bool = True,
    batch: int = 256,
    window: int | None = None,
    workers: int | None = None,
) -> BuiltIndexes:
    """Build fresh index generations from the records alone into ``dest`` (see spec/index.md).

    The vectors are made as the records are read (index/vecstream.py: a window of records at a
    time, kept on disk in ``dest`` until the generation is written), so the memory a build
    holds does not grow with the store beyond its largest scope's matrix and the rows.
    ``window``: records read, then embedded shortest first in ``batch``es (None: BULK_WINDOW).
    ``reuse_vectors``: a record keeps the live index's vector made from the same content in the
    same space (never from a damaged index). ``workers``: processes that read the record files
    (None: one per CPU from POOL_MIN_RECORDS files on, else this process alone; 1: this process
    alone).
    """
    from mem.format.index.common import new_generation

    built = BuiltIndexes(dest)
    lex_gen = new_generation("lexical")
    stream = None
    label = "reading and embedding records" if vectors else "reading records"
    try:
        # with vectors, the reading is bounded: the workers wait while a window is embedded
        with _reading(store, progress, workers, bounded=vectors, label=label) as recs:
            # (after the workers forked: the model's threads would keep them from forking)
            stream = _vector_stream(store, dest, embedder, reuse_vectors, batch, window,
                                    recs.mtimes) if vectors else None
            feed = recs if stream is None else stream.through(recs)
            if lexical:
                from mem.format.index.lexical import build_lexical

                # tantivy indexes the records as they are read (by the workers, on a large store)
                built.lexical = build_lexical(dest / lex_gen, feed, recs.mtimes)
                built.records = int(built.lexical["docs"])
            else:
                built.records = sum(1 for _ in feed)
        built.skipped = recs.skipped
        if stream is not None:
            from mem.format.index.lexical import LexicalIndex
            from mem.format.index.vectors import build_vectors

            stream.close()  # the live index is not read any more
            built.embedded, built.reused = stream.embedded, stream.reused
            if lexical:
                lg: str | None = lex_gen
                seq = built.records
            else:
                lg, seq = None, 0
                try:
                    cur = LexicalIndex.open(store.index_dir)
                    if cur is not None:
                        try:
                            lg, seq = cur.generation, cur.max_seq()
                        finally:
                            cur.close()
                except MemError:
                    pass  # a damaged lexical index: the vectors resync by full comparison later
            built.vectors = build_vectors(dest / new_generation("vectors"), stream.space, stream.scopes(),
                                          lex_generation=lg, lex_seq=seq)
            remove_tree(stream.folder)
    finally:
        if stream is not None:
            stream.close()
    secure(store, dest)
    return built


def swap_in(store: Store, built: BuiltIndexes) -> None:
    """Make built generations live: rename into place, replace the pointer atomically, drop the old."""
    idx = store.index_dir
    old: list[str] = []
    for pointer, kind, manifest in ((LEXICAL_POINTER, LEXICAL_KIND, built.lexical),
                                    (VECTORS_POINTER, VECTORS_KIND, built.vectors)):
        if manifest is None:
            continue
        gen = str(manifest["generation"])
        os.replace(built.build_dir / gen, idx / gen)
        try:
            prev = read_pointer(idx, pointer, kind)
        except MemError:
            prev = None
        write_pointer(idx, pointer, manifest)
        if pointer == LEXICAL_POINTER:
            from mem.format.base.fsutil import remove_file

            remove_file(idx / PENDING_FILE)  # the new generation was built from the records
        if prev is not None and prev["generation"] != gen:
            old.append(str(prev["generation"]))
    for g in old:
        remove_tree(idx / g)
    remove_tree(built.build_dir)
    secure(store)
    sess = _session_of(store)
    if sess is not None and built.lexical is not None:
        sess.mark_clean({str(k): int(v["dir_mtime_ns"]) for k, v in built.lexical["scopes"].items()})


def rebuild(
    store: Store,
    *,
    lexical: bool = True,
    vectors: bool = True,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    reuse_vectors: bool = False,
    workers: int | None = None,
) -> BuiltIndexes:
    """Rebuild the chosen indexes from the records and swap them in, under the writer lock."""
    with store.lock:
        dest = new_build_dir(store.index_dir)
        try:
            built = build_indexes(store, dest, lexical=lexical, vectors=vectors, embedder=embedder,
                                  progress=progress, reuse_vectors=reuse_vectors, workers=workers)
            swap_in(store, built)
        except BaseException as exc:
            remove_tree(dest)
            refused = build_failure(exc, dest)
            if refused is not None:
                raise refused from None
            raise
        if lexical and vectors is False and (store.index_dir / VECTORS_POINTER).exists():
            # the vectors now follow a new lexical generation: resync them by full comparison
            with contextlib.suppress(MemError):
                v = _open_vectors(store)
                if v is not None:
                    v.set_meta({"lex_generation": "", "lex_seq": "0"})
                    v.close()
        return built


def compact(store: Store, *, progress: Progress | None = None) -> dict[str, Any]:
    """Merge the vector delta, drop dead vectors, merge tantivy segments; swap atomically."""
    before = index_stats(store).to_dict()
    vec_present = before["vectors"]["present"] and before["vectors"]["space_matches"]
    emb = None
    if vec_present:
        from mem.format.index.space import store_embedder

        # reuse every valid vector: the embedder is loaded only for records that lack one
        if before["vectors"]["missing"]:
            emb = store_embedder(store)
        else:
            emb = _SpaceOnly(_open_space(store), store)
    built = None
    with store.lock:
        dest = new_build_dir(store.index_dir)
        try:
            built = build_indexes(store, dest, lexical=True, vectors=bool(vec_present), embedder=emb,
                                  progress=progress, reuse_vectors=True)
            swap_in(store, built)
        except BaseException as exc:
            remove_tree(dest)
            refused = build_failure(exc, dest)
            if refused is not None:
                raise refused from None
            raise
    after = index_stats(store).to_dict()
    return {
        "lexical": {"docs": after["lexical"]["docs"],
                    "deleted_docs_dropped": before["lexical"].get("deleted_docs", 0),
                    "segments_before": before["lexical"].get("segments", 0),
                    "segments_after": after["lexical"].get("segments", 0)},
        "vectors": None if not vec_present else {
            "vectors": after["vectors"]["vectors"],
            "dead_dropped": before["vectors"]["dead"],
            "delta_merged": before["vectors"]["delta"],
            "embedded": built.embedded if built else 0,
        },
    }


def _open_space(store: Store) -> Any:
    v = _open_vectors(store)
    assert v is not None
    try:
        return v.space
    finally:
        v.close()


class _SpaceOnly:
    """The embedder for a compact that expects to reuse every vector: it loads the real model
    only if a record turns out to need one after all (e.g. a change applied from the write
    journal during the compaction), and only when the model is of the index's space."""

    def __init__(self, space: Any, store: Store) -> None:
        self.space = space
        self._store = store
        self._real: Any = None

    def embed(self, texts: Any) -> Any:
        if self._real is None:
            from mem.format.index.space import store_embedder

            real = store_embedder(self._store)
            if real.space != self.space:
                raise MemError(
                    "compact needs to embed a record, but the configured embedder's space differs "
                    "from the index's; run `mem rebuild --vectors`"
                )
            self._real = real
        return self._real.embed(texts)


def create_empty_vectors(store: Store, embedder: Embedder) -> None:
    """Start a vector index with no vectors (they are backfilled); lexical must exist."""
    from mem.format.index.common import new_generation
    from mem.format.index.vectors import build_vectors, write_vectors_pointer

    with store.lock:
        if (store.index_dir / VECTORS_POINTER).exists():
            return
        dest = store.index_dir / new_generation("vectors")
        m = build_vectors(dest, embedder.space, {}, lex_generation="", lex_seq=0)
        write_vectors_pointer(store.index_dir, m)
        secure(store)
