"""Opening another program's SQLite database read-only, without ever changing it.

A plain ``mode=ro`` connection to a WAL-mode database may have to create ``-wal``/``-shm``
files next to it (and fails in a read-only directory); ``immutable=1`` never writes but ignores
a ``-wal`` file holding committed transactions. So:

- a WAL database whose ``-wal`` file is non-empty (or a rollback database with a hot
  ``-journal``) is copied, with that file, to a private temporary directory and the copy is
  opened: the snapshot includes every committed transaction and the source is not touched;
- a WAL database without a ``-wal`` file is opened with ``immutable=1`` (nothing to miss);
- a rollback-journal database is opened with ``mode=ro`` (which never creates files), falling
  back to ``immutable=1`` when that fails.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from mem.format.base.errors import InvalidInputError, NotFoundError

_HEADER = b"SQLite format 3\x00"


def _uri(path: Path, params: str) -> str:
    return f"file:{quote(str(path.resolve()))}?{params}"


def _check(con: sqlite3.Connection) -> None:
    con.execute("SELECT count(*) FROM sqlite_master").fetchone()


def _is_wal(header: bytes) -> bool:
    # bytes 18 and 19: file format write/read version, 2 means WAL
    return len(header) >= 20 and header[18] == 2


@contextlib.contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the database at ``path`` (see the module text for how)."""
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except FileNotFoundError:
        raise NotFoundError("no such database", path=path) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read the database: {exc.strerror}", path=path) from None
    if not header.startswith(_HEADER):
        raise InvalidInputError("not an SQLite database", path=path)
    side = Path(f"{path}-wal") if _is_wal(header) else Path(f"{path}-journal")
    needs_copy = side.is_file() and side.stat().st_size > 0
    tmpdir: str | None = None
    con: sqlite3.Connection | None = None
    try:
        if needs_copy:
            tmpdir = tempfile.mkdtemp(prefix="mem-import-")
            copy = Path(tmpdir) / path.name
            shutil.copyfile(path, copy)
            shutil.copyfile(side, Path(f"{copy}{side.name[len(path.name):]}"))
            con = sqlite3.connect(str(copy))
            _check(con)
        else:
            attempts = ["immutable=1"] if _is_wal(header) else ["mode=ro", "immutable=1"]
            last: sqlite3.Error | None = None
            for params in attempts:
                try:
                    con = sqlite3.connect(_uri(path, params), uri=True)
                    _check(con)
                    break
                except sqlite3.Error as exc:
                    last = exc
                    if con is not None:
                        con.close()
                    con = None
            if con is None:
                raise InvalidInputError(f"cannot open the database read-only: {last}", path=path)
        con.row_factory = sqlite3.Row
        yield con
    except sqlite3.DatabaseError as exc:
        raise InvalidInputError(f"cannot read the database: {exc}", path=path) from None
    finally:
        if con is not None:
            con.close()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)


def columns(con: sqlite3.Connection, table: str) -> set[str]:
    """Column names of ``table`` (empty when the table does not exist)."""
    return {str(r[1]) for r in con.execute(f"PRAGMA table_info({table})")}


def has_table(con: sqlite3.Connection, table: str) -> bool:
    row = con.execute(
        "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?", (table,)
    ).fetchone()
    return row is not None
