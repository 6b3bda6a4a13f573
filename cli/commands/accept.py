"""``mem accept``: a candidate (or rejected) record becomes active."""

from __future__ import annotations

from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store


def register(app: typer.Typer) -> None:
    @app.command("accept")
    def accept(
        record_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="Records to accept.")],
        reason: Annotated[str | None, typer.Option("--reason", help="Why (kept in the audit log).")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print the records as JSON.")] = False,
    ) -> None:
        """Mark records as reviewed and trusted (status active)."""
        store = open_store()
        done = [store.accept(rid, reason=reason) for rid in record_ids]
        if json_out:
            emit_json([r.to_dict() for r in done])
        else:
            for r in done:
                info(f"accepted {r.id}")
