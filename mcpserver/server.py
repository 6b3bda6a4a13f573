"""The MCP server: a store's memories served to an agent over stdio (``mem mcp``).

Two layers:

* :class:`ScopedMemory` (:mod:`mem.mcpserver.memory`) is the tool logic, plain Python over :class:`~mem.format.store.store.Store`:
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

import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, Literal

from mem.format.base.errors import MemError
from mem.mcpserver.memory import (
    MAX_K,
    ReadOnlyError,
    ScopedMemory,
    ScopeRefusedError,
    error_text,
)

SERVER_NAME = "mem"
CONTEXT_URI = "mem://context"
RULES_URI = "mem://rules"

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
    from mem.format.rules.settings import default
    from mem.format.search.relevance import CALIBRATION, RECALL_MIN_SCORE

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
        k: Annotated[
            int | None,
            Field(ge=1, le=MAX_K, description=(
                f"How many results (default: config.toml [search] default_k, {default('search', 'default_k')} "
                f"unless set; at most {MAX_K}).")),
        ] = None,
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
                f"(config.toml [mcp] min_score, else {RECALL_MIN_SCORE} with an embedder the score is "
                f"calibrated for: {', '.join(CALIBRATION)}) "
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
                # recall reports it to the client on each call; other tools work. A warm-up that
                # the shutdown overtook (the client left at once) has nothing to report
                if log and not memory.closed:
                    log(f"mem mcp: search unavailable: {exc}")

        threading.Thread(target=warm_up, name="mem-mcp-warm", daemon=True).start()
    try:
        server.run("stdio")
    finally:
        memory.close()


__all__ = ["ReadOnlyError", "ScopeRefusedError", "ScopedMemory", "build_server", "error_text", "serve_stdio"]
