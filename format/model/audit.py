"""The audit log: append-only, hash-chained JSON Lines, one chain per clone of the store.

Each clone writes its own file ``log/<clone-id>.jsonl`` so that two clones of a git-versioned
store never edit the same file and their logs merge without conflict. Every event names the
previous event's hash; ``verify`` recomputes the chain. Events hold ids and digests, never
content.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mem.format.base.fsutil import ensure_dir
from mem.format.base.jsonl import append_object, canonical_json, read_jsonl
from mem.format.rules.timeutil import format_time, now

LOG_VERSION = 1
EVENT_KEYS = ("v", "seq", "ts", "actor", "op", "id", "scope", "before", "after", "detail", "prev")
OPS = (
    "init",
    "add",
    "update",
    "supersede",
    "accept",
    "reject",
    "reopen",
    "forget",
    "lift-tombstone",
    "import",
    "capture",
    "sighting",
    "consolidate",
    "repair",
    "adopt",
    "merge",
)


def event_hash(event: dict[str, Any]) -> str:
    body = {k: v for k, v in event.items() if k != "hash"}
    return "sha256:" + hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def default_actor() -> str:
    actor = os.environ.get("MEM_ACTOR")
    if actor:
        return actor
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except Exception:
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


@dataclass(frozen=True, slots=True)
class ChainProblem:
    path: Path
    line: int | None
    message: str
    kind: str  # "torn", "parse", "hash", "link", "seq"


class AuditLog:
    """The chain of one clone (for writing) and all chains of the store (for reading)."""

    def __init__(self, log_dir: Path, clone_id: str, actor: str | None = None) -> None:
        self.dir = log_dir
        self.clone_id = clone_id
        self.path = log_dir / f"{clone_id}.jsonl"
        self.actor = actor or default_actor()
        self._tail: tuple[int, str | None] | None = None  # (seq, hash) of the last event
        self._tail_size = -1  # file size the cached tail was read at

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def _load_tail(self) -> tuple[int, str | None]:
        # the cache holds only while the file is unchanged: another process (or another Store
        # object) may have appended under the writer lock since we last wrote
        size = self._size()
        if self._tail is not None and size == self._tail_size:
            return self._tail
        seq, last = 0, None
        if size:
            with open(self.path, "rb") as f:
                back = min(size, 65536)
                f.seek(size - back)
                chunk = f.read(back)
            lines = [ln for ln in chunk.split(b"\n") if ln.strip()]
            if lines:
                import json

                try:
                    ev = json.loads(lines[-1])
                    seq, last = int(ev.get("seq", 0)), ev.get("hash")
                except (ValueError, TypeError):
                    seq, last = 0, None
        self._tail = (seq, last)
        self._tail_size = size
        return self._tail

    def append(
        self,
        op: str,
        *,
        id: str | None = None,
        scope: str | None = None,
        before: str | None = None,
        after: str | None = None,
        detail: dict[str, Any] | None = None,
        sync: bool = True,
    ) -> dict[str, Any]:
        ensure_dir(self.dir)
        seq, prev = self._load_tail()
        event: dict[str, Any] = {
            "v": LOG_VERSION,
            "seq": seq + 1,
            "ts": format_time(now()),
            "actor": self.actor,
            "op": op,
            "id": id,
            "scope": scope,
            "before": before,
            "after": after,
            "detail": detail or {},
            "prev": prev,
        }
        event["hash"] = event_hash(event)
        try:
            append_object(self.path, event, sync=sync)
        except BaseException:
            self._tail = None
            raise
        self._tail = (seq + 1, event["hash"])
        self._tail_size = self._size()
        return event

    def sync(self) -> None:
        if self.path.exists():
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def chain_files(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        return sorted(p for p in self.dir.glob("*.jsonl") if p.is_file())

    def iter_events(self) -> Iterator[dict[str, Any]]:
        """All events of all chains, ordered by time then chain then sequence."""
        events: list[tuple[str, str, int, dict[str, Any]]] = []
        for p in self.chain_files():
            lines, _ = read_jsonl(p)
            for ln in lines:
                if ln.value is not None:
                    ev = ln.value
                    events.append((str(ev.get("ts", "")), p.stem, int(ev.get("seq", 0) or 0), ev))
        events.sort(key=lambda e: (e[0], e[1], e[2]))
        for e in events:
            yield e[3]

    def forgotten_ids(self) -> set[str]:
        """Ids of every record a ``forget`` event names, in any chain. Tombstones are the rule
        that keeps them out; this is the second witness (a tombstones file emptied by hand)."""
        import json

        out: set[str] = set()
        for p in self.chain_files():
            with open(p, "rb") as f:
                for line in f:
                    if b'"forget"' not in line:  # cheap: most events are not forgets
                        continue
                    try:
                        ev = json.loads(line)
                    except ValueError:
                        continue  # a torn or bad line: verify reports it
                    if isinstance(ev, dict) and ev.get("op") == "forget" and isinstance(ev.get("id"), str):
                        out.add(ev["id"])
        return out

    def verify(self) -> list[ChainProblem]:
        problems: list[ChainProblem] = []
        for p in self.chain_files():
            problems.extend(verify_chain(p))
        return problems


def verify_chain(path: Path) -> list[ChainProblem]:
    """Check one chain: every line parses, hashes recompute, links and sequence numbers hold."""
    problems: list[ChainProblem] = []
    lines, tail = read_jsonl(path)
    prev: str | None = None
    expect_seq = 1
    for ln in lines:
        if ln.value is None:
            problems.append(ChainProblem(path, ln.lineno, f"line is {ln.error}", "parse"))
            prev = None
            continue
        ev = ln.value
        h = ev.get("hash")
        if h != event_hash(ev):
            problems.append(
                ChainProblem(path, ln.lineno, "event hash does not match its content (tampered?)", "hash")
            )
        if ev.get("prev") != prev:
            problems.append(
                ChainProblem(path, ln.lineno, "event does not link to the previous event's hash", "link")
            )
        if ev.get("seq") != expect_seq:
            problems.append(
                ChainProblem(
                    path, ln.lineno, f"sequence number {ev.get('seq')!r}, expected {expect_seq}", "seq"
                )
            )
        prev = h if isinstance(h, str) else None
        seq = ev.get("seq")
        expect_seq = (seq if isinstance(seq, int) else expect_seq) + 1
    if tail is not None:
        problems.append(
            ChainProblem(
                path,
                len(lines) + 1,
                f"last line is incomplete ({len(tail)} bytes after the last newline)",
                "torn",
            )
        )
    return problems
