"""The vector index's SQLite side tables (``vectors.db``): ``delta`` vectors added since the
build, ``dead`` main rows no longer valid, ``meta``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
            db.executescript(VEC_SQL)
        else:
            db, _read_only = open_sqlite(path, 30)
        db.execute("SELECT 1 FROM delta LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise io_failure(exc, path, "open the vector index table") or IndexUnavailableError(
            f"the vector index table is corrupt: {exc}", path=path, hint="run `mem rebuild --vectors`") from None
    return db
