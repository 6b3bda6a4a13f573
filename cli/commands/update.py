"""``mem update``: correct fields of a record in place."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mem.cli.commands.add import read_content
from mem.cli.common import emit_json, info, open_store, split_csv


def register(app: typer.Typer) -> None:
    @app.command("update")
    def update(
        record_id: Annotated[str, typer.Argument(metavar="ID", help="The record to change.")],
        content: Annotated[str | None, typer.Option("--content", "-c", help="New content ('-': stdin).")] = None,
        file: Annotated[Path | None, typer.Option("--file", "-f", help="Read new content from a file.")] = None,
        kind: Annotated[str | None, typer.Option("--kind")] = None,
        scope: Annotated[str | None, typer.Option("--scope", help="Move the record to another scope.")] = None,
        confidence: Annotated[float | None, typer.Option("--confidence", min=0.0, max=1.0)] = None,
        tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Add a tag (repeat).")] = None,
        untag: Annotated[list[str] | None, typer.Option("--untag", help="Remove a tag (repeat).")] = None,
        valid_from: Annotated[str | None, typer.Option("--valid-from", help="Set world-time start ('' clears).")] = None,
        valid_to: Annotated[str | None, typer.Option("--valid-to", help="Set world-time end ('' clears).")] = None,
        allow_forgotten: Annotated[bool, typer.Option("--allow-forgotten", help="Allow content that was forgotten (logged).")] = False,
        allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store text that looks like a secret (a key, token, password...); logged, without the text.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the updated record as JSON.")] = False,
    ) -> None:
        """Correct a record in place (use `supersede` when the world changed)."""
        new_content = None
        if content is not None or file is not None:
            new_content = read_content(content, file)
        store = open_store()
        before = store.get(record_id)
        rec = store.update(
            record_id,
            content=new_content,
            kind=kind,
            scope=scope,
            confidence=confidence,
            add_tags=split_csv(tag) or [],
            remove_tags=split_csv(untag) or [],
            valid_from=... if valid_from is None else valid_from,
            valid_to=... if valid_to is None else valid_to,
            allow_tombstoned=allow_forgotten,
            allow_secret=allow_secret,
        )
        if json_out:
            emit_json(rec.to_dict())
        elif rec == before:  # no option given, or every value already as asked: nothing written
            info("no changes")
        else:
            info(f"updated {rec.id}")
