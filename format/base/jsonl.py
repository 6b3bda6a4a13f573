"""Append-only JSON Lines files (audit log, tombstones) with torn-tail detection.

A crash during an append can leave a last line without its newline. Such a tail is never
silently dropped or built upon: :func:`read_jsonl` reports it, appends refuse until
:func:`repair_torn_tail` moves it aside (to a quarantine file) on an explicit request.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mem.format.base.errors import StoreInvalidError
from mem.format.base.fsutil import FILE_MODE, append_line, atomic_write, ensure_dir


class TornTailError(StoreInvalidError):
    code = "torn-tail"


@dataclass(frozen=True, slots=True)
class JsonlLine:
    lineno: int
    raw: str
    value: dict[str, Any] | None  # None when the line is not a JSON object
    error: str | None


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def read_jsonl(path: Path) -> tuple[list[JsonlLine], bytes | None]:
    """All complete lines of a JSONL file, and the torn tail (bytes after the last newline)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    tail: bytes | None = None
    cut = data.rfind(b"\n")
    if cut != len(data) - 1:
        tail = data[cut + 1 :]
        data = data[: cut + 1]
    out: list[JsonlLine] = []
    for i, raw_b in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            raw = raw_b.decode("utf-8")
        except UnicodeDecodeError:
            out.append(JsonlLine(i, raw_b.decode("utf-8", "replace"), None, "not UTF-8"))
            continue
        if not raw.strip():
            out.append(JsonlLine(i, raw, None, "empty line"))
            continue
        try:
            val = json.loads(raw)
        except ValueError as exc:
            out.append(JsonlLine(i, raw, None, f"not JSON: {exc}"))
            continue
        except RecursionError:
            out.append(JsonlLine(i, raw, None, "not JSON: nested too deeply"))
            continue
        if not isinstance(val, dict):
            out.append(JsonlLine(i, raw, None, "not a JSON object"))
            continue
        out.append(JsonlLine(i, raw, val, None))
    return out, tail


def has_torn_tail(path: Path) -> bool:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    if size == 0:
        return False
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1) != b"\n"


def append_object(path: Path, obj: dict[str, Any], *, sync: bool = True) -> str:
    """Append one object as a canonical JSON line; refuses to build on a torn tail."""
    if has_torn_tail(path):
        raise TornTailError(
            "the last line of this file is incomplete (a write was interrupted)",
            path=path,
            hint="run `mem repair` to move the torn line aside and continue",
        )
    line = canonical_json(obj)
    append_line(path, line, FILE_MODE, sync=sync)
    return line


def repair_torn_tail(path: Path, quarantine_dir: Path) -> bytes | None:
    """Move a torn tail into ``quarantine_dir`` and truncate the file to its last full line."""
    lines_data = path.read_bytes() if path.exists() else b""
    cut = lines_data.rfind(b"\n")
    if cut == len(lines_data) - 1 or not lines_data:
        return None
    tail = lines_data[cut + 1 :]
    ensure_dir(quarantine_dir)
    q = quarantine_dir / f"{path.name}.torn-{os.getpid()}-{len(os.listdir(quarantine_dir))}"
    atomic_write(q, tail)
    atomic_write(path, lines_data[: cut + 1])
    return tail
