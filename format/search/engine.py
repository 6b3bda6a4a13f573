"""Search over a store: lexical (tantivy BM25), vector (embeddings) and hybrid (fused).

The long-lived API (the MCP server and agents use it; start-up is paid once)::

    from mem.format.search.engine import open_searcher
    s = open_searcher("/path/to/store")            # or a Store; embedder: configured one
    res = s.search("where does Ana live", scopes=["user-ana"], k=5)
    for h in res.hits: print(h.id, h.score, h.arms, h.content)
    res.warnings   # e.g. vector arm refused (embedding space differs) -> lexical only
    res.mode       # the mode actually used ("hybrid", "lexical" or "vector")

Guarantees: every hit is re-checked against the records before it is returned (the file
exists, its id is not tombstoned, it passes the scope/kind/status/tag/time filters; the content
is the file's). Candidates are ranked from what the lexical index's state says of them, so only
the hits are read; a hit whose file disagrees with what ranked it is re-indexed and the search
runs again. Scope is enforced inside both index queries too. Lexical mode never imports
numpy, usearch or the embedding model. Filter semantics are those of
:class:`mem.format.store.store.RecordFilter` (statuses default to active + candidate).

Scores: ``score = base * prior``. For hybrid with convex fusion (the default) ``base`` is a
calibrated relevance, ``relevance.sigmoid(relevance.first_z(b))`` (:mod:`mem.format.search.relevance`),
of the convex evidence ``b``; ``search(rerank=True)`` rescores the best hits with the second
stage (:mod:`mem.format.search.rerank`), ``min_score`` leaves out hits scored below it. ``b`` is a convex combination
``w * cosine + (1 - w) * coverage ** 2`` (``w`` = ``[search] vector_weight``, default 0.6;
``coverage`` = the idf-weighted fraction of the query's terms the record contains, see
:mod:`mem.format.index.terms`; a candidate found by one arm gets its real value for the other)
or, with ``[search] fusion = "rrf"``, reciprocal-rank fusion (sum over arms of 1/(60 + rank));
BM25 for lexical; cosine similarity for vector. Both arms contribute ``max(4k, 40)`` candidates
to hybrid and vector searches (``max(2k, 20)`` for lexical). ``prior`` multiplies status
(active 1.0, candidate 0.85, superseded 0.7, rejected 0.5), confidence (0.75 + 0.25 * c) and
recency (1 + 0.1 * 0.5 ** (age_days / 180)).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import (
    EmbedderUnavailableError,
    IndexUnavailableError,
    InvalidInputError,
    LockTimeoutError,
    MemError,
    ReadOnlyStoreError,
    RecordParseError,
)
from mem.format.model.record import Record
from mem.format.rules import ids
from mem.format.rules.ranking import STATUS_PRIOR as STATUS_PRIOR
from mem.format.rules.ranking import prior_ms, prior_of
from mem.format.store.store import RecordFilter, Store

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    from mem.format.embed import Embedder
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex

MODES: tuple[str, ...] = ("hybrid", "lexical", "vector")
RRF_K = 60
from mem.format.search.relevance import VECTOR_WEIGHT as VECTOR_WEIGHT  # noqa: E402  (fitted: mem.format.search.relevance)

MAX_K = 1000
#: The most records without a vector one search embeds (index/backlog.py: within about 100 ms
#: of embedding); the rest are searched by the lexical arm and counted in ``unembedded``.
BACKFILL_LIMIT: int | None = 32
#: How many times a search runs again when a concurrent swap replaced the index it was reading.
SWAP_RETRIES = 5


#: What a search of a store it cannot write says (spec/cli/search.md, "A read-only store").
READ_ONLY_WARNING = ("the store is read-only here: the index was not refreshed, and results come from it as it "
                     "is (changes since it was last updated may be missing or left out)")


@dataclass
class Hit:
    id: str
    score: float
    scope: str
    kind: str
    status: str
    content: str
    arms: list[str]
    record: Record
    explain: dict[str, Any] | None = None
    #: the log-odds of relevance behind a calibrated score (hybrid, convex fusion), else None
    z: float | None = None
    #: the prior the score was multiplied by (None: not known)
    prior: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "score": round(self.score, 6),
            "scope": self.scope,
            "kind": self.kind,
            "status": self.status,
            "content": self.content,
            "arms": list(self.arms),
        }
        if self.explain is not None:
            d["explain"] = self.explain
        return d


@dataclass
class SearchResult:
    hits: list[Hit]
    warnings: list[str] = field(default_factory=list)
    mode: str = "hybrid"
    #: records without a vector yet (a backlog larger than a search's catch-up budget): the
    #: vector arm cannot find them, the lexical arm can; in ``to_dict`` only when there are some
    unembedded: int = 0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode, "hits": [h.to_dict() for h in self.hits],
                             "warnings": list(self.warnings)}
        if self.unembedded:
            d["unembedded"] = self.unembedded
        return d


def prior(rec: Record, at: _dt.datetime) -> tuple[float, dict[str, float]]:
    """status x confidence x recency, and its parts (``rules.ranking.prior_of``, which the one-shot path calls too)."""
    return prior_of(rec.status, rec.confidence, rec.recorded_at, at)


class Searcher:
    """Keeps the indexes (and, once needed, the model) open across searches."""

    def __init__(
        self,
        store: Store,
        *,
        embedder: str | Embedder | None = None,
        long_lived: bool = True,
        backfill_limit: int | None = BACKFILL_LIMIT,
    ) -> None:
        from mem.format.index.common import PointerCache
        from mem.format.index.derived import attach
        from mem.format.index.vfilter import ColumnSet

        self.store = store
        attach(store)
        self.long_lived = long_lived
        #: a long-lived searcher's periodic full scan, in a background thread (format/index/fullscan.py)
        self._scanner: Any = None
        self.backfill_limit = backfill_limit
        self._embedder_arg = embedder
        self._embedder: Embedder | None = None if isinstance(embedder, str) or embedder is None else embedder
        self._embedder_error: EmbedderUnavailableError | None = None
        self._reranker: Any = None
        self._reranker_error: EmbedderUnavailableError | None = None
        self._lex: LexicalIndex | None = None
        self._vec: VectorIndex | None = None
        self._cache: dict[tuple[str, str], tuple[int, int, Record, str]] = {}
        self._unreadable: set[str] = set()  # record files a search could not read: "<path>: <why>"
        self._scopes_now: list[str] | None = None  # the scopes the last refresh listed (_lexical)
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
        if self._scanner is not None:
            self._scanner.stop()
            self._scanner = None
        self._close_indexes()

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

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lexical(self, warnings: list[str], scopes: Sequence[str] | None = None) -> LexicalIndex:
        """The lexical index, refreshed (of the scopes a search is confined to, when given)."""
        from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
        from mem.format.index.derived import refresh
        from mem.format.index.lexical import LexicalIndex, older_schema

        idx_dir = self.store.index_dir
        m = self._pointers.read(idx_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is None or older_schema(m):
            try:
                refresh(self.store)  # builds it (anew, when an older mem built it)
            except ReadOnlyStoreError as exc:
                raise ReadOnlyStoreError(
                    f"the store is read-only here and has no search index this mem can use, so none can be "
                    f"built ({exc.message})", path=idx_dir,
                    hint="run `mem rebuild` where the store is writable, or search a writable copy") from None
            m = read_pointer(idx_dir, LEXICAL_POINTER, LEXICAL_KIND)
            if m is None or older_schema(m):
                raise IndexUnavailableError("the lexical index could not be built", path=idx_dir)
        if self._lex is None or self._lex.generation != m["generation"]:
            if self._lex is not None:
                self._lex.close()
            self._lex = LexicalIndex.open(idx_dir)
        elif self._lex.manifest != m:  # another writer changed it: see its commits
            self._lex.manifest = m
            self._lex.reload()
        assert self._lex is not None
        self._scopes_now = None
        try:
            # a long-lived searcher's periodic full scan runs in its background thread
            st = refresh(self.store, lex=self._lex, full=None, periodic=False, only=scopes)
            self._unreadable.update(st.unreadable)
            self._scopes_now = st.store_scopes  # what it listed: the scopes of a search of them all
        except LockTimeoutError:
            warnings.append("the store is locked by a writer: the index was not refreshed; results may miss the latest changes")
        except ReadOnlyStoreError:
            warnings.append(READ_ONLY_WARNING)
        return self._lex

    def configured_space(self) -> Any:
        from mem.format.embed import configured_space

        if self._embedder is not None:
            return self._embedder.space
        if isinstance(self._embedder_arg, str):
            from mem.format.embed import space_of

            return space_of(self._embedder_arg)
        return configured_space(self.store.config)

    def embedder(self) -> Embedder:
        if self._embedder is None:
            if self._embedder_error is not None:
                raise self._embedder_error
            from mem.format.embed import choose, load_embedder

            try:
                quick = not self.long_lived  # one query or two: the model that answers one soonest
                if isinstance(self._embedder_arg, str):
                    self._embedder = load_embedder(self._embedder_arg, threads=choose(self.store.config).threads,
                                                   quick_start=quick)
                else:
                    self._embedder = load_embedder(config=self.store.config, quick_start=quick)
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
        want = self.configured_space()
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
        # within a budget (a search never waits on a backlog); None: all of it, unbudgeted
        budget = {} if self.backfill_limit is not None else {"budget_s": None}
        try:
            _done, left = backfill(self.store, lex, vec, self.embedder(), limit=self.backfill_limit, **budget)
        except ReadOnlyStoreError:  # nothing can be written: the vectors as they are
            from mem.format.index.backlog import missing_vectors

            left = len(missing_vectors(lex, vec))
        self._backfill_left = left
        return vec

    # -- records ----------------------------------------------------------------------------

    def _record(self, scope: str, rid: str, tomb: dict[str, Any] | None = None) -> Record | None:
        """The live record (scope, id) from its file, or None (gone, forgotten, unreadable)."""
        got = self._record_digest(scope, rid, tomb)
        return None if got is None else got[0]

    def _state_fields(self, key: tuple[str, str], rec: Record) -> tuple[Any, ...]:
        """What the lexical state would keep of ``rec`` (a ``DocMeta`` without the file's mtime
        and size), computed once per record read (``_cache``)."""
        from mem.format.index.lexical import DocMeta

        got = self._fields.get(key)
        if got is None or got[0] is not rec:
            if len(self._fields) > 50_000:
                self._fields.clear()
            got = self._fields[key] = (rec, DocMeta.fields_of(rec))
        return got[1]

    def _record_digest(self, scope: str, rid: str,
                       tomb: dict[str, Any] | None = None) -> tuple[Record, str] | None:
        """``_record`` with the record's content digest (cached with it)."""
        if self._forgotten(scope, rid, tomb) if tomb is not None else self.store.is_forgotten(scope, rid):
            return None
        path = os.path.join(self._records, scope, rid + ".md")
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        key = (scope, rid)
        hit = self._cache.get(key)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2], hit[3]
        from mem.format.model.record import read_record_file

        try:
            rec, _ = read_record_file(Path(path))
        except FileNotFoundError:
            return None
        except RecordParseError as exc:
            self._unreadable.add(str(exc))  # reported with the search's warnings
            return None
        if rec.id != rid or rec.scope != scope:
            self._unreadable.add(f"{path}: holds record {rec.scope}/{rec.id}, not {scope}/{rid}")
            return None
        if len(self._cache) > 50_000:
            self._cache.clear()
        dg = rec.digest
        self._cache[key] = (st.st_mtime_ns, st.st_size, rec, dg)
        return rec, dg

    # -- search -----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        statuses: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        as_of: _dt.datetime | None = None,
        known_at: _dt.datetime | None = None,
        k: int = 10,
        mode: str = "hybrid",
        explain: bool = False,
        rerank: bool | None = None,
        min_score: float | None = None,
    ) -> SearchResult:
        """Search; see the module docstring. Raises MemError subclasses on failure.

        ``rerank``: reorder the best hits of a hybrid search with the reranker (None: ``[search]
        rerank`` of config.toml, default off); ``min_score``: leave out hits scored below it
        (hybrid scores are calibrated relevances, :mod:`mem.format.search.relevance`).

        Another process may swap in a new index generation (``mem rebuild``, ``mem compact``, a
        first search building the index) while this search reads the old one, whose files are
        then deleted. When an index error coincides with a changed pointer file, the search
        re-reads the pointers and runs again (at most ``SWAP_RETRIES`` times): a concurrent swap
        never makes a search fail. An error with unchanged pointers is real damage and raised.
        """
        import contextlib

        # a long-lived searcher's background full scan waits while a search runs
        running = self._full_scanner().searching() if self.long_lived else contextlib.nullcontext()
        with running:
            for attempt in range(SWAP_RETRIES):
                gens = self._generations()
                try:
                    return self._search_once(query, scopes=scopes, kinds=kinds, statuses=statuses,
                                             tags=tags, as_of=as_of, known_at=known_at, k=k, mode=mode,
                                             explain=explain, gens=gens, rerank=rerank, min_score=min_score)
                except IndexUnavailableError:
                    if attempt + 1 >= SWAP_RETRIES or self._generations() == gens:
                        raise
                    self._close_indexes()  # reopen whatever the pointers name now
        raise AssertionError("unreachable")

    def _full_scanner(self) -> Any:
        """The background full scan of this long-lived searcher, started at its first search."""
        if self._scanner is None:
            from mem.format.index.derived import FULL_SCAN_SECONDS
            from mem.format.index.fullscan import FullScanner

            try:
                every = float(self.store.config.search.get("full_scan_seconds", FULL_SCAN_SECONDS))
            except (TypeError, ValueError):
                every = FULL_SCAN_SECONDS
            self._scanner = FullScanner(self.store.root, every)
            self._scanner.start()
        return self._scanner

    def _generations(self) -> tuple[str | None, str | None]:
        """The generations the lexical and vector pointer files name right now (None: unreadable)."""
        from mem.format.index.common import LEXICAL_POINTER, VECTORS_POINTER

        idx = self.store.index_dir
        return self._pointers.generation(idx, LEXICAL_POINTER), self._pointers.generation(idx, VECTORS_POINTER)

    def _search_once(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None,
        kinds: Sequence[str] | None,
        statuses: Sequence[str] | None,
        tags: Sequence[str] | None,
        as_of: _dt.datetime | None,
        known_at: _dt.datetime | None,
        k: int,
        mode: str,
        explain: bool,
        gens: tuple[str | None, str | None],
        rerank: bool | None = None,
        min_score: float | None = None,
    ) -> SearchResult:
        from mem.format.model.record import STATUSES
        from mem.format.rules.timeutil import now

        if mode not in MODES:
            raise InvalidInputError(f"search mode {mode!r} is not one of {', '.join(MODES)}")
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("the query is empty")
        if not query.isascii():
            try:
                query.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates: undecodable bytes on a command line
                raise InvalidInputError(
                    "the query is not valid text: it holds bytes that are not UTF-8 (check the terminal's "
                    "or the calling program's encoding)") from None
        if not 1 <= int(k) <= MAX_K:
            raise InvalidInputError(f"k must be between 1 and {MAX_K}")
        if min_score is not None and not (isinstance(min_score, (int, float)) and math.isfinite(min_score)):
            raise InvalidInputError(f"min_score {min_score!r} is not a number")
        do_rerank, top_n = self._rerank_setting(rerank)
        scopes = None if scopes is None else [ids.check_scope(s) for s in scopes]
        kinds = None if kinds is None else [ids.check_kind(x) for x in kinds]
        tags = None if tags is None else [ids.check_tag(t) for t in tags]
        if statuses is not None:
            for s in statuses:
                if s not in STATUSES:
                    raise InvalidInputError(f"status {s!r} is not one of {', '.join(STATUSES)}")
        flt = RecordFilter(scopes=scopes, kinds=kinds, statuses=statuses, tags=tags, as_of=as_of, known_at=known_at)
        eff_status = list(flt.effective_statuses())
        warnings: list[str] = []
        self._unreadable.clear()
        at = now()
        started = time.perf_counter()
        use_vec = mode in ("hybrid", "vector")
        qjob: Future[Any] | None = None
        handoff = _Handoff()
        pool = None
        if use_vec and self._embedder is not None and (pool := self._executor()) is not None:
            # the model is loaded: embed the query while the index is refreshed and checked and
            # the lexical arm searches (its result is dropped if the vector arm cannot be used)
            qjob = pool.submit(_embed_then_scan, self._embedder, query, handoff)
        lex = self._lexical(warnings, scopes)
        scope_list = scopes if scopes is not None else self._scopes_now or self.store.scopes()

        vec: VectorIndex | None = None
        unembedded = 0
        if use_vec:
            try:
                vec = self._vectors(lex)
                unembedded = getattr(self, "_backfill_left", 0)
                if unembedded:
                    warnings.append(f"{unembedded} records have no vector yet (found by their words only); "
                                    "run `mem embed` to embed them now")
            except (EmbedderUnavailableError, IndexUnavailableError) as exc:
                if mode == "vector":
                    raise
                if isinstance(exc, IndexUnavailableError) and self._generations()[1] != gens[1]:
                    raise  # swapped meanwhile: search() runs again on the new generation
                warnings.append(f"vector search unavailable, lexical results only: {exc}")
                vec = None
        used = mode if (vec is not None or mode == "lexical") else "lexical"
        qvec = None
        embedded_at: float | None = None
        if vec is None:
            qjob = None
        elif qjob is None:
            emb = self.embedder()  # loaded here, so a missing model fails as before
            pool = self._executor()
            if pool is None:
                qvec, embedded_at = _timed_embed(emb, query)
            else:  # embedded while the lexical arm searches
                qjob = pool.submit(_embed_then_scan, emb, query, handoff)

        fetch = max(2 * k, 20) if used == "lexical" else max(4 * k, 40)
        keep = delta_keep = None  # with filters: the vector rows they may accept (index.vfilter)
        if vec is not None:
            from mem.format.index.vfilter import filtered

            if filtered(flt):
                keep, delta_keep = self._vector_masks(lex, vec, scope_list, flt)
        prepared = None  # the first attempt's vector search: its scan starts once the query is embedded
        if vec is not None and qjob is not None:
            prepared = vec.prepare(scope_list, fetch, use_graph=self.long_lived, keep=keep, delta_keep=delta_keep)
            if prepared.scan.shared():
                handoff.post(prepared.scan)  # not taken when embedded already: run below as any search
        weights: dict[str, float] | None = None
        if used == "hybrid" and self._fusion()[0] == "convex":
            from mem.format.index.lexical import TANTIVY_ERRORS, damaged
            from mem.format.index.terms import query_weights

            try:
                searcher = lex.searcher()
                if self._idf[0] is not searcher:  # idf cache: valid for one tantivy searcher
                    self._idf = (searcher, {})
                weights = query_weights(searcher, query, cache=self._idf[1])
            except TANTIVY_ERRORS as exc:
                raise damaged(lex.path, exc) from None
        staged = used == "hybrid" and weights is not None  # calibrated: mem.format.search.relevance
        reranked = do_rerank and staged
        if staged:
            from mem.format.search.relevance import SPEAKER_TOP, read_query

            # the hits the later stages read: stage 2 the best SPEAKER_TOP when the query names
            # someone or asks when (else it cannot apply, and only the hits are read), stage 3 its top_n
            reading = read_query(query)
            want = max(k, SPEAKER_TOP if reading.names or reading.asks_when else 0, top_n if reranked else 0)
        else:
            want = k
        for _attempt in range(4):
            lex_hits = []
            if used in ("hybrid", "lexical"):
                lex_hits = lex.search(query, scopes=scopes, kinds=kinds, statuses=eff_status, tags=tags,
                                      limit=fetch)
            views: dict[tuple[str, str], Any] = {}
            tomb: dict[str, Any] = {}
            inputs: dict[tuple[str, str], Any] = {}
            if qjob is not None:
                # while the query is embedded: look up the lexical candidates, score what does
                # not need the query's vector, and gather their vectors
                keys = [(h.scope, h.id) for h in lex_hits]
                self._views(keys, flt, tomb, weights, lex, views)
                self._inputs(keys, views, inputs, used, at, explain, weights, vec)
                qvec, embedded_at = handoff.wait() or qjob.result()  # None: raise the embedding's error
                helper = qjob if handoff.posted else None  # the embedding thread works on the scan
                qjob = None
            else:
                helper = None
            vec_hits = []
            if vec is not None and qvec is not None:
                if prepared is not None:
                    vec_hits = prepared.run(qvec, pool, helper=helper)
                    prepared = None
                else:
                    vec_hits = vec.search(qvec, scope_list, fetch, use_graph=self.long_lived, pool=pool,
                                          keep=keep, delta_keep=delta_keep)
            hits, stale = self._fuse(used, lex_hits, vec_hits, flt, at, explain, vec, qvec, weights, lex, want,
                                     views, tomb, inputs)
            if stale:
                from mem.format.index.derived import refresh

                try:
                    refresh(self.store, lex=lex, full=False)
                    self._reindex(lex, stale)
                except LockTimeoutError:
                    warnings.append("some index entries were stale and could not be refreshed (store locked)")
                    break
                except ReadOnlyStoreError:
                    if READ_ONLY_WARNING not in warnings:
                        warnings.append(READ_ONLY_WARNING)
                    break
                continue
            exhausted = len(lex_hits) < fetch and len(vec_hits) < fetch
            if len(hits) >= want or exhausted:
                break
            fetch *= 4
        hits.sort(key=lambda h: (-h.score, h.id))
        if staged:
            hits = self._stage2(query, hits, explain)
        if reranked:
            hits = self._rerank(query, hits, top_n, explain, warnings)
        if min_score is not None:
            hits = [h for h in hits if h.score >= min_score]
            if explain:
                for h in hits:
                    if h.explain is not None:
                        h.explain["min_score"] = min_score  # passed: score >= min_score
        done = time.perf_counter()
        self.last_timings = {"total_ms": (done - started) * 1000}
        if embedded_at is not None:  # what the search took once the query's embedding was there
            self.last_timings["after_embedding_ms"] = (done - max(embedded_at, started)) * 1000
        if self._unreadable:
            why = sorted(self._unreadable)
            warnings.append(f"{len(why)} record file(s) could not be read and are left out of the results "
                            f"(see `mem verify --full`): " + "; ".join(why[:3]) + ("; ..." if len(why) > 3 else ""))
        return SearchResult(hits[:k], warnings, used, unembedded if vec is not None else 0)

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

    def _coverage(self, weights: dict[str, float], rec: Record, digest: str) -> float:
        """The query-term coverage of ``rec`` (its terms cached per content digest)."""
        from mem.format.index.terms import coverage, terms

        if not weights:
            return 0.0
        key = (rec.scope, rec.id)
        got = self._terms.get(key)
        if got is None or got[0] != digest:
            if len(self._terms) > 50_000:
                self._terms.clear()
            got = self._terms[key] = (digest, terms(rec.content))
        return coverage(weights, got[1])

    def _reindex(self, lex: LexicalIndex, stale: list[tuple[str, str]]) -> None:
        """Re-read records whose indexed digest disagrees with their file (in-place edits)."""
        from mem.format.index.derived import _apply
        from mem.format.index.lexical import DocFields

        puts = []
        deletes = []
        for scope, rid in stale:
            rec = self._record(scope, rid)
            if rec is None:
                deletes.append((scope, rid))
                continue
            st = os.stat(self.store.records_dir / scope / f"{rid}.md")
            puts.append((DocFields.from_record(rec), st.st_mtime_ns, st.st_size))
        with self.store.lock:
            _apply(self.store, lex, puts, deletes)

    def _rerank_setting(self, asked: bool | None) -> tuple[bool, int]:
        """Whether to rerank (``asked``, else ``[search] rerank``, default off) and how many of the
        best hits the reranker reads (``[search] rerank_top``, default ``relevance.RERANK_TOP``)."""
        from mem.format.search.relevance import RERANK_TOP

        conf = self.store.config.search
        on = conf.get("rerank", False) if asked is None else asked
        if not isinstance(on, bool):
            raise InvalidInputError("[search] rerank is not true or false", path=self.store.root / "config.toml")
        top = conf.get("rerank_top", RERANK_TOP)
        if not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= MAX_K:
            raise InvalidInputError(f"[search] rerank_top must be a whole number from 1 to {MAX_K}",
                                    path=self.store.root / "config.toml")
        return on, top

    def reranker(self) -> Any:
        """The reranker's model, loaded once (raises RerankerUnavailableError, remembered)."""
        if self._reranker is None:
            if self._reranker_error is not None:
                raise self._reranker_error
            from mem.format.base.errors import RerankerUnavailableError
            from mem.format.embed import choose
            from mem.format.search.rerank import load_reranker

            try:
                self._reranker = load_reranker(threads=choose(self.store.config).threads)
            except RerankerUnavailableError as exc:
                self._reranker_error = exc
                raise
        return self._reranker

    def _stage2(self, query: str, hits: list[Hit], explain: bool) -> list[Hit]:
        """Stage 2 (mem.format.search.relevance): when the query names someone who speaks in the best
        ``SPEAKER_TOP`` hits, or asks "when", every hit is rescored by whether its speaker is the
        one named and whether it says when; all sorted by score."""
        from mem.format.search.relevance import (
            SPEAKER_TOP,
            name_match,
            read_query,
            sigmoid,
            speaker_of,
            speaker_z,
            time_match,
        )

        reading = read_query(query)
        if not reading.names and not reading.asks_when:
            return hits
        scored = [h for h in hits if h.z is not None and h.prior is not None]
        who = {id(h): speaker_of(h.record.source, h.content) for h in scored}
        by_name = bool(reading.names & {who[id(h)] for h in scored[:SPEAKER_TOP]})
        if not by_name and not reading.asks_when:
            return hits
        for h in scored:
            assert h.z is not None and h.prior is not None
            named = name_match(reading, who[id(h)]) if by_name else 0.0
            timed = time_match(reading, h.content)
            z = speaker_z(h.z, named, timed)
            rel = sigmoid(z)
            if explain and h.explain is not None:
                h.explain["speaker"] = {"speaker": who[id(h)], "named": named, "says_when": timed,
                                        "first_relevance": h.explain.get("relevance")}
                h.explain["relevance"] = round(rel, 6)
            h.z, h.score = z, rel * h.prior
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits

    def _rerank(self, query: str, hits: list[Hit], top_n: int, explain: bool, warnings: list[str]) -> list[Hit]:
        """Stage 3: the best ``top_n`` hits rescored with the reranker (mem.format.search.rerank, and
        mem.format.search.relevance), all sorted by score. Without the model: ``hits``, and a warning."""
        from mem.format.base.errors import RerankerUnavailableError
        from mem.format.search.relevance import (
            date_match,
            name_match,
            read_query,
            rerank_z,
            sigmoid,
            speaker_of,
        )

        head = [h for h in hits[:top_n] if h.z is not None and h.prior is not None]
        if not head:
            return hits
        try:
            model = self.reranker()
        except RerankerUnavailableError as exc:
            warnings.append(f"reranking unavailable, first-stage order: {exc}")
            return hits
        reading = read_query(query)
        sims = model.scores(query, [h.content for h in head])
        for h, ms in zip(head, sims, strict=True):
            assert h.z is not None and h.prior is not None
            named = name_match(reading, speaker_of(h.record.source, h.content))
            z = rerank_z(h.z, ms, named)
            rel = sigmoid(z)
            if explain and h.explain is not None:
                h.explain["rerank"] = {"before": h.explain.get("relevance"), "maxsim": round(ms, 4),
                                       "date_named": date_match(reading, h.record.valid_from)}
                h.explain["relevance"] = round(rel, 6)
            h.z, h.score = z, rel * h.prior
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits

    def _fusion(self) -> tuple[str, float]:
        conf = self.store.config.search
        how = str(conf.get("fusion", "convex"))
        if how not in ("convex", "rrf"):
            raise InvalidInputError(f"[search] fusion = {how!r} is not convex or rrf",
                                    path=self.store.root / "config.toml")
        try:
            w = float(conf.get("vector_weight", VECTOR_WEIGHT))
        except (TypeError, ValueError):
            raise InvalidInputError("[search] vector_weight is not a number",
                                    path=self.store.root / "config.toml") from None
        return how, min(1.0, max(0.0, w))

    def _fuse(self, mode: str, lex_hits: list[Any], vec_hits: list[Any], flt: RecordFilter,
              at: _dt.datetime, explain: bool, vec: VectorIndex | None = None,
              qvec: Any = None, weights: dict[str, float] | None = None,
              lex: LexicalIndex | None = None, k: int | None = None,
              views: dict[tuple[str, str], Any] | None = None, tomb: dict[str, Any] | None = None,
              inputs: dict[tuple[str, str], Any] | None = None,
              ) -> tuple[list[Hit], list[tuple[str, str]]]:
        """Rank the candidates of both arms; the best ``k`` (all when None) as hits, and the
        candidates found stale (their index entries disagree with their files).

        Each candidate is looked up by ``_views`` and scored by ``_inputs`` (``views`` and
        ``inputs`` may hold some already); only the hits returned are read from their files, and
        each is checked against what ranked it.
        """
        from mem.format.index.lexical import DocMeta
        from mem.format.search.relevance import first_z, sigmoid

        how, w = self._fusion() if mode == "hybrid" else ("", 0.0)
        cands: dict[tuple[str, str], dict[str, Any]] = {}
        for rank, h in enumerate(lex_hits, 1):
            cands.setdefault((h.scope, h.id), {})["lexical"] = (rank, h.score, h.digest)
        for rank, h in enumerate(vec_hits, 1):
            cands.setdefault((h.scope, h.id), {})["vector"] = (rank, h.similarity, h.digest)
        stale: list[tuple[str, str]] = []
        tomb = {} if tomb is None else tomb
        views = {} if views is None else views
        self._views(list(cands), flt, tomb, weights if mode == "hybrid" and how == "convex" else None, lex, views)
        ranking: list[tuple[tuple[str, str], dict[str, Any], str, Record | None, DocMeta | None,
                            frozenset[str] | None]] = []
        for key, arms in cands.items():
            view = views[key]
            if view is _FILTERED:
                continue
            if view is _GONE:
                if "lexical" in arms:
                    stale.append(key)  # file gone or unreadable: drop it from the index
                continue
            if view is _STALE:
                stale.append(key)  # the index disagrees with the file: re-index it, rank again
                continue
            digest, rec, m, found = view
            if "lexical" in arms and arms["lexical"][2] != digest:
                stale.append(key)
                continue
            if "vector" in arms and arms["vector"][2] != digest:
                del arms["vector"]  # computed from older content: never used
                if not arms:
                    continue
            ranking.append((key, arms, digest, rec, m, found))

        ranked: list[tuple[float, str, tuple[str, str], dict[str, Any], Record | None, DocMeta | None,
                           dict[str, Any] | None, float | None, float]] = []
        inputs = {} if inputs is None else inputs
        self._inputs([key for key, *_r in ranking], views, inputs, mode, at, explain, weights, vec,
                     found_by_vector={key for key, arms, *_r in ranking if "vector" in arms})
        floor = 0.0
        if vec is not None:
            from mem.format.embed import similarity_floor

            floor = similarity_floor(vec.space)  # a cosine c weighs as (c - floor) / (1 - floor)
        filled: dict[tuple[str, str], float] = {}
        if mode == "hybrid" and how == "convex" and vec is not None and qvec is not None:
            # a lexical-only hit gets its real cosine (its vector is looked up, not assumed 0)
            filled = _cosines([key for key, arms, *_r in ranking if "vector" not in arms], inputs, qvec)
        for key, arms, _digest, rec, m, _found in ranking:
            rid = key[1]
            p, parts, cov, _vectors = inputs[key]
            cos_filled: float | None = None
            if mode == "hybrid" and how == "rrf":
                base = sum(1.0 / (RRF_K + a[0]) for a in arms.values())
            elif mode == "hybrid":
                # convex combination: w * cosine + (1 - w) * coverage ** 2; a lexical-only hit
                # gets its real cosine (its vector is looked up, not assumed 0), a vector-only
                # hit its real coverage
                if "vector" in arms:
                    cos = arms["vector"][1]
                else:
                    cos_filled = filled.get(key)
                    cos = floor if cos_filled is None else cos_filled  # no vector: unrelated
                if floor:
                    cos = (cos - floor) / (1.0 - floor)
                assert cov is not None
                base = w * cos + (1.0 - w) * cov * cov
            elif mode == "lexical":
                base = arms["lexical"][1]
            else:
                base = arms["vector"][1]
                if floor:
                    base = (base - floor) / (1.0 - floor)
            ex = None
            if explain:
                ex = {"base": round(base, 6), "prior": round(p, 6), "prior_parts": parts}
                if "lexical" in arms:
                    ex["lexical"] = {"rank": arms["lexical"][0], "bm25": round(arms["lexical"][1], 4)}
                if "vector" in arms:
                    ex["vector"] = {"rank": arms["vector"][0], "cosine": round(arms["vector"][1], 4)}
                elif cos_filled is not None:
                    ex["vector"] = {"rank": None, "cosine": round(cos_filled, 4)}
                if floor and "vector" in ex:
                    ex["vector"]["similarity_floor"] = floor
                if cov is not None:
                    ex["coverage"] = round(cov, 4)
                if how:
                    ex["fusion"] = how if how == "rrf" else f"convex(vector_weight={w})"
            z = None
            if mode == "hybrid" and how == "convex":  # calibrated: mem.format.search.relevance
                z = first_z(base)
                rel = sigmoid(z)
                if ex is not None:
                    ex["relevance"] = round(rel, 6)
                base = rel
            ranked.append((base * p, rid, key, arms, rec, m, ex, z, p))

        ranked.sort(key=lambda r: (-r[0], r[1]))
        out: list[Hit] = []
        for score, rid, key, arms, rec, m, ex, z, prior_of_hit in ranked:
            if k is not None and len(out) >= k:
                break
            if rec is None:  # ranked from the index state: read it now, and check it
                got = self._record_digest(key[0], rid, tomb)
                if got is None:
                    if "lexical" in arms:
                        stale.append(key)
                    continue
                rec = got[0]
                if m is None or self._state_fields(key, rec) != m[2:]:
                    stale.append(key)  # the state did not describe the file (digest or a field): re-index
                    continue
            out.append(Hit(rec.id, score, rec.scope, rec.kind, rec.status, rec.content,
                           [a for a in ("lexical", "vector") if a in arms], rec, ex, z, prior_of_hit))
        return out, stale

    def _inputs(self, keys: list[tuple[str, str]], views: dict[tuple[str, str], Any],
                inputs: dict[tuple[str, str], Any], mode: str, at: _dt.datetime, explain: bool,
                weights: dict[str, float] | None, vec: VectorIndex | None,
                found_by_vector: set[tuple[str, str]] | None = None) -> None:
        """Score what does not need the query's vector, for the ranked candidates ``keys`` (looked
        up in ``views``) not yet in ``inputs``: each gets (prior, its parts with ``explain``,
        query-term coverage for convex fusion (else None), and (a stack of vectors, its row) or None:
        the vector its cosine needs unless the vector arm found it (``found_by_vector``))."""
        from mem.format.index.terms import coverage
        from mem.format.rules.timeutil import epoch_ms, from_epoch_ms

        convex = mode == "hybrid" and self._fusion()[0] == "convex"
        at_ms = epoch_ms(at)
        weights = weights or {}
        total = sum(weights.values())
        todo: list[tuple[str, str, str]] = []
        for key in keys:
            view = views.get(key)
            if key in inputs or not isinstance(view, tuple):
                continue
            digest, rec, m, found = view
            parts: dict[str, float] | None = None
            if rec is not None:
                p, parts = prior(rec, at)
            elif explain:
                p, parts = prior_of(m.status, m.confidence, from_epoch_ms(m.recorded_ms), at)
            else:
                p = prior_ms(m.status, m.confidence, m.recorded_ms, at_ms)
            cov: float | None = None
            if convex:
                cov = (self._coverage(weights, rec, digest) if rec is not None
                       else coverage(weights, found or frozenset(), total))
                if found_by_vector is None or key not in found_by_vector:
                    todo.append((key[0], key[1], digest))
            inputs[key] = (p, parts, cov, None)
        if todo and vec is not None:  # the vectors a lexical-only candidate's cosine needs
            import numpy as np

            got = vec.vectors_for(todo)
            if got:  # stacked now: one product once the query's vector is there (``_cosines``)
                mat = np.stack(list(got.values()))
                for i, key in enumerate(got):
                    inputs[key] = (*inputs[key][:3], (mat, i))

    def _views(self, keys: list[tuple[str, str]], flt: RecordFilter, tomb: dict[str, Any],
               weights: dict[str, float] | None, lex: LexicalIndex | None,
               views: dict[tuple[str, str], Any]) -> None:
        """Look up the candidates ``keys`` not yet in ``views``: each gets (digest, record or
        None, DocMeta or None, query terms found or None), or _GONE (file gone, unreadable or
        forgotten), _STALE (the index disagrees with the file) or _FILTERED (fails ``flt``). With
        ``weights``, the query terms of those ranked from the state are read from tantivy.

        A candidate is ranked from what the lexical index's state says of it (kind, status, tags,
        confidence, times, digest: ``LexicalIndex.meta_of``) and from its query terms as tantivy
        indexed them (``terms.presence``), without touching its file: the index is as true as the
        refresh keeps it (spec/index.md, "Staleness rules"), and each hit is read and checked
        before it is returned (``_fuse``). A candidate the state does not describe, or any
        candidate of a ``known_at`` search (which needs ``superseded_at``), is read from its
        file, as every candidate once was.
        """
        from mem.format.index.lexical import DocFields, meta_matches

        keys = [key for key in dict.fromkeys(keys) if key not in views]
        if not keys:
            return
        fetched = lex is not None and flt.known_at is None
        meta = lex.meta_of(keys) if fetched and lex is not None else {}
        from_state: list[tuple[tuple[str, str], str]] = []
        fill: list[tuple[Any, int, int]] = []  # records whose state rows lack ranking fields
        for key in keys:
            scope, rid = key
            m = meta.get(key)
            if m is not None and self._forgotten(scope, rid, tomb):
                views[key] = _GONE
                continue
            if m is None:
                got = self._record_digest(scope, rid, tomb)
                if got is None:
                    views[key] = _GONE
                    continue
                rec, digest = got
                if fetched and (st := self._cache.get(key)) is not None:
                    fill.append((DocFields.from_record(rec), st[0], st[1]))
                if (flt.scopes is not None and rec.scope not in flt.scopes) or not flt.matches(rec):
                    views[key] = _FILTERED
                else:
                    views[key] = (digest, rec, None, None)
            elif not meta_matches(flt, scope, rid, m):
                views[key] = _FILTERED
            else:
                views[key] = (m.digest, None, m, None)
                from_state.append((key, m.digest))
        if fill and lex is not None:  # a state an older mem wrote: rank these from it next time
            lex.fill_meta(fill)
        if weights and lex is not None and from_state:
            found, differ = self._presence(lex, weights, from_state)
            for key, terms_found in found.items():
                views[key] = (*views[key][:3], terms_found)
            for key in differ:  # tantivy holds another version than its state says
                views[key] = _STALE

    def _forgotten(self, scope: str, rid: str, tomb: dict[str, Any]) -> bool:
        """Whether (scope, id) is tombstoned; ``tomb`` caches each scope's ids for one search, and
        under "" (no scope's name) which scopes have a tombstone file: one listing, instead of a
        stat per scope the candidates come from."""
        ids_ = tomb.get(scope)
        if ids_ is None:
            have = tomb.get("")
            if have is None:
                have = tomb[""] = self.store.tombstones.scopes_with_files()
            ids_ = tomb[scope] = self.store.tombstones.load(scope).ids if scope in have else ()
        return rid in ids_

    def _presence(self, lex: LexicalIndex, weights: dict[str, float], wanted: list[tuple[tuple[str, str], str]],
                  ) -> tuple[dict[tuple[str, str], frozenset[str]], set[tuple[str, str]]]:
        """The query terms each (key, digest) of ``wanted`` contains, read from tantivy (cached
        per digest), and the keys whose tantivy document has another digest than ``wanted``'s."""
        from mem.format.index.lexical import TANTIVY_ERRORS, damaged
        from mem.format.index.terms import presence

        words = list(weights)
        wordset = frozenset(words)
        out: dict[tuple[str, str], frozenset[str]] = {}
        differ: set[tuple[str, str]] = set()
        ask: list[tuple[str, str]] = []
        for key, digest in wanted:
            got = self._terms.get(key)
            if got is not None and got[0] == digest:
                out[key] = wordset & got[1]
                continue
            hit = self._present.get(key)
            if hit is not None and hit[0] == digest and wordset <= hit[1]:
                out[key] = wordset & hit[2]
                continue
            ask.append(key)
        if ask:
            try:
                res = presence(lex.searcher(), lex.index.schema, ask, words)
            except TANTIVY_ERRORS as exc:
                raise damaged(lex.path, exc) from None
            want_dg = dict(wanted)
            if len(self._present) > 50_000:
                self._present.clear()
            for key in ask:
                dg, terms_found = res.get(key, (want_dg[key], frozenset()))
                if dg != want_dg[key]:
                    differ.add(key)
                    continue
                prev = self._present.get(key)
                if prev is not None and prev[0] == dg:  # what is known of other terms stays
                    self._present[key] = (dg, prev[1] | wordset, (prev[2] - wordset) | terms_found)
                else:
                    self._present[key] = (dg, wordset, terms_found)
                out[key] = terms_found
        return out, differ


#: What ``Searcher._views`` says of a candidate that is not ranked.
_GONE, _STALE, _FILTERED = "gone", "stale", "filtered"


def _cosines(keys: list[tuple[str, str]], inputs: dict[tuple[str, str], Any], q: Any) -> dict[tuple[str, str], float]:
    """The cosines of ``keys`` with ``q``, from the vectors ``_inputs`` stacked for them (a key
    without one is left out): one product per stack."""
    import numpy as np

    q = np.asarray(q, dtype=np.float32).reshape(-1)
    out: dict[tuple[str, str], float] = {}
    sims: dict[int, list[float]] = {}
    for key in keys:
        at = inputs[key][3]
        if at is None:
            continue
        mat, i = at
        got = sims.get(id(mat))
        if got is None:
            got = sims[id(mat)] = (mat @ q).tolist()
        out[key] = got[i]
    return out


def _timed_embed(emb: Embedder, query: str) -> tuple[Any, float]:
    """The query's vector and when (perf_counter) it was ready."""
    from mem.format.embed import embed_query

    v = embed_query(emb, query)
    return v, time.perf_counter()


class _Handoff:
    """The query's vector, passed from the pool thread that embeds it to the searching thread,
    which may first post the vector search's ``Scan``: the embedding thread then starts it the
    moment the vector is ready, and the searching thread joins it when its lexical work is done."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._scan: Any = None
        self._taken = False
        self.posted = False
        self.value: tuple[Any, float] | None = None

    def post(self, scan: Any) -> None:
        """Give the embedding thread ``scan`` to start, unless the vector is already there
        (``posted`` says which)."""
        with self._lock:
            if not self._taken:
                self._scan, self.posted = scan, True

    def deliver(self, value: tuple[Any, float] | None) -> Any:
        """The vector and when it was ready (None: the embedding failed); the scan posted, if any."""
        with self._lock:
            self._taken, self.value = True, value
            scan = self._scan
        self._ready.set()
        return scan

    def wait(self) -> tuple[Any, float] | None:
        self._ready.wait()
        return self.value


def _embed_then_scan(emb: Embedder, query: str, handoff: _Handoff) -> tuple[Any, float]:
    """``_timed_embed``, then work on the vector scan the searching thread posted, if any."""
    try:
        got = _timed_embed(emb, query)
    except BaseException:
        handoff.deliver(None)
        raise
    scan = handoff.deliver(got)
    if scan is not None:
        import numpy as np

        scan.start(np.asarray(got[0], dtype=np.float32).reshape(-1))
        scan.work()
    return got


def open_searcher(
    store: Store | str | Path | None = None,
    *,
    embedder: str | Embedder | None = None,
    long_lived: bool = True,
) -> Searcher:
    """A searcher that keeps indexes and the model open (see the module docstring)."""
    if not isinstance(store, Store):
        store = Store.open(store)
    return Searcher(store, embedder=embedder, long_lived=long_lived)


def search(store: Store, query: str, **kwargs: Any) -> SearchResult:
    """One search with a short-lived searcher (exact vector search, no graph)."""
    with Searcher(store, long_lived=False) as s:
        return s.search(query, **kwargs)


__all__ = ["MODES", "Hit", "MemError", "SearchResult", "Searcher", "open_searcher", "prior", "search"]
