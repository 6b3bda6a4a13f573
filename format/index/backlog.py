"""Records without a vector (the embedding backlog): found, embedded within a search's budget,
or embedded in bulk by the commands that write many records (spec/index.md, "Vectors").

A search never waits on a backlog: :func:`backfill` embeds at most ``BACKFILL_MAX`` records,
in chunks of ``BACKFILL_CHUNK``, and starts no chunk once ``BACKFILL_BUDGET_S`` seconds of
embedding are spent; the rest stay searchable by the lexical arm and are counted. Bulk writers
(import, capture, consolidate, ``mem embed``) call :func:`embed_backlog`, which embeds them all
in large batches sorted by length and commits each batch: killed halfway, it keeps every vector
it committed, and the next run embeds only what is still missing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import EmbedderUnavailableError, MemError, RecordParseError
from mem.format.rules.config import Config, accept, default

if TYPE_CHECKING:
    from mem.format.embed import Embedder
    from mem.format.index.lexical import DocFields, LexicalIndex
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import Store

#: A search's catch-up: about 100 ms of embedding (a few `mem add`s made since are embedded),
#: in chunks of 8 records, never more than 32 records, whatever the backlog.
BACKFILL_BUDGET_S = 0.1
BACKFILL_CHUNK = 8
BACKFILL_MAX = 32

#: Bulk embedding: records read and sorted by length per window (bounded memory), embedded and
#: committed per batch (what a kill can lose at most).
BULK_WINDOW = 2048
BULK_BATCH = 256
#: A bulk run that leaves more delta rows than this merges them into the main matrices (a search
#: reads delta rows one by one from SQLite; main rows are a memory-mapped matrix).
MERGE_MIN_DELTA = 1000

Progress = Callable[[Iterable[Any], int | None, str], Iterable[Any]]

#: ``missing_vectors`` looks up at most this many records one by one; more are compared with a
#: map of each of their scopes' vectors (an import's thousands: one map per scope is cheaper).
LOOKUP_MAX = 1000


def missing_vectors(lex: LexicalIndex, vec: VectorIndex, *, full: bool = False) -> list[tuple[str, str, str]]:
    """(scope, id, digest) of indexed records whose vector is missing or stale."""
    gen_ok = vec.get_meta("lex_generation") == lex.generation
    if gen_ok and not full:
        # the records indexed since the vectors last caught up (usually a few): each looked up
        # alone, not against a map of its scope's every vector (see VectorIndex.valid_digest)
        since = int(vec.get_meta("lex_seq") or 0)
        rows = lex.db.execute("SELECT scope, id, digest FROM records WHERE seq > ?", (since,)).fetchall()
        if len(rows) <= LOOKUP_MAX:
            return [(scope, rid, dg) for scope, rid, dg in rows if vec.valid_digest(scope, rid) != dg]
    else:
        rows = lex.db.execute("SELECT scope, id, digest FROM records").fetchall()
    out = []
    by_scope: dict[str, dict[str, str]] = {}
    for scope, rid, dg in rows:
        valid = by_scope.get(scope)
        if valid is None:
            valid = by_scope[scope] = vec.valid_digests(scope)
        if valid.get(rid) != dg:
            out.append((scope, rid, dg))
    return out


def _readable(store: Store, todo: Iterable[tuple[str, str, str]]) -> list[DocFields]:
    """The records of ``todo`` still as indexed (same digest, not forgotten), read as the lexical
    index reads them (``staleness._read_fields``: the canonical fast path, else the full reader;
    what a vector needs is in its fields); a record that cannot be read is skipped (the lexical
    refresh deals with it). Each scope's tombstones are loaded once per call. (The full reader
    and a tombstone file loaded per record were most of a bulk run's reading: 1.2 ms a record,
    with the embedding threads idle meanwhile; bench/README.md, "The first hour on a CPU with VNNI".)"""
    from mem.format.index.staleness import _read_fields

    recs: list[DocFields] = []
    tombs: dict[str, Any] = {}
    for scope, rid, dg in todo:
        tomb = tombs.get(scope)
        if tomb is None:
            tomb = tombs[scope] = store.tombstones.load(scope).ids
        if rid in tomb:
            continue
        try:
            r = _read_fields(store.records_dir / scope / f"{rid}.md", scope, rid)
        except (RecordParseError, FileNotFoundError, MemError):
            continue
        if r.digest == dg:
            recs.append(r)
    return recs


def _sync_meta(store: Store, lex: LexicalIndex, vec: VectorIndex, seq: int) -> None:
    """Record that every vector up to the lexical state's ``seq`` is there."""
    if vec.get_meta("lex_seq") != str(seq) or vec.get_meta("lex_generation") != lex.generation:
        with store.lock:
            vec.set_meta({"lex_generation": lex.generation, "lex_seq": str(seq)})


def backfill(store: Store, lex: LexicalIndex, vec: VectorIndex, embedder: Embedder, *,
             limit: int | None = BACKFILL_MAX, budget_s: float | None = BACKFILL_BUDGET_S,
             chunk: int = BACKFILL_CHUNK) -> tuple[int, int]:
    """A search's catch-up: embed records whose vector is missing, at most ``limit`` of them
    (None: all), in chunks of ``chunk``, starting no chunk once ``budget_s`` seconds of
    embedding are spent (None: no budget). Returns (embedded, still missing)."""
    missing = missing_vectors(lex, vec)
    seq = lex.max_seq()
    if not missing:
        _sync_meta(store, lex, vec, seq)
        return 0, 0
    todo = missing if limit is None else missing[:limit]
    done = looked = 0
    started = time.perf_counter()
    while looked < len(todo):
        if budget_s is not None and looked and time.perf_counter() - started >= budget_s:
            break
        part = todo[looked:looked + chunk]
        looked += len(part)
        recs = _readable(store, part)
        if not recs:
            continue
        try:
            vecs = embedder.embed([r.embedding_text for r in recs])
        except MemError:
            raise
        except Exception as exc:  # the model's runtime failed: a search says why and goes on lexically
            from mem.format.embed import embedding_failed

            raise embedding_failed(embedder, exc) from None
        with store.lock:
            vec.add([(r.scope, r.id, r.digest, v) for r, v in zip(recs, vecs, strict=True)])
        done += len(recs)
    if looked == len(missing):
        _sync_meta(store, lex, vec, seq)
    return done, len(missing) - looked


@dataclass
class BacklogReport:
    """What :func:`embed_backlog` did: records embedded, records it found missing, and records
    still without a vector (unreadable ones, or all that remained when interrupted)."""

    embedded: int = 0
    missing: int = 0
    left: int = 0
    merged: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"embedded": self.embedded, "missing": self.missing, "left": self.left, "merged": self.merged}


def open_for_embedding(store: Store, embedder: Embedder) -> tuple[LexicalIndex, VectorIndex]:
    """The lexical index (refreshed: mem's journaled writes applied) and the vector index of the
    embedder's space (created empty when there is none). Raises EmbedderUnavailableError when
    the vector index is of another space (the fix: ``mem rebuild --vectors``)."""
    from mem.format.index.common import VECTORS_POINTER
    from mem.format.index.derived import create_empty_vectors, refresh
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.staleness import _open_vectors

    refresh(store)
    lex = LexicalIndex.open(store.index_dir)
    if lex is None:
        from mem.format.base.errors import IndexUnavailableError

        raise IndexUnavailableError("the lexical index could not be built", path=store.index_dir)
    try:
        create_empty_vectors(store, embedder)
        vec = _open_vectors(store)
        assert vec is not None
    except BaseException:
        lex.close()
        raise
    if vec.space != embedder.space:
        vec.close()
        lex.close()
        raise EmbedderUnavailableError(
            f"the vector index was built with {vec.space.describe()}, but the configured embedder "
            f"is {embedder.space.describe()}", path=store.index_dir / VECTORS_POINTER,
            hint="run `mem rebuild --vectors` to re-embed every record with the configured model")
    return lex, vec


def embed_backlog(store: Store, embedder: Embedder, *, progress: Progress | None = None,
                  report: BacklogReport | None = None, window: int = BULK_WINDOW,
                  batch: int = BULK_BATCH, merge_min: int = MERGE_MIN_DELTA) -> BacklogReport:
    """Embed every record that has no vector, in batches sorted by length, each batch committed
    as it is made (resumable). ``report`` (when given) is kept up to date as batches commit, so
    that a caller interrupted mid-way can say what was kept. A run that leaves more than
    ``merge_min`` delta rows merges them into the main matrices (:func:`merge_delta`)."""
    rep = report if report is not None else BacklogReport()
    lex, vec = open_for_embedding(store, embedder)
    try:
        missing = missing_vectors(lex, vec)
        seq = lex.max_seq()
        rep.missing = rep.left = len(missing)
        batches: list[tuple[int, int]] = []  # (start, end) of each batch of each window, for the progress bar
        for w in range(0, len(missing), window):
            end = min(w + window, len(missing))
            batches.extend((s, min(s + batch, end)) for s in range(w, end, batch))
        it: Iterable[tuple[int, int]] = batches
        if progress is not None and missing:
            it = progress(batches, len(batches), f"embedding {len(missing)} records")
        recs: list[DocFields] = []
        window_start = -1
        unreadable = 0
        for start, end in it:
            w = start - start % window
            if w != window_start:  # read the window's records, shortest first (less padding)
                window_start = w
                wend = min(w + window, len(missing))
                recs = _readable(store, missing[w:wend])
                unreadable += (wend - w) - len(recs)
                recs.sort(key=lambda r: len(r.content))
                pos = 0
            part = recs[pos:pos + (end - start)]
            pos += end - start
            if part:
                vecs = embedder.embed([r.embedding_text for r in part])
                with store.lock:
                    vec.add([(r.scope, r.id, r.digest, v) for r, v in zip(part, vecs, strict=True)])
                rep.embedded += len(part)
            rep.left = len(missing) - rep.embedded
        rep.left = unreadable
        if not unreadable:
            _sync_meta(store, lex, vec, seq)
        if merge_min >= 0 and int(vec.db.execute("SELECT count(*) FROM delta").fetchone()[0]) > merge_min:
            vec.close()
            merge_delta(store)
            rep.merged = True
    finally:
        vec.close()
        lex.close()
    return rep


def merge_delta(store: Store) -> None:
    """Move the vector index's delta rows into a new generation's main matrices, reusing every
    valid vector (nothing is embedded; a record without a valid vector stays missing)."""
    from mem.format.index.common import new_build_dir, new_generation, remove_tree
    from mem.format.index.derived import BuiltIndexes, swap_in
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.staleness import _open_vectors
    from mem.format.index.vectors import build_vectors_from

    with store.lock:
        lex = LexicalIndex.open(store.index_dir)
        vec = _open_vectors(store)
        if lex is None or vec is None:
            for x in (lex, vec):
                if x is not None:
                    x.close()
            return
        dest = new_build_dir(store.index_dir)
        try:
            space = vec.space
            scopes = [r[0] for r in lex.db.execute("SELECT DISTINCT scope FROM records ORDER BY scope").fetchall()]

            def one_scope_at_a_time() -> Iterator[tuple[str, list[tuple[str, str]], Any]]:
                import numpy as np

                for scope in scopes:  # one scope's matrix at a time (bounded by the largest scope)
                    rows = [(rid, dg) for rid, dg in lex.db.execute(
                        "SELECT id, digest FROM records WHERE scope = ?", (scope,)).fetchall()]
                    rows.sort()
                    mat = np.empty((len(rows), space.dim), dtype=np.float32)
                    kept = vec.fill_scope(scope, rows, mat)
                    del rows
                    yield scope, kept, mat[:len(kept)]
                    del mat

            built = BuiltIndexes(dest)
            # the same promise as before: vectors up to that lexical state are all there
            built.vectors = build_vectors_from(dest / new_generation("vectors"), space, one_scope_at_a_time(),
                                               lex_generation=vec.get_meta("lex_generation") or "",
                                               lex_seq=int(vec.get_meta("lex_seq") or 0),
                                               text_recipe=vec.text_recipe)
            swap_in(store, built)
        except BaseException:
            remove_tree(dest)
            raise
        finally:
            vec.close()
            lex.close()



def bulk_threads(config: Any = None, env: Any = None) -> int:
    """Threads for bulk embedding: ``MEM_EMBED_THREADS`` or ``[embedder] threads`` when set,
    else the CPUs this process may run on (a search embeds one query: one thread is best there;
    a bulk run keeps every core busy)."""
    import os

    from mem.format.embed import THREADS_ENV

    env = os.environ if env is None else env
    raw = env.get(THREADS_ENV)
    threads: int | None = (accept("embedder", "threads", raw, THREADS_ENV) if raw
                           else (config if config is not None else Config()).value("embedder", "threads"))
    if threads is not None:
        return threads
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: Providers whose ``embed`` may run in several threads at once, each on one core (onnxruntime's
#: ``InferenceSession.run`` is thread-safe): a bulk run embeds pieces of each batch in parallel,
#: which on a busy 2-core machine beat one session of two intra-op threads (bench/README.md,
#: "Bulk embedding"). Others get their threads from their own loader.
DATA_PARALLEL = frozenset({"minilm"})
#: Texts per piece a worker embeds, for an embedder that does not plan its own batches.
PIECE = 32


#: Bulk embedding threads run this much nicer than the process (Linux) unless ``[embedder]
#: bulk_nice`` says otherwise (0: off; the setting and its default: rules/config.py). Only the
#: threads a bulk embedder starts for its work are lowered: never a search's, nor the writer's.
BULK_NICE: int = default("embedder", "bulk_nice")


def bulk_nice(config: Any = None) -> int:
    """``[embedder] bulk_nice`` of ``config`` (a ``Config``; its default without one)."""
    nice: int = (config if config is not None else Config()).value("embedder", "bulk_nice")
    return nice


def lower_thread_priority(by: int) -> None:
    """Make the calling thread ``by`` nicer (Linux: a thread's nice value is its own; elsewhere,
    or when refused, nothing)."""
    import os
    import sys
    import threading

    if by <= 0 or not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
    except (AttributeError, OSError):
        pass


_LIBC: list[Any] = []
#: glibc's mallopt parameter M_MMAP_THRESHOLD, and its default value (128 KiB).
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 128 * 1024


def _libc() -> Any:
    """The C library when it is glibc (``malloc_trim`` and ``mallopt``), else None."""
    if not _LIBC:
        lib: Any = None
        try:
            import ctypes
            import ctypes.util

            name = ctypes.util.find_library("c")
            lib = ctypes.CDLL(name) if name else None
            if lib is not None and not (hasattr(lib, "malloc_trim") and hasattr(lib, "mallopt")):
                lib = None
        except (OSError, AttributeError):
            lib = None
        _LIBC.append(lib)
    return _LIBC[0]


def bound_c_heap() -> None:
    """Keep glibc's mmap threshold at its default for the rest of the process: glibc raises it
    to the largest block freed (up to 32 MiB), after which a model's activations come from its
    per-thread heaps and stay there; fixed, large blocks are mapped and unmapped whole. Measured
    on 1,024 short memories at 2 threads: peak RSS 312 MB instead of 427 (bench/README.md, "Bulk
    embedding", memory). Called when a bulk embedder is made."""
    lib = _libc()
    if lib is not None:
        lib.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)


def release_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing). A model's activations are freed after each batch, but glibc keeps what its
    per-thread heaps freed: a bulk run at 2 threads grew by 200-600 MB that it never used
    again (bench/README.md, "Bulk embedding", memory). Called once per bulk batch."""
    lib = _libc()
    if lib is not None:
        lib.malloc_trim(0)


class BulkEmbedder:
    """An embedder for bulk runs with ``workers`` threads. An embedder whose ``embed`` takes a
    ``pool`` (MiniLM: it tokenizes once and cuts batches to a token budget) runs its batches in
    the pool's threads; for another, ``embed`` sorts the texts by length and embeds pieces of
    ``PIECE`` texts in the threads at once (one worker: the whole call in the one thread). Same
    vectors as the embedder alone (up to float rounding, as batches of other widths). The
    pool's threads run ``nice`` nicer than the process (:data:`BULK_NICE`); the caller's thread
    embeds nothing."""

    def __init__(self, inner: Embedder, workers: int, nice: int = BULK_NICE) -> None:
        import inspect

        self.inner = inner
        self.workers = workers
        self.nice = nice
        self._pool: Any = None
        self._retired: list[Any] = []  # pools stopped by interrupt(), which close() joins
        self._turn = 0  # interrupt() moves it on: the pieces of earlier calls do not start
        bound_c_heap()
        self._plans = "pool" in inspect.signature(inner.embed).parameters

    @property
    def space(self) -> Any:
        return self.inner.space

    def _the_pool(self) -> Any:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max(1, self.workers), thread_name_prefix="mem-embed",
                                            initializer=lower_thread_priority, initargs=(self.nice,))
        return self._pool

    def embed(self, texts: Any) -> Any:
        try:
            return self._embed(texts)
        except BaseException:
            # Ctrl-C (or a failure) in the caller's wait: the work this call started ends now
            # rather than be waited for (close, and the interpreter's exit, join the threads)
            self.interrupt()
            raise
        finally:
            release_free_memory()

    def interrupt(self) -> None:
        """Stop the work in progress: the pieces not started are dropped, and the embedder's
        calls running in the threads end (an embedder that can: MiniLM's ``interrupt``; another
        finishes the piece it has, at most ``PIECE`` texts). The embedder stays usable."""
        self._turn += 1
        pool = self._pool
        if pool is not None:
            self._pool = None  # the next call makes a new pool; close() still joins this one
            self._retired.append(pool)
            pool.shutdown(wait=False, cancel_futures=True)
        stop = getattr(self.inner, "interrupt", None)
        if stop is not None:
            stop()

    def _embed(self, texts: Any) -> Any:
        import numpy as np

        n = len(texts)
        if self.workers > 1 and self._plans:
            return self.inner.embed(texts, pool=self._the_pool())  # type: ignore[call-arg]
        turn = self._turn

        def call(part: Any) -> Any:
            # a piece that starts after interrupt() (its thread was still starting) embeds nothing
            if turn != self._turn:
                raise RuntimeError("the bulk embedding was interrupted")
            return self.inner.embed(part)

        if self.workers <= 1 or n <= PIECE:
            return self._the_pool().submit(call, texts).result()
        order = sorted(range(n), key=lambda i: len(texts[i]))
        pieces = [order[i:i + PIECE] for i in range(0, n, PIECE)]
        got = list(self._the_pool().map(lambda idx: call([texts[i] for i in idx]), pieces))
        out = np.empty((n, self.space.dim), dtype=np.float32)
        for idx, vecs in zip(pieces, got, strict=True):
            out[idx] = vecs
        return out

    def close(self) -> None:
        pools = [*self._retired, *([self._pool] if self._pool is not None else [])]
        self._pool, self._retired = None, []
        for pool in pools:
            pool.shutdown(wait=True, cancel_futures=True)


def load_bulk_embedder(store: Store, provider: str | None = None) -> BulkEmbedder:
    """The configured embedder (or ``provider``'s) for bulk runs, using :func:`bulk_threads`
    cores: in parallel pieces of one-thread sessions where the provider allows it, else as the
    provider's own thread count."""
    from mem.format.embed import choose
    from mem.format.index.space import store_embedder

    provider = provider or choose(store.config).provider
    threads = bulk_threads(store.config)
    nice = bulk_nice(store.config)
    if provider in DATA_PARALLEL:
        return BulkEmbedder(store_embedder(store, provider, threads=1), threads, nice)
    return BulkEmbedder(store_embedder(store, provider, threads=threads), 1, nice)


__all__ = [
    "BACKFILL_BUDGET_S",
    "BACKFILL_CHUNK",
    "BACKFILL_MAX",
    "BULK_NICE",
    "BacklogReport",
    "BulkEmbedder",
    "backfill",
    "bulk_nice",
    "bulk_threads",
    "embed_backlog",
    "load_bulk_embedder",
    "lower_thread_priority",
    "merge_delta",
    "missing_vectors",
    "open_for_embedding",
]
