"""``mem sync``: commit, fetch, merge record by record, push (one memory on many machines)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store


def register(app: typer.Typer) -> None:
    @app.command("sync")
    def sync(
        remote: Annotated[
            str | None, typer.Argument(help="The git remote (default: the branch's upstream, else origin).")
        ] = None,
        no_push: Annotated[bool, typer.Option("--no-push", help="Fetch and merge only (a read-only machine).")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print what came in and went out as JSON.")] = False,
    ) -> None:
        """Sync the store with a git remote: commit local changes, fetch, merge, push.

        Records merge field by field (tags as sets; a field both sides changed goes to the later
        version and the other version becomes a candidate for `mem review`); a forget made on any
        machine wins everywhere. Retries when another machine pushed first.
        """
        from mem.format.ops.gitsync import sync as run

        store = open_store()
        report = run(store, remote, push=not no_push)
        if json_out:
            emit_json(report.to_dict())
            return
        inc, out = report.incoming, report.outgoing
        if report.committed:
            info(f"committed local changes ({report.committed[:10]})")
        if report.remote is None:
            info("no remote: nothing fetched or pushed")
            return
        sys.stdout.write(
            f"in: {len(inc.added)} added, {len(inc.changed)} changed, {len(inc.removed)} removed; "
            f"out: {len(out.added)} added, {len(out.changed)} changed, {len(out.removed)} removed"
            + ("" if report.pushed else " (not pushed)") + "\n"
        )
        if report.conflicts:
            info(f"{len(report.conflicts)} conflict(s) resolved (see mem log --op merge)")
        if report.kept_versions:
            info(f"{len(report.kept_versions)} version(s) that lost a conflict are candidates: mem review")
        if report.forgotten:
            info(f"{len(report.forgotten)} record(s) forgotten on another machine were removed here")
