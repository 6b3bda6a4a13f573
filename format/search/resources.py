"""What a searcher holds open across searches: the lexical index (refreshed), the vector index
(space-checked, backfilled), the embedding model, the worker pool, a long-lived searcher's
background upkeep of the index (format/index/follower.py); and the fusion setting it reads
from config.toml. ``Searcher``
(format/search/engine.py) builds on it."""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import (
    EmbedderUnavailableError,
    IndexUnavailableError,
    InvalidInputError,
    LockTimeoutError,
    MemError,
    ReadOnlyStoreError,
)
from mem.format.model.record import Record
from mem.format.store.store import RecordFilter, Store

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from mem.format.embed import Embedder
    from mem.format.index.follower import Follower
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex

#: The most records without a vector one search embeds (index/backlog.py: within about 100 ms
#: of embedding); the rest are searched by the lexical arm and counted in ``unembedded``.
BACKFILL_LIMIT: int | None = 32

#: What a search says when a writer held the store's lock too long for the index to be refreshed.
#: How long a search waits for another process's writer lock before it answers from the index as
#: it is (with LOCKED_WARNING): a search started while `mem import` writes thousands of records
#: waited for the whole writing phase (up to the lock timeout, 10 s), bench/README.md, issue 21.
READER_LOCK_WAIT = 0.5
LOCKED_WARNING = "the store is locked by a writer: the index was not refreshed; results may miss the latest changes"

def locked_warning(n: int) -> str:
    """What a search says when a writer kept it from refreshing the index, ``n`` records of its
    scopes not searchable until then (``staleness.unindexed``)."""
    return LOCKED_WARNING + (f" ({n} records not searchable yet)" if n else "")


def unindexed_warning(n: int) -> str:
    """What a search says of the ``n`` records its index does not hold yet because there were
    more to index than a search indexes (``derived.SEARCH_INDEX_LIMIT``)."""
    from mem.format.index.derived import SEARCH_INDEX_LIMIT

    return (f"{n} records are not searchable yet: a search indexes at most {SEARCH_INDEX_LIMIT} new records "
            "before it answers; run `mem embed` to index and embed them all now")


#: What a search of a store it cannot write says (spec/cli/search.md, "A read-only store").
READ_ONLY_WARNING = ("the store is read-only here: the index was not refreshed, and results come from it as it "
                     "is (changes since it was last updated may be missing or left out)")


class SearcherResources:
    """The indexes (and, once needed, the model) a searcher keeps open across searches."""

    def __init__(
        self,
        store: Store,
        *,
        embedder: str | Embedder | None = None,
        long_lived: bool = True,
        backfill_limit: int | None = BACKFILL_LIMIT,
        freeze_gc: bool = False,
    ) -> None:
        from mem.format.index.common import PointerCache
        from mem.format.index.derived import attach
        from mem.format.index.vfilter import ColumnSet

        if freeze_gc and not long_lived:
            raise InvalidInputError("freeze_gc is an option of a long-lived searcher: a one-shot searcher "
                                    "holds nothing for the collector to skip")
        self.store = store
        attach(store)
        self.long_lived = long_lived
        #: ``gc.freeze()`` what this searcher holds once warmed and again after each reload of
        #: its indexes (:meth:`_freeze_loaded`). Process-wide, so only a process that is a
        #: long-lived searcher asks for it (the MCP server, ``mem search --batch``): a full
        #: collection then walks only what was made since, not the loaded indexes and model
        #: (at 100k records it walked ~25.7k objects, 22-26 ms, while a search waited on the GIL)
        self.freeze_gc = freeze_gc
        self._frozen_at: tuple[int, ...] | None = None
        #: a long-lived searcher's upkeep of the index (new records, the periodic full scan), in a
        #: background thread (format/index/follower.py); used from the end of its first search
        self._follower: Follower | None = None
        self._following = False
        self._rounds_seen = 0  # the follower's rounds this searcher's reader has seen
        self._reload_failed = False
        #: the store's listener for this searcher (long-lived): it holds the searcher weakly, so
        #: that a store kept by its caller does not keep a searcher dropped unclosed (_follow)
        self._listener: Callable[[Sequence[Any]], None] | None = None
        if long_lived:  # this process's own writes: the next search sees them (Follower.wrote)
            me = weakref.ref(self)

            def wrote(changes: Sequence[Any]) -> None:
                searcher = me()
                if searcher is not None:
                    searcher._wrote(changes)

            self._listener = wrote
            store.listeners.append(wrote)
        self.backfill_limit = backfill_limit
        self._embedder_arg = embedder
        self._embedder: Embedder | None = None if isinstance(embedder, str) or embedder is None else embedder
        #: the embedder is loaded here (from the config), not given: it follows the index's space
        self._own_embedder = self._embedder is None
        #: the space the live vector index records, as last read (its embedder is loaded for it)
        self._recorded: Any = None
        self._embedder_error: EmbedderUnavailableError | None = None
        self._reranker: Any = None
        self._reranker_error: EmbedderUnavailableError | None = None
        self._lex: LexicalIndex | None = None
        self._vec: VectorIndex | None = None
        self._cache: dict[tuple[str, str], tuple[int, int, Record, str]] = {}
        self._unreadable: set[str] = set()  # record files a search could not read: "<path>: <why>"
        self._scopes_now: list[str] | None = None  # the scopes the last refresh listed (_lexical)
        #: records the last search's lexical index does not hold as they are, because another
        #: process held the writer lock (``_lexical``); 0 when it was refreshed
        self._unindexed = 0
        self._pointers = PointerCache()  # the index pointers, parsed again only when their bytes change
        self._columns = ColumnSet()  # _vector_masks: the state's columns of the scopes filtered so far
        self._idf: tuple[Any, dict[str, float]] = (None, {})
        self._records = str(store.records_dir)
        self._pool: ThreadPoolExecutor | None = None
        self._terms: dict[tuple[str, str], tuple[str, frozenset[str]]] = {}
        #: (scope, id): (digest, the query terms looked up in its document, those it contains)
        self._present: dict[tuple[str, str], tuple[str, frozenset[str], frozenset[str]]] = {}
        self._fields: dict[tuple[str, str], tuple[Record, tuple[Any, ...]]] = {}  # _state_fields
        #: wall-clock figures of the last search (bench/run.py reports them): total_ms and, when
        #: the query was embedded, after_embedding_ms (from the moment its vector was ready)
        self.last_timings: dict[str, float] = {}

    # -- resources ---------------------------------------------------------------------------

    def close(self) -> None:
        if self._follower is not None:
            self._follower.stop()
            self._follower = None
        self._following = False
        if self._listener is not None and self._listener in self.store.listeners:
            self.store.listeners.remove(self._listener)
        self._close_indexes()

    def _freeze_loaded(self) -> None:
        """With ``freeze_gc``, after a search: when the searcher (or its background upkeep) has
        loaded or reloaded something since the last freeze (an index, a generation, the model,
        a round that changed the index), collect and freeze what is alive now. The collection
        first, so that no cyclic garbage is frozen (it would never be freed); after the first
        freeze it walks only what was made since."""
        if not self.freeze_gc:
            return
        fol = self._follower
        key = (id(self._lex), id(self._vec), id(self._embedder), id(self._reranker), self._rounds_seen,
               -1 if fol is None else fol.opened)
        if key != self._frozen_at:
            import gc

            gc.collect()
            gc.freeze()
            self._frozen_at = key

    def _wrote(self, changes: Sequence[Any]) -> None:
        """A store listener: this process wrote through the searcher's store."""
        if self._follower is not None:
            self._follower.wrote()

    def _close_indexes(self) -> None:
        if self._lex is not None:
            self._lex.close()
            self._lex = None
        if self._vec is not None:
            self._vec.close()
            self._vec = None
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def _executor(self) -> ThreadPoolExecutor | None:
        """Two worker threads for the vector and hybrid arms (None on a one-core machine).

        The query is embedded while tantivy searches, and the vector arm searches scopes (or the
        halves of one big product) at once: onnxruntime and BLAS release the GIL.
        """
        if self._pool is None and (os.cpu_count() or 1) >= 2:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mem-search")
        return self._pool

    @contextlib.contextmanager
    def _first_build(self) -> Iterator[bool]:
        """Claim the building of the store's first lexical index (``.mem/first-build``) for the
        block: True (also where no claim can be made: a read-only ``.mem/``, a link, no ``flock``;
        it builds unclaimed, and no other search can wait for it). When another search holds the
        claim: False, once it has let it go (it built
        the index, or a writer kept it out), after at most the writer lock's timeout. A search
        indexes at most ``SEARCH_INDEX_LIMIT`` records, so the searches started with the one that
        builds answer from its index instead of with none (spec/index.md, "First build"); an
        import or a rebuild takes no claim, and a search still waits at most READER_LOCK_WAIT
        for its writer lock."""
        from mem.format.base.lock import Claim
        from mem.format.rules.layout import FIRST_BUILD_CLAIM

        try:
            claim = Claim(self.store.local_dir / FIRST_BUILD_CLAIM)
        except (MemError, OSError):  # no .mem/ can be made here: the build reports why
            yield True
            return
        if not claim.take():
            if claim.unclaimable:  # (read-only, a link, no flock): built unclaimed, as no one waits
                yield True
                return
            claim.wait_for_holder(self.store.lock.timeout)
            yield False
            return
        try:
            yield True
        finally:
            claim.release()

    def _lexical(self, warnings: list[str], scopes: Sequence[str] | None = None) -> LexicalIndex | None:
        """The lexical index, refreshed (of the scopes a search is confined to, when given).

        None when there is none and another process holds the writer lock (it may be building
        it): ``_unindexed`` then counts the records of ``scopes`` no search can find until an
        index holds them. When the lock keeps the refresh out, the index is used as it is and
        ``_unindexed`` counts the records it does not hold as they are."""
        from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
        from mem.format.index.derived import SEARCH_INDEX_LIMIT, refresh
        from mem.format.index.lexical import LexicalIndex, older_schema

        idx_dir = self.store.index_dir
        if self._following and self._follower is not None:
            # this process's own writes, made before this search: seen by it (a round covers them)
            self._follower.wait_for_writes()
        m = self._pointers.read(idx_dir, LEXICAL_POINTER, LEXICAL_KIND)
        self._unindexed = 0
        left = 0  # records a bounded refresh left unindexed (-1: not counted)
        if m is None or older_schema(m):
            with self._first_build() as mine:
                if not mine:  # another search built it (waited for): its index, if it made one
                    m = read_pointer(idx_dir, LEXICAL_POINTER, LEXICAL_KIND)
                if m is None or older_schema(m):
                    try:
                        with self.store.lock.waiting_at_most(READER_LOCK_WAIT):  # never wait on a writer
                            # builds it (anew, when an older mem built it); a store of more records
                            # than a search indexes gets an index of that many, the rest counted below
                            left = refresh(self.store, limit=SEARCH_INDEX_LIMIT).left
                        if left and scopes is not None:
                            left = -1  # (counted in every scope: this search's are counted below)
                    except LockTimeoutError:
                        # another process writes (an import's records, or it builds the index
                        # itself): no index to answer from, and none is built here; the caller
                        # says so
                        from mem.format.index.staleness import unindexed

                        self._unindexed = unindexed(self.store, None, scopes)
                        return None
                    except ReadOnlyStoreError as exc:
                        raise ReadOnlyStoreError(
                            f"the store is read-only here and has no search index this mem can use, so "
                            f"none can be built ({exc.message})", path=idx_dir,
                            hint="run `mem rebuild` where the store is writable, or search a writable copy") from None
                    m = read_pointer(idx_dir, LEXICAL_POINTER, LEXICAL_KIND)
                    if m is None or older_schema(m):
                        raise IndexUnavailableError("the lexical index could not be built", path=idx_dir)
        fol = self._follower
        following = self._following and fol is not None
        if self._lex is None or self._lex.generation != m["generation"]:
            if self._lex is not None:
                self._lex.close()
            self._lex = LexicalIndex.open(idx_dir)
        elif self._lex.manifest != m and not following:  # another writer changed it: see its commits
            self._lex.manifest = m
            self._lex.reload()
        assert self._lex is not None
        self._scopes_now = None
        if following:
            assert fol is not None
            # the background thread reloads the reader after its commits and hands over the
            # manifest when only it moved, or another process committed (Follower._hand_over)
            self._rounds_seen = fol.rounds
            if self._reload_failed:  # (its reload failed: this search tries again)
                self._reload_failed = False
                self._lex.manifest = m
                self._lex.reload()
            # a long-lived searcher: the background thread keeps the index current; this search
            # answers from what it has committed (reopened above when it changed)
            self._unreadable.update(fol.take_unreadable())
            if isinstance(fol.refused, LockTimeoutError):
                self._unindexed = fol.unindexed_in(scopes)
                warnings.append(locked_warning(self._unindexed))
            elif isinstance(fol.refused, ReadOnlyStoreError):
                warnings.append(READ_ONLY_WARNING)
            fol.poke()
            return self._lex
        try:
            # a long-lived searcher's periodic full scan runs in its background thread
            if not left:  # (the index just started has had this search's budget)
                with self.store.lock.waiting_at_most(READER_LOCK_WAIT):  # never wait on a writer
                    st = refresh(self.store, lex=self._lex, full=None, periodic=False, only=scopes,
                                 limit=SEARCH_INDEX_LIMIT)
                self._unreadable.update(st.unreadable)
                self._scopes_now = st.store_scopes  # what it listed: the scopes of a search of them all
                left = st.left
            if left:  # a backlog beyond the budget: counted, left to the next searches
                if left < 0:
                    from mem.format.index.staleness import unindexed

                    left = unindexed(self.store, self._lex, scopes)
                self._unindexed = left
                if self._unindexed:
                    warnings.append(unindexed_warning(self._unindexed))
        except LockTimeoutError:
            from mem.format.index.staleness import unindexed

            # what the writer has written that this search cannot index: counted, not read
            self._unindexed = unindexed(self.store, self._lex, scopes)
            warnings.append(locked_warning(self._unindexed))
        except ReadOnlyStoreError:
            warnings.append(READ_ONLY_WARNING)
        return self._lex

    def configured_space(self, recorded: Any = None) -> Any:
        """The space this searcher embeds queries in: its embedder's when one was given, else
        the configured one for a vector index that records ``recorded`` (format/index/space.py)."""
        from mem.format.embed import EmbedderChoice, choose, resolve_graph, space_of

        if self._embedder is not None and not self._own_embedder:
            return self._embedder.space
        if recorded is None:
            from mem.format.index.space import recorded_space

            recorded = recorded_space(self.store)
        ch = choose(self.store.config)
        provider = self._embedder_arg if isinstance(self._embedder_arg, str) else ch.provider
        return space_of(provider, resolve_graph(EmbedderChoice(provider, ch.threads, ch.graph), recorded))

    def embedder(self) -> Embedder:
        if self._embedder is None:
            if self._embedder_error is not None:
                raise self._embedder_error
            from mem.format.index.space import store_embedder

            try:
                quick = not self.long_lived  # one query or two: the model that answers one soonest
                provider = self._embedder_arg if isinstance(self._embedder_arg, str) else None
                self._embedder = store_embedder(self.store, provider, quick_start=quick, recorded=self._recorded)
            except EmbedderUnavailableError as exc:
                self._embedder_error = exc
                raise
        return self._embedder

    def _vectors(self, lex: LexicalIndex) -> VectorIndex:
        """The vector index, space-checked and backfilled. Raises when it cannot be used."""
        from mem.format.index.common import VECTORS_KIND, VECTORS_POINTER, read_pointer
        from mem.format.index.derived import backfill, create_empty_vectors
        from mem.format.index.vectors import VectorIndex

        idx_dir = self.store.index_dir
        m = self._pointers.read(idx_dir, VECTORS_POINTER, VECTORS_KIND)
        from mem.format.index.space import space_in

        self._recorded = space_in(m)
        want = self.configured_space(self._recorded)
        if self._own_embedder and self._embedder is not None and self._embedder.space != want:
            self._embedder = None  # the index was rebuilt in another space meanwhile: load its model
        if m is None:
            emb = self.embedder()
            try:
                create_empty_vectors(self.store, emb)
            except ReadOnlyStoreError:
                raise IndexUnavailableError(
                    "the store has no vector index and is read-only here, so none can be made",
                    path=idx_dir / VECTORS_POINTER, hint="run `mem rebuild` where the store is writable") from None
            m = read_pointer(idx_dir, VECTORS_POINTER, VECTORS_KIND)
            assert m is not None
        if self._vec is None or self._vec.generation != m["generation"]:
            if self._vec is not None:
                self._vec.close()
            self._vec = VectorIndex(idx_dir, m)
        vec = self._vec
        if vec.space != want:
            raise EmbedderUnavailableError(
                f"the vector index was built with {vec.space.describe()}, but the configured embedder "
                f"is {want.describe()}: vectors of two embedding spaces are never compared",
                path=idx_dir / VECTORS_POINTER,
                hint="run `mem rebuild --vectors` to re-embed with the configured model",
            )
        fol = self._follower
        if self._following and fol is not None and fol.left is not None:
            self._backfill_left = fol.left  # the background thread embeds new records
            return vec
        # within a budget (a search never waits on a backlog); None: all of it, unbudgeted
        budget = {} if self.backfill_limit is not None else {"budget_s": None}
        try:
            _done, left = backfill(self.store, lex, vec, self.embedder(), limit=self.backfill_limit, **budget)
        except (ReadOnlyStoreError, LockTimeoutError):
            # nothing can be written (read-only, or another process holds the writer lock): the
            # vectors as they are (the chunks stored before the lock was refused count)
            from mem.format.index.backlog import missing_vectors

            left = len(missing_vectors(lex, vec))
        self._backfill_left = left
        return vec

    def _follow(self) -> Follower:
        """The background upkeep of this long-lived searcher's index, made at its first search
        and started once a search has brought the index up to date (:meth:`_followed`): a round
        running beside the first search took the writer lock it needs (the first build, the
        vector index, the backfill) for longer than a search waits (READER_LOCK_WAIT) under
        load, and that search answered with 'locked by a writer'."""
        if self._follower is None:
            from mem.format.index.follower import Follower, full_scan_period

            # the thread holds the searcher weakly: a searcher dropped unclosed is collected, and
            # its thread is then asked to end (else it would hold the searcher and run forever)
            me = weakref.ref(self)

            def embedder() -> Embedder | None:
                searcher = me()
                return None if searcher is None else searcher._embedder

            def changed() -> None:
                searcher = me()
                if searcher is not None:
                    searcher._reload()

            fol = Follower(self.store.root, full_scan_period(self.store), embedder=embedder, changed=changed)
            weakref.finalize(self, fol.stop_soon)
            self._follower = fol
        return self._follower

    def catch_up(self) -> None:
        """A long-lived searcher: wait until its background upkeep has brought the index up to
        date with every change on disk now, every record embedded (the next search answers
        from it). Searches never
        wait for it; a caller that must see a change made by another process calls this first.
        A one-shot searcher's every search does this itself."""
        if self._follower is not None:
            self._follower.sync()

    def _reload(self) -> None:
        """On the follower's thread, once it has committed a change: the searches' lexical reader
        reloaded there (tantivy opens the new segments; a reader's reload is atomic) and warmed
        with the last search (``LexicalIndex.reload``), so that a search only takes the new
        searcher; the manifest on disk is taken with it (the commit's, or one that changed alone,
        as a full scan's end writes), so that the next search does not see it as another
        writer's change and reload on its own path. A failure leaves the reload to the next
        search."""
        from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER

        lex = self._lex
        try:
            if lex is not None:
                m = self._pointers.read(self.store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
                lex.reload(warm=True)
                if m is not None and m.get("generation") == lex.generation:
                    lex.manifest = m  # (after the reload: one that failed leaves it to a search)
        except MemError:
            self._reload_failed = True

    def _followed(self) -> None:
        """The first search of a long-lived searcher is done: its background thread starts, and
        the next searches leave the upkeep of the index to it."""
        if self._follower is not None:
            self._follower.start()  # (once: start() does nothing when the thread runs)
        self._following = self._follower is not None

    def _generations(self) -> tuple[str | None, str | None]:
        """The generations the lexical and vector pointer files name right now (None: unreadable)."""
        from mem.format.index.common import LEXICAL_POINTER, VECTORS_POINTER

        idx = self.store.index_dir
        return self._pointers.generation(idx, LEXICAL_POINTER), self._pointers.generation(idx, VECTORS_POINTER)

    def _vector_masks(self, lex: LexicalIndex, vec: VectorIndex, scopes: Sequence[str], flt: RecordFilter,
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Per scope, the main and the delta vector rows ``flt`` may accept (``index.vfilter``):
        the main rows' from the state's columns kept by a long-lived searcher (``ColumnSet``), or
        selected by SQLite for a one-shot search alone (``direct_keep``); the delta rows' from
        their state rows (``delta_keep``)."""
        from mem.format.index.vfilter import delta_keep, direct_keep

        if self.long_lived:
            self._columns.sync(lex, vec)
        keep: dict[str, Any] = {}
        deltas: dict[str, Any] = {}
        for scope in scopes:
            if vec.exact_rows(scope, self.long_lived):
                keep[scope] = (self._columns.keep(lex, vec, scope, flt) if self.long_lived
                               else direct_keep(lex, vec, scope, flt))
            ids = vec.delta_ids(scope)
            if ids:
                deltas[scope] = delta_keep(lex, scope, ids, flt)
        return keep, deltas

    # -- settings ---------------------------------------------------------------------------

    def _fusion(self) -> tuple[str, float]:
        """``[search] fusion`` and ``vector_weight``."""
        conf = self.store.config
        return str(conf.value("search", "fusion")), float(conf.value("search", "vector_weight"))
