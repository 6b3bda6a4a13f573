"""``mem forget``: remove records for good, with everything derived from them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mem.cli.common import OPTIONS, confirm, emit_json, info, open_store, warn
from mem.cli.render import one_line

if TYPE_CHECKING:
    from mem.format.store.store import ForgetPlan


def register(app: typer.Typer) -> None:
    @app.command("forget")
    def forget(
        record_ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="Records to forget.")] = None,
        source: Annotated[str | None, typer.Option("--source", help="Instead of ids: every record captured from this session or conversation.")] = None,
        transcript: Annotated[str | None, typer.Option("--transcript", help="Instead of ids: every record captured from this transcript file.")] = None,
        all_: Annotated[bool, typer.Option("--all", help="Instead of ids: every record of --scope.")] = False,
        reason: Annotated[str, typer.Option("--reason", help="Why (kept in the tombstone and the log).")] = "",
        scope: Annotated[str | None, typer.Option("--scope", help="Require the records to be in this scope.")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Show what would be forgotten; change nothing.")] = False,
        yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask (required when not on a terminal).")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the plan/result as JSON.")] = False,
    ) -> None:
        """Forget records: delete them, leave tombstones, and cascade to derived records.

        The content is removed from the records and the indexes; a tombstone (id, scope, digest,
        time, reason; never the content) keeps it from coming back by import or capture.
        """
        from mem.format.base.errors import ConflictError, ExitCode, ValidationError

        store = open_store()
        selectors = [x for x, on in (("ids", bool(record_ids)), ("--source", source is not None),
                                     ("--transcript", transcript is not None), ("--all", all_)) if on]
        if len(selectors) != 1:
            raise ValidationError(
                "name what to forget: record ids, --source SESSION, --transcript FILE or "
                "--scope S --all (one of them)"
            )
        if all_ and not scope:
            raise ValidationError("--all forgets every record of a scope: name it with --scope S")
        if record_ids:
            ids_ = list(record_ids)
        else:
            ids_ = [r.id for r in store.select_records(scope=scope, session=source, transcript=transcript)]
            if not ids_:
                info("no live record matches: nothing to forget")
                return
        plan = store.plan_forget(ids_, scope)
        lines = [f"{r.id}\t{r.scope}\t{r.kind}\t{one_line(r.content, 60)}" for r in plan.requested]
        lines += [
            f"{r.id}\t{r.scope}\t{r.kind}\t{one_line(r.content, 50)}\t(derived from {src})"
            for r, src in plan.cascade
        ]
        lines += [
            f"{r.id}\t{r.scope}\t{r.kind}\t{one_line(r.content, 50)}\t(restored: current again)"
            for r in plan.restored
        ]
        if dry_run:
            # the plan is the data of a dry run: stdout
            if json_out:
                emit_json(dict(plan.to_dict(), dry_run=True))
            else:
                info(f"mem would forget {len(plan.records)} record(s):")
                sys.stdout.write("".join(line + "\n" for line in lines))
            return
        if not json_out and not (OPTIONS.quiet and yes):
            sys.stderr.write(
                f"mem will forget {len(plan.records)} record(s):\n"
                + "".join(f"  {line}\n" for line in lines)
            )
        if not yes:
            if not sys.stdin.isatty():
                raise ConflictError(
                    "refusing to forget without confirmation", hint="pass --yes (or --dry-run to look first)"
                )
            if not confirm(f"Forget these {len(plan.records)} record(s)? This cannot be undone."):
                sys.stderr.write("nothing forgotten\n")
                raise typer.Exit(int(ExitCode.CONFLICT))
        done = store.forget([r.id for r in plan.requested], reason=reason, scope=scope,
                            check=lambda now: _same_plan(plan, now))
        from mem.format.index.derived import attach

        for err in attach(store).errors:  # the forget is done; an index may still hold them
            warn(f"{err}; until the next search or `mem rebuild`, the index files may still hold "
                 "the forgotten records (no reader returns them)")
        if json_out:
            emit_json(dict(done.to_dict(), dry_run=False))
        elif not OPTIONS.quiet:
            info(f"forgot {len(done.records)} record(s)")
        warn_copies_elsewhere(store.root)


def warn_copies_elsewhere(root: Path) -> None:
    """What a forget cannot reach: the git history of the store, and copies made before."""
    from mem.format.ops.gitsetup import git_toplevel

    if git_toplevel(root) is not None:
        warn("this store is in a git repository: its history keeps the forgotten text (in the "
             "commits made while the files existed); `mem verify --forgotten --history` lists "
             "them and how to purge them")
    if not OPTIONS.quiet:
        info("copies made before (exports, backups, other clones) are not changed by a forget")


def _same_plan(shown: ForgetPlan, now: ForgetPlan) -> None:
    """The forget confirmed is the forget done: refuse when the plan changed since it was shown
    (a record derived from these was added meanwhile)."""
    from mem.format.base.errors import ConflictError

    if {r.id for r in now.records} != {r.id for r in shown.records}:
        raise ConflictError("the records changed since the plan was shown; nothing forgotten",
                            hint="run the forget again to see the new plan")
