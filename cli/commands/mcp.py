"""``mem mcp``: serve the store to an agent over MCP (stdio)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mem.cli.common import OPTIONS, info


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    def mcp(
        scope: Annotated[
            list[str],
            typer.Option("--scope", help="A scope the agent may use (repeat for several). Required."),
        ],
        store_dir: Annotated[
            Path | None,
            typer.Option("--store", "-s", help="The store directory (like the global --store)."),
        ] = None,
        remember_as: Annotated[
            str,
            typer.Option(
                "--remember-as",
                help="Status of memories the agent stores: candidate (reviewed later) or active.",
            ),
        ] = "candidate",
        read_only: Annotated[
            bool,
            typer.Option(
                "--read-only",
                help="Serve only recall, get and the listings (no tool that changes the memory).",
            ),
        ] = False,
        warm: Annotated[
            bool,
            typer.Option(
                "--warm/--lazy",
                help="Load the search indexes and model at start (default) or at the first recall.",
            ),
        ] = True,
    ) -> None:
        """Serve the store to an agent over MCP on stdin/stdout.

        Tools: remember, recall, get, forget (shows the cascade; confirm=true removes),
        list_candidates, list_memories, review, supersede (with --read-only: recall, get,
        list_candidates, list_memories). Resources: mem://context (the `mem context` block of the
        served scopes), mem://rules; prompt: memory_rules. The server is bound to the --scope
        values: a request naming another scope is an error. stdout carries the protocol;
        messages go to stderr. Example client configuration: examples/agents/.
        """
        from mem.format.store.store import Store
        from mem.mcpserver.memory import ScopedMemory
        from mem.mcpserver.server import serve_stdio

        store = Store.open(store_dir or OPTIONS.store, lock_timeout=OPTIONS.lock_timeout)
        memory = ScopedMemory(store, scope, remember_status=remember_as, read_only=read_only)
        mode = ", read-only" if read_only else ""
        info(f"mem mcp: serving {store.root} (scopes: {', '.join(memory.scopes)}{mode}) on stdio")
        serve_stdio(memory, warm=warm, log=info)
