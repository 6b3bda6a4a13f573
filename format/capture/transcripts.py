"""Transcript readers and format detection.

Formats (``spec/capture.md``, "Transcript formats"):

- ``jsonl``: one JSON object per line, ``{"role", "content", "ts"?, "conversation"?, ...}``.
  The turn index is the position of the line among the lines of its conversation (0-based), so
  appending lines never renumbers earlier turns.
- ``text``: plain ``User: ...`` / ``Assistant: ...`` lines (also ``Human:``, ``Me:``, ``AI:``,
  ``Bot:``, ``System:``); a line without a label continues the previous turn. One conversation
  per file; a line ``=== conversation: ID ===`` starts a new one.
- ``skales``: a Skales session file ``session_<ms>_<hex>.json`` (``{id, messages: [{role,
  content, timestamp}]}``) or a ``sessions/`` folder of them.
- ``windieos``: a WindieOS ``episodic.db`` (or its folder): rows of ``memories`` with
  ``record_kind = 'transcript'``, one per chat message; opened read-only.
- ``claude-code``, ``codex``, ``chatgpt``, ``json``: what agent hosts write, and a plain JSON
  array of messages (:mod:`.hosts`).

Every reader returns the whole transcript (a list of :class:`Turn`) or raises
:class:`InvalidInputError` naming the file (and line) and the problem; nothing is half-read.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import InvalidInputError, NotFoundError

FORMATS: tuple[str, ...] = ("jsonl", "text", "skales", "windieos", "claude-code", "codex", "chatgpt", "json")

USER_ROLES = {"user", "human", "me", "you"}
_ROLE_ALIASES = {
    "user": "user", "human": "user", "me": "user", "you": "user",
    "assistant": "assistant", "ai": "assistant", "bot": "assistant", "agent": "assistant",
    "model": "assistant", "system": "system", "tool": "tool", "function": "tool",
}  # fmt: skip
MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a transcript."""

    conversation: str  # "" when the transcript has no conversation ids
    index: int  # position in its conversation, 0-based, stable under appends
    role: str  # normalized: user, assistant, system, tool, or the original lower-cased role
    content: str
    ts: str | None = None
    line: int | None = None  # line (jsonl/text) or row id (windieos), for messages
    fields: Mapping[str, Any] = field(default_factory=dict)  # raw fields (for --scope-from)

    @property
    def is_user(self) -> bool:
        return self.role == "user"


@dataclass
class Transcript:
    """A read transcript: its stable source id, format, file and turns."""

    source: str  # stable id: absolute path of the file (or a name given by the caller)
    format: str
    path: Path
    turns: list[Turn]
    size: int = 0  # bytes read (files), for the watermark's append check
    prefix_digest: str | None = None  # sha256 of the bytes read
    host: str | None = None  # the agent host that wrote it (claude-code, codex, chatgpt)
    mtime_ns: int | None = None  # the file's modification time before it was read (watermark)


def normalize_role(role: object) -> str:
    r = str(role or "").strip().lower()
    return _ROLE_ALIASES.get(r, r)


def _content_text(value: object) -> str:
    """Message content as text: a string, or OpenAI/Anthropic-style lists of parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for p in value:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and isinstance(p.get("text"), str):
                parts.append(p["text"])
        return "\n".join(parts)
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return ""


def _read_bytes(path: Path) -> bytes:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise NotFoundError("no such transcript", path=path) from None
    if st.st_size > MAX_TRANSCRIPT_BYTES:
        raise InvalidInputError(f"transcript is larger than {MAX_TRANSCRIPT_BYTES} bytes", path=path)
    import stat

    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):  # /dev/zero never ends
        raise InvalidInputError("is a device, not a transcript file", path=path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TRANSCRIPT_BYTES + 1)  # a pipe has no size to check first
        if len(data) > MAX_TRANSCRIPT_BYTES:
            raise InvalidInputError(f"transcript is larger than {MAX_TRANSCRIPT_BYTES} bytes", path=path)
        return data
    except IsADirectoryError:
        raise InvalidInputError("is a directory, not a transcript file", path=path) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read: {exc.strerror}", path=path) from None


def _decode(data: bytes, path: Path) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InvalidInputError(f"not valid UTF-8 (byte {exc.start})", path=path, line=line) from None
    return text[1:] if text.startswith("\ufeff") else text


def _digest(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------------
# JSON Lines


def json_lines(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], int, str]:
    """The complete lines of a JSON Lines file as (0-based line, object); bytes read; digest.

    A last line still being written (no newline, not valid JSON) is left for the next run.
    """
    data = _read_bytes(path)
    cut = data.rfind(b"\n") + 1
    complete, tail = data[:cut], data[cut:]
    if tail.strip():
        try:
            json.loads(tail)
            complete = data  # a last line without its newline, but whole
        except ValueError:
            pass
    text = _decode(complete, path)
    out: list[tuple[int, dict[str, Any]]] = []
    for i, raw in enumerate(text.split("\n")):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"not a JSON object: {exc.msg}", path=path, line=i + 1) from None
        if not isinstance(obj, dict):
            raise InvalidInputError("line is not a JSON object", path=path, line=i + 1)
        out.append((i, obj))
    return out, len(complete), _digest(complete)


def read_jsonl(path: Path, source: str | None = None) -> Transcript:
    lines, size, digest = json_lines(path)
    turns: list[Turn] = []
    counters: dict[str, int] = {}
    for i, obj in lines:
        lineno = i + 1
        if "role" not in obj or "content" not in obj:
            missing = [k for k in ("role", "content") if k not in obj]
            raise InvalidInputError(
                f"message lacks {' and '.join(repr(k) for k in missing)}", path=path, line=lineno,
                hint='each line is {"role": "user"|"assistant", "content": "...", "ts"?, "conversation"?}',
            )
        conv_raw = obj.get("conversation", obj.get("conversation_id", ""))
        conv = "" if conv_raw is None else str(conv_raw)
        idx = counters.get(conv, 0)
        counters[conv] = idx + 1
        ts = obj.get("ts", obj.get("timestamp"))
        turns.append(
            Turn(conv, idx, normalize_role(obj.get("role")), _content_text(obj.get("content")),
                 None if ts is None else str(ts), lineno, obj)
        )
    return Transcript(source or str(path.resolve()), "jsonl", path, turns, size, digest)


# ---------------------------------------------------------------------------------------------
# Plain text

_LABEL_RE = re.compile(
    r"^\s*(?P<label>user|human|me|you|assistant|ai|bot|agent|system)\s*:\s?(?P<rest>.*)$", re.I
)
_CONV_RE = re.compile(r"^\s*={3,}\s*conversation\s*:?\s*(?P<id>.*?)\s*={3,}\s*$", re.I)


def read_text(path: Path, source: str | None = None) -> Transcript:
    data = _read_bytes(path)
    text = _decode(data, path)
    turns: list[Turn] = []
    conv = ""
    counters: dict[str, int] = {}
    cur: dict[str, Any] | None = None

    def flush() -> None:
        nonlocal cur
        if cur is not None:
            idx = counters.get(cur["conv"], 0)
            counters[cur["conv"]] = idx + 1
            turns.append(Turn(cur["conv"], idx, cur["role"], "\n".join(cur["lines"]).strip(),
                              None, cur["line"], {"conversation": cur["conv"]}))
        cur = None

    saw_label = False
    for lineno, line in enumerate(text.split("\n"), start=1):
        mc = _CONV_RE.match(line)
        if mc:
            flush()
            conv = mc.group("id")
            continue
        m = _LABEL_RE.match(line)
        if m:
            flush()
            saw_label = True
            cur = {"conv": conv, "role": normalize_role(m.group("label")), "lines": [m.group("rest")],
                   "line": lineno}
        elif cur is not None:
            cur["lines"].append(line)
        elif line.strip():
            raise InvalidInputError(
                "text before the first 'User:' or 'Assistant:' line", path=path, line=lineno,
                hint="a plain-text transcript is lines 'User: ...' and 'Assistant: ...'",
            )
    flush()
    if not saw_label and text.strip():
        raise InvalidInputError("no 'User:' or 'Assistant:' lines", path=path)
    return Transcript(source or str(path.resolve()), "text", path, turns, len(data), _digest(data))


# ---------------------------------------------------------------------------------------------
# Skales sessions


def _skales_session_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.glob("session_*.json") if p.is_file() and not p.name.endswith(".tmp")
    )


def read_skales(path: Path, source: str | None = None) -> list[Transcript]:
    """A Skales session file, or every session file of a ``sessions/`` folder."""
    if path.is_dir():
        folder = path / "sessions" if (path / "sessions").is_dir() else path
        files = _skales_session_files(folder)
        if not files:
            raise InvalidInputError("no Skales session files (session_*.json) here", path=path)
        return [t for f in files for t in read_skales(f)]
    data = _read_bytes(path)
    if not data.strip():
        # Skales writes are not atomic: an empty session is a known state, with nothing to mine.
        return [Transcript(source or str(path.resolve()), "skales", path, [], 0, _digest(b""))]
    text = _decode(data, path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"not valid JSON (line {exc.lineno}): {exc.msg}", path=path, line=exc.lineno,
            hint="a Skales session file may be corrupt after an interrupted write",
        ) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
        raise InvalidInputError("not a Skales session (no 'messages' list)", path=path)
    conv = str(obj.get("id") or path.stem)
    turns: list[Turn] = []
    for i, msg in enumerate(obj["messages"]):
        if not isinstance(msg, dict):
            raise InvalidInputError(f"message {i} is not an object", path=path)
        ts = msg.get("timestamp")
        turns.append(
            Turn(conv, i, normalize_role(msg.get("role")), _content_text(msg.get("content")),
                 None if ts is None else str(ts), None,
                 {"conversation": conv, "agentId": obj.get("agentId"), "title": obj.get("title")})
        )
    return [Transcript(source or str(path.resolve()), "skales", path, turns, len(data), _digest(data))]


# ---------------------------------------------------------------------------------------------
# WindieOS episodic.db


def _windie_db(path: Path) -> Path:
    return path / "episodic.db" if path.is_dir() else path


def read_windieos(path: Path, source: str | None = None) -> Transcript:
    db = _windie_db(path)
    if not db.is_file():
        raise NotFoundError("no WindieOS episodic.db here", path=db)
    uri = "file:" + str(db.resolve()) + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InvalidInputError(f"cannot open as SQLite: {exc}", path=db) from None
    try:
        try:
            cols = {r[1] for r in con.execute("PRAGMA table_info(memories)")}
        except sqlite3.DatabaseError as exc:
            raise InvalidInputError(f"not a readable SQLite database: {exc}", path=db) from None
        if not cols:
            raise InvalidInputError("no 'memories' table: not a WindieOS episodic.db", path=db)
        need = {"content", "record_kind", "role", "conversation_id"}
        if not need <= cols:
            raise InvalidInputError(
                "this episodic.db has no transcript rows (its schema predates transcripts: "
                f"missing {', '.join(sorted(need - cols))})",
                path=db,
            )
        sel = ["rowid", "content", "role", "conversation_id",
               "message_index" if "message_index" in cols else "NULL",
               "timestamp" if "timestamp" in cols else "NULL",
               "user_id" if "user_id" in cols else "NULL",
               "id" if "id" in cols else "NULL"]  # fmt: skip
        q = (
            f"SELECT {', '.join(sel)} FROM memories WHERE record_kind = 'transcript' "
            "ORDER BY conversation_id, message_index IS NULL, message_index, timestamp, rowid"
        )
        try:
            rows = con.execute(q).fetchall()
        except sqlite3.DatabaseError as exc:
            raise InvalidInputError(f"cannot read transcript rows: {exc}", path=db) from None
    finally:
        con.close()
    turns: list[Turn] = []
    counters: dict[str, int] = {}
    for rowid, content, role, conv_id, mindex, ts, user_id, rid in rows:
        conv = str(conv_id or "")
        ordinal = counters.get(conv, 0)
        counters[conv] = ordinal + 1
        idx = int(mindex) if isinstance(mindex, int) else ordinal
        turns.append(
            Turn(conv, idx, normalize_role(role), str(content or ""), None if ts is None else str(ts),
                 int(rowid), {"conversation_id": conv, "user_id": user_id, "id": rid})
        )
    return Transcript(source or str(db.resolve()), "windieos", db, turns, 0, None)


# ---------------------------------------------------------------------------------------------
# Detection


def detect_format(path: Path) -> str:
    """Guess the format of a transcript path (file or folder), or raise naming the file.

    A folder of host session files (``*.jsonl``, ``conversations.json``, at any depth) is
    ``folder``: each file is detected and read on its own (:func:`host_files`).
    """
    from mem.format.capture.hosts import sniff_json_document, sniff_jsonl_host

    if path.is_dir():
        if (path / "episodic.db").is_file():
            return "windieos"
        if _skales_session_files(path) or (path / "sessions").is_dir():
            return "skales"
        if host_files(path):
            return "folder"
        raise InvalidInputError(
            "cannot tell the transcript format of this folder (no episodic.db, no session_*.json, "
            "no *.jsonl or conversations.json)",
            path=path, hint="pass a transcript file, or --format",
        )
    if not path.exists():
        raise NotFoundError("no such transcript", path=path)
    with open(path, "rb") as f:
        head = f.read(65536)
    if head.startswith(b"SQLite format 3\x00"):
        return "windieos"
    if path.name.startswith("session_") and path.suffix == ".json":
        return "skales"
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = [ln for ln in text.split("\n")[:-1] if ln.strip()] or [text] * bool(text.strip())
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    if first.lstrip().startswith("{"):
        host = sniff_jsonl_host(lines)
        if host is not None:
            return host
    if first.lstrip().startswith(("[", "{")):
        doc = sniff_json_document(text)
        if doc is not None:
            return doc
    if first.lstrip().startswith("{"):
        try:
            obj = json.loads(first)
            if isinstance(obj, dict) and "role" in obj and "content" in obj:
                return "jsonl"
        except ValueError:
            pass
        if '"messages"' in text:
            return "skales"
    if any(_LABEL_RE.match(ln) for ln in text.split("\n")[:50]):
        return "text"
    if not head.strip():
        if path.suffix == ".json":
            return "skales"
        return "jsonl" if path.suffix == ".jsonl" else "text"
    raise InvalidInputError(
        "cannot tell the transcript format (not JSON Lines, a JSON array of messages, "
        "'User:'/'Assistant:' text, a Claude Code, Codex or ChatGPT transcript, a Skales "
        "session or a WindieOS episodic.db)",
        path=path, hint=f"pass --format {'|'.join(FORMATS)}",
    )


def host_files(folder: Path) -> list[Path]:
    """The host session files under ``folder`` (any depth), in path order."""
    from mem.format.capture.hosts import is_host_session_file

    return sorted(p for p in folder.rglob("*") if p.is_file() and is_host_session_file(p))


def read_transcripts(
    path: Path, fmt: str = "auto", source: str | None = None, *, skip: Callable[[Path], bool] | None = None
) -> list[Transcript]:
    """Read one transcript path (a folder of sessions gives one transcript per file).

    ``skip``: for the files of a folder, a test that a file is known unchanged (its capture
    watermark names its size and modification time): such a file is not read at all.
    """
    if path.is_dir() and fmt in ("auto", "claude-code", "codex", "chatgpt", "json", "jsonl"):
        kind = detect_format(path) if fmt == "auto" else "folder"
        if kind == "folder":
            if source is not None:
                raise InvalidInputError("--source-name names one transcript file, not a folder", path=path)
            return [t for f in host_files(path) if skip is None or not skip(f) for t in read_transcripts(f, fmt)]
        fmt = kind
    try:
        mtime_ns: int | None = path.stat().st_mtime_ns if path.is_file() else None
    except OSError:
        mtime_ns = None
    out = _read_format(path, fmt, source)
    for t in out:
        if t.path == path:
            t.mtime_ns = mtime_ns
    return out


def _read_format(path: Path, fmt: str, source: str | None) -> list[Transcript]:
    from mem.format.capture import hosts

    if fmt == "auto":
        fmt = detect_format(path)
    if fmt not in FORMATS:
        raise InvalidInputError(f"unknown transcript format {fmt!r}; use auto, {', '.join(FORMATS)}")
    if fmt == "claude-code":
        return [hosts.read_claude_code(path, source)]
    if fmt == "codex":
        return [hosts.read_codex(path, source)]
    if fmt == "chatgpt":
        return [hosts.read_chatgpt(path, source)]
    if fmt == "json":
        return [hosts.read_json_messages(path, source)]
    if fmt == "jsonl":
        return [read_jsonl(path, source)]
    if fmt == "text":
        return [read_text(path, source)]
    if fmt == "skales":
        return read_skales(path, source)
    return [read_windieos(path, source)]
