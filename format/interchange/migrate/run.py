"""Running an import: :func:`import_entries` over a reader's entries, :func:`import_path` over a file or folder."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from mem.format.base.errors import MemError
from mem.format.interchange.importers.base import Entry, ImportItem, Tombstoneish
from mem.format.interchange.migrate.apply import _apply_item, _apply_tombstone, _problem
from mem.format.interchange.migrate.outcomes import ImportOptions, ImportSummary
from mem.format.interchange.migrate.plan import _order, _State, _writer
from mem.format.rules import ids
from mem.format.store.store import Store


def import_entries(
    store: Store,
    entries: Iterable[Entry],
    *,
    system: str,
    path: str,
    options: ImportOptions | None = None,
    foreign: bool | None = None,
    progress: Callable[[list[ImportItem]], Iterable[ImportItem]] | None = None,
) -> ImportSummary:
    """Apply a reader's entries to ``store``; returns the summary (see the module text)."""
    opts = options or ImportOptions()
    if opts.scope:
        ids.check_scope(opts.scope)
    for v in opts.scope_map.values():
        ids.check_scope(v)
    if foreign is None:
        from mem.format.interchange.importers import FOREIGN

        foreign = system in FOREIGN
    summary = ImportSummary(system=system, path=path, dry_run=opts.dry_run)
    items: list[ImportItem] = []
    tombs: list[Tombstoneish] = []
    for e in entries:
        if isinstance(e, ImportItem):
            items.append(e)
        elif isinstance(e, Tombstoneish):
            tombs.append(e)
        else:
            _problem(summary, e)
    state = _State(store)
    state.input_ids = {it.record.id for it in items if it.record is not None}
    writer = _writer()
    ctx = store.batch() if not opts.dry_run else _NoBatch()
    with ctx:
        if not opts.dry_run:  # a torn audit chain refuses the import before its first write
            store.check_appendable()
        ordered = _order(items)
        try:
            for item in progress(ordered) if progress is not None else ordered:
                _apply_item(store, state, item, opts, summary, foreign, writer)
            # Tombstones of an export come after its records: the exporting store may hold a
            # live record whose content equals a forgotten one's (the other copy was forgotten);
            # that record was live there and stays live here. The store's own tombstones apply
            # first.
            for t in tombs:
                _apply_tombstone(store, state, t, opts, summary)
        except MemError as exc:
            # each record is written whole or not at all; say what is in, and that a re-run
            # completes the import without duplicates (items are matched by their source)
            done = summary.counts["created"] + summary.tombstones["added"]
            if done and not opts.dry_run:
                exc.message += (
                    f"; {summary.counts['created']} record(s) and {summary.tombstones['added']} "
                    "tombstone(s) were imported before this error, the rest were not "
                    "(run the import again to complete it: nothing is duplicated)"
                )
            raise
    return summary


class _NoBatch:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def import_path(
    store: Store,
    path: Path,
    system: str,
    *,
    options: ImportOptions | None = None,
    timezone: str | None = None,
    display: str | None = None,
    progress: Callable[[list[ImportItem]], Iterable[ImportItem]] | None = None,
) -> ImportSummary:
    """Read ``path`` as ``system`` and import it (the library form of ``mem import``)."""
    from mem.format.interchange.importers import ReadOptions, get_timezone, read_source

    entries = read_source(path, system, ReadOptions(timezone=get_timezone(timezone), display=display))
    return import_entries(
        store, entries, system=system, path=display or str(path), options=options, progress=progress
    )
