"""``mem why ID``: a record's story (source, reviews, supersession, when it was served)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, open_store


def register(app: typer.Typer) -> None:
    @app.command("why")
    def why_(
        record_id: Annotated[str, typer.Argument(help="The record id.", show_default=False)],
        json_out: Annotated[bool, typer.Option("--json", help="Print the story as JSON.")] = False,
    ) -> None:
        """Tell a record's story: where it was captured from, who reviewed it, what superseded it, and (with [audit] reads = true) when it was served."""
        from mem.format.ops.why import render, story

        st = story(open_store(), record_id)
        if json_out:
            emit_json(st.to_dict())
            return
        sys.stdout.write(render(st))

    _ = why_
