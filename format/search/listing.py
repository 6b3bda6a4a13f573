"""The newest records that match a filter (``mem list --limit N``) and the store's counts
(``mem stats``), from the lexical index.

``Store.list`` reads and parses every record file to keep the newest few, and ``Store.stats`` to
count them: 9-16 s for ``mem list -n 10`` in a store of 100,000 records (about 1.2 s from the
index). The lexical index's state holds, for each record, all that the order, the counts and most
filters need: its record time (whole milliseconds, as every time in the format), kind, status,
tags and world times (``DocMeta``). ``newest`` asks the state for the newest rows that pass the
filter, then reads each from its file; ``stats`` counts the state's rows.

Nothing derived is trusted without a check (spec/index.md, "Listing from the index"):

- first the index is refreshed with a full stat scan: every record file added, changed or
  removed since it was indexed, by mem or anything else (in-place edits included), is applied;
- every record returned is read from its file and must be what the state said of it (digest and
  fields) and match the filter;
- whatever the state cannot answer exactly falls back to ``Store.list``, which reads every
  record: no lexical index (or one an older mem built), a store locked by a writer or an index
  the refresh may not write (a read-only store), a record file that cannot be read
  (``Store.list`` then names it, as before), state rows without the ranking fields, a filter on
  record time (``known_at``, ``recorded_after``, ``recorded_before``) or on ids, and any record
  found to differ from its state.

So the result is ``Store.list(flt, limit=limit)``'s, record for record and in the same order.
``stats`` trusts the counts of a state its full stat scan has just brought up to date (a file
that cannot be read is left out, as ``Store.stats`` leaves it out); it reads every record where
there is no usable index or the state's rows lack the ranking fields.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import MemError, RecordParseError

if TYPE_CHECKING:
    from mem.format.index.lexical import LexicalIndex
    from mem.format.model.record import Record
    from mem.format.store.store import RecordFilter, Store

#: The fewest state rows asked for at a time (twice the limit, at least this many).
PAGE_MIN = 64


def newest(
    store: Store,
    flt: RecordFilter | None = None,
    limit: int | None = None,
    on_error: Callable[[RecordParseError], None] | None = None,
) -> list[Record]:
    """``store.list(flt, limit=limit, on_error=on_error)``: the records matching ``flt``, newest
    first (record time, then id). With a ``limit`` they are chosen from the lexical index when it
    can answer exactly (see the module docstring), else every record is read."""
    from mem.format.store.store import RecordFilter

    flt = flt or RecordFilter()
    if limit is not None:
        got = _from_index(store, flt, limit)
        if got is not None:
            return got
    return store.list(flt, limit=limit, on_error=on_error)


def _from_index(store: Store, flt: RecordFilter, limit: int) -> list[Record] | None:
    """The answer from the lexical index, or None where only the records can answer."""
    if flt.known_at is not None or flt.recorded_after is not None or flt.recorded_before is not None \
            or flt.ids is not None or limit < 1:
        return None
    with _fresh_index(store) as lex:
        try:
            return None if lex is None else _choose(store, lex, flt, limit)
        except MemError:  # a damaged state, a record that cannot be read
            return None


def stats(store: Store) -> dict[str, Any]:
    """``store.stats()``: records by scope, kind and status (those that cannot be read left out),
    and tombstones; counted from the lexical index's state after a full stat scan, which applied
    every record file changed since it was indexed (else every record is read)."""
    with _fresh_index(store, unreadable_ok=True) as lex:
        try:
            counts = lex.counts() if lex is not None and lex.complete() else None
        except MemError:  # a damaged state
            counts = None
    return store.stats(counts)


@contextlib.contextmanager
def _fresh_index(store: Store, unreadable_ok: bool = False) -> Iterator[LexicalIndex | None]:
    """The lexical index, refreshed by a full stat scan: every record file added, changed or
    removed since it was indexed is applied. None where it cannot be trusted to describe the
    records: none built (a listing builds none) or an older schema's, damaged, locked by a writer,
    not writable, rebuilt meanwhile, or (unless ``unreadable_ok``) a record file that cannot be
    read."""
    import sqlite3

    from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
    from mem.format.index.derived import refresh
    from mem.format.index.lexical import TANTIVY_ERRORS, LexicalIndex, older_schema

    try:
        m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        lex = None if m is None or older_schema(m) else LexicalIndex.open(store.index_dir)
    except MemError:  # a damaged index: the records answer (`mem verify` reports it)
        lex = None
    if lex is None:
        yield None
        return
    unwritable: tuple[type[BaseException], ...] = (MemError, sqlite3.Error, *TANTIVY_ERRORS)
    try:
        try:
            st = refresh(store, lex=lex, full=True)
            usable = not (st.unreadable and not unreadable_ok) and not st.lexical_missing \
                and m is not None and lex.generation == m["generation"]
        except unwritable:
            # locked by a writer, a damaged state, an index it may not write (a read-only store:
            # a listing worked there before it used the index, and still does)
            usable = False
        yield lex if usable else None
    finally:
        lex.close()


def _choose(store: Store, lex: LexicalIndex, flt: RecordFilter, limit: int) -> list[Record] | None:
    """The ``limit`` newest records the state says pass ``flt``, each read and checked."""
    from mem.format.index.lexical import DocMeta, meta_matches

    statuses = flt.effective_statuses()
    if not statuses or (flt.kinds is not None and not flt.kinds) or (flt.scopes is not None and not flt.scopes):
        return []
    if not lex.complete(flt.scopes):  # rows an older mem wrote: their fields are unknown
        return None
    picked: list[tuple[str, str, DocMeta]] = []
    after: tuple[int, str, str] | None = None
    page = max(2 * limit, PAGE_MIN)  # rows a tag or world-time filter rejects are passed over page by page
    while True:
        rows = lex.newest(statuses, scopes=flt.scopes, kinds=flt.kinds, after=after, limit=page)
        for scope, rid, m in rows:
            if m is None:  # tags that are not a list: the state cannot answer
                return None
            if store.tombstones.is_id_tombstoned(scope, rid) or not meta_matches(flt, scope, rid, m):
                continue
            picked.append((scope, rid, m))
            if len(picked) == limit:
                break
        if len(picked) == limit or len(rows) < page:
            break
        scope, rid, m = rows[-1]  # every row was looked at: none lacked its fields
        assert m is not None
        after = (m.recorded_ms, rid, scope)
    out: list[Record] = []
    for scope, rid, m in picked:
        try:
            rec = store.read_path(store.record_path(scope, rid))
        except (FileNotFoundError, RecordParseError):
            return None
        if rec.id != rid or rec.scope != scope or not flt.matches(rec) or DocMeta.fields_of(rec) != m[2:]:
            return None  # the state did not describe the file: every record is read instead
        out.append(rec)
    out.sort(key=lambda r: (r.recorded_at, r.id), reverse=True)
    return out


__all__ = ["newest", "stats"]
