"""The lexical index's state table (``state.db``, SQLite): per indexed record its file's state,
body digest, change sequence number and the fields search ranks and filters by. Part of
:mod:`mem.format.index.lexical`, which re-exports it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from mem.format.base.errors import IndexUnavailableError
from mem.format.index.common import REBUILD_HINT, create_private, io_failure, open_sqlite
from mem.format.model.record import Record

if TYPE_CHECKING:
    import sqlite3

    from mem.format.store.store import RecordFilter

from mem.format.index.lexdocs import DocFields

# -- state table ------------------------------------------------------------------------------

#: What the state keeps of each record besides its file state: the fields a search ranks and
#: filters by, so that fusing candidates needs no record file read (spec/index.md). NULL in a
#: row written by an older mem (which names only the first six columns): unknown, the search
#: reads the file. Added to older state tables by ``open_state``.
META_COLUMNS = (("kind", "TEXT"), ("status", "TEXT"), ("tags", "TEXT"), ("confidence", "REAL"),
                ("recorded_ms", "INTEGER"), ("valid_from_ms", "INTEGER"), ("valid_to_ms", "INTEGER"))
STATE_SQL = f"""
CREATE TABLE IF NOT EXISTS records(
  id TEXT NOT NULL, scope TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
  digest TEXT NOT NULL, seq INTEGER NOT NULL, {", ".join(f"{c} {t}" for c, t in META_COLUMNS)},
  PRIMARY KEY(scope, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_seq ON records(seq);
CREATE TABLE IF NOT EXISTS gone(id TEXT NOT NULL, scope TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS gone_seq ON gone(seq);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


_ROW_COLUMNS = ", ".join(["id", "scope", "mtime_ns", "size", "digest", "seq"] + [c for c, _t in META_COLUMNS])
_ROW_MARKS = ",".join("?" * (6 + len(META_COLUMNS)))


def state_row(rec: DocFields, mtime_ns: int, size: int, seq: int) -> tuple[Any, ...]:
    """The state row of an indexed record (columns ``_ROW_COLUMNS``)."""
    return (rec.id, rec.scope, mtime_ns, size, rec.digest, seq, rec.kind, rec.status,
            json.dumps(list(rec.tags)) if rec.tags else "[]", rec.confidence,
            rec.recorded_ms, rec.valid_from_ms, rec.valid_to_ms)


class DocMeta(NamedTuple):
    """What the state says of an indexed record: its file state and the fields search uses."""

    mtime_ns: int
    size: int
    digest: str
    kind: str
    status: str
    tags: tuple[str, ...]
    confidence: float
    recorded_ms: int
    valid_from_ms: int  # -1: none
    valid_to_ms: int  # -1: none

    @classmethod
    def of(cls, f: DocFields, mtime_ns: int, size: int) -> DocMeta:
        """What the state keeps of ``f``, read from a file of this mtime and size."""
        return cls(mtime_ns, size, f.digest, f.kind, f.status, tuple(f.tags), f.confidence,
                   f.recorded_ms, f.valid_from_ms, f.valid_to_ms)

    @classmethod
    def fields_of(cls, rec: Record) -> tuple[Any, ...]:
        """What the state keeps of ``rec`` besides its file's mtime and size: a row ``m``
        describes the record when ``m[2:]`` equals it."""
        return cls.of(DocFields.from_record(rec), 0, 0)[2:]


def _doc_meta(mt: Any, sz: Any, dg: Any, kind: Any, status: Any, tags: Any, conf: Any, rec_ms: Any,
              vf: Any, vt: Any) -> DocMeta | None:
    """The DocMeta of a state row's ``_META_COLUMNS`` after its id, or None for a row without the
    ranking fields (an older mem's) or with tags that are not a JSON list of strings."""
    if status is None or kind is None or tags is None or conf is None or rec_ms is None or vf is None or vt is None:
        return None
    try:
        tg = () if tags == "[]" else tuple(str(t) for t in json.loads(tags))
    except (ValueError, TypeError):
        return None
    return DocMeta(int(mt), int(sz), str(dg), str(kind), str(status), tg, float(conf), int(rec_ms), int(vf), int(vt))


def meta_matches(flt: RecordFilter, scope: str, rid: str, m: DocMeta) -> bool:
    """``RecordFilter.matches`` on what the state says of record ``rid`` of ``scope`` (its scope
    too). Exact for a filter without ``known_at``, ``recorded_after`` and ``recorded_before``
    (record times are whole milliseconds, as the state keeps them); those need what the state
    does not hold (``superseded_at``) or are not asked of it."""
    if flt.scopes is not None and scope not in flt.scopes:
        return False
    vf = vt = None
    if flt.as_of is not None:  # -1: none
        from mem.format.rules.timeutil import from_epoch_ms

        vf = None if m.valid_from_ms == -1 else from_epoch_ms(m.valid_from_ms)
        vt = None if m.valid_to_ms == -1 else from_epoch_ms(m.valid_to_ms)
    return flt.matches_fields(rid, m.kind, m.status, m.tags, vf, vt)


#: How long a state write waits for another writer (seconds); see ``_without_waiting``.
BUSY_TIMEOUT = 30


@contextlib.contextmanager
def _without_waiting(db: sqlite3.Connection) -> Iterator[None]:
    """Best-effort writes: inside, a busy database fails at once instead of after BUSY_TIMEOUT."""
    db.execute("PRAGMA busy_timeout = 0")
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT * 1000}")


def open_state(path: Path, *, create: bool = False) -> sqlite3.Connection:
    import sqlite3
    if not create and not path.is_file():
        raise IndexUnavailableError("the lexical index state table is missing", path=path, hint=REBUILD_HINT)
    try:
        if create:
            create_private(path)
            db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(STATE_SQL)
        else:
            db, read_only = open_sqlite(path, BUSY_TIMEOUT)
            db.execute("SELECT 1 FROM records LIMIT 1").fetchall()
            have = {str(r[1]) for r in db.execute("PRAGMA table_info(records)")}
            if not read_only and any(col not in have for col, _t in META_COLUMNS):  # an older mem's state table
                with _without_waiting(db):
                    try:
                        db.execute("BEGIN IMMEDIATE")
                        for col, typ in META_COLUMNS:
                            if col not in have:
                                db.execute(f"ALTER TABLE records ADD COLUMN {col} {typ}")
                        db.execute("COMMIT")
                    except sqlite3.OperationalError:  # read-only or busy: next time (see has_meta)
                        with contextlib.suppress(sqlite3.Error):
                            db.execute("ROLLBACK")
    except sqlite3.DatabaseError as exc:
        raise io_failure(exc, path, "open the lexical index state table") or IndexUnavailableError(
            f"the lexical index state table is corrupt: {exc}", path=path, hint=REBUILD_HINT) from None
    return db


#: The state's columns ``meta_of`` reads (after the scope), and its query of many keys at once.
_META_COLUMNS = "id, mtime_ns, size, digest, kind, status, tags, confidence, recorded_ms, valid_from_ms, valid_to_ms"
#: A state row without one of the ranking fields (``complete``; ``_doc_meta`` reads none of it).
_ANY_FIELD_MISSING = " OR ".join(f"{c} IS NULL" for c, _t in META_COLUMNS)
_META_JOIN = ("SELECT r.scope, " + ", ".join(f"r.{c}" for c in _META_COLUMNS.split(", ")) +
              " FROM json_each(?) AS j JOIN records AS r"
              " ON r.scope = json_extract(j.value, '$[0]') AND r.id = json_extract(j.value, '$[1]')")
