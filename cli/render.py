"""Human-readable rendering of records (tables and detail views) for the terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from mem.format.record import Record
from mem.format.timeutil import format_time

from .common import color_enabled, escape, out_console

STATUS_STYLE = {"active": "green", "candidate": "yellow", "superseded": "dim", "rejected": "red"}


def one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


def print_records_table(records: Sequence[Record]) -> None:
    """A compact table: id, scope, kind, status, content (first line, fitted to the terminal)."""
    if not sys.stdout.isatty():
        # in a pipe: one tab-separated line per record, stable for cut/awk
        for r in records:
            sys.stdout.write(f"{r.id}\t{r.scope}\t{r.kind}\t{r.status}\t{one_line(r.content, 200)}\n")
        return
    from rich.table import Table

    console = out_console()
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    # every column stays on one line; the content is cut to what is left of the width, and on
    # a narrow terminal the scope and kind columns give way first (id and status never do)
    widths = {"id": 26}
    for col in ("scope", "kind", "status"):
        widths[col] = max([len(col), *(len(getattr(r, col)) for r in records)])

    def room() -> int:
        return console.width - sum(widths.values()) - 2 * len(widths)

    for col in ("scope", "kind"):
        if room() < 16:
            del widths[col]
    for col, width in widths.items():
        table.add_column(col, no_wrap=True, min_width=width)
    table.add_column("content", no_wrap=True)
    left = max(8, room())
    for r in records:
        cells = {"id": r.id, "scope": escape(r.scope), "kind": r.kind, "status": r.status}
        if color_enabled():
            cells["status"] = f"[{STATUS_STYLE.get(r.status, '')}]{r.status}[/]"
        table.add_row(*(cells[c] for c in widths), escape(one_line(r.content, left)))
    console.print(table)


def print_record(r: Record) -> None:
    """A record in full: its fields, then its content."""
    lines = [
        ("id", r.id),
        ("scope", r.scope),
        ("kind", r.kind),
        ("status", r.status),
        ("confidence", f"{r.confidence:g}"),
    ]
    if r.tags:
        lines.append(("tags", ", ".join(r.tags)))
    for key in ("valid_from", "valid_to", "recorded_at", "updated_at", "superseded_at"):
        t = getattr(r, key)
        if t is not None:
            lines.append((key, format_time(t)))
    if r.supersedes:
        lines.append(("supersedes", ", ".join(r.supersedes)))
    if r.superseded_by:
        lines.append(("superseded_by", r.superseded_by))
    if r.derived_from:
        lines.append(("derived_from", ", ".join(r.derived_from)))
    for k, v in r.source.items():
        lines.append((f"source.{k}", str(v)))
    lines.append(("digest", r.digest))
    width = max(len(k) for k, _ in lines)
    out = "".join(f"{k.ljust(width)}  {v}\n" for k, v in lines)
    sys.stdout.write(out + "\n" + r.content)
