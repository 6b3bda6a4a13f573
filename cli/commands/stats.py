"""``mem stats``: counts by scope, kind and status."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, open_store


def register(app: typer.Typer) -> None:
    @app.command("stats")
    def stats(
        json_out: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
    ) -> None:
        """Count records by scope, kind and status, and tombstones."""
        from mem.format.search.listing import stats as store_stats

        store = open_store()
        s = store_stats(store)
        if json_out:
            emit_json(s)
            return
        out = [f"store       {s['store']}", f"format      {s['format']} v{s['version']}",
               f"records     {s['records']}", f"tombstones  {s['tombstones']}"]
        for title, key in (("by scope", "by_scope"), ("by kind", "by_kind"), ("by status", "by_status")):
            out.append(f"{title}:")
            out.extend(f"  {k:<14}{v}" for k, v in s[key].items())
        sys.stdout.write("\n".join(out) + "\n")
