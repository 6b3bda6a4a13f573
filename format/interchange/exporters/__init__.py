"""Exports to the formats of other memory tools, so that trying mem is not a one-way door:
``mem0`` (the JSON of its ``get_all``), ``basic-memory`` (a project folder of notes) and
``claude-md`` (a ``CLAUDE.md`` document). What a target cannot hold is counted in warnings
(``docs/migrate/``); the lossless format stays JSON Lines (:mod:`mem.format.interchange.export`).
"""

from __future__ import annotations

from collections.abc import Iterator

from mem.format.interchange.export import ExportCounts, ExportFilter, iter_records
from mem.format.model.record import Record
from mem.format.store.store import Store

#: The formats of other tools that ``mem export --format`` writes.
PEER_FORMATS: tuple[str, ...] = ("mem0", "basic-memory", "claude-md")


def peer_records(store: Store, flt: ExportFilter, counts: ExportCounts, target: str) -> Iterator[Record]:
    """The records to export to ``target``: active ones unless ``flt`` names statuses (the other
    tools have no trust states); the records left out are counted in a warning."""
    if flt.statuses is not None:
        yield from iter_records(store, flt)
        return
    skipped: dict[str, int] = {}
    for r in iter_records(store, flt):
        if r.status == "active":
            yield r
        else:
            skipped[r.status] = skipped.get(r.status, 0) + 1
    if skipped:
        what = ", ".join(f"{n} {s}" for s, n in sorted(skipped.items()))
        counts.warnings.append(
            f"{target} has no trust states: only active records were exported ({what} left out; "
            "--status chooses others, exported as if active)"
        )


def tombstone_warning(store: Store, flt: ExportFilter, counts: ExportCounts, target: str) -> None:
    """Warn that ``target`` has no place for the tombstones of the exported scopes."""
    gone: list[str] = []
    for scope in store.tombstones.scopes():
        if flt.scopes is None or scope in flt.scopes:
            gone += [f"{scope}/{rid}" for rid in sorted(store.tombstones.load(scope).ids)]
    if gone:
        shown = ", ".join(gone[:10]) + (f" and {len(gone) - 10} more" if len(gone) > 10 else "")
        counts.warnings.append(
            f"{target} has no place for tombstones: {len(gone)} forgotten item(s) are not carried "
            f"({shown}), so a tool that reads this export will not know to refuse them "
            "(a JSON Lines export keeps them)"
        )
