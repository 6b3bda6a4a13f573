"""``mem verify``'s checks of the audit log files (hash chains, sequence numbers, torn tails),
run in a worker process on a large store. Part of :mod:`mem.format.verify.checks`."""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path
from typing import Any

from mem.format.base.jsonl import read_jsonl
from mem.format.model.audit import event_hash
from mem.format.verify.recordfiles import _scan, _skip_name

# -- the audit log (in a worker process on a large store) ------------------------------------

#: What the audit log check found: findings (code, path, message), the number of events, and
#: the replayed state of every record: id -> (last op, the digest it left; None after a forget).
#: (findings, events, the last state of each id, the scope of each id's forget event)
_LogResult = tuple[list[tuple[str, str, str]], int, dict[str, tuple[str, str | None]], dict[str, str]]
_Event = tuple[str, str, int, dict[str, Any]]  # (ts, chain, seq, event)
_Line = tuple[int, dict[str, Any] | None, str | None]  # (line number, object, error)
#: What json.loads runs on a line, without its wrappers: (object, end index).
_SCAN_JSON: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _read_lines(path: Path) -> tuple[list[_Line], bytes | None]:
    """:func:`mem.format.base.jsonl.read_jsonl`, faster when every line is exactly one JSON object
    (the usual case); any other line makes it defer to ``read_jsonl`` for the whole file, so
    the lines and messages are the same."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    cut = data.rfind(b"\n")
    try:
        lines = data[: cut + 1].decode("utf-8").split("\n")
        lines.pop()
        out: list[_Line] = []
        for i, line in enumerate(lines, start=1):
            obj, end = _SCAN_JSON(line, 0)
            if end != len(line) or type(obj) is not dict:
                raise ValueError(line)
            out.append((i, obj, None))
    except (UnicodeDecodeError, StopIteration, ValueError):
        jl, tail = read_jsonl(path)
        return [(ln.lineno, ln.value, ln.error) for ln in jl], tail
    return out, (data[cut + 1 :] if cut != len(data) - 1 else None)


def _check_chain(path: Path, rel: str, full: bool, found: list[tuple[str, str, str]]) -> list[_Event]:
    """Verify one hash chain (as :func:`mem.format.model.audit.verify_chain`) in the same pass that
    collects its events for the replay."""
    lines, tail = _read_lines(path)
    out: list[_Event] = []
    chain = path.stem
    prev: str | None = None
    expect = 1
    for lineno, ev, error in lines:
        if ev is None:
            found.append(("E301", rel, f"line {lineno} is {error}"))
            prev = None
            continue
        h = ev.get("hash")
        if full and h != event_hash(ev):
            found.append(("E302", rel, f"line {lineno}: event hash does not match its content"))
        seq = ev.get("seq")
        if ev.get("prev") != prev:
            found.append(("E303.1", rel, f"line {lineno}: event does not link to the previous event's hash"))
        if seq != expect:
            found.append(("E303.2", rel, f"line {lineno}: sequence number {seq!r}, expected {expect}"))
        prev = h if isinstance(h, str) else None
        expect = (seq if isinstance(seq, int) else expect) + 1
        out.append((str(ev.get("ts", "")), chain, seq if isinstance(seq, int) else 0, ev))
    if tail is not None:
        found.append(("E304", rel, f"last line is incomplete ({len(tail)} bytes after the last newline)"))
    return out


def _check_log_files(root: str, full: bool) -> _LogResult:
    """Check every audit chain (E301-E304; W502 in log/) and replay the events by time."""
    ldir = Path(root) / "log"
    found: list[tuple[str, str, str]] = []
    chains: list[str] = []
    for entry in _scan(ldir):
        if _skip_name(entry.name):
            continue
        if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
            chains.append(entry.name)
        else:
            found.append(("W502.4", f"log/{entry.name}", "not an audit log file (log/<clone-id>.jsonl)"))
    events: list[_Event] = []
    for name in sorted(chains):
        events.extend(_check_chain(ldir / name, f"log/{name}", full, found))
    events.sort(key=itemgetter(0, 1, 2))  # by time, then chain and sequence number
    last: dict[str, tuple[str, str | None]] = {}
    forgotten: dict[str, str] = {}
    for _, _, _, ev in events:
        rid, op = ev.get("id"), ev.get("op")
        if not isinstance(rid, str) or op in ("lift-tombstone", "init"):
            continue
        after = ev.get("after")
        if op == "forget":
            last[rid] = ("forget", None)
            if isinstance(ev.get("scope"), str):
                forgotten[rid] = ev["scope"]
        elif isinstance(after, str):
            last[rid] = (str(op), after)
    return found, len(events), last, forgotten
