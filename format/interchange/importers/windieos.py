"""WindieOS: ``episodic.db`` and ``semantic.db`` in its ``memory/`` folder.

- episodic ``memories`` rows of ``record_kind`` ``interaction`` become episodes (world time = the
  row's timestamp), ``memory`` rows (the agent's memory tool) become notes; ``transcript`` and
  ``transcript_replay`` rows are chat log, not memory, and are skipped (counted).
- semantic ``memories`` rows become summaries derived from their ``source_memory_ids``.
- ``user_id`` becomes the scope; the conversation id, role, tool and model are kept as
  provenance, and so is the store's embedding space (``embedding_space.json``). The FAISS
  files, the FTS table, the watermark and screenshots are not read.

Original ids are ``episodic:<uuid>`` and ``semantic:<uuid>``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mem.format.base.errors import ValidationError
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

SYSTEM = "windieos"
DATABASES = ("episodic.db", "semantic.db")
SKIP_KINDS = {"transcript": "a chat transcript row", "transcript_replay": "an internal replay row"}
_PROVENANCE_COLUMNS = (
    ("role", "role"),
    ("message_index", "message_index"),
    ("tool_name", "tool"),
    ("correlation_id", "correlation_id"),
    ("model_id", "model"),
    ("model_provider", "model_provider"),
)


def detect(path: Path) -> bool:
    return path.is_dir() and any((path / db).is_file() for db in DATABASES)


def _metadata(raw: object, where: Where) -> tuple[dict[str, Any], Problem | None]:
    if raw is None or raw == "":
        return {}, None
    try:
        v = json.loads(str(raw))
    except ValueError as exc:
        return {}, Problem("warning", f"metadata is not JSON ({exc}); kept the row without it", where)
    return (v if isinstance(v, dict) else {}), None


def _embedding_space(root: Path) -> dict[str, Any] | None:
    p = root / "embedding_space.json"
    try:
        v = json.loads(p.read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(v, dict):
        return None
    return {str(k): v[k] for k in sorted(v) if isinstance(v[k], (str, int, float, bool))}


def _order(cols: set[str]) -> str:
    keys = [c for c in ("created_at", "timestamp") if c in cols]
    return "ORDER BY " + ", ".join([*keys, "rowid"])


def _rows(con: sqlite3.Connection) -> Iterator[sqlite3.Row]:
    cols = columns(con, "memories")
    wanted = [c for c in cols if c != "screenshot"]  # large base64: never read
    sql = f"SELECT rowid AS _rowid, {', '.join(wanted)} FROM memories {_order(cols)}"
    yield from con.execute(sql)


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    space = _embedding_space(path)
    for name in DATABASES:
        db = path / name
        if not db.is_file():
            continue
        table = name.split(".")[0]
        with open_readonly(db) as con:
            if not has_table(con, "memories"):
                yield Problem("invalid", "no memories table", Where(name))
                continue
            for row in _rows(con):
                yield from _row(row, table, name, space, opts)


def _row(
    row: sqlite3.Row, table: str, dbname: str, space: dict[str, Any] | None, opts: ReadOptions
) -> Iterator[Entry]:
    keys = set(row.keys())
    rid = str(row["id"])
    orig = f"{table}:{rid}"
    where = Where(f"{dbname}#memories", int(row["_rowid"]))
    meta, warn = _metadata(row["metadata"] if "metadata" in keys else None, where)
    if warn is not None:
        yield Problem("warning", warn.message, where, orig)
    content = row["content"]
    if not isinstance(content, str) or not content.strip():
        yield Problem("invalid", "empty content", where, orig)
        return
    try:
        when = foreign_time(row["timestamp"], opts.timezone, "timestamp")
    except ValidationError as exc:
        when = None
        yield Problem("warning", f"unreadable timestamp ({exc}); used created_at", where, orig)
    if when is None and "created_at" in keys and row["created_at"] is not None:
        when = foreign_time(row["created_at"], opts.timezone, "created_at")
    user = row["user_id"] if "user_id" in keys and row["user_id"] else "default_user"
    source: dict[str, Any] = {"user": str(user)}
    if space:
        source["embedding_space"] = space
    conv = (row["conversation_id"] if "conversation_id" in keys else None) or meta.get(
        "conversation_id"
    ) or meta.get("source_conversation_id")
    if conv:
        source["conversation"] = str(conv)
    if table == "semantic":
        sources = meta.get("source_memory_ids") or []
        if not isinstance(sources, list):
            sources = []
        for k in ("summary_hash", "source_memory_count", "durable_fact_count"):
            if meta.get(k) is not None and isinstance(meta[k], (str, int)):
                source[k] = meta[k]
        created = meta.get("summary_created_at")
        rec_at = when
        if created:
            try:
                rec_at = foreign_time(created, opts.timezone, "summary_created_at") or when
            except ValidationError:
                rec_at = when
        cats = meta.get("semantic_categories") or []
        tags = tuple(
            t for c in (cats if isinstance(cats, list) else []) if isinstance(c, str)
            if (t := tag_for(c)) is not None
        )  # fmt: skip
        yield ImportItem(
            system=SYSTEM,
            content=content,
            where=where,
            original_id=orig,
            scope_hint=str(user),
            kind="summary",
            tags=tags,
            recorded_at=rec_at,
            source=source,
            derived_from_original=tuple(f"episodic:{s}" for s in sources if isinstance(s, str)),
        )
        return
    rk = row["record_kind"] if "record_kind" in keys else None
    if not rk:
        is_interaction = meta.get("source") == "interaction_completed" or content.startswith("User:")
        rk = "interaction" if is_interaction else "memory"
    if rk in SKIP_KINDS:
        yield Problem("skipped_not_memory", f"{SKIP_KINDS[rk]} (record_kind {rk})", where, orig)
        return
    source["record_kind"] = str(rk)
    for col, key in _PROVENANCE_COLUMNS:
        if col in keys and row[col] is not None:
            source[key] = row[col] if isinstance(row[col], (int, float)) else str(row[col])
    yield ImportItem(
        system=SYSTEM,
        content=content,
        where=where,
        original_id=orig,
        scope_hint=str(user),
        kind="episode" if rk == "interaction" else "note",
        recorded_at=when,
        valid_from=when if rk == "interaction" else None,
        source=source,
    )
