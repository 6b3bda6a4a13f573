"""``mem log``: the audit log (every mutation, hash-chained; never content)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, open_store, warn
from mem.cli.termtext import safe_line


def register(app: typer.Typer) -> None:
    @app.command("log")
    def log(
        record_id: Annotated[str | None, typer.Option("--id", help="Only events about this record.")] = None,
        op: Annotated[list[str] | None, typer.Option("--op", help="Only these operations (repeat).")] = None,
        limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="The newest N events.")] = None,
        verify: Annotated[bool, typer.Option("--verify", help="Check the hash chains; exit 1 if broken.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print a JSON array of events.")] = False,
    ) -> None:
        """Show the audit log, oldest first (with --limit: the newest N)."""
        from mem.format.base.errors import ExitCode

        store = open_store()
        if verify:
            problems = store.log.verify()
            if json_out:
                emit_json({"valid": not problems, "problems": [
                    {"path": str(p.path), "line": p.line, "kind": p.kind, "message": p.message} for p in problems
                ]})
            else:
                for p in problems:
                    sys.stdout.write(f"{p.path}:{p.line}: {p.message}\n")
                if not problems:
                    sys.stderr.write("audit log: all chains verify\n")
            if problems:
                raise typer.Exit(int(ExitCode.CHECK_FAILED))
            return
        events = list(store.log.iter_events())
        if record_id:
            from mem.format.rules.ids import normalize_id

            rid = normalize_id(record_id)
            events = [e for e in events if e.get("id") == rid]
        if op:
            from mem.format.model.audit import OPS

            for o in op:
                if o not in OPS:
                    warn(f"{o!r} is not an operation of the audit log ({', '.join(OPS)})")
            events = [e for e in events if e.get("op") in op]
        if limit is not None:
            events = events[-limit:]
        if json_out:
            emit_json(events)
            return
        from mem.cli.pager import paged

        with paged() as out:
            for e in events:
                detail = e.get("detail") or {}
                extra = " ".join(f"{k}={v}" for k, v in detail.items() if v not in (None, ""))
                line = (
                    f"{e.get('ts')}  {e.get('op', ''):<14} {e.get('id') or '-':<26}  "
                    f"{e.get('scope') or '-':<12} {e.get('actor', '')}{'  ' + extra if extra else ''}"
                )
                out.write(safe_line(line) + "\n")  # reasons and actors are anyone's text
