"""``mem list``: list records with filters."""

from __future__ import annotations

from typing import Annotated

import typer

from mem.cli.common import SkipUnreadable, emit_json, open_store, parse_time_option, split_csv, warn
from mem.format.store.store import RecordFilter

STATUS_HELP = "Status(es): candidate, active, superseded, rejected, or 'all' (default: active,candidate)."


def build_filter(
    scope: list[str] | None,
    kind: list[str] | None,
    status: list[str] | None,
    tag: list[str] | None,
    as_of: str | None,
    known_at: str | None,
) -> RecordFilter:
    from mem.cli.searchfast import statuses_option
    from mem.format.model.record import STATUSES

    statuses = statuses_option(status)
    if statuses:
        from mem.format.base.errors import ValidationError

        for s in statuses:
            if s not in STATUSES:
                raise ValidationError(f"status {s!r} is not one of {', '.join(STATUSES)}, all")
    return RecordFilter(
        scopes=split_csv(scope),
        kinds=split_csv(kind),
        statuses=statuses,
        tags=split_csv(tag),
        as_of=parse_time_option(as_of, "--as-of"),
        known_at=parse_time_option(known_at, "--known-at"),
    )


def register(app: typer.Typer) -> None:
    @app.command("list")
    def list_(
        scope: Annotated[list[str] | None, typer.Option("--scope", help="Only these scopes.")] = None,
        kind: Annotated[list[str] | None, typer.Option("--kind", help="Only these kinds.")] = None,
        status: Annotated[list[str] | None, typer.Option("--status", help=STATUS_HELP)] = None,
        tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Only records with all these tags.")] = None,
        as_of: Annotated[str | None, typer.Option("--as-of", help="What was true at this time (world time).")] = None,
        known_at: Annotated[str | None, typer.Option("--known-at", help="What the store believed at this time (record time).")] = None,
        limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many.")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print a JSON array of records.")] = False,
    ) -> None:
        """List records, newest first."""
        from mem.cli.render import print_records_table
        from mem.format.search.listing import newest

        store = open_store()
        flt = build_filter(scope, kind, status, tag, as_of, known_at)
        records = newest(store, flt, limit, on_error=SkipUnreadable())
        if not records and flt.kinds:
            from mem.format.rules.ids import KNOWN_KINDS

            for k in flt.kinds:
                if k not in KNOWN_KINDS:  # a typo lists nothing: say so (kinds are open, so only then)
                    warn(f"no record has kind {k!r}, which is not one of the usual kinds ({', '.join(KNOWN_KINDS)})")
        if json_out:
            emit_json([r.to_dict() for r in records])
        else:
            print_records_table(records)
