"""``mem supersede``: a new record replaces an old one from a point in time."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mem.cli.commands.add import read_content
from mem.cli.common import emit_json, info, open_store, split_csv


def register(app: typer.Typer) -> None:
    @app.command("supersede")
    def supersede(
        record_id: Annotated[str, typer.Argument(metavar="ID", help="The record that is no longer true.")],
        text: Annotated[str | None, typer.Argument(help="What is true now ('-' or a pipe: stdin).")] = None,
        file: Annotated[Path | None, typer.Option("--file", "-f", help="Read the new content from a file.")] = None,
        kind: Annotated[str | None, typer.Option("--kind", help="Kind of the new record (default: the old one's).")] = None,
        tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Tags of the new record (default: the old one's).")] = None,
        confidence: Annotated[float | None, typer.Option("--confidence", min=0.0, max=1.0)] = None,
        valid_from: Annotated[str | None, typer.Option("--valid-from", help="When the new fact became true (default: now).")] = None,
        reason: Annotated[str | None, typer.Option("--reason", help="Why (kept in the audit log).")] = None,
        allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store text that looks like a secret (a key, token, password...); logged, without the text.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print {new, old} as JSON.")] = False,
    ) -> None:
        """Replace a record with a new one; the old one becomes superseded (kept for history)."""
        content = read_content(text, file)
        store = open_store()
        new, old = store.supersede(
            record_id,
            content,
            kind=kind,
            tags=split_csv(tag),
            confidence=confidence,
            valid_from=valid_from,
            reason=reason,
            source={"type": "cli", "command": "supersede"},
            allow_secret=allow_secret,
        )
        if json_out:
            emit_json({"new": new.to_dict(), "old": old.to_dict()})
        else:
            sys.stdout.write(new.id + "\n")
            info(f"{new.id} supersedes {old.id}")
