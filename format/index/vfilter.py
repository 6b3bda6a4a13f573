"""The vector arm's filter: which vector rows of a scope a search's filters may accept.

A search with ``--kind``, ``--tag``, ``--status``, ``--as-of`` or ``--known-at`` must give the best
rows that pass them. Choosing the best rows of all and filtering afterwards returns fewer, or
none, when the rows nearest the query fail the filter (a filter that accepts a few percent of
a large store can find none of its hits: bench/README.md, "Figures behind constants in the code"). So the vector arm leaves out of its tops the
rows these masks reject (``VectorIndex.prepare(keep=...)``).

A mask is a superset of what the filter accepts: a row the lexical state does not describe
fully (an older mem's row, another version of the record than the vector's) is kept, and
``superseded_at`` (which ``--known-at`` also tests) is not in the state. Every hit is still
checked against the filter itself (``Searcher._views``, ``_fuse``). The default statuses of an
unfiltered search are not masked: they reject few rows, and a long-lived searcher's first masks
read every row's columns (0.4-0.6 s at 100k records; ``ColumnSet``), a one-shot search's an SQL
selection of the rows that may pass (``direct_keep``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mem.format.model.record import STATUSES
from mem.format.rules.timeutil import epoch_ms

if TYPE_CHECKING:
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import RecordFilter

_STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}


def filtered(flt: RecordFilter) -> bool:
    """Whether a search's filter is more than the default statuses (the vector arm masks it)."""
    return bool(flt.kinds is not None or flt.tags or flt.statuses is not None or flt.as_of is not None
                or flt.known_at is not None)


class Columns:
    """What the lexical state says of each main vector row of one scope (kind, status, tags,
    times), aligned with the rows; ``known`` is False where it says nothing certain. Read in one
    query per scope, then kept current by ``update`` (``ColumnSet``)."""

    def __init__(self, lex: LexicalIndex, vec: VectorIndex, scope: str) -> None:
        import numpy as np

        m = vec.main(scope)
        rows = self._rows = m.rows
        n = self.n = len(rows)
        pos = self._pos = m.pos
        self.kinds: dict[str, int] = {}
        at: list[int] = []
        kinds: list[int] = []
        statuses: list[int] = []
        times: list[tuple[int, int, int]] = []
        raw: list[str] = []
        code = self.kinds.setdefault
        for rid, dg, kind, status, tags, vf, vt, rec in lex.db.execute(
                "SELECT id, digest, kind, status, tags, valid_from_ms, valid_to_ms, recorded_ms FROM records "
                "WHERE scope=?", (scope,)):
            i = pos.get(rid)
            if i is None or rows[i][1] != dg or kind is None or status not in _STATUS_CODE or tags is None \
                    or vf is None or vt is None or rec is None:
                continue  # not this row's version, or not described fully: kept whatever the filter
            at.append(i)
            kinds.append(code(str(kind), len(self.kinds)))
            statuses.append(_STATUS_CODE[status])
            times.append((int(vf), int(vt), int(rec)))
            raw.append(str(tags))
        idx = np.asarray(at, dtype=np.intp)  # the rows described, in the order of the lists
        self.known = np.zeros(n, dtype=bool)
        self.known[idx] = True
        self.kind = np.full(n, -1, dtype=np.int32)
        self.kind[idx] = kinds
        self.status = np.full(n, -1, dtype=np.int8)
        self.status[idx] = statuses
        t = np.asarray(times, dtype=np.int64).reshape(-1, 3)
        self.valid_from, self.valid_to, self.recorded = (np.full(n, -1, dtype=np.int64) for _ in range(3))
        self.valid_from[idx], self.valid_to[idx], self.recorded[idx] = t[:, 0], t[:, 1], t[:, 2]
        self._raw: list[str | None] = [None] * n  # each row's tags as JSON, parsed when a tag filter asks
        for i, r in zip(at, raw, strict=True):
            self._raw[i] = r
        self._tag_masks: dict[str, Any] = {}

    def update(self, changed: list[tuple[Any, ...]]) -> None:
        """Apply state rows (id, digest, kind, status, tags, valid_from_ms, valid_to_ms,
        recorded_ms) changed since the build: a record's kind, status, tags or times may change
        while its vector stays (a changed content makes its row dead: left out anyway)."""
        rows = self._rows
        pos = self._pos
        for rid, dg, kind, status, tags, vf, vt, rec in changed:
            i = pos.get(rid)
            if i is None:
                continue
            if rows[i][1] != dg or kind is None or status not in _STATUS_CODE or tags is None \
                    or vf is None or vt is None or rec is None:
                self.known[i] = False
                continue
            self.known[i] = True
            self.kind[i] = self.kinds.setdefault(str(kind), len(self.kinds))
            self.status[i] = _STATUS_CODE[status]
            self.valid_from[i], self.valid_to[i], self.recorded[i] = int(vf), int(vt), int(rec)
            self._raw[i] = str(tags)
        self._tag_masks.clear()

    def _tag(self, tag: str) -> Any:
        """The rows described whose tags hold ``tag`` (a row whose tags cannot be read is kept)."""
        got = self._tag_masks.get(tag)
        if got is None:
            import numpy as np

            def has(raw: str | None) -> bool:
                if raw is None or raw == "[]":
                    return False  # not described (kept by ~known), or no tags
                try:
                    return tag in json.loads(raw)
                except (ValueError, TypeError):
                    return True
            got = self._tag_masks[tag] = np.fromiter((has(r) for r in self._raw), dtype=bool, count=self.n)
        return got

    def keep(self, flt: RecordFilter) -> Any:
        """The rows ``flt`` may accept (``RecordFilter.matches_fields``, and ``recorded_at`` for
        ``known_at``), every row not ``known`` among them. Times are compared to the
        millisecond either side of the filter's (the state keeps milliseconds): a superset."""
        import numpy as np

        ok = np.ones(self.n, dtype=bool)
        if flt.kinds is not None:
            ok &= np.isin(self.kind, [self.kinds[k] for k in flt.kinds if k in self.kinds])
        ok &= np.isin(self.status, [_STATUS_CODE[s] for s in flt.effective_statuses() if s in _STATUS_CODE])
        for tag in flt.tags or ():
            ok &= self._tag(tag)
        if flt.as_of is not None:
            lo = epoch_ms(flt.as_of)
            ok &= (self.valid_from == -1) | (self.valid_from <= lo + 1)
            ok &= (self.valid_to == -1) | (self.valid_to > lo)
        if flt.known_at is not None:
            ok &= self.recorded <= epoch_ms(flt.known_at) + 1
        return ok | ~self.known


_UNDESCRIBED = ("kind IS NULL OR status IS NULL OR tags IS NULL OR valid_from_ms IS NULL OR valid_to_ms IS NULL "
                "OR recorded_ms IS NULL")


def _passing(flt: RecordFilter) -> tuple[str, list[Any]]:
    """An SQL condition on a state row true when its kind, status and times may pass ``flt``
    (``Columns.keep``'s tests, the same milliseconds either side), and its parameters."""
    conds: list[str] = []
    params: list[Any] = []
    for column, values in (("kind", flt.kinds), ("status", list(flt.effective_statuses()))):
        if values is not None:
            conds.append(f"{column} IN ({','.join('?' * len(values))})" if values else "0")
            params += list(values)
    if flt.as_of is not None:
        lo = epoch_ms(flt.as_of)
        conds.append("(valid_from_ms = -1 OR valid_from_ms <= ?) AND (valid_to_ms = -1 OR valid_to_ms > ?)")
        params += [lo + 1, lo]
    if flt.known_at is not None:
        conds.append("recorded_ms <= ?")
        params.append(epoch_ms(flt.known_at) + 1)
    return " AND ".join(conds), params


def _tags_pass(flt: RecordFilter, tags: str) -> bool:
    """Whether a state row's tags (JSON) hold all of ``flt``'s (unreadable tags: kept)."""
    if not flt.tags:
        return True
    try:
        got = () if tags == "[]" else tuple(json.loads(tags))
    except (ValueError, TypeError):
        return True
    return all(t in got for t in flt.tags)


def direct_keep(lex: LexicalIndex, vec: VectorIndex, scope: str, flt: RecordFilter) -> Any:
    """``Columns(...).keep(flt)`` for one search, without reading every row into Python: SQLite
    selects the rows that may pass (and those the state does not describe fully), and their tags
    are tested here. For a one-shot search, which would read the columns of every row for one use
    (0.4-0.6 s at 100k records). A main row of another version than the state's, or of a record
    the state no longer holds, is left out here and kept by ``Columns``: such a row is dead
    (``VectorIndex.drop``), left out either way."""
    import numpy as np

    m = vec.main(scope)
    rows = m.rows
    cond, params = _passing(flt)
    keep = np.zeros(len(rows), dtype=bool)
    for rid, dg, tags, undescribed in lex.db.execute(
            f"SELECT id, digest, tags, {_UNDESCRIBED} FROM records WHERE scope=? AND (({cond}) OR {_UNDESCRIBED})",
            [scope, *params]):
        i = m.find(rid)
        if i is not None:
            keep[i] = bool(undescribed) or rows[i][1] != dg or _tags_pass(flt, tags)
    return keep


def delta_keep(lex: LexicalIndex, scope: str, ids: list[str], flt: RecordFilter) -> Any:
    """The mask of a scope's delta rows (``ids``) that ``flt`` may accept, by the same tests as
    ``direct_keep``, on their state rows read by id: a row the state does not hold or describe
    fully is kept."""
    import numpy as np

    cond, params = _passing(flt)
    at = {rid: j for j, rid in enumerate(ids)}
    out = np.ones(len(ids), dtype=bool)
    for a in range(0, len(ids), 500):  # under SQLite's bound-parameter limit
        part = ids[a:a + 500]
        for rid, tags, may, undescribed in lex.db.execute(
                f"SELECT id, tags, ({cond}), {_UNDESCRIBED} FROM records "
                f"WHERE scope=? AND id IN ({','.join('?' * len(part))})", [*params, scope, *part]):
            out[at[rid]] = bool(undescribed) or (bool(may) and _tags_pass(flt, tags))
    return out


class ColumnSet:
    """A long-lived searcher's ``Columns`` of the scopes it has filtered, for one pair of
    generations (lexical, vector): each read once, then kept current with the state rows changed
    since (their ``seq``) at every ``sync``."""

    def __init__(self) -> None:
        self._gens: tuple[str, str] | None = None
        self._version = 0
        self._seq = 0
        self._cols: dict[str, Columns] = {}

    def sync(self, lex: LexicalIndex, vec: VectorIndex) -> None:
        """Before a search's masks: start over for other generations, else apply the state's
        changed rows."""
        gens, version = (vec.generation, lex.generation), lex.state_version()
        if gens != self._gens:
            self._gens, self._version, self._seq, self._cols = gens, version, lex.max_seq(), {}
            return
        if version == self._version:
            return
        now = lex.max_seq()
        if self._cols and now > self._seq:
            changed: dict[str, list[tuple[Any, ...]]] = {}
            for scope, *row in lex.db.execute(
                    "SELECT scope, id, digest, kind, status, tags, valid_from_ms, valid_to_ms, recorded_ms "
                    "FROM records WHERE seq > ?", (self._seq,)):
                changed.setdefault(scope, []).append(tuple(row))
            for scope, rows in changed.items():
                if scope in self._cols:
                    self._cols[scope].update(rows)
        self._version, self._seq = version, now

    def keep(self, lex: LexicalIndex, vec: VectorIndex, scope: str, flt: RecordFilter) -> Any:
        """``Columns.keep`` of ``scope`` (read after the seq noted by ``sync``: a change between
        is applied twice, harmlessly)."""
        got = self._cols.get(scope)
        if got is None:
            got = self._cols[scope] = Columns(lex, vec, scope)
        return got.keep(flt)


__all__ = ["ColumnSet", "Columns", "delta_keep", "direct_keep", "filtered"]
