"""``mem context``: a deterministic block of memory for an agent's prompt."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import open_store, split_csv, warn


def register(app: typer.Typer) -> None:
    @app.command("context")
    def context_(
        scope: Annotated[list[str] | None, typer.Option("--scope", help="Only these scopes (default: all).")] = None,
        query: Annotated[str | None, typer.Option("--query", "-q", help="Put the memories most relevant to this text first (after instructions and preferences).")] = None,
        budget: Annotated[int | None, typer.Option("--budget", "-b", min=0, help="At most this many tokens (mem-estimate-1, see spec/cli/context.md); what does not fit is counted in the footer.")] = None,
        fmt: Annotated[str, typer.Option("--format", "-F", help="markdown (default) or json.")] = "markdown",
        include_candidates: Annotated[bool, typer.Option("--include-candidates", help="Also unreviewed captures, marked (unreviewed).")] = False,
        omitted: Annotated[bool, typer.Option("--omitted", help="List only the memories this block leaves out.")] = False,
        session: Annotated[str | None, typer.Option("--session", help="A session id to note in the read log ([audit] reads = true).")] = None,
    ) -> None:
        """Print a block of memory for an agent's prompt: the same store and arguments give the same bytes."""
        from mem.format.search.context import ContextArgs, build, omitted_listing

        args = ContextArgs(
            scopes=tuple(split_csv(scope) or ()) or None,
            query=query,
            budget=budget,
            fmt=fmt,
            include_candidates=include_candidates,
        )
        store = open_store()
        if omitted:
            sys.stdout.write(omitted_listing(store, args))
            return
        from mem.format.store.readlog import enabled, log_read

        logging = enabled(store)  # a bad [audit] setting is refused before anything is served
        block = build(store, args)
        sys.stdout.write(block.text)
        if not logging:
            return
        try:
            log_read(store, via="context", query=query, ids=[i.record.id for i in block.included],
                     scopes=args.scopes, session=session)
        except OSError as exc:
            warn(f"the read log could not be written: {exc}")

    _ = context_
