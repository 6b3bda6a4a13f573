"""Search over a store: lexical (tantivy BM25), vector (embeddings) and hybrid (fused).

The long-lived API (the MCP server and agents use it; start-up is paid once)::

    from mem.format.search.engine import open_searcher
    with open_searcher("/path/to/store") as s:     # or a Store; embedder: configured one
        res = s.search("where does Ana live", scopes=["user-ana"], k=5)
    for h in res.hits: print(h.id, h.score, h.arms, h.content)
    res.warnings   # e.g. vector arm refused (embedding space differs) -> lexical only
    res.mode       # the mode actually used ("hybrid", "lexical" or "vector")

A long-lived searcher's first search starts its background thread (format/index/follower.py):
``close()`` (or the ``with`` block's end) ends it and lets the indexes go. The thread holds the
searcher weakly: one dropped unclosed is asked to end once the searcher is collected, and until
then it runs on (a searcher still referenced, or frozen by ``freeze_gc``, keeps it).

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
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import (
    EmbedderUnavailableError,
    IndexUnavailableError,
    InvalidInputError,
    LockTimeoutError,
    MemError,
    ReadOnlyStoreError,
)
from mem.format.rules import ids
from mem.format.rules.ranking import STATUS_PRIOR as STATUS_PRIOR
from mem.format.search.fusion import RRF_K as RRF_K
from mem.format.search.fusion import Fusion
from mem.format.search.handoff import Handoff, embed_then_scan, timed_embed
from mem.format.search.relevance import VECTOR_WEIGHT as VECTOR_WEIGHT
from mem.format.search.resources import BACKFILL_LIMIT as BACKFILL_LIMIT
from mem.format.search.resources import READ_ONLY_WARNING, READER_LOCK_WAIT
from mem.format.search.results import MAX_K as MAX_K
from mem.format.search.results import MODES, Hit, SearchResult, prior
from mem.format.search.stages import LaterStages
from mem.format.store.store import RecordFilter, Store

if TYPE_CHECKING:
    from concurrent.futures import Future

    from mem.format.embed import Embedder
    from mem.format.index.vectors import VectorIndex

#: How many times a search runs again when a concurrent swap replaced the index it was reading.
SWAP_RETRIES = 5


class QueryNotEmbedded(Exception):
    """The query's embedding failed (``error``): a hybrid search runs again on the lexical arm
    alone and says why; a vector search raises ``error``."""

    def __init__(self, error: EmbedderUnavailableError) -> None:
        super().__init__(str(error))
        self.error = error


class Searcher(Fusion, LaterStages):
    """Keeps the indexes (and, once needed, the model) open across searches.

    What it holds open: ``SearcherResources`` (format/search/resources.py); the candidates and
    records: ``CandidateViews`` (candidates.py); ranking: ``Fusion`` (fusion.py); stages 2 and 3:
    ``LaterStages`` (stages.py). A search itself (its checks, the arms, the order of the stages) is here.
    """

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        k: int | None = None,
        mode: str = "hybrid",
        explain: bool = False,
        rerank: bool | None = None,
        min_score: float | None = None,
    ) -> SearchResult:
        """Search; see the module docstring. Raises MemError subclasses on failure.

        ``k``: how many hits (None: ``[search] default_k`` of config.toml).

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

        if k is None:
            k = int(self.store.config.value("search", "default_k"))
        # a long-lived searcher: the background upkeep of its index (new records, the full scan,
        # which waits while a search runs); its first search brings the index up to date itself
        running = self._follow().searching() if self.long_lived else contextlib.nullcontext()
        fallback: list[str] = []  # the query could not be embedded: why (hybrid answers lexically)
        # a search never waits on another process's writer longer than READER_LOCK_WAIT (the
        # refresh, a first build, the backfill's writes): it answers from the index as it is
        with running, self.store.lock.waiting_at_most(READER_LOCK_WAIT):
            for attempt in range(SWAP_RETRIES):
                gens = self._generations()
                try:
                    res = self._search_once(query, scopes=scopes, kinds=kinds, statuses=statuses,
                                            tags=tags, as_of=as_of, known_at=known_at, k=k,
                                            mode="lexical" if fallback else mode, explain=explain, gens=gens,
                                            rerank=rerank, min_score=min_score)
                    if self.long_lived:
                        self._followed()
                        self._freeze_loaded()
                    res.warnings[:0] = fallback
                    return res
                except QueryNotEmbedded as exc:
                    if mode == "vector":
                        raise exc.error from None
                    # hybrid: the lexical arm alone, saying why (the model failed on the query)
                    fallback = [f"vector search unavailable, lexical results only: {exc.error}"]
                except IndexUnavailableError:
                    if attempt + 1 >= SWAP_RETRIES or self._generations() == gens:
                        raise
                    self._close_indexes()  # reopen whatever the pointers name now
        raise AssertionError("unreachable")

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
        handoff = Handoff()
        pool = None
        if use_vec and self._embedder is not None and (pool := self._executor()) is not None:
            # the model is loaded: embed the query while the index is refreshed and checked and
            # the lexical arm searches (its result is dropped if the vector arm cannot be used)
            qjob = pool.submit(embed_then_scan, self._embedder, query, handoff)
        maybe_lex = self._lexical(warnings, scopes)
        if maybe_lex is None:  # no index yet, and another process holds the lock (an import)
            n = self._unindexed
            warnings.append(f"the store has no search index yet and another mem process holds its writer lock "
                            f"(an import or a rebuild): its {n} records are not searchable until that "
                            "process is done; search again then")
            return SearchResult([], warnings, "lexical" if mode == "hybrid" else mode, 0, n)
        lex = maybe_lex
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
            except (EmbedderUnavailableError, IndexUnavailableError, LockTimeoutError) as exc:
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
            try:
                emb = self.embedder()  # loaded here: a model that cannot load is the query's failure
            except EmbedderUnavailableError as exc:
                raise QueryNotEmbedded(exc) from None
            pool = self._executor()
            if pool is None:
                try:
                    qvec, embedded_at = timed_embed(emb, query)
                except EmbedderUnavailableError as exc:
                    raise QueryNotEmbedded(exc) from None
            else:  # embedded while the lexical arm searches
                qjob = pool.submit(embed_then_scan, emb, query, handoff)

        fetch = max(2 * k, 20) if used == "lexical" else max(4 * k, 40)
        keep = delta_keep = None  # with filters: the vector rows they may accept (index.vfilter)
        if vec is not None:
            from mem.format.index.vfilter import filtered

            if filtered(flt):
                keep, delta_keep = self._vector_masks(lex, vec, scope_list, flt)
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
        within: list[tuple[int, int]] | None = None  # the time-drawn arm's ranges of valid_from (ms)
        reranked = do_rerank and staged
        if staged:
            from mem.format.search.relevance import pool_size, read_query

            # the pool the later stages reorder: stage 1's best ``want`` from a fetch that does
            # not depend on k (relevance.pool_size), so that a search's first n hits are those of
            # the same search with k = n; a larger k gets the rest in stage 1's order after it
            reading = read_query(query)
            want = pool_size(reading, top_n if reranked else None)
            fetch = max(want, 40)  # for k <= 10: the candidates of a search before the pool
            if reading.dates:
                from mem.format.search.relevance import date_windows

                # the time-drawn arm: records valid on or just after a date the query names,
                # whatever their words (a question that names a day says little of what happened)
                within = [(int(a.timestamp() * 1000), int(b.timestamp() * 1000)) for a, b in date_windows(reading)]
        else:
            want = k

        prepared = None  # the first attempt's vector search: its scan starts once the query is embedded
        if vec is not None and qjob is not None:
            prepared = vec.prepare(scope_list, fetch, use_graph=self.long_lived, keep=keep, delta_keep=delta_keep)
            if prepared.scan.shared():
                handoff.post(prepared.scan)  # not taken when embedded already: run below as any search

        def first_stage(fetch: int, want: int, everyone: bool) -> tuple[list[Hit], bool, int]:
            """Stage 1: the best ``want`` candidates (every candidate when ``everyone``) of each
            arm's best ``fetch``, more while filters reject too many; the hits sorted by score,
            whether the arms ran out, and the fetch used."""
            nonlocal qjob, prepared, qvec, embedded_at
            hits: list[Hit] = []
            exhausted = True
            for _attempt in range(4):
                lex_hits = []
                if used in ("hybrid", "lexical"):
                    lex_hits = lex.search(query, scopes=scopes, kinds=kinds, statuses=eff_status, tags=tags,
                                          limit=fetch)
                date_hits = [] if within is None else lex.search(query, scopes=scopes, kinds=kinds,
                                                                  statuses=eff_status, tags=tags, limit=fetch,
                                                                  within=within)
                views: dict[tuple[str, str], Any] = {}
                tomb: dict[str, Any] = {}
                inputs: dict[tuple[str, str], Any] = {}
                if qjob is not None:
                    # while the query is embedded: look up the lexical candidates, score what does
                    # not need the query's vector, and gather their vectors
                    keys = [(h.scope, h.id) for h in (*lex_hits, *date_hits)]
                    self._views(keys, flt, tomb, weights, lex, views)
                    self._inputs(keys, views, inputs, used, at, explain, weights, vec)
                    try:
                        qvec, embedded_at = handoff.wait() or qjob.result()  # None: raise the embedding's error
                    except EmbedderUnavailableError as exc:
                        raise QueryNotEmbedded(exc) from None
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
                hits, stale = self._fuse(used, lex_hits, vec_hits, flt, at, explain, vec, qvec, weights, lex,
                                         None if everyone else want, views, tomb, inputs, date_hits)
                if stale:
                    from mem.format.index.derived import SEARCH_INDEX_LIMIT, refresh

                    try:
                        refresh(self.store, lex=lex, full=False, limit=SEARCH_INDEX_LIMIT)
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
            return hits, exhausted, fetch

        # with drawn-by-time candidates every candidate is ranked into a hit: stage 2 weighs
        # their time, and stage 1 alone might leave them below the best ``want``
        hits, _exhausted, fetch = first_stage(fetch, want, within is not None)
        if staged:
            hits = self._stage2(query, hits, explain)
        if reranked:
            hits = self._rerank(query, hits, top_n, explain, warnings)
        if staged and len(hits) < k and len(hits) >= want:  # (fewer than the pool: there are no more)
            # k beyond the pool: the rest of stage 1's best k after it
            pooled = {(h.scope, h.id) for h in hits}
            more, _exhausted, _fetch = first_stage(max(fetch, 4 * k), k, False)
            # in stage 1's order, with stage 1's scores: rescored by stage 2 and sorted, the first of
            # the rest would depend on how many more are asked for
            hits += [h for h in more if (h.scope, h.id) not in pooled][:k - len(hits)]
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
        return SearchResult(hits[:k], warnings, used, unembedded if vec is not None else 0, self._unindexed)


def open_searcher(
    store: Store | str | Path | None = None,
    *,
    embedder: str | Embedder | None = None,
    long_lived: bool = True,
    freeze_gc: bool = False,
) -> Searcher:
    """A searcher that keeps indexes and the model open (see the module docstring).

    ``freeze_gc``: once warmed, and again after each reload of its indexes, the searcher calls
    ``gc.collect()`` and ``gc.freeze()``, so that the garbage collector's full passes no longer
    walk what it holds (a pass stalls every thread of the process). It is process-wide: what
    anything else in the process holds then is frozen too, and is freed only by reference
    counting (cyclic garbage made before a freeze is collected first). For a process whose
    work is this searcher (the MCP server, ``mem search --batch``); a long-lived searcher only.

    Close it (``close()``, or ``with open_searcher(...) as s:``): see the module docstring."""
    if not isinstance(store, Store):
        store = Store.open(store)
    return Searcher(store, embedder=embedder, long_lived=long_lived, freeze_gc=freeze_gc)


def search(store: Store, query: str, **kwargs: Any) -> SearchResult:
    """One search with a short-lived searcher (exact vector search, no graph)."""
    with Searcher(store, long_lived=False) as s:
        return s.search(query, **kwargs)


__all__ = ["MODES", "Hit", "MemError", "SearchResult", "Searcher", "open_searcher", "prior", "search"]
