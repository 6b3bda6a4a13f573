"""The read log: which memories were served to an agent, when, through what (``spec/format.md``,
"Read log"). Off by default; on with ``reads = true`` in the ``[audit]`` table of config.toml.

One JSON line per read, appended to ``.mem/reads.jsonl`` (local to this clone, never in git):

    {"v": 1, "ts": "...", "via": "mcp-recall", "query": "sha256:...", "scopes": ["sam"],
     "ids": ["01..."], "scores": [0.83], "session": "..."}

``via`` is ``mcp-recall``, ``mcp-context`` (the ``mem://context`` resource), ``context``
(``mem context``) or ``search-batch`` (``mem search --batch``). Content-free: the query is kept
only as the SHA-256 of its text (``null`` when there is none), and records only by id; a
memory's words never reach this file. ``mem why ID`` reads it to say when a record was served.
A failure to write the log never fails the read (it is reported once on stderr by the caller).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.jsonl import append_object
from mem.format.rules.timeutil import format_time, now

if TYPE_CHECKING:
    from mem.format.store.store import Store

READS_FILE = "reads.jsonl"
VIAS: tuple[str, ...] = ("mcp-recall", "mcp-context", "context", "search-batch")


def enabled(store: Store) -> bool:
    """Whether ``[audit] reads = true`` (the setting, rules/config.py: a bad value is an error)."""
    on: bool = store.config.value("audit", "reads")
    return on


def path_of(store: Store) -> Path:
    return store.local_dir / READS_FILE


def query_digest(query: str | None) -> str | None:
    if query is None:
        return None
    return "sha256:" + hashlib.sha256(query.encode("utf-8")).hexdigest()


def log_read(
    store: Store,
    *,
    via: str,
    query: str | None,
    ids: Sequence[str],
    scores: Sequence[float | None] | None = None,
    scopes: Sequence[str] | None = None,
    session: str | None = None,
) -> bool:
    """Append one read event when the read log is on; True if it was written."""
    if not enabled(store):
        return False
    if via not in VIAS:
        raise ValueError(f"unknown read path {via!r}")
    event: dict[str, Any] = {
        "v": 1,
        "ts": format_time(now()),
        "via": via,
        "query": query_digest(query),
        "scopes": sorted(scopes) if scopes else None,
        "ids": list(ids),
        "scores": [None if s is None else round(float(s), 6) for s in scores] if scores is not None else None,
        "session": session,
    }
    p = path_of(store)
    p.parent.mkdir(parents=True, exist_ok=True)
    append_object(p, event, sync=False)
    return True


def reads(store: Store) -> Iterator[dict[str, Any]]:
    """Every read event, oldest first (a torn or unreadable line is skipped)."""
    try:
        data = path_of(store).read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return
    for line in data.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if isinstance(ev, dict) and isinstance(ev.get("ids"), list):
            yield ev


def reads_of(store: Store, record_id: str) -> list[dict[str, Any]]:
    """The read events that served ``record_id`` (with its score, when the event has scores)."""
    out = []
    for ev in reads(store):
        if record_id in ev["ids"]:
            i = ev["ids"].index(record_id)
            sc = ev.get("scores")
            out.append({
                "ts": ev.get("ts"), "via": ev.get("via"), "query": ev.get("query"),
                "session": ev.get("session"), "rank": i + 1,
                "score": sc[i] if isinstance(sc, list) and i < len(sc) else None,
            })
    return out
