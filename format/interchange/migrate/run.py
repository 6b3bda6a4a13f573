"""Running an import: :func:`import_entries` over a reader's entries, :func:`import_path` over a file or folder."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from mem.format.base.errors import InvalidInputError, MemError
from mem.format.interchange.importers.base import Entry, ImportItem, Tombstoneish
from mem.format.interchange.migrate.apply import _apply_item, _apply_tombstone, _problem
from mem.format.interchange.migrate.outcomes import ImportOptions, ImportSummary
from mem.format.interchange.migrate.plan import _links, _order, _State, _writer
from mem.format.rules import ids
from mem.format.store.store import Store


def import_entries(
    store: Store,
    entries: Iterable[Entry] | Callable[[], Iterable[Entry]],
    *,
    system: str,
    path: str,
    options: ImportOptions | None = None,
    foreign: bool | None = None,
    progress: Callable[[Iterable[ImportItem], int], Iterable[ImportItem]] | None = None,
    index: bool = False,
) -> ImportSummary:
    """Apply a reader's entries to ``store``; returns the summary (see the module text).

    ``index``: bring the lexical index up to date with what was written (build it when there is
    none) before the writer lock is let go, so that no search finds the store between the
    writes and the index: one that took the lock then would index thousands of records itself
    (bench/README.md, "The first search during an import"); a search meanwhile waits for none
    of it and says how many records it cannot find yet.

    ``entries``: the entries, or a function that reads them anew at each call (``import_path``):
    then the items are never all held in memory. A first pass notes the reading problems, the
    tombstones and what each item is known by and derives from (``plan._links``); the second
    applies the items as they are read again, sources first (an item read before its source
    waits for it; the input's own order needs no wait). ``progress(items, count)`` wraps the
    items as they are applied."""
    opts = options or ImportOptions()
    if opts.scope:
        ids.check_scope(opts.scope)
    for v in opts.scope_map.values():
        ids.check_scope(v)
    if foreign is None:
        from mem.format.interchange.importers import FOREIGN

        foreign = system in FOREIGN
    if callable(entries):
        read = entries
    else:
        held = list(entries)

        def read() -> Iterable[Entry]:
            return held

    summary = ImportSummary(system=system, path=path, dry_run=opts.dry_run)
    tombs: list[Tombstoneish] = []
    refs: dict[str, int] = {}
    needs: dict[int, list[str]] = {}
    input_ids: set[str] = set()
    n = 0
    for e in read():
        if isinstance(e, ImportItem):
            own, links = _links(e)
            if own is not None:
                refs.setdefault(own, n)
            if links:
                needs[n] = links
            if e.record is not None:
                input_ids.add(e.record.id)
            n += 1
        elif isinstance(e, Tombstoneish):
            tombs.append(e)
        else:
            _problem(summary, e)
    order = _order(refs, needs, n)
    del refs, needs
    state = _State(store)
    state.input_ids = input_ids
    writer = _writer()
    if not index or opts.dry_run:
        _apply_all(store, read, order, n, path, tombs, opts, summary, foreign, state, writer, progress)
        return summary
    from mem.format.index.derived import refresh

    with store.lock:
        _apply_all(store, read, order, n, path, tombs, opts, summary, foreign, state, writer, progress)
        refresh(store)
    return summary


def _apply_all(store: Store, read: Callable[[], Iterable[Entry]], order: list[int] | None, n: int, path: str,
               tombs: list[Tombstoneish], opts: ImportOptions, summary: ImportSummary, foreign: bool,
               state: _State, writer: str,
               progress: Callable[[Iterable[ImportItem], int], Iterable[ImportItem]] | None) -> None:
    """The second pass of ``import_entries``: the items, then the tombstones, in one batch."""
    ctx = store.batch() if not opts.dry_run else _NoBatch()
    with ctx:
        if not opts.dry_run:  # a torn audit chain refuses the import before its first write
            store.check_appendable()
        try:
            items = _Items(read, order, n, path)
            for item in progress(items, n) if progress is not None else items:
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


class _Items:
    """The items of the second pass, in the order to apply them (``import_entries``)."""

    def __init__(self, read: Callable[[], Iterable[Entry]], order: list[int] | None, n: int, path: str) -> None:
        self.read, self.order, self.n, self.path = read, order, n, path

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[ImportItem]:
        waiting: dict[int, ImportItem] = {}  # read, not yet due (its source comes later)
        pos = 0
        j = 0
        for e in self.read():
            if not isinstance(e, ImportItem):
                continue
            if j >= self.n:
                break
            if self.order is None:
                yield e
            else:
                waiting[j] = e
                while pos < self.n and self.order[pos] in waiting:
                    yield waiting.pop(self.order[pos])
                    pos += 1
            j += 1
        if j < self.n:
            raise InvalidInputError(
                f"the input changed while it was imported ({self.n} items when first read, {j} the second time)",
                path=self.path, hint="run the import again")


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
    progress: Callable[[Iterable[ImportItem], int], Iterable[ImportItem]] | None = None,
    index: bool = False,
) -> ImportSummary:
    """Read ``path`` as ``system`` and import it (the library form of ``mem import``). The file
    is read twice (``import_entries``): the items are not all held in memory. ``index``: see
    ``import_entries``."""
    from mem.format.interchange.importers import ReadOptions, get_timezone, read_source

    ropts = ReadOptions(timezone=get_timezone(timezone), display=display)

    def entries() -> Iterable[Entry]:
        return read_source(path, system, ropts)

    return import_entries(
        store, entries, system=system, path=display or str(path), options=options, progress=progress, index=index
    )
