"""``mem repair``: finish what a crash interrupted; quarantine torn log lines (explicitly)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store


def register(app: typer.Typer) -> None:
    @app.command("repair")
    def repair(
        dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Report what would be repaired; change nothing.")] = False,
        adopt: Annotated[bool, typer.Option("--adopt", help="Also accept records changed outside mem (e.g. in an editor): rewrite them canonically and log them.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Repair the store after a crash: torn log lines (moved to .mem/quarantine/), interrupted
        forgets and supersessions, leftover temporary files. Derived indexes: use `mem rebuild`."""
        from mem.format.verify.repair import repair as do_repair

        store = open_store()
        rep = do_repair(store, dry_run=dry_run, adopt=adopt)
        if json_out:
            emit_json(rep.to_dict())
            return
        verb = "would " if dry_run else ""
        for t in rep.torn_tails:
            sys.stdout.write(f"{verb}quarantine torn last line of {t['path']} ({t['bytes']} bytes)\n")
        for rid in rep.completed_forgets:
            sys.stdout.write(f"{verb}complete interrupted forget of {rid}\n")
        for rid in rep.completed_supersessions:
            sys.stdout.write(f"{verb}complete interrupted supersession of {rid}\n")
        for p in rep.removed_temp_files:
            sys.stdout.write(f"{verb}remove temporary file {p}\n")
        for rid in rep.adopted:
            sys.stdout.write(f"{verb}adopt outside change to {rid}\n")
        for rid in rep.needs_adopt:
            sys.stdout.write(f"record {rid} was changed outside mem: `mem repair --adopt` accepts the change\n")
        if not rep.changed and not rep.needs_adopt:
            info("nothing to repair")
