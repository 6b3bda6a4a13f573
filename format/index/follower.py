"""The background work of a long-lived searcher: picking up new records, and the periodic full scan.

A long-lived :class:`~mem.format.search.engine.Searcher` (``open_searcher``, ``mem search
--batch``, the MCP server) answers every search from the index as it is and leaves the index's
upkeep to this thread (spec/index.md, "A long-lived searcher"): applying the write journal of
mem's writes (a tantivy commit), indexing changed scopes, embedding the new records within the
search budget (``backlog.backfill``) and, for stores of more than ``FULL_SCAN_MAX_DOCS``
records, the full stat scan once per ``[search] full_scan_seconds``. Done by a search, that work
made the search that first saw a new record 10-70x slower than the others (bench/README.md,
"The long-lived searcher off the search path"). The searches see the new state once a round
has committed it (they reopen what changed); meanwhile they answer from the previous one.

The thread has its own :class:`Store` (its own writer lock: the lock's depth count is per
object, not per thread) and its own index objects, as another process would. A round runs when
a search or a write of the searcher's process pokes it, and at least every ``POLL_S``. A scope
folder that changed with no write journal is left for ``SETTLE_S`` first: mem's own writes
journal their record right after writing it (the journal names it, and no listing is needed),
so only a change made outside mem is listed. The full scan yields to searches: every
``PAUSE_EVERY`` files it waits while a search is running, at most ``MAX_YIELD_S`` at a time;
there, at most every ``CATCH_UP_S``, it also indexes the writes made since it started
(``_catch_up``), which would otherwise wait for its end (25 s at 100k records under a stream of
searches).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import LockTimeoutError, MemError, ReadOnlyStoreError

if TYPE_CHECKING:
    from mem.format.embed import Embedder
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.staleness import UnindexedCount
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import Store

#: How long the full scan waits, at most, for a search to finish before it goes on with its next
#: files (searches back to back must not starve it: with 2 s, a scan of 100k files outlasted a
#: 10-minute run of searches; bench/README.md). With ``PAUSE_EVERY`` 64 files, a scan of 100k
#: under searches back to back lasts about as long as with 256 files and 50 ms (26-28 s
#: against 24-25 s).
MAX_YIELD_S = 0.0125
#: A round runs at least this often (seconds), poked or not: changes made by other processes
#: are seen within about this long.
POLL_S = 0.25
#: Rounds start at most this often (seconds): a stream of searches pokes the thread at each.
MIN_GAP_S = 0.02
#: A changed scope folder with no journal is listed only once it has stayed changed this long
#: (seconds); see the module text.
SETTLE_S = 0.5
#: During a full scan, the writes made meanwhile are indexed between its chunks at most this
#: often (seconds), and the catch-up waits at most this long for the writer lock (else it is left
#: to the next chunk): yielding to searches, a scan of 100k files lasted 25 s, and each write
#: made meanwhile waited for its end (bench/README.md, "Issue 21, the ninth session").
CATCH_UP_S = POLL_S
CATCH_UP_LOCK_WAIT_S = 0.05

#: The followers whose thread runs, by thread (``running``): added as a thread starts, removed by
#: the thread as it ends. A searcher not closed keeps its thread running while it is referenced.
_RUNNING: dict[threading.Thread, Follower] = {}
_RUNNING_LOCK = threading.Lock()


class _Stopped(Exception):
    """The searcher closed: the scan in progress is abandoned (it has written nothing yet)."""


class Follower:
    """Keeps the index of the store at ``root`` current for a long-lived searcher, off its
    search path. ``embedder``: the searcher's embedder once it has one (None: no vector is
    embedded here, the searcher has not needed one yet). ``every``: the full scan's period.
    ``changed``: see ``_changed``."""

    def __init__(self, root: Path, every: float, embedder: Callable[[], Embedder | None] | None = None,
                 changed: Callable[[], None] | None = None) -> None:
        self.root = root
        #: called on this thread after a round changed the lexical index, before ``rounds`` counts
        #: it, and after a round that changed only its manifest: the searcher reloads its reader
        #: and takes the manifest here, off its search path
        self._changed = changed or (lambda: None)
        self.every = every
        self._embedder = embedder or (lambda: None)
        self.scans = 0  # full scans done (tests and bench read it)
        self.trims = 0  # rounds after which the C heap's free pages were given back (_release_memory)
        #: rounds that changed the lexical index: a search that sees this change reloads its
        #: reader (the manifest may not change: an edit in place keeps the scope folder's mtime)
        self.rounds = 0
        #: indexes this thread opened (a new generation, or after an error): a searcher that
        #: freezes what it holds (``freeze_gc``) freezes again once this changes
        self.opened = 0
        self.last_error: str | None = None
        #: what the last round left for the searches to say: records still without a vector
        #: (None: not counted yet), and the refusal that kept it from updating the index
        self.left: int | None = None
        self.refused: MemError | None = None
        #: while ``refused`` is a lock timeout: the records per scope the index does not hold as
        #: they are on disk (``staleness.unindexed_by_scope``), counted once per refused round
        self.unindexed: dict[str, int] = {}
        self._count: UnindexedCount | None = None  # (made at the first refused round)
        self._unreadable: set[str] = set()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._cond = threading.Condition()
        self._searches = 0
        self._asked = 0  # writes of the searcher's process the rounds are asked to cover
        self._covered = 0  # ... and those a finished round covered
        self._thread: threading.Thread | None = None
        self._store: Store | None = None
        self._lex: LexicalIndex | None = None
        self._vec: VectorIndex | None = None
        self._changed_since: float | None = None
        self._handed: dict[str, Any] | None = None  # the manifest as of the last round's end
        self._drain = False  # the next round embeds every record without a vector (sync)
        self._whole_asked = 0  # the last ask of ``sync``: only a whole round covers it
        self._seq_handed: int | None = None  # the index's last sequence number handed over
        self._small_scan = 0.0  # when this thread last scanned a small store in full
        self._caught_up = 0.0  # when a full scan last indexed the writes made meanwhile
        self._poked = False  # whether the round in progress was asked for (a search, a write)
        self.catch_ups = 0  # catch-ups made during full scans that changed the index (tests)

    # -- the searcher's side ----------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            from mem.format.index.backlog import bound_c_heap

            # glibc's mmap threshold kept at its default: else, once a large block is freed, the
            # large blocks of this thread's work come from its heap and stay there (as in bulk runs)
            bound_c_heap()
            thread = threading.Thread(target=self._run, name="mem-follow", daemon=True)
            with _RUNNING_LOCK:
                _RUNNING[thread] = self
            self._thread = thread
            try:
                thread.start()
            except BaseException:  # (no thread could be started: nothing runs)
                self._thread = None
                with _RUNNING_LOCK:
                    _RUNNING.pop(thread, None)
                raise

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def stop_soon(self) -> None:
        """Ask the thread to end, without waiting for it: the searcher was collected unclosed
        (a finalizer, which may run on any thread, this one's among them)."""
        self._stop.set()
        self._wake.set()

    def poke(self) -> None:
        """Run a round soon (a search ran, or something may have changed)."""
        self._wake.set()

    def wrote(self) -> None:
        """The searcher's own process wrote: the next search waits for a round that saw it
        (:meth:`wait_for_writes`), so a process sees its own writes."""
        self._ask(whole=False)

    def _ask(self, whole: bool) -> None:
        """Ask the rounds to cover one more write (``whole``: only a round run to its end covers
        it, not a catch-up between a full scan's chunks)."""
        with self._cond:
            self._asked += 1
            if whole:
                self._whole_asked = self._asked
        self._wake.set()

    def sync(self) -> None:
        """Run a full round now and wait for it: every change on disk when called is then in the
        index (a change made outside mem included, with no ``SETTLE_S`` wait; a small store is
        scanned in full), and every record has its vector (no budget: a backlog of thousands
        takes as long as `mem embed` would)."""
        self._drain = True
        self._ask(whole=True)
        self.wait_for_writes()

    def wait_for_writes(self) -> None:
        """Wait until a round has covered every write this process reported before the call."""
        with self._cond:
            target = self._asked
            while self._covered < target and self._thread is not None and not self._stop.is_set():
                self._wake.set()
                self._cond.wait(0.5)

    def unindexed_in(self, scopes: Sequence[str] | None) -> int:
        """Of the records the last refused round counted (``unindexed``), those of ``scopes``
        (None: every scope)."""
        counts = self.unindexed
        return sum(counts.values()) if scopes is None else sum(counts.get(s, 0) for s in set(scopes))

    def take_unreadable(self) -> list[str]:
        """Record files the rounds could not read since the last call (a search reports them)."""
        with self._cond:
            out = sorted(self._unreadable)
            self._unreadable.clear()
        return out

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        """Held by each search: the full scan waits while any is running."""
        with self._cond:
            self._searches += 1
        try:
            yield
        finally:
            with self._cond:
                self._searches -= 1
                if not self._searches:
                    self._cond.notify_all()

    # -- the thread -------------------------------------------------------------------------

    def _pause(self) -> None:
        """Between two chunks of a full scan: wait while a search runs (at most MAX_YIELD_S),
        then index the writes made since the scan started (``_catch_up``)."""
        deadline = time.monotonic() + MAX_YIELD_S
        with self._cond:
            while self._searches and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        if self._stop.is_set():
            raise _Stopped
        self._catch_up()

    def _catch_up(self) -> None:
        """During a full scan, at most every CATCH_UP_S: what a round without a scan would do
        now (the write journal, changed scopes, new vectors within the search budget), so that a
        write made during the scan is searchable without waiting for its end, and a search
        waiting for its own process's write (``wait_for_writes``) is released (not a ``sync``:
        it asked for the whole round, a change made outside mem included). The scan goes on
        from where it was: what it finds that was indexed meanwhile is looked at again under the
        writer lock and found current (``staleness._recheck``). Skipped while another process
        holds the writer lock (the scan's end tries again)."""
        now = time.monotonic()
        store, lex = self._store, self._lex
        if now - self._caught_up < CATCH_UP_S or store is None or lex is None:
            return
        self._caught_up = now
        with self._cond:
            target = self._asked
        asked = target > self._covered
        if not (asked or self._due(store, lex)):
            return
        try:
            with store.lock.waiting_at_most(CATCH_UP_LOCK_WAIT_S):
                changed = self._index(store, lex, full=False)
                self.catch_ups += changed
                if changed or asked or self._poked:
                    self._backfill(store, lex, False)
        except (LockTimeoutError, ReadOnlyStoreError):
            return
        with self._cond:
            if self._whole_asked > self._covered:  # a sync waits for the scan's end, not this
                target = min(target, self._whole_asked - 1)
            self._covered = max(self._covered, target)
            self._cond.notify_all()

    def _index(self, store: Store, lex: LexicalIndex, full: bool) -> bool:
        """Bring the lexical index up to date (``derived.refresh``; a full scan when ``full``), and
        hand a commit over to the searcher; True when the index changed."""
        from mem.format.index.derived import FULL_SCAN_MAX_DOCS, refresh

        # what the searcher was last handed: a catch-up during a full scan hands over the
        # journal the scan's round applied before its scan, as well as its own commits
        before = lex.max_seq() if self._seq_handed is None else self._seq_handed
        st = refresh(store, lex=lex, full=full, pause=self._pause if full else None)
        if full and int(lex.manifest.get("docs", 0)) > FULL_SCAN_MAX_DOCS:
            self.scans += 1
        if st.unreadable:
            with self._cond:
                self._unreadable.update(st.unreadable)
        if lex.max_seq() == before:
            return False
        self._hand_over(lex, committed=True)
        self.rounds += 1  # the searches see it (Searcher._lexical)
        return True

    def _open(self) -> tuple[Store, LexicalIndex | None]:
        """This thread's store and lexical index (reopened when another generation is swapped in)."""
        from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
        from mem.format.index.lexical import LexicalIndex, older_schema
        from mem.format.store.store import Store

        if self._store is None:
            self._store = Store.open(self.root)
        m = read_pointer(self._store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is None or older_schema(m):
            self._close_indexes()
            return self._store, None  # the searches build it (the first one did)
        if self._lex is None or self._lex.generation != m["generation"]:
            self._close_indexes()
            self._lex = LexicalIndex.open(self._store.index_dir)
            self._seq_handed = None
            self.opened += 1
        elif self._lex.manifest != m:
            self._lex.manifest = m
            self._lex.reload()
        return self._store, self._lex

    def _close_indexes(self) -> None:
        for x in (self._lex, self._vec):
            if x is not None:
                x.close()
        self._lex = self._vec = None

    def _due(self, store: Store, lex: LexicalIndex) -> bool:
        """Whether a refresh has work: the write journal, or a scope folder that changed with no
        journal and has stayed so SETTLE_S while no other process held the writer lock. A mem
        write holds the lock from its record file to its log line, and journals the record right
        after: a folder listed before that (under load it took over SETTLE_S) showed the record
        journaled and indexed by the listing's end. Not when nothing changed: the refresh would
        find nothing, and a write made between its look at the journal and its look at the
        folders had it list the whole scope for nothing (33k files, a second; bench/README.md,
        "Issue 21, the ninth session")."""
        from mem.format.index.lexread import PENDING_FILE
        from mem.format.index.staleness import _scope_dirs

        if (store.index_dir / PENDING_FILE).exists():
            self._changed_since = None
            return True
        if _scope_dirs(store) == lex.scope_mtimes():
            self._changed_since = None
            return False
        now = time.monotonic()
        if self._changed_since is None:
            self._changed_since = now
        if now - self._changed_since < SETTLE_S:
            return False
        try:
            with store.lock.waiting_at_most(0), store.lock:
                pass
        except LockTimeoutError:
            return False
        return True

    def _full_due(self, store: Store, lex: LexicalIndex, asked: bool) -> bool:
        """Whether this round stats every file: a big store's periodic scan when due; a small
        store's (whose every search used to scan it) at most once per POLL_S, or when asked."""
        from mem.format.index.derived import FULL_SCAN_MAX_DOCS, _auto_full

        if int(lex.manifest.get("docs", 0)) > FULL_SCAN_MAX_DOCS:
            return _auto_full(store, lex)
        now = time.monotonic()
        if asked or now - self._small_scan >= POLL_S:
            self._small_scan = now
            return True
        return False

    def round(self, poked: bool = True) -> None:
        """One round of upkeep: the journal, changed scopes, a due full scan, and (when a search
        or a write asked for the round: ``poked``) new vectors within the search budget, as a
        search embedded them before (an idle searcher does not embed a backlog)."""
        with self._cond:
            target = self._asked
            drain, self._drain = self._drain, False
        asked = target > self._covered
        self._poked = poked
        counted = (self.scans, self.rounds)
        try:
            store, lex = self._open()
            if lex is not None:
                self._hand_over(lex)  # (before the refresh, which a writer's lock may refuse)
                full = self._full_due(store, lex, asked)
                if full or asked or self._due(store, lex):
                    self._index(store, lex, full)
                self._hand_over(lex)
                if poked or asked:
                    self._backfill(store, lex, drain)
                if (self.scans, self.rounds) != counted:
                    self._release_memory()
            self.refused = None
            self.unindexed = {}
        except (LockTimeoutError, ReadOnlyStoreError) as exc:
            if isinstance(exc, LockTimeoutError) and self._lex is not None and self._store is not None:
                # counted here, once a round, so that each search only adds up its scopes'
                # (a scope whose folder did not change since the last refused round keeps its count)
                if self._count is None:
                    from mem.format.index.staleness import UnindexedCount

                    self._count = UnindexedCount()
                self.unindexed = self._count(self._store, self._lex)
            self.refused = exc
        finally:
            with self._cond:
                self._covered = max(self._covered, target)
                self._cond.notify_all()

    def _hand_over(self, lex: LexicalIndex, committed: bool = False) -> None:
        """After this thread's commit (``committed``), or when the index's manifest moved with
        none (the full scan's time, written as the scan ends; another process's commit, read by
        ``_open``): the searcher takes the index as it is now (``changed``), its reader reloaded
        and warmed, not on a search's path. The searches of a long-lived searcher do not look at
        the manifest themselves: a search that did reloaded the reader on its own path, 4-8x a
        search's median at 100k records (bench/README.md, "Issue 21, the eighth session")."""
        if committed or (self._handed is not None and lex.manifest != self._handed):
            self._changed()
            self._seq_handed = lex.max_seq()
        elif self._seq_handed is None:
            self._seq_handed = lex.max_seq()
        self._handed = dict(lex.manifest)

    def _release_memory(self) -> None:
        """After a round that changed the index or ran a full scan: the C heap's free pages back
        to the system. What this thread and tantivy's threads free (records read, a commit's
        buffers, the model's activations for the new records) stays in glibc's per-thread heaps
        otherwise, and a long-lived searcher grows with every round of writes (bench/README.md,
        "Issue 21, the seventh session"). ``trims`` counts the calls (tests)."""
        from mem.format.index import backlog

        self.trims += 1
        backlog.release_free_memory()

    def _backfill(self, store: Store, lex: LexicalIndex, drain: bool) -> None:
        """Embed new records within the search budget, when the searcher has an embedder and the
        vector index is of its space (else the searches say why)."""
        from mem.format.index.common import VECTORS_KIND, VECTORS_POINTER, read_pointer
        from mem.format.index.derived import backfill
        from mem.format.index.vectors import VectorIndex

        emb = self._embedder()
        if emb is None:
            return
        m = read_pointer(store.index_dir, VECTORS_POINTER, VECTORS_KIND)
        if m is None:
            return
        if self._vec is None or self._vec.generation != m["generation"]:
            if self._vec is not None:
                self._vec.close()
            self._vec = VectorIndex(store.index_dir, m)
            self.opened += 1
        if self._vec.space != emb.space:
            return
        budget: dict[str, Any] = {"limit": None, "budget_s": None} if drain else {}
        _done, self.left = backfill(store, lex, self._vec, emb, **budget)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                poked = self._wake.wait(POLL_S)
                self._wake.clear()
                if self._stop.is_set():
                    return
                try:
                    self.round(poked)
                except _Stopped:
                    return
                except (MemError, OSError) as exc:  # a damaged index: the searches say so
                    self.last_error = str(exc)
                    self._close_indexes()
                    self._stop.wait(min(max(self.every, 0.05), 5.0))
                except Exception as exc:  # never let the thread die silently
                    self.last_error = f"{type(exc).__name__}: {exc}"
                    self._close_indexes()
                    self._stop.wait(5.0)
                self._stop.wait(MIN_GAP_S)
        finally:
            try:
                self._close_indexes()
                with self._cond:
                    self._cond.notify_all()
            finally:
                with _RUNNING_LOCK:
                    _RUNNING.pop(threading.current_thread(), None)


def running() -> list[tuple[threading.Thread, Follower]]:
    """The background threads of long-lived searchers running now in this process, each with its
    follower (``root``: the store): a searcher's ``close`` ends its thread, and so does its
    collection (``stop_soon``); one still referenced and never closed runs on (tests/conftest.py
    fails a test that leaves one)."""
    with _RUNNING_LOCK:
        return list(_RUNNING.items())


def full_scan_period(store: Store) -> float:
    """``[search] full_scan_seconds`` of the store's config."""
    return float(store.config.value("search", "full_scan_seconds"))


__all__ = ["Follower", "full_scan_period", "running"]
