"""``mem embed``: embed the records that have no vector yet (resumable; Ctrl-C keeps what is done).

Also the bulk-embedding step of the commands that write many records (import, capture,
consolidate): :func:`embed_written` embeds what they wrote, or with ``--no-embed`` says which
command catches up.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mem.cli.common import emit_json, info, open_store, progress, warn

if TYPE_CHECKING:
    from mem.format.index.backlog import BacklogReport
    from mem.format.store.store import Store

CATCH_UP = "mem embed"


def _interrupted(rep: BacklogReport) -> typer.Exit:
    """Ctrl-C during bulk embedding: say what was kept (every committed batch) and what is left."""
    left = max(rep.missing - rep.embedded, 0)
    sys.stderr.write(f"mem: interrupted: {rep.embedded} records embedded and kept, {left} still without a "
                     f"vector; run `{CATCH_UP}` to embed the rest\n")
    from mem.format.base.errors import ExitCode

    return typer.Exit(int(ExitCode.INTERRUPTED))


def run_backlog(store: Store) -> BacklogReport:
    """Embed the store's whole backlog with a progress bar (terminal only); Ctrl-C exits 130
    saying what was kept."""
    from mem.format.index.backlog import BacklogReport, embed_backlog, load_bulk_embedder

    emb = load_bulk_embedder(store)
    rep = BacklogReport()
    try:
        return embed_backlog(store, emb, progress=progress, report=rep)
    except KeyboardInterrupt:
        raise _interrupted(rep) from None
    finally:
        emb.close()


def embed_written(store: Store, *, no_embed: bool, wrote: int) -> dict[str, Any]:
    """After a command wrote ``wrote`` records: embed them (and any older backlog), or with
    ``no_embed`` leave them for ``mem embed``. Prints one line; returns what the command's
    ``--json`` reports as ``vectors``. An embedder that cannot be loaded does not fail the
    command (its records are written): a warning names the catch-up instead."""
    from mem.format.base.errors import EmbedderUnavailableError

    if no_embed:
        if wrote:
            info(f"vectors deferred (--no-embed): run `{CATCH_UP}` to index and embed the records written "
                 "(a search meanwhile indexes a limited number of them each time)")
        return {"deferred": True, "embedded": 0, "left": None, "catch_up": CATCH_UP}
    if not wrote:
        return {"deferred": False, "embedded": 0, "left": 0}
    try:
        rep = run_backlog(store)
    except EmbedderUnavailableError as exc:
        warn(f"the records are written, but not embedded: {exc}; run `{CATCH_UP}` once the embedder loads")
        return {"deferred": True, "embedded": 0, "left": None, "catch_up": CATCH_UP, "error": str(exc)}
    info(_summary(rep))
    return {"deferred": False, **rep.to_dict()}


def _summary(rep: BacklogReport) -> str:
    line = f"vectors: {rep.embedded} records embedded"
    if rep.left:
        line += f", {rep.left} unreadable records left without one (see `mem verify`)"
    return line


def register(app: typer.Typer) -> None:
    @app.command("embed")
    def embed(
        json_out: Annotated[bool, typer.Option("--json", help="Print what was embedded as JSON.")] = False,
    ) -> None:
        """Embed the records that have no vector yet (after import --no-embed, or edits).

        Resumable: each batch is kept as it is made, so an interrupted run (Ctrl-C, a kill)
        keeps what it embedded and the next run does only the rest. `mem rebuild --vectors`
        instead re-embeds every record (after an embedding-model change).
        """
        store = open_store()
        rep = run_backlog(store)
        if json_out:
            emit_json(rep.to_dict())
        else:
            info(_summary(rep) if rep.missing else "vectors: every record has one")
