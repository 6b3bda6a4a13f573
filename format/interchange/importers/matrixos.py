"""Matrix OS: the ``memories`` table of ``system/matrix.db`` (WAL mode).

The database is the truth: the export folder ``system/memory/`` is never read (it is not kept
in step and holds files of forgotten memories). Categories become kinds (``fact``,
``preference``, ``instruction``; ``context`` becomes a ``note`` tagged ``context``; NULL is
``fact``). ``source`` (a conversation id, NULL for the kernel tool) is kept as provenance;
``created_at`` is the record time, a later ``updated_at`` the update time. Matrix OS has one
user: everything goes to the scope ``default`` unless ``--scope`` says otherwise.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mem.format.base.errors import MemError, ValidationError
from mem.format.interchange.importers.base import (
    Entry,
    ImportItem,
    Problem,
    ReadOptions,
    Where,
    foreign_time,
    tag_for,
)
from mem.format.interchange.importers.sqlite_ro import columns, has_table, open_readonly
from mem.format.rules import ids

SYSTEM = "matrixos"
KINDS = {"fact": "fact", "preference": "preference", "instruction": "instruction", "context": "note"}


def database(path: Path) -> Path | None:
    """The matrix.db for a path: the file itself, ``<home>/system/matrix.db`` or ``<system>/matrix.db``."""
    if path.is_file() and path.name.endswith(".db"):
        return path
    for cand in (path / "system" / "matrix.db", path / "matrix.db"):
        if cand.is_file():
            return cand
    return None


def detect(path: Path) -> bool:
    db = database(path)
    if db is None:
        return False
    try:
        with open_readonly(db) as con:
            return has_table(con, "memories") and "category" in columns(con, "memories")
    except (MemError, sqlite3.Error):
        return False


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    db = database(path)
    if db is None:
        from mem.format.base.errors import NotFoundError

        raise NotFoundError("no Matrix OS database (system/matrix.db) here", path=path)
    name = db.name
    with open_readonly(db) as con:
        if not has_table(con, "memories"):
            yield Problem("invalid", "no memories table", Where(name))
            return
        cols = columns(con, "memories")
        want = [c for c in ("id", "content", "source", "category", "created_at", "updated_at") if c in cols]
        sql = f"SELECT rowid AS _rowid, {', '.join(want)} FROM memories ORDER BY rowid"
        for row in con.execute(sql):
            keys = set(row.keys())
            where = Where(f"{name}#memories", int(row["_rowid"]))
            orig = str(row["id"]) if row["id"] is not None else f"rowid:{row['_rowid']}"
            content = row["content"]
            if not isinstance(content, str) or not content.strip():
                yield Problem("invalid", "empty content", where, orig)
                continue
            cat = (row["category"] if "category" in keys else None) or "fact"
            kind = KINDS.get(cat)
            tags: tuple[str, ...] = ()
            if kind is None:
                kind = cat if ids.is_kind(cat) else "note"
            if cat == "context" or kind == "note":
                t = tag_for(cat)
                tags = (t,) if t else ()
            source: dict[str, Any] = {"category": cat}
            if "source" in keys and row["source"]:
                source["conversation"] = str(row["source"])
            try:
                created = foreign_time(row["created_at"] if "created_at" in keys else None, opts.timezone)
                updated = foreign_time(row["updated_at"] if "updated_at" in keys else None, opts.timezone)
            except ValidationError as exc:
                yield Problem("invalid", f"unreadable time: {exc}", where, orig)
                continue
            if created is None:
                created = updated
            yield ImportItem(
                system=SYSTEM,
                content=content,
                where=where,
                original_id=orig,
                kind=kind,
                tags=tags,
                recorded_at=created,
                updated_at=updated if updated is not None and created is not None and updated > created else None,
                source=source,
            )
