"""Human-readable rendering of records (tables and detail views) for the terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence

from mem.cli.common import color_enabled
from mem.cli.termtext import safe
from mem.format.model.record import Record
from mem.format.rules.timeutil import format_time

STATUS_STYLE = {"active": "green", "candidate": "yellow", "superseded": "dim", "rejected": "red"}


def one_line(text: str, width: int) -> str:
    """``text`` on one line (white space collapsed), cut to ``width``, safe to print."""
    flat = safe(" ".join(text.split()))
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


#: SGR codes of the statuses on a terminal with colour (see STATUS_STYLE)
_SGR = {"green": "32", "yellow": "33", "dim": "2", "red": "31"}

#: Below this many columns for the content, a table row would cut it to a stub: the listing
#: switches to the two-line layout, which gives the content the terminal's whole width.
MIN_CONTENT = 40


def _styled(text: str, style: str, colour: bool) -> str:
    code = _SGR.get(style)
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def records_listing(records: Sequence[Record], width: int, colour: bool) -> Iterator[str]:
    """The lines of ``mem list`` on a terminal ``width`` columns wide.

    Every field is shown for every record, whatever the width (no column is dropped). When the
    table leaves the content at least MIN_CONTENT columns, one row per record under a header;
    else two lines per record: id, scope, kind and status, then the content indented, wrapped
    over up to two lines of the whole width.
    """
    widths = {"id": 26}
    for col in ("scope", "kind", "status"):
        widths[col] = max([len(col), *(len(getattr(r, col)) for r in records)])

    def cell(r: Record, col: str) -> str:
        value = str(getattr(r, col))
        padded = value.ljust(widths[col])
        if col == "status":
            return _styled(value, STATUS_STYLE.get(value, ""), colour) + padded[len(value):]
        return padded

    room = width - sum(widths.values()) - 2 * len(widths)
    if room >= MIN_CONTENT:
        head = "  ".join(c.ljust(w) for c, w in widths.items()) + "  content"
        yield f"\x1b[1m{head}\x1b[0m" if colour else head
        for r in records:
            yield "  ".join(cell(r, c) for c in widths) + "  " + one_line(r.content, room)
        return
    text_width = max(20, width - 4)
    for r in records:
        yield "  ".join(cell(r, c) for c in widths).rstrip()
        flat = one_line(r.content, len(r.content) + 1)  # flattened (and made safe) as a row's is
        first, rest = flat[:text_width], flat[text_width:]
        if rest and " " in first and not rest.startswith(" "):
            cut = first.rindex(" ")  # break between words when the line ends inside one
            first, rest = flat[:cut], flat[cut:]
        yield "    " + first
        if rest.strip():
            yield "    " + one_line(rest, text_width)


def print_records_table(records: Sequence[Record]) -> None:
    """``mem list``'s output: tab-separated lines in a pipe; on a terminal, the listing of
    :func:`records_listing` fitted to its width, through the pager (cli/pager.py)."""
    if not sys.stdout.isatty():
        # in a pipe: one tab-separated line per record, stable for cut/awk
        for r in records:
            sys.stdout.write(f"{r.id}\t{r.scope}\t{r.kind}\t{r.status}\t{one_line(r.content, 200)}\n")
        return
    import shutil

    from mem.cli.pager import paged

    width = shutil.get_terminal_size().columns
    with paged() as out:
        for line in records_listing(records, width, color_enabled()):
            out.write(line + "\n")


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
    out = "".join(f"{k.ljust(width)}  {safe(v)}\n" for k, v in lines)
    sys.stdout.write(out + "\n" + safe(r.content))
