"""``mem show``: print one record."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, open_store
from mem.cli.termtext import safe


def register(app: typer.Typer) -> None:
    @app.command("show")
    def show(
        record_id: Annotated[str, typer.Argument(metavar="ID", help="The record's id.")],
        scope: Annotated[str | None, typer.Option("--scope", help="Require the record to be in this scope.")] = None,
        raw: Annotated[bool, typer.Option("--raw", help="Print the record file as stored.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
    ) -> None:
        """Show a record: its fields and content."""
        store = open_store()
        rec = store.get(record_id, scope)
        if json_out:
            emit_json(rec.to_dict())
        elif raw:
            from mem.format.model.record import dump_record

            text = dump_record(rec)  # the file as stored; on a terminal, shown not obeyed
            sys.stdout.write(safe(text) if sys.stdout.isatty() else text)
        else:
            from mem.cli.render import print_record

            print_record(rec)
