"""Skales: the data folder (``$SKALES_DATA_DIR`` or ``~/.skales-data``).

Three stores become records, in the scope ``default`` (Skales has one user):

- ``memories/<id>.json`` (extracted memories): the category becomes the kind (``url``,
  ``location`` and ``topic`` become tagged notes/facts), ``extracted_at`` the record time,
  ``source_conversation_id`` the provenance. Original id ``memories/<id>``.
- ``identity/soul.json`` ``memory.knownFacts``: one fact per key (``key: value``). Original id
  ``soul/knownFacts/<key>``; record time = the file's modification time.
- ``memory/{short-term,long-term,episodic}/<ms>.json`` (tiered files): long-term entries are
  notes, episodic entries episodes (world time = the file's name), short-term entries notes;
  tagged with their tier. Original id ``memory/<tier>/<name>``.

Corrupt or empty JSON files (Skales' writes are not atomic) are reported and skipped, never
fatal; ``.tmp`` leftovers, ``_state.json`` and ``sessions/`` (chat logs) are skipped and counted.
``identity/human.json`` has no memory fields that its source documents, so it is not read.
"""

from __future__ import annotations

import json
import re
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
    file_time,
    foreign_time,
    is_temp_leftover,
    read_text_file,
    rel,
    sorted_files,
)

SYSTEM = "skales"
#: category -> (kind, tag)
CATEGORIES: dict[str, tuple[str, str | None]] = {
    "preference": ("preference", None),
    "fact": ("fact", None),
    "action_item": ("action_item", None),
    "contact": ("contact", None),
    "url": ("note", "url"),
    "location": ("fact", "location"),
    "topic": ("note", "topic"),
}
TIERS = {"short-term": "note", "long-term": "note", "episodic": "episode"}
_MS_NAME = re.compile(r"^(\d{10,14})")


def detect(path: Path) -> bool:
    return path.is_dir() and (
        (path / "memories").is_dir()
        or (path / "identity" / "soul.json").is_file()
        or any((path / "memory" / t).is_dir() for t in TIERS)
    )


def _load_json(path: Path, root: Path) -> tuple[Any, Problem | None]:
    text, problem = read_text_file(path, root)
    if problem is not None:
        return None, problem
    assert text is not None
    try:
        return json.loads(text), None
    except ValueError as exc:
        return None, Problem("invalid", f"corrupt JSON ({exc}); skipped", Where(rel(path, root), getattr(exc, "lineno", None)))


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    yield from _memories(path, opts)
    yield from _known_facts(path)
    yield from _tiers(path, opts)
    for f in sorted_files(path / "sessions"):
        yield Problem("skipped_not_memory", "a chat session (chat log, not memory)", Where(rel(f, path)))


def _memories(root: Path, opts: ReadOptions) -> Iterator[Entry]:
    for f in sorted_files(root / "memories"):
        where = Where(rel(f, root))
        if is_temp_leftover(f.name):
            yield Problem("skipped_not_memory", "leftover temporary file of an interrupted write", where)
            continue
        if f.name == "_state.json":
            yield Problem("skipped_not_memory", "extraction state (not a memory)", where)
            continue
        if f.suffix != ".json":
            continue
        obj, problem = _load_json(f, root)
        if problem is not None:
            yield problem
            continue
        if not isinstance(obj, dict):
            yield Problem("invalid", "not a JSON object", where)
            continue
        mid = str(obj.get("id") or f.stem)
        orig = f"memories/{mid}"
        content = obj.get("content")
        if not isinstance(content, str) or not content.strip():
            yield Problem("invalid", "no content", where, orig)
            continue
        cat = str(obj.get("category") or "fact")
        kind, tag = CATEGORIES.get(cat, ("note", None))
        source: dict[str, Any] = {"category": cat}
        conv = obj.get("source_conversation_id")
        if conv:
            source["conversation"] = str(conv)
        try:
            when = foreign_time(obj.get("extracted_at"), opts.timezone, "extracted_at")
        except ValidationError as exc:
            yield Problem("warning", f"unreadable extracted_at ({exc}); used the file time", where, orig)
            when = None
        yield ImportItem(
            system=SYSTEM,
            content=content,
            where=where,
            original_id=orig,
            kind=kind,
            tags=(tag,) if tag else (),
            recorded_at=when or file_time(f),
            source=source,
        )


def _known_facts(root: Path) -> Iterator[Entry]:
    f = root / "identity" / "soul.json"
    if not f.is_file():
        return
    obj, problem = _load_json(f, root)
    if problem is not None:
        yield problem
        return
    where = Where(rel(f, root))
    mem = obj.get("memory") if isinstance(obj, dict) else None
    facts = mem.get("knownFacts") if isinstance(mem, dict) else None
    if facts is None:
        return
    if not isinstance(facts, dict):
        yield Problem("invalid", "memory.knownFacts is not an object", where)
        return
    when = file_time(f)
    for key, value in facts.items():
        orig = f"soul/knownFacts/{key}"
        if value is None or (isinstance(value, str) and not value.strip()):
            yield Problem("skipped_empty", f"known fact {key!r} has no value", where, orig)
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        yield ImportItem(
            system=SYSTEM,
            content=f"{key}: {text}",
            where=where,
            original_id=orig,
            kind="fact",
            tags=("known-fact",),
            recorded_at=when,
            source={"key": str(key)},
        )


def _tier_content(obj: dict[str, Any], tier: str) -> str:
    parts: list[str] = []
    summary = obj.get("summary")
    if isinstance(summary, str) and summary.strip():
        parts.append(summary.strip())
    if tier == "episodic":
        for key, label in (("user", "User"), ("ai", "Assistant")):
            v = obj.get(key)
            if isinstance(v, str) and v.strip():
                parts.append(f"{label}: {v.strip()}")
    else:
        for key in ("content", "context"):
            v = obj.get(key)
            if isinstance(v, str) and v.strip() and v.strip() not in parts:
                parts.append(v.strip() if key == "content" else f"Context: {v.strip()}")
    return "\n\n".join(parts)


def _tiers(root: Path, opts: ReadOptions) -> Iterator[Entry]:
    for tier, kind in TIERS.items():
        for f in sorted_files(root / "memory" / tier):
            where = Where(rel(f, root))
            if is_temp_leftover(f.name):
                yield Problem("skipped_not_memory", "leftover temporary file of an interrupted write", where)
                continue
            if f.suffix != ".json":
                continue
            obj, problem = _load_json(f, root)
            if problem is not None:
                yield problem
                continue
            orig = f"memory/{tier}/{f.stem}"
            if not isinstance(obj, dict):
                yield Problem("invalid", "not a JSON object", where, orig)
                continue
            content = _tier_content(obj, tier)
            if not content:
                yield Problem("skipped_empty", "no summary or content", where, orig)
                continue
            m = _MS_NAME.match(f.stem)
            when = foreign_time(int(m.group(1)), opts.timezone) if m else file_time(f)
            yield ImportItem(
                system=SYSTEM,
                content=content,
                where=where,
                original_id=orig,
                kind=kind,
                tags=(tier,),
                recorded_at=when,
                valid_from=when if kind == "episode" else None,
                source={"tier": tier},
            )
