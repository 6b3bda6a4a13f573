"""The MCP server: a store's memories served to an agent over stdio (``mem mcp``).

Two layers:

* :class:`ScopedMemory` is the tool logic, plain Python over :class:`~mem.format.store.store.Store`:
  every method checks the scopes the server was started with, so a client cannot read or write
  another scope (a request naming one is an error, never a silently filtered result), and raises
  :class:`~mem.format.base.errors.MemError` subclasses for every failure.
* :func:`build_server` wraps it as an MCP server (the official ``mcp`` SDK, ``MCPServer``):
  one tool per method; a ``MemError`` becomes an MCP error result (``isError``) whose text
  starts with the error code, e.g. ``error [not-found]: no record ...``.

The store, the searcher (indexes and embedding model) are opened once per server process and
reused by every call ("kept warm"). Tool calls run in worker threads; a lock serializes them.

This module never imports typer or rich; the ``mcp`` SDK is imported only by
:func:`build_server` / :func:`serve_stdio`.
"""

# No ``from __future__ import annotations``: the MCP SDK reads the tool functions' annotations
# (built inside build_server) at run time.

import concurrent.futures
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, TypeVar

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

SERVER_NAME = "mem"
CONTEXT_URI = "mem://context"
RULES_URI = "mem://rules"
REMEMBER_STATUSES: tuple[str, ...] = ("candidate", "active")
MAX_K = 100
SEARCH_MODES: tuple[str, ...] = ("hybrid", "lexical", "vector")

INSTRUCTIONS = """\
Long-term memory (a `mem` store). Use `recall` before answering questions that may depend on
what you were told before; use `remember` for durable facts, preferences and instructions
(one memory per call, stated on its own). `forget` first shows what would be removed (the
record and everything derived from it); call it again with confirm=true to do it. This server
is bound to the scopes {scopes}; other scopes are refused."""


READ_ONLY_INSTRUCTIONS = """\
Long-term memory (a `mem` store), read-only here. Use `recall` before answering questions that
may depend on what you were told before, `get` to read one memory in full, `list_memories` to
browse. The resource mem://context holds the standing instructions and preferences. This server
cannot change the memory; it is bound to the scopes {scopes}; other scopes are refused."""

RULES = """\
How to use this long-term memory (mem):

- Memories are short statements about the user and their world: facts, preferences, standing
  instructions, events. Each has an id, a kind, a status and a scope.
- Follow the standing instructions (kind `instruction`) and respect the preferences unless the
  user says otherwise in this conversation; what the user says now wins over what is stored.
- `active` memories were confirmed; `candidate` ones were captured or remembered and not yet
  reviewed: treat them as likely, not certain, and never present them as confirmed facts.
- Superseded, rejected and forgotten memories are never served: if the user says a memory is
  wrong or outdated, {change}
- Before answering something that may depend on the past, `recall` it; cite a memory by its id
  when you rely on it. An empty recall means nothing relevant is stored: say you do not know
  rather than guess.
- Store only durable things (one statement per memory, self-contained, no secrets, no
  passwords, no one-off chatter).
"""


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

        return self._worker.submit(on_worker).result()

    # -- search (kept warm) --------------------------------------------------------------------

    def default_floor(self) -> float | None:
        """The floor ``recall`` applies to calibrated scores when its caller names none:
        ``[mcp] min_score``, else ``relevance.RECALL_MIN_SCORE`` when the store's embedder is the
        one the calibration was fitted with (``relevance.CALIBRATED_FOR``), else none (another
        model's cosines score lower: that floor would drop answers, bench/README.md)."""
        from mem.format.embed import choose
        from mem.format.search.relevance import CALIBRATED_FOR, RECALL_MIN_SCORE

        conf = self.store.config.raw.get("mcp", {})
        if not isinstance(conf, dict) or "min_score" not in conf:
            return RECALL_MIN_SCORE if choose(self.store.config).provider == CALIBRATED_FOR else None
        v = conf["min_score"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
            raise ValidationError("[mcp] min_score in config.toml is not a number")
        return float(v)

    def searcher(self) -> Any:
        """The searcher over the store, opened once per server (indexes and model stay loaded)."""
        if self._searcher is None:
            factory = self._searcher_factory
            if factory is None:
                from mem.format.search.engine import open_searcher

                factory = open_searcher
            self._searcher = factory(self.store)
        return self._searcher

    def warm(self) -> list[str]:
        """Load the indexes and the model now (one small search); returns its warnings."""

        def run() -> list[str]:
            result = self.searcher().search("warm up", scopes=list(self.scopes), k=1, mode="hybrid")
            return [str(w) for w in getattr(result, "warnings", [])]

        return self._locked(run)

    def close(self) -> None:
        def run() -> None:
            if self._searcher is not None and hasattr(self._searcher, "close"):
                self._searcher.close()
            self._searcher = None

        self._locked(run)
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
        k: int = 10,
        kinds: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        mode: str = "hybrid",
        min_score: float | None = None,
        session: str | None = None,
    ) -> dict[str, Any]:
        """Search the served scopes. ``min_score``: leave out hits scored below it; when None,
        the default floor (``[mcp] min_score`` of config.toml, else ``relevance.RECALL_MIN_SCORE``)
        is applied to calibrated scores (hybrid search): a query about something the store does
        not hold gets no results rather than the nearest unrelated records."""
        def run() -> dict[str, Any]:
            if not query.strip():
                raise ValidationError("the query is empty")
            if not 1 <= k <= MAX_K:
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
                k=k,
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


# ---------------------------------------------------------------------------------------------
# The MCP layer


def build_server(memory: ScopedMemory) -> Any:
    """An ``MCPServer`` exposing the tools of ``memory``."""
    from typing import Annotated

    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
    from pydantic import Field

    from mem import __version__
    from mem.format.search.relevance import RECALL_MIN_SCORE

    server = MCPServer(
        name=SERVER_NAME,
        version=__version__,
        instructions=(READ_ONLY_INSTRUCTIONS if memory.read_only else INSTRUCTIONS).format(
            scopes=", ".join(memory.scopes)
        ),
        log_level="WARNING",
    )

    def tool(*, writes_memory: bool = False, **kw: Any) -> Callable[[Any], Any]:
        """``server.tool``; a read-only server registers no tool that writes (a host sees only
        recall, get and the listings)."""
        if writes_memory and memory.read_only:
            return lambda fn: fn
        return server.tool(**kw)

    def call(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            return fn()
        except MemError as exc:
            raise ToolError(error_text(exc)) from None
        except Exception as exc:  # a bug: tell the client what, keep the traceback on stderr
            traceback.print_exc(file=sys.stderr)
            raise ToolError(f"error [internal]: {exc.__class__.__name__}: {exc}") from None

    def client_name(ctx: Any) -> str | None:
        try:
            info = ctx.request_context.session.client_params.client_info
            return f"{info.name} {info.version}".strip()
        except Exception:
            return None

    scope_help = f"Scope to use, one of: {', '.join(memory.scopes)}" + (
        " (default: the only one)." if len(memory.scopes) == 1 else "."
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @tool(
        writes_memory=True,
        annotations=writes,
        description=(
            "Store a new memory: one durable fact, preference, instruction or event, stated on "
            f"its own. Stored as '{memory.remember_status}'. Returns the new record; a memory "
            "already stored (the same content) is not stored twice: that record is returned, "
            "with existing=true."
        ),
    )
    def remember(
        content: Annotated[str, Field(description="The memory, as a self-contained statement.")],
        ctx: Context,
        scope: Annotated[str | None, Field(description=scope_help)] = None,
        kind: Annotated[
            str,
            Field(description="fact, preference, instruction, event, episode, summary, action_item, contact or note."),
        ] = "note",
        tags: Annotated[list[str] | None, Field(description="Tags.")] = None,
        confidence: Annotated[float, Field(ge=0.0, le=1.0, description="How sure (0..1).")] = 1.0,
        derived_from: Annotated[
            list[str] | None, Field(description="Ids of the records this memory was derived from.")
        ] = None,
        valid_from: Annotated[
            str | None, Field(description="When it became true (RFC 3339 or YYYY-MM-DD).")
        ] = None,
    ) -> dict[str, Any]:
        return call(
            lambda: memory.remember(
                content,
                scope=scope,
                kind=kind,
                tags=tags or (),
                confidence=confidence,
                derived_from=derived_from or (),
                valid_from=valid_from,
                client=client_name(ctx),
            )
        )

    @server.tool(
        annotations=read_only,
        description=(
            "Search the memories (hybrid lexical + semantic) and return the best matches, most "
            "relevant first. An empty result means nothing matched."
        ),
    )
    def recall(
        query: Annotated[str, Field(description="What to look for, in words.")],
        scopes: Annotated[
            list[str] | None, Field(description=f"Scopes to search (default: all served: {', '.join(memory.scopes)}).")
        ] = None,
        k: Annotated[int, Field(ge=1, le=MAX_K, description="How many results.")] = 10,
        kinds: Annotated[list[str] | None, Field(description="Only these kinds.")] = None,
        tags: Annotated[list[str] | None, Field(description="Only records with all these tags.")] = None,
        mode: Annotated[
            Literal["hybrid", "lexical", "vector"],
            Field(description="hybrid (default), lexical (words) or vector (meaning)."),
        ] = "hybrid",
        min_score: Annotated[
            float | None,
            Field(description=(
                "Leave out results scored below this. Hybrid scores estimate the chance (0-1) "
                "that a memory answers the query; by default results below the server's floor "
                f"(config.toml [mcp] min_score, else {RECALL_MIN_SCORE} with the default embedder) "
                "are left out.")),
        ] = None,
        session: Annotated[
            str | None,
            Field(description="An id of the conversation this recall serves (noted in the store's read log, if on)."),
        ] = None,
    ) -> dict[str, Any]:
        return call(
            lambda: memory.recall(query, scopes=scopes, k=k, kinds=kinds, tags=tags, mode=mode,
                                  min_score=min_score, session=session)
        )

    @server.tool(annotations=read_only, description="Read one memory in full by its id.")
    def get(id: Annotated[str, Field(description="The record id (26-character ULID).")]) -> dict[str, Any]:
        return call(lambda: memory.get(id))

    @tool(
        writes_memory=True,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
        description=(
            "Forget memories for good: their files go, a tombstone keeps them from coming back, "
            "and every memory derived from them goes too (the cascade). Without confirm=true "
            "nothing is removed: the plan (requested records and cascade) is returned."
        ),
    )
    def forget(
        ids: Annotated[list[str], Field(description="Ids of the records to forget.")],
        confirm: Annotated[bool, Field(description="Really remove (after reviewing the plan).")] = False,
        reason: Annotated[str, Field(description="Why (kept in the tombstone and the audit log).")] = "",
    ) -> dict[str, Any]:
        return call(lambda: memory.forget(ids, confirm=confirm, reason=reason))

    @server.tool(
        annotations=read_only,
        description="List candidate memories (captured or remembered, not yet reviewed), newest first.",
    )
    def list_candidates(
        scope: Annotated[str | None, Field(description="Only this scope (default: all served).")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="At most this many.")] = 50,
    ) -> dict[str, Any]:
        return call(lambda: memory.list_candidates(scope=scope, limit=limit))

    @tool(
        writes_memory=True,
        annotations=writes,
        description="Review candidates: accept (they become active) and/or reject them.",
    )
    def review(
        accept: Annotated[list[str] | None, Field(description="Ids to accept.")] = None,
        reject: Annotated[list[str] | None, Field(description="Ids to reject.")] = None,
        reason: Annotated[str | None, Field(description="Why (audit log).")] = None,
    ) -> dict[str, Any]:
        return call(lambda: memory.review(accept=accept or (), reject=reject or (), reason=reason))

    @tool(
        writes_memory=True,
        annotations=writes,
        description=(
            "Record that something changed: the new content replaces the record `id` from now "
            "(or valid_from) on; the old record is kept as superseded, for history."
        ),
    )
    def supersede(
        id: Annotated[str, Field(description="The id of the record that is no longer true.")],
        content: Annotated[str, Field(description="What is true now.")],
        kind: Annotated[str | None, Field(description="Kind of the new record (default: the old one's).")] = None,
        tags: Annotated[list[str] | None, Field(description="Tags of the new record (default: the old one's).")] = None,
        valid_from: Annotated[str | None, Field(description="Since when (default: now).")] = None,
        reason: Annotated[str | None, Field(description="Why (audit log).")] = None,
    ) -> dict[str, Any]:
        return call(
            lambda: memory.supersede(id, content, kind=kind, tags=tags, valid_from=valid_from, reason=reason)
        )

    @server.tool(
        annotations=read_only,
        description="List memories (active; candidates too with include_candidates), newest first.",
    )
    def list_memories(
        scope: Annotated[str | None, Field(description="Only this scope (default: all served).")] = None,
        kinds: Annotated[list[str] | None, Field(description="Only these kinds.")] = None,
        include_candidates: Annotated[bool, Field(description="Also unreviewed candidates.")] = False,
        limit: Annotated[int, Field(ge=1, le=1000, description="At most this many.")] = 50,
    ) -> dict[str, Any]:
        return call(lambda: memory.list_memories(scope=scope, kinds=kinds,
                                                 include_candidates=include_candidates, limit=limit))

    def text_of(fn: Callable[[], str]) -> str:
        try:
            return fn()
        except MemError as exc:
            raise ValueError(error_text(exc)) from None

    @server.resource(
        CONTEXT_URI,
        name="context",
        title="Memory context block",
        description=(
            "The standing instructions, preferences and other active memories of the served "
            "scopes, as `mem context` prints them (deterministic: attach it to the prompt)."
        ),
        mime_type="text/markdown",
    )
    def context_resource() -> str:
        return text_of(lambda: memory.context())

    @server.resource(
        RULES_URI,
        name="rules",
        title="How to use this memory",
        description="The rules the model should follow with this memory (same text as the memory_rules prompt).",
        mime_type="text/markdown",
    )
    def rules_resource() -> str:
        return rules_text(memory.read_only)

    @server.prompt(
        name="memory_rules",
        title="How to use this memory",
        description="Explains the memory's rules to the model: statuses, instructions, citing ids, what to store.",
    )
    def memory_rules() -> str:
        return rules_text(memory.read_only)

    return server


def rules_text(read_only: bool) -> str:
    """The ``memory_rules`` prompt (and ``mem://rules`` resource)."""
    change = (
        "tell them to correct it with `mem` (this server is read-only)."
        if read_only
        else "use `supersede` (it changed) or `forget` (it must go), after the user agrees."
    )
    return RULES.format(change=change)


def serve_stdio(memory: ScopedMemory, *, warm: bool = True, log: Callable[[str], None] | None = None) -> None:
    """Serve ``memory`` over stdin/stdout until the client closes the connection.

    With ``warm``, the indexes and the model load in a background thread as the server starts,
    so the client's handshake is answered at once and the first recall waits only for what is
    still loading.
    """
    server = build_server(memory)
    if warm:

        def warm_up() -> None:
            try:
                for w in memory.warm():
                    if log:
                        log(f"mem mcp: {w}")
            except MemError as exc:
                if log:  # recall reports it to the client on each call; other tools work
                    log(f"mem mcp: search unavailable: {exc}")

        threading.Thread(target=warm_up, name="mem-mcp-warm", daemon=True).start()
    try:
        server.run("stdio")
    finally:
        memory.close()


__all__ = ["ScopeRefusedError", "ScopedMemory", "build_server", "error_text", "serve_stdio"]
