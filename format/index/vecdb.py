"""The vector index's SQLite side tables (``vectors.db``): ``delta`` vectors added since the
build, ``dead`` main rows no longer valid, ``meta``, and ``log``, the keys those two changed.

``log`` is filled by triggers, so that every writer of the tables logs what it changed, whatever
its code (a writer older than the log included, once a newer one has installed them): one row
per (scope, id) inserted, deleted or updated in ``delta`` or ``dead``, in commit order. A
long-lived reader keeps the tables in memory (:class:`Side`) and, when they change, re-reads
only the keys logged since (:func:`read_changes`): re-reading the whole delta at every new
record put 10 ms per 1,250 delta rows on the first search after each background commit of a
long-lived searcher (bench/README.md, "Issue 21, the tenth session").
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError
from mem.format.index.common import create_private, io_failure, open_sqlite

if TYPE_CHECKING:
    import sqlite3

VEC_SQL = """
CREATE TABLE IF NOT EXISTS delta(scope TEXT NOT NULL, id TEXT NOT NULL, digest TEXT NOT NULL,
  vec BLOB NOT NULL, PRIMARY KEY(scope, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dead(scope TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(scope, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

LOG_SQL = """
CREATE TABLE IF NOT EXISTS log(seq INTEGER PRIMARY KEY, scope TEXT NOT NULL, id TEXT NOT NULL);
""" + "".join(f"""
CREATE TRIGGER IF NOT EXISTS {t}_{op} AFTER {op.upper()} ON {t} BEGIN
  INSERT INTO log(scope, id) VALUES ({row}.scope, {row}.id); END;""" for t in ("delta", "dead")
              for op, row in (("insert", "NEW"), ("delete", "OLD"), ("update", "NEW"))) + "\n"
# (an update of a key would log the new key only; no writer changes a key's scope or id)

#: A reader re-reads the keys logged since it last looked when there are at most this many log
#: rows (and at most a quarter of its rows); else it reads the tables whole (``read_side``).
CHANGES_MAX = 4096


def open_db(path: Path, create: bool = False) -> sqlite3.Connection:
    import sqlite3
    if not create and not path.is_file():
        raise IndexUnavailableError("the vector index table is missing", path=path, hint="run `mem rebuild --vectors`")
    try:
        if create:
            create_private(path)
            db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(VEC_SQL + LOG_SQL)
        else:
            db, _read_only = open_sqlite(path, 30)
        db.execute("SELECT 1 FROM delta LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise io_failure(exc, path, "open the vector index table") or IndexUnavailableError(
            f"the vector index table is corrupt: {exc}", path=path, hint="run `mem rebuild --vectors`") from None
    return db


def install_log(db: sqlite3.Connection) -> None:
    """Create the log and its triggers in a table made before them (a writer calls it before its
    first write; nothing when they exist)."""
    db.executescript(LOG_SQL)


@contextlib.contextmanager
def _snapshot(db: sqlite3.Connection) -> Iterator[None]:
    """The reads inside see one state of the tables (a read transaction, unless one is open)."""
    if db.in_transaction:
        yield
        return
    db.execute("BEGIN")
    try:
        yield
    finally:
        db.execute("COMMIT")


@dataclass(frozen=True)
class Side:
    """The ``delta`` and ``dead`` tables as read at one point, never changed in place (a search
    may hold it while a newer one is read): ``delta[scope][id] = (digest, vector)``,
    ``dead[scope] = ids``; ``seq``: the last log row then (None: the table had no log)."""

    delta: dict[str, dict[str, tuple[str, Any]]]
    dead: dict[str, frozenset[str]]
    seq: int | None


def _last_seq(db: sqlite3.Connection) -> int | None:
    import sqlite3

    try:
        return int(db.execute("SELECT coalesce(max(seq), 0) FROM log").fetchone()[0])
    except sqlite3.OperationalError:  # no log: a table made before it, no writer since
        return None


def read_side(db: sqlite3.Connection) -> Side:
    """Both tables whole."""
    import numpy as np

    with _snapshot(db):
        delta: dict[str, dict[str, tuple[str, Any]]] = {}
        for scope, rid, dg, blob in db.execute("SELECT scope, id, digest, vec FROM delta"):
            delta.setdefault(scope, {})[rid] = (dg, np.frombuffer(blob, dtype=np.float32))
        dead: dict[str, set[str]] = {}
        for scope, rid in db.execute("SELECT scope, id FROM dead"):
            dead.setdefault(scope, set()).add(rid)
        seq = _last_seq(db)
    return Side(delta, {s: frozenset(ids) for s, ids in dead.items()}, seq)


def read_changes(db: sqlite3.Connection, side: Side) -> tuple[Side, dict[str, set[str]]] | None:
    """The tables now, from ``side`` and the keys logged since it was read, with those keys by
    scope; None when ``side`` has no log position or more than ``CHANGES_MAX`` rows (or a
    quarter of ``side``'s) were logged since: ``read_side`` then. A scope's entries that did
    not change are the same objects as in ``side`` (its ``dead`` set too, when it did not
    change)."""
    import sqlite3

    import numpy as np

    if side.seq is None:
        return None
    size = sum(map(len, side.delta.values())) + sum(map(len, side.dead.values()))
    limit = min(CHANGES_MAX, max(64, size // 4))
    touched: dict[str, set[str]] = {}
    with _snapshot(db):
        try:
            rows = db.execute("SELECT seq, scope, id FROM log WHERE seq > ? ORDER BY seq LIMIT ?",
                              (side.seq, limit + 1)).fetchall()
        except sqlite3.OperationalError:
            return None
        if len(rows) > limit:
            return None
        if not rows:
            return side, touched
        for _seq, scope, rid in rows:
            touched.setdefault(scope, set()).add(rid)
        delta = dict(side.delta)
        dead = dict(side.dead)
        for scope, rids in touched.items():
            vecs = dict(side.delta.get(scope, {}))
            ids = set(side.dead.get(scope, ()))
            for rid in rids:
                got = db.execute("SELECT digest, vec FROM delta WHERE scope=? AND id=?", (scope, rid)).fetchone()
                if got is None:
                    vecs.pop(rid, None)
                else:
                    vecs[rid] = (got[0], np.frombuffer(got[1], dtype=np.float32))
                if db.execute("SELECT 1 FROM dead WHERE scope=? AND id=?", (scope, rid)).fetchone() is None:
                    ids.discard(rid)
                else:
                    ids.add(rid)
            if vecs:
                delta[scope] = vecs
            else:
                delta.pop(scope, None)
            if ids != side.dead.get(scope, frozenset()):
                if ids:
                    dead[scope] = frozenset(ids)
                else:
                    dead.pop(scope, None)
        seq = int(rows[-1][0])
    return Side(delta, dead, seq), touched
