"""Letta (MemGPT): an agent file (``.af``, JSON), as ``letta export`` and the ADE write it.

Two shapes are read:

- the current one (``AgentFileSchema``): ``{"agents": [...], "blocks": [...], "groups",
  "files", "sources", "tools", "mcp_servers", "metadata", "created_at"}``; an agent names its
  memory blocks by ``block_ids``, a block has ``label``, ``value``, ``description``, ``limit``;
- the first one: one agent object with ``core_memory: [{label, value, ...}]``, ``name``,
  ``created_at``, ``messages``.

Memory blocks: each non-empty line of a block's value (bullets stripped) becomes one record:
``persona`` lines are ``instruction``, ``human``/``user`` lines ``fact``, lines of any other
block ``note`` tagged with the label. Archival passages (``passages`` or ``archival_memory`` of
an agent or of the file: objects with ``text`` and ``created_at``) become ``note`` records
tagged ``archival``. Messages (the conversation), tools, files and sources are not memory and
are counted as skipped. Each agent is a scope (its name folded: ``Sam the Bot`` ->
``sam-the-bot``). Original ids: ``<agent>/block/<label>#<digest>``, ``<agent>/passage/<id or
digest>``.
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
    read_text_file,
    short_hash,
    tag_for,
)

SYSTEM = "letta"
LABEL_KINDS = {"persona": "instruction", "human": "fact", "user": "fact"}
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")


def _load(path: Path) -> tuple[Any, Problem | None]:
    text, problem = read_text_file(path, path.parent)
    if problem is not None:
        return None, problem
    assert text is not None
    try:
        return json.loads(text), None
    except ValueError as exc:
        return None, Problem("invalid", f"corrupt JSON ({exc})", Where(path.name, getattr(exc, "lineno", None)))


def detect(path: Path) -> bool:
    if not path.is_file():
        return False
    if path.suffix == ".af":
        return True
    if path.suffix != ".json":
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(65536)
    except OSError:
        return False
    return ('"core_memory"' in head or '"block_ids"' in head) and '"agent_type"' in head


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    obj, problem = _load(path)
    if problem is not None:
        yield problem
        return
    name = path.name
    if not isinstance(obj, dict):
        yield Problem("invalid", "not a Letta agent file (not a JSON object)", Where(name))
        return
    created = _time(obj.get("created_at"), opts) or file_time(path)
    if isinstance(obj.get("agents"), list):
        blocks = {b.get("id"): b for b in obj.get("blocks") or [] if isinstance(b, dict)}
        used: set[Any] = set()
        for i, agent in enumerate(obj["agents"]):
            if not isinstance(agent, dict):
                yield Problem("invalid", f"agents[{i}] is not an object", Where(name))
                continue
            own = []
            for bid in agent.get("block_ids") or []:
                if bid in blocks and bid not in used:
                    used.add(bid)
                    own.append(blocks[bid])
                elif bid not in blocks:
                    yield Problem("warning", f"agent {agent.get('name')!r} names block {bid!r}, which the file does not hold", Where(name))
            yield from _agent(agent, own, name, created, opts)
        orphans = [b for bid, b in blocks.items() if bid not in used]
        if orphans:
            yield from _agent({"name": "letta"}, orphans, name, created, opts)
        yield from _passages(obj, "letta", name, created, opts)
        for key in ("tools", "files", "sources", "mcp_servers", "groups"):
            n = len(obj.get(key) or [])
            if n:
                yield Problem("skipped_not_memory", f"{n} {key} (not memory)", Where(name))
        return
    if isinstance(obj.get("core_memory"), list) or "messages" in obj:
        yield from _agent(obj, [b for b in obj.get("core_memory") or [] if isinstance(b, dict)], name, created, opts)
        return
    yield Problem("invalid", "not a Letta agent file (no agents or core_memory)", Where(name))


def _time(value: Any, opts: ReadOptions) -> Any:
    try:
        return foreign_time(value, opts.timezone)
    except ValidationError:
        return None


def _agent(agent: dict[str, Any], blocks: list[dict[str, Any]], name: str, created: Any, opts: ReadOptions) -> Iterator[Entry]:
    aname = str(agent.get("name") or agent.get("id") or "letta")
    when = _time(agent.get("created_at"), opts) or created
    for block in blocks:
        label = str(block.get("label") or "block")
        value = block.get("value")
        if not isinstance(value, str) or not value.strip():
            yield Problem("skipped_empty", f"memory block {label!r} of {aname!r} is empty", Where(name))
            continue
        kind = LABEL_KINDS.get(label.lower(), "note")
        tags = [t for t in ("letta-block", tag_for(label)) if t]
        bwhen = _time(block.get("updated_at"), opts) or _time(block.get("created_at"), opts) or when
        for n, line in enumerate(value.split("\n"), 1):
            text = _BULLET.sub("", line).strip()
            if not text:
                continue
            src: dict[str, Any] = {"agent": aname, "block": label, "line": n}
            if block.get("description"):
                src["block_description"] = str(block["description"])
            yield ImportItem(
                system=SYSTEM,
                content=text,
                where=Where(f"{name}#{aname}/{label}", n),
                original_id=f"{aname}/block/{label}#{short_hash(' '.join(text.split()))[:12]}",
                scope_hint=aname,
                kind=kind,
                tags=tuple(tags),
                recorded_at=bwhen,
                source=src,
            )
    yield from _passages(agent, aname, name, when, opts)
    msgs = agent.get("messages")
    if isinstance(msgs, list) and msgs:
        yield Problem("skipped_not_memory", f"{len(msgs)} message(s) of {aname!r} (the conversation, not memory)", Where(name))


def _passages(obj: dict[str, Any], aname: str, name: str, when: Any, opts: ReadOptions) -> Iterator[Entry]:
    for key in ("passages", "archival_memory"):
        items = obj.get(key)
        if not isinstance(items, list):
            continue
        for i, p in enumerate(items, 1):
            text = p.get("text") if isinstance(p, dict) else p if isinstance(p, str) else None
            if not isinstance(text, str) or not text.strip():
                yield Problem("skipped_empty", f"{key}[{i - 1}] has no text", Where(f"{name}#{aname}/{key}", i))
                continue
            pid = p.get("id") if isinstance(p, dict) else None
            t = _time(p.get("created_at"), opts) if isinstance(p, dict) else None
            yield ImportItem(
                system=SYSTEM,
                content=text,
                where=Where(f"{name}#{aname}/{key}", i),
                original_id=f"{aname}/passage/{pid or short_hash(text)[:12]}",
                scope_hint=aname,
                kind="note",
                tags=("archival",),
                recorded_at=t or when,
                source={"agent": aname, "passage": pid} if pid else {"agent": aname},
            )
