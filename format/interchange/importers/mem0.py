"""mem0: an export of its memories and its local history database (``~/.mem0/history.db``).

The export is the JSON that mem0's ``get_all`` returns (``{"results": [...]}``, or a bare list
from older versions, or one object a line): each item has ``id``, ``memory``, ``hash`` (the MD5
of the text), ``metadata``, ``created_at``/``updated_at`` (ISO, with an offset) and the entity
it belongs to (``user_id``, ``agent_id``, ``run_id``; also ``actor_id``, ``role``,
``categories`` where the platform adds them).

The history database's ``history`` table (``memory_id``, ``old_memory``, ``new_memory``,
``event`` ADD/UPDATE/DELETE, ``created_at``, ``updated_at``, ``is_deleted``; older versions
``prev_value``, ``new_value``, ``timestamp``) gives each memory's versions. They become a chain
of supersessions (each UPDATE writes a record that supersedes the previous version, from the
time of the update), and a DELETE becomes tombstones for every version of that memory (never a
record: the user deleted it). The history has no user id: a memory found only there goes to the
scope ``default`` unless the export names its user.

Scopes: ``user_id`` (else ``agent-<agent_id>``, else ``run-<run_id>``) folded to a scope.
Original ids: the mem0 id for the current version, ``<id>@v<n>`` for earlier versions.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import MemError, ValidationError
from mem.format.interchange.importers.base import (
    Entry,
    ImportItem,
    Problem,
    ReadOptions,
    Tombstoneish,
    Where,
    file_time,
    foreign_time,
    read_text_file,
    rel,
    sorted_files,
    stable_id,
    tag_for,
)
from mem.format.interchange.importers.sqlite_ro import columns, has_table, open_readonly
from mem.format.model.record import match_digest
from mem.format.rules.timeutil import epoch_ms, format_time

SYSTEM = "mem0"
HISTORY_DB = "history.db"
_PREFERENCE = re.compile(r"^(user\s+)?(prefers|likes|loves|enjoys|dislikes|hates|favou?rite)\b", re.I)
#: Keys of an export item that are not kept under ``source.metadata``.
_ITEM_KEYS = {"id", "memory", "hash", "metadata", "created_at", "updated_at", "user_id", "agent_id",
              "run_id", "actor_id", "role", "categories", "score", "immutable", "expiration_date"}  # fmt: skip


def _export_files(path: Path) -> list[Path]:
    if path.is_file():
        return [] if path.suffix == ".db" else [path]
    return [p for p in sorted_files(path) if p.suffix in (".json", ".jsonl")]


def _history_db(path: Path) -> Path | None:
    if path.is_file():
        return path if path.suffix == ".db" else None
    db = path / HISTORY_DB
    return db if db.is_file() else None


def _is_history(db: Path) -> bool:
    try:
        with open_readonly(db) as con:
            if not has_table(con, "history"):
                return False
            cols = columns(con, "history")
            return "memory_id" in cols and ("new_memory" in cols or "new_value" in cols)
    except (MemError, sqlite3.Error):
        return False


def _looks_like_export(text: str) -> bool:
    head = text.lstrip()[:4096]
    return head.startswith(("{", "[")) and '"memory"' in head and '"id"' in head


def detect(path: Path) -> bool:
    db = _history_db(path)
    if db is not None and _is_history(db):
        return True
    for f in _export_files(path)[:20]:
        try:
            with open(f, encoding="utf-8", errors="replace") as fh:
                if _looks_like_export(fh.read(4096)):
                    return True
        except OSError:
            continue
    return False


@dataclass
class _Version:
    text: str
    at: Any  # datetime | None


@dataclass
class _Memory:
    mid: str
    where: Where
    versions: list[_Version] = field(default_factory=list)
    deleted_at: Any = None
    deleted: bool = False
    item: dict[str, Any] | None = None  # the export's item
    item_where: Where | None = None


def _items_of(obj: Any) -> list[Any] | None:
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        for key in ("results", "memories", "data"):
            if isinstance(obj.get(key), list):
                return obj[key]  # type: ignore[no-any-return]
        if "memory" in obj and "id" in obj:
            return [obj]
    return None


def _read_export(f: Path, root: Path) -> Iterator[tuple[dict[str, Any], Where] | Problem | Tombstoneish]:
    text, problem = read_text_file(f, root)
    if problem is not None:
        yield problem
        return
    assert text is not None
    name = rel(f, root) if f != root else f.name
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if whole is not None:
        tombs = whole.get("mem_tombstones") if isinstance(whole, dict) else None
        for i, t in enumerate(tombs if isinstance(tombs, list) else [], 1):
            if isinstance(t, dict) and t.get("type", "tombstone") in ("tombstone", "lift"):
                yield Tombstoneish(dict(t, type=t.get("type", "tombstone")), Where(f"{name}#mem_tombstones", i))
            else:
                yield Problem("invalid", "a mem_tombstones entry that is not a tombstone", Where(f"{name}#mem_tombstones", i))
        items = _items_of(whole)
        if items is None:
            yield Problem("invalid", "not a mem0 export (no results list of memories)", Where(name))
            return
        for i, it in enumerate(items, 1):
            if isinstance(it, dict):
                yield it, Where(name, i)
            else:
                yield Problem("invalid", "an entry that is not a JSON object", Where(name, i))
        return
    for n, line in enumerate(text.splitlines(), 1):  # one object a line
        if not line.strip():
            continue
        try:
            it = json.loads(line)
        except ValueError as exc:
            yield Problem("invalid", f"corrupt JSON ({exc.args[0] if exc.args else exc})", Where(name, n))
            continue
        if isinstance(it, dict):
            yield it, Where(name, n)
        else:
            yield Problem("invalid", "a line that is not a JSON object", Where(name, n))


def _read_history(db: Path, opts: ReadOptions, memories: dict[str, _Memory]) -> Iterator[Problem]:
    name = db.name
    with open_readonly(db) as con:
        cols = columns(con, "history")
        old = "old_memory" if "old_memory" in cols else "prev_value"
        new = "new_memory" if "new_memory" in cols else "new_value"
        created = "created_at" if "created_at" in cols else "timestamp"
        updated = "updated_at" if "updated_at" in cols else created
        deleted = "is_deleted" if "is_deleted" in cols else "0"
        sql = (
            f"SELECT rowid AS _r, memory_id, {old} AS old, {new} AS new, event, {created} AS c, "
            f"{updated} AS u, {deleted} AS d FROM history ORDER BY memory_id, COALESCE({updated}, {created}), rowid"
        )
        for row in con.execute(sql):
            where = Where(f"{name}#history", int(row["_r"]))
            mid = row["memory_id"]
            if not mid:
                yield Problem("invalid", "a history row without a memory_id", where)
                continue
            mid = str(mid)
            event = str(row["event"] or "").upper()
            try:
                c = foreign_time(row["c"], opts.timezone, "created_at")
                u = foreign_time(row["u"], opts.timezone, "updated_at")
            except ValidationError as exc:
                yield Problem("invalid", f"unreadable time: {exc}", where, mid)
                continue
            m = memories.setdefault(mid, _Memory(mid, where))
            if event == "ADD":
                if isinstance(row["new"], str) and row["new"].strip():
                    m.versions.append(_Version(row["new"], c or u))
            elif event == "UPDATE":
                if not m.versions and isinstance(row["old"], str) and row["old"].strip():
                    m.versions.append(_Version(row["old"], c))
                if isinstance(row["new"], str) and row["new"].strip():
                    m.versions.append(_Version(row["new"], u or c))
            elif event == "DELETE" or row["d"]:
                if not m.versions and isinstance(row["old"], str) and row["old"].strip():
                    m.versions.append(_Version(row["old"], c))
                m.deleted, m.deleted_at = True, u or c
            elif event not in ("NONE", ""):
                yield Problem("warning", f"unknown history event {event!r}; skipped", where, mid)


def _entity(it: dict[str, Any]) -> str | None:
    for key, prefix in (("user_id", ""), ("agent_id", "agent-"), ("run_id", "run-")):
        v = it.get(key)
        if isinstance(v, str) and v.strip():
            return prefix + v.strip()
    return None


def _kind(text: str, meta: dict[str, Any]) -> str:
    from mem.format.rules import ids

    k = meta.get("mem_kind")
    if isinstance(k, str) and ids.is_kind(k):
        return k
    return "preference" if _PREFERENCE.match(text.strip()) else "fact"


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    root = path if path.is_dir() else path.parent
    memories: dict[str, _Memory] = {}
    order: list[str] = []
    for f in _export_files(path):
        for got in _read_export(f, root):
            if isinstance(got, (Problem, Tombstoneish)):
                yield got
                continue
            it, where = got
            mid = it.get("id")
            text = it.get("memory")
            if not isinstance(mid, str) or not mid.strip():
                yield Problem("invalid", "a memory without an id", where)
                continue
            if not isinstance(text, str) or not text.strip():
                yield Problem("invalid", "a memory without text", where, mid)
                continue
            m = memories.get(mid)
            if m is not None and m.item is not None:
                yield Problem("duplicate", f"memory {mid} appears twice in the export; the first is kept", where, mid)
                continue
            m = memories.setdefault(mid, _Memory(mid, where))
            m.item, m.item_where = it, where
            order.append(mid)
    db = _history_db(path)
    if db is not None:
        if _is_history(db):
            yield from _read_history(db, opts, memories)
        else:
            yield Problem("invalid", "not a mem0 history database (no history table)", Where(db.name))
    for mid in order + sorted(k for k in memories if k not in set(order)):
        yield from _entries(memories[mid], opts, root)


def _entries(m: _Memory, opts: ReadOptions, root: Path) -> Iterator[Entry]:
    it = m.item or {}
    where = m.item_where or m.where
    meta = it.get("metadata") if isinstance(it.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    hint = _entity(it)
    try:
        created = foreign_time(it.get("created_at"), opts.timezone, "created_at")
        updated = foreign_time(it.get("updated_at"), opts.timezone, "updated_at")
    except ValidationError as exc:
        yield Problem("invalid", f"unreadable time: {exc}", where, m.mid)
        return
    versions = list(m.versions)
    if m.item is not None:
        text = str(it["memory"])
        if not versions or match_digest(versions[-1].text) != match_digest(text):
            versions.append(_Version(text, updated or created))
        h = it.get("hash")
        if isinstance(h, str) and h and h != hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest():
            yield Problem("warning", "its hash does not match its text (edited outside mem0?); imported as it is", where, m.mid)
    if not versions:
        yield Problem("skipped_empty", "a memory with no text in its history", where, m.mid)
        return
    if m.deleted and m.item is None:
        at = m.deleted_at or versions[-1].at
        ms = epoch_ms(at) if at is not None else 0
        for n, v in enumerate(versions, 1):
            orig = m.mid if n == len(versions) else f"{m.mid}@v{n}"
            yield Tombstoneish(
                {
                    "type": "tombstone",
                    "id": stable_id(ms, f"mem0\x00{orig}"),
                    "digest": match_digest(v.text),
                    "forgotten_at": format_time(at) if at is not None else "",
                    "reason": "deleted in mem0",
                    "actor": "mem0",
                    "source_key": f"mem0:{orig}",
                },
                where,
                scope_hint=hint or "default",
            )
        return
    src: dict[str, Any] = {}
    for key in ("user_id", "agent_id", "run_id", "actor_id", "role", "hash"):
        if it.get(key) not in (None, ""):
            src[key] = it[key]
    rest = {k: v for k, v in meta.items() if not k.startswith("mem_")}
    rest.update({k: v for k, v in it.items() if k not in _ITEM_KEYS})
    if rest:
        src["metadata"] = rest
    tags = [t for c in (it.get("categories") or []) if isinstance(c, str) and (t := tag_for(c))]
    mem_tags = meta.get("mem_tags")
    if isinstance(mem_tags, list):
        tags += [t for c in mem_tags if isinstance(c, str) and (t := tag_for(c))]
    kind = _kind(versions[-1].text, meta)
    try:
        conf = float(meta.get("mem_confidence", 1.0))
        valid_from = foreign_time(meta.get("mem_valid_from"), opts.timezone, "mem_valid_from")
        valid_to = foreign_time(meta.get("mem_valid_to"), opts.timezone, "mem_valid_to")
    except (TypeError, ValueError, ValidationError) as exc:
        yield Problem("warning", f"unreadable mem_ metadata ({exc}); ignored", where, m.mid)
        conf, valid_from, valid_to = 1.0, None, None
    if not 0.0 <= conf <= 1.0:
        conf = 1.0
    first = created or versions[0].at or file_time(root)
    for n, v in enumerate(versions, 1):
        last = n == len(versions)
        orig = m.mid if last else f"{m.mid}@v{n}"
        at = v.at or first
        yield ImportItem(
            system=SYSTEM,
            content=v.text,
            where=where,
            original_id=orig,
            scope_hint=hint,
            kind=kind,
            tags=tuple(dict.fromkeys(tags)),
            recorded_at=at if n > 1 else first,
            updated_at=updated if last and updated is not None and updated > (at if n > 1 else first) else None,
            confidence=conf,
            valid_from=valid_from if last else None,
            valid_to=valid_to if last else None,
            source=dict(src, version=n) if len(versions) > 1 else dict(src),
            supersedes_original=None if n == 1 else f"{m.mid}@v{n - 1}",
        )
