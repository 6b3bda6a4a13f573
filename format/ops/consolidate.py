"""Consolidation: roll windows of episodes up into summaries and facts through any program.

``spec/consolidate.md`` is the normative description. In short:

* Episodes (records of the episode kinds, status active or candidate) are grouped into
  *streams* per scope and conversation (``source.conversation``), ordered oldest first by
  (``recorded_at``, ``id``), and cut into bounded *windows*: up to ``overlap`` already
  consolidated episodes as context, then new ones, ``window`` records at most.
* Each window is written as JSON to the summarizer's stdin (a program run without a shell);
  its stdout is the answer: ``{"summary", "facts", "supersedes"?}``, or ``NONE`` /
  ``{"none": true}`` (nothing durable; the watermark still advances).
* Guards: an answer that is empty, too large, not JSON, off-schema or too short, or a program
  that fails or times out, is *refused*: nothing changes, the refusal (a code and a message that
  never quotes content) is logged (op ``consolidate``) and reported, and the stream stops there.
* Writes: supersessions (through :meth:`Store.supersede`, reason in the audit log), then facts,
  then the summary, each with ``derived_from`` = the window's episodes and
  ``source.window`` = the window key (a digest of the ordered episode ids and body digests).
  Only then does the watermark (``state/consolidate.json``) advance. A summary whose
  ``source.window`` equals a window's key marks that window done, so a lost watermark write
  never yields a second summary; a validated answer is journaled under ``.mem/`` before the
  first write, so a crash in the middle of a window is finished from the journal on the next
  run, without asking the summarizer again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import (
    LockTimeoutError,
    NotFoundError,
    StoreInvalidError,
    TombstonedError,
    ValidationError,
)
from mem.format.base.fsutil import atomic_write, ensure_dir, remove_file
from mem.format.base.lock import WriterLock
from mem.format.model.record import Record, make_record, match_digest
from mem.format.rules import ids
from mem.format.rules.secretpolicy import find_secret, record_secret
from mem.format.rules.timeutil import format_time, parse_time
from mem.format.store.store import Store

WINDOW_FORMAT = "mem-consolidate-window"
WATERMARK_FORMAT = "mem-consolidate-watermark"
JOURNAL_FORMAT = "mem-consolidate-journal"
VERSION = 1
STATE_FILE = "consolidate.json"
JOURNAL_DIR = "consolidate-pending"

DEFAULT_KINDS: tuple[str, ...] = ("episode",)
DEFAULT_WINDOW = 20
DEFAULT_OVERLAP = 2
DEFAULT_TIMEOUT = 120.0
DEFAULT_MIN_SUMMARY_CHARS = 20
DEFAULT_MIN_FACT_CHARS = 8
DEFAULT_EXISTING = 50
DEFAULT_CONFIDENCE = 0.8
MAX_FACTS = 50
MAX_SUPERSEDES = 20
MAX_TAGS = 16
MAX_ANSWER_BYTES = 1024 * 1024
STDERR_TAIL = 2000

_WINDOW_KEY_SALT = "mem-consolidate-window-v1"
_INTERPRETER_RE = re.compile(r"^(python[0-9.]*|node|deno|bun|bash|sh|zsh|ruby|perl|uv|uvx|env)$")


# ---------------------------------------------------------------------------------------------
# Options, windows, answers


@dataclass(frozen=True)
class Options:
    """How a consolidation run behaves (the CLI options, one to one)."""

    summarizer: Sequence[str] = ()
    scopes: Sequence[str] | None = None
    kinds: Sequence[str] = DEFAULT_KINDS
    window: int = DEFAULT_WINDOW
    overlap: int = DEFAULT_OVERLAP
    min_new: int = 1
    max_windows: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    min_summary_chars: int = DEFAULT_MIN_SUMMARY_CHARS
    min_fact_chars: int = DEFAULT_MIN_FACT_CHARS
    existing: int = DEFAULT_EXISTING
    confidence: float = DEFAULT_CONFIDENCE
    trust: bool = False
    mode: str = "run"  # "run" | "plan" (no calls, no writes) | "preview" (calls, no writes)

    def check(self) -> Options:
        if self.mode not in ("run", "plan", "preview"):
            raise ValidationError(f"mode {self.mode!r} is not run, plan or preview")
        if self.mode != "plan" and not self.summarizer:
            raise ValidationError("no summarizer: give --summarizer CMD (or MEM_SUMMARIZER)")
        if self.window < 1:
            raise ValidationError("--window must be at least 1")
        if not 0 <= self.overlap < self.window:
            raise ValidationError("--overlap must be at least 0 and smaller than --window")
        if self.min_new < 1:
            raise ValidationError("--min-new must be at least 1")
        if self.max_windows is not None and self.max_windows < 0:
            raise ValidationError("--max-windows must not be negative")
        if not self.timeout > 0:
            raise ValidationError("--timeout must be a positive number of seconds")
        if self.min_summary_chars < 1 or self.min_fact_chars < 1:
            raise ValidationError("the length floors must be at least 1 character")
        if self.existing < 0:
            raise ValidationError("--existing must not be negative")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValidationError("--confidence must be within 0..1")
        if not self.kinds:
            raise ValidationError("at least one episode kind is needed")
        for k in self.kinds:
            ids.check_kind(k)
        for s in self.scopes or ():
            ids.check_scope(s)
        return self

    @property
    def program(self) -> str:
        """The summarizer's name as recorded in provenance: the program's base name (and the
        script's, for an interpreter such as ``python script.py``); never its other arguments."""
        if not self.summarizer:
            return ""
        name = os.path.basename(self.summarizer[0])
        if _INTERPRETER_RE.match(name) and len(self.summarizer) > 1:
            name += " " + os.path.basename(self.summarizer[1])
        return name


@dataclass(frozen=True)
class Window:
    """A bounded slice of one stream: ``overlap`` context episodes, then new ones."""

    scope: str
    conversation: str | None
    episodes: tuple[Record, ...]
    overlap: int
    key: str

    @property
    def new_episodes(self) -> tuple[Record, ...]:
        return self.episodes[self.overlap :]

    @property
    def episode_ids(self) -> list[str]:
        return [e.id for e in self.episodes]

    @property
    def last(self) -> Record:
        return self.episodes[-1]

    def brief(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "conversation": self.conversation,
            "window": self.key,
            "episodes": self.episode_ids,
            "overlap": self.overlap,
            "new": len(self.new_episodes),
        }


def window_key(episodes: Iterable[Record]) -> str:
    """The deterministic dedup key of a window: a digest of its ordered (id, body digest)s."""
    h = hashlib.sha256(_WINDOW_KEY_SALT.encode("utf-8"))
    for e in episodes:
        h.update(f"\n{e.id} {e.digest}".encode())
    return "sha256:" + h.hexdigest()


@dataclass(frozen=True)
class Fact:
    content: str
    kind: str = "fact"
    tags: tuple[str, ...] = ()
    confidence: float | None = None


@dataclass(frozen=True)
class Supersession:
    id: str
    content: str
    reason: str


@dataclass(frozen=True)
class Answer:
    """A validated summarizer answer. ``none`` means "nothing durable in this window"."""

    none: bool
    summary: str = ""
    facts: tuple[Fact, ...] = ()
    supersedes: tuple[Supersession, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        if self.none:
            return {"none": True}
        return {
            "summary": self.summary,
            "facts": [
                {
                    "content": f.content,
                    "kind": f.kind,
                    "tags": list(f.tags),
                    **({"confidence": f.confidence} if f.confidence is not None else {}),
                }
                for f in self.facts
            ],
            "supersedes": [
                {"id": s.id, "content": s.content, "reason": s.reason} for s in self.supersedes
            ],
        }


class Refusal(Exception):
    """A window's answer (or the call that should have produced it) was refused.

    ``code`` is one of: ``empty``, ``too-large``, ``malformed``, ``schema``, ``too-short``,
    ``exit-status``, ``timeout``, ``no-program``, ``bad-target``, ``window-changed``.
    The message never quotes the answer's content (it goes to the audit log).
    """

    def __init__(self, code: str, message: str, stderr: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.stderr = stderr


# ---------------------------------------------------------------------------------------------
# Answer validation (the answer schema: spec/schemas/consolidate-answer.schema.json)


_ANSWER_KEYS = {"summary", "facts", "supersedes"}
_FACT_KEYS = {"content", "kind", "tags", "confidence"}
_SUPERSEDE_KEYS = {"id", "content", "reason"}
_KEY_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,31}$")
#: A record id as a summarizer may write it: any case, Crockford's aliases (I, L, O) allowed.
_ANSWER_ID_RE = re.compile(r"^[0-9A-TV-Za-tv-z]{26}$")


def _schema(message: str) -> Refusal:
    return Refusal("schema", message)


def _text(value: object, where: str, floor: int) -> str:
    if not isinstance(value, str):
        raise _schema(f"{where} must be a string, not {_json_type(value)}")
    text = value.strip()
    if not text:
        raise Refusal("empty", f"{where} is empty")
    if len(text) < floor:
        raise Refusal("too-short", f"{where} is {len(text)} characters; the floor is {floor}")
    return text


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _unknown_keys(obj: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        # name a key only when it looks like a key (a "key" may be a sentence of content)
        shown = [json.dumps(k) for k in extra if _KEY_NAME_RE.match(k)][:5]
        hidden = len(extra) - len(shown)
        names = ", ".join([*shown, *([f"{hidden} more"] if hidden and shown else [])])
        names = names or f"({hidden} not shown)"
        raise _schema(f"{where} has unknown key(s) {names}; allowed: {', '.join(sorted(allowed))}")


def parse_answer(raw: bytes, opts: Options) -> Answer:
    """Validate a summarizer's stdout; raise :class:`Refusal` naming the problem."""
    if len(raw) > MAX_ANSWER_BYTES:
        raise Refusal("too-large", f"answer is {len(raw)} bytes; the limit is {MAX_ANSWER_BYTES}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refusal("malformed", f"answer is not valid UTF-8 (byte {exc.start})") from None
    text = text.lstrip("\ufeff").strip()
    if not text:
        raise Refusal("empty", "the summarizer wrote nothing on stdout")
    if text == "NONE":
        return Answer(none=True)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Refusal(
            "malformed",
            f"answer is neither NONE nor JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
        ) from None
    if not isinstance(data, dict):
        raise _schema(f"answer must be a JSON object or NONE, not {_json_type(data)}")
    if "none" in data:
        if data.get("none") is not True or len(data) != 1:
            raise _schema('a "none" answer is exactly {"none": true}')
        return Answer(none=True)
    _unknown_keys(data, _ANSWER_KEYS, "answer")
    if "summary" not in data:
        raise _schema('answer lacks "summary"')
    if "facts" not in data:
        raise _schema('answer lacks "facts" (use [] for none)')
    summary = _text(data["summary"], "summary", opts.min_summary_chars)
    facts_raw = data["facts"]
    if not isinstance(facts_raw, list):
        raise _schema(f"facts must be an array, not {_json_type(facts_raw)}")
    if len(facts_raw) > MAX_FACTS:
        raise _schema(f"facts has {len(facts_raw)} items; at most {MAX_FACTS} are accepted")
    facts = tuple(_parse_fact(f, f"facts[{i}]", opts) for i, f in enumerate(facts_raw))
    sup_raw = data.get("supersedes", [])
    if not isinstance(sup_raw, list):
        raise _schema(f"supersedes must be an array, not {_json_type(sup_raw)}")
    if len(sup_raw) > MAX_SUPERSEDES:
        raise _schema(f"supersedes has {len(sup_raw)} items; at most {MAX_SUPERSEDES} are accepted")
    sups = tuple(_parse_supersede(s, f"supersedes[{i}]", opts) for i, s in enumerate(sup_raw))
    seen: set[str] = set()
    for i, s in enumerate(sups):
        if s.id in seen:
            raise _schema(f"supersedes[{i}].id names a record already superseded in this answer")
        seen.add(s.id)
    return Answer(none=False, summary=summary, facts=facts, supersedes=sups)


def _parse_fact(value: object, where: str, opts: Options) -> Fact:
    if isinstance(value, str):
        return Fact(content=_text(value, where, opts.min_fact_chars))
    if not isinstance(value, dict):
        raise _schema(f"{where} must be a string or an object, not {_json_type(value)}")
    _unknown_keys(value, _FACT_KEYS, where)
    if "content" not in value:
        raise _schema(f'{where} lacks "content"')
    content = _text(value["content"], f"{where}.content", opts.min_fact_chars)
    kind = value.get("kind", "fact")
    if not isinstance(kind, str) or not ids.is_kind(kind):
        raise _schema(f"{where}.kind is not a valid kind name (lower-case letters, digits, _)")
    if kind in opts.kinds:
        raise _schema(f"{where}.kind may not be an episode kind ({kind}): facts are not episodes")
    tags_raw = value.get("tags", [])
    if not isinstance(tags_raw, list):
        raise _schema(f"{where}.tags must be an array of strings")
    if len(tags_raw) > MAX_TAGS:
        raise _schema(f"{where}.tags has more than {MAX_TAGS} tags")
    for j, t in enumerate(tags_raw):
        if not isinstance(t, str) or not ids.is_tag(t):
            raise _schema(f"{where}.tags[{j}] is not a valid tag (1-64 characters, no spaces)")
    conf = value.get("confidence")
    if conf is not None and (
        isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0.0 <= conf <= 1.0
    ):
        raise _schema(f"{where}.confidence must be a number within 0..1")
    return Fact(
        content=content,
        kind=kind,
        tags=tuple(tags_raw),
        confidence=None if conf is None else float(conf),
    )


def _parse_supersede(value: object, where: str, opts: Options) -> Supersession:
    if not isinstance(value, dict):
        raise _schema(f"{where} must be an object, not {_json_type(value)}")
    _unknown_keys(value, _SUPERSEDE_KEYS, where)
    for k in ("id", "content", "reason"):
        if k not in value:
            raise _schema(f'{where} lacks "{k}"')
    rid = value["id"]
    if not isinstance(rid, str) or not _ANSWER_ID_RE.match(rid):
        raise _schema(f"{where}.id is not a record id")
    content = _text(value["content"], f"{where}.content", opts.min_fact_chars)
    reason = _text(value["reason"], f"{where}.reason", 1)
    return Supersession(id=ids.normalize_id(rid), content=content, reason=reason)


# ---------------------------------------------------------------------------------------------
# Running the summarizer


def run_summarizer(argv: Sequence[str], payload: bytes, timeout: float) -> bytes:
    """Run ``argv`` (no shell), feed ``payload`` on stdin, return stdout; raise :class:`Refusal`.

    Stdout is read up to :data:`MAX_ANSWER_BYTES` (+1, to detect an oversized answer); the
    process (and its process group) is killed at the deadline.
    """
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise Refusal("no-program", f"summarizer program {argv[0]!r} was not found") from None
    except PermissionError:
        raise Refusal("no-program", f"summarizer program {argv[0]!r} is not executable") from None
    except OSError as exc:
        raise Refusal("no-program", f"cannot start the summarizer: {exc.strerror}") from None
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    err_chunks: list[bytes] = []

    def _feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.write(payload)
        with contextlib.suppress(OSError):
            proc.stdin.close()

    def _drain_err() -> None:
        assert proc.stderr is not None
        size = 0
        fd = proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            err_chunks.append(chunk)
            size += len(chunk)
            while size > 4 * STDERR_TAIL and len(err_chunks) > 1:
                size -= len(err_chunks.pop(0))

    feeder = threading.Thread(target=_feed, daemon=True)
    drainer = threading.Thread(target=_drain_err, daemon=True)
    feeder.start()
    drainer.start()
    out = bytearray()
    deadline = time.monotonic() + timeout
    timed_out = oversized = False
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if not sel.select(min(left, 0.5)):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            out += chunk
            if len(out) > MAX_ANSWER_BYTES:
                oversized = True
                break
        if not timed_out and not oversized:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        sel.close()
        if timed_out or oversized:
            _kill(proc)
        proc.wait()
        feeder.join(timeout=5)
        drainer.join(timeout=5)
        for f in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                f.close()
    stderr = b"".join(err_chunks)[-STDERR_TAIL:].decode("utf-8", "replace")
    if timed_out:
        raise Refusal("timeout", f"the summarizer did not answer within {timeout:g} s", stderr)
    if oversized:
        raise Refusal("too-large", f"answer is larger than {MAX_ANSWER_BYTES} bytes", stderr)
    if proc.returncode != 0:
        rc = proc.returncode
        what = f"was killed by signal {-rc}" if rc < 0 else f"exited with status {rc}"
        raise Refusal("exit-status", f"the summarizer {what}", stderr)
    return bytes(out)


def find_program(argv: Sequence[str]) -> str:
    """The summarizer's executable, checked before a run; raises NotFoundError (exit 3)."""
    import shutil

    prog = argv[0]
    found = shutil.which(prog)
    if found is None:
        what = "is not an executable file" if os.path.exists(prog) else "was not found"
        raise NotFoundError(
            f"summarizer program {prog!r} {what}",
            hint="give a program on PATH or a path to an executable script; no shell is used",
        )
    return found


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


# ---------------------------------------------------------------------------------------------
# The watermark (state/consolidate.json) and the journal (.mem/consolidate-pending/)


@dataclass(frozen=True)
class Mark:
    """How far a stream is consolidated: every episode at or before this position is done."""

    recorded_at: str
    id: str
    window: str
    windows: int

    def position(self) -> tuple[str, str]:
        return (self.recorded_at, self.id)


def state_path(store: Store) -> Path:
    return store.state_dir / STATE_FILE


def load_watermark(store: Store) -> dict[tuple[str, str | None], Mark]:
    """The watermark of every stream; a missing file means nothing is consolidated yet."""
    path = state_path(store)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StoreInvalidError(
            f"cannot read the consolidation watermark: {exc.strerror}", path=path
        ) from None
    hint = (
        "fix the file, or delete it: re-runs then start over, and window keys skip finished windows"
    )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreInvalidError(
            f"consolidation watermark is not valid JSON ({exc})", path=path, hint=hint
        ) from None
    if not isinstance(data, dict) or data.get("format") != WATERMARK_FORMAT:
        raise StoreInvalidError(
            f'consolidation watermark lacks "format": "{WATERMARK_FORMAT}"', path=path, hint=hint
        )
    if data.get("version") != VERSION:
        raise StoreInvalidError(
            f"consolidation watermark version {data.get('version')!r} is not supported (this mem reads {VERSION})",
            path=path,
        )
    streams = data.get("streams")
    if not isinstance(streams, dict):
        raise StoreInvalidError(
            'consolidation watermark lacks a "streams" object', path=path, hint=hint
        )
    out: dict[tuple[str, str | None], Mark] = {}
    for scope, convs in streams.items():
        if not isinstance(convs, dict) or not ids.is_scope(str(scope)):
            raise StoreInvalidError(
                f"consolidation watermark: bad entry for scope {scope!r}", path=path, hint=hint
            )
        for conv, m in convs.items():
            try:
                mark = Mark(
                    recorded_at=format_time(parse_time(m["recorded_at"], "recorded_at")),
                    id=ids.check_id(m["id"]),
                    window=str(m.get("window", "")),
                    windows=int(m.get("windows", 0)),
                )
            except (KeyError, TypeError, ValueError, ValidationError):
                raise StoreInvalidError(
                    f"consolidation watermark: bad mark for scope {scope!r}, conversation {conv!r}",
                    path=path,
                    hint=hint,
                ) from None
            out[(scope, conv or None)] = mark
    return out


def save_watermark(store: Store, marks: Mapping[tuple[str, str | None], Mark]) -> None:
    streams: dict[str, dict[str, Any]] = {}
    for (scope, conv), m in marks.items():
        streams.setdefault(scope, {})[conv or ""] = {
            "recorded_at": m.recorded_at,
            "id": m.id,
            "window": m.window,
            "windows": m.windows,
        }
    doc = {"format": WATERMARK_FORMAT, "version": VERSION, "streams": streams}
    ensure_dir(store.state_dir)
    atomic_write(
        state_path(store), json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    )


def _journal_dir(store: Store) -> Path:
    return store.local_dir / JOURNAL_DIR


def _journal_path(store: Store, key: str) -> Path:
    return _journal_dir(store) / (key.split(":", 1)[-1] + ".json")


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class WindowResult:
    window: Window
    outcome: str  # planned | created | none | done | refused | previewed
    refusal: Refusal | None = None
    summary: str | None = None  # the id of the summary record
    facts: list[str] = field(default_factory=list)
    superseded: list[dict[str, str]] = field(default_factory=list)  # {"old", "new"}
    dropped: list[dict[str, Any]] = field(default_factory=list)  # {"item", "reason", ...}
    resumed: bool = False
    answer: Answer | None = None

    def to_dict(self) -> dict[str, Any]:
        out = self.window.brief()
        out["outcome"] = self.outcome
        if self.refusal is not None:
            out["refusal"] = {"code": self.refusal.code, "reason": self.refusal.message}
            if self.refusal.stderr:
                out["refusal"]["stderr"] = self.refusal.stderr
        if self.outcome in ("created", "previewed"):
            out["summary"] = self.summary
            out["facts"] = self.facts
            out["superseded"] = self.superseded
            out["dropped"] = self.dropped
        if self.resumed:
            out["resumed"] = True
        return out


@dataclass
class Report:
    mode: str
    summarizer: str
    results: list[WindowResult] = field(default_factory=list)
    deferred: list[dict[str, Any]] = field(default_factory=list)
    not_run: list[Window] = field(default_factory=list)  # budget or a refusal earlier in the stream
    budget_exhausted: bool = False

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def refused(self) -> list[WindowResult]:
        return [r for r in self.results if r.outcome == "refused"]

    def to_dict(self) -> dict[str, Any]:
        created = [i for r in self.results if r.outcome == "created" for i in _created_ids(r)]
        return {
            "mode": self.mode,
            "summarizer": self.summarizer or None,
            "windows": {
                "planned": len(self.results) + len(self.not_run),
                "processed": sum(1 for r in self.results if r.outcome != "planned"),
                "created": self.count("created"),
                "none": self.count("none"),
                "done": self.count("done"),
                "refused": self.count("refused"),
                "previewed": self.count("previewed"),
                "not_run": len(self.not_run),
                "deferred": len(self.deferred),
            },
            "budget_exhausted": self.budget_exhausted,
            "created": created,
            "superseded": [s for r in self.results for s in r.superseded if r.outcome == "created"],
            "refusals": [
                {
                    "scope": r.window.scope,
                    "conversation": r.window.conversation,
                    "window": r.window.key,
                    "code": r.refusal.code,
                    "reason": r.refusal.message,
                }
                for r in self.refused
                if r.refusal is not None
            ],
            "deferred": self.deferred,
            "results": [r.to_dict() for r in self.results],
        }


def _created_ids(r: WindowResult) -> list[str]:
    return [*(s["new"] for s in r.superseded), *r.facts, *([r.summary] if r.summary else [])]


# ---------------------------------------------------------------------------------------------
# The run


def _conversation(rec: Record) -> str | None:
    conv = rec.source.get("conversation")
    if conv is None or conv == "":
        return None
    return str(conv)


class Consolidation:
    """One consolidation run over a store. Steps: :meth:`plan`, then :meth:`process` each window
    (which is :meth:`summarize` + :meth:`apply` + :meth:`advance`), then :meth:`close`.

    The run holds ``.mem/consolidate.lock`` from :meth:`open` to :meth:`close`, so two runs never
    interleave; ordinary writers are not blocked except while a window's records are written.
    """

    def __init__(self, store: Store, opts: Options) -> None:
        self.store = store
        self.opts = opts.check()
        self.report = Report(mode=opts.mode, summarizer=opts.program)
        self._run_lock = WriterLock(store.local_dir / "consolidate.lock", timeout=0)
        self._marks: dict[tuple[str, str | None], Mark] = {}
        self._done_windows: set[str] = set()  # window keys with a summary record
        self._items: dict[tuple[str, str], str] = {}  # (window key, item) -> record id
        self._digests: dict[str, dict[str, str]] = {}  # scope -> match digest -> record id
        self._existing: dict[str, list[Record]] = {}  # scope -> newest non-episode records
        self._streams: dict[tuple[str, str | None], list[Record]] = {}
        self._blocked: set[tuple[str, str | None]] = set()
        self._calls = 0
        self._open = False

    # -- lifetime ---------------------------------------------------------------------------------

    def open(self) -> Consolidation:
        if self.opts.mode != "plan":
            find_program(self.opts.summarizer)
        if self.opts.mode == "run":
            try:
                self._run_lock.acquire()
            except LockTimeoutError:
                raise LockTimeoutError(
                    "another `mem consolidate` is running on this store",
                    path=self._run_lock.path,
                    hint="wait for it to finish",
                ) from None
        self._open = True
        return self

    def close(self) -> None:
        if self._open:
            self._run_lock.release()
            self._open = False

    def __enter__(self) -> Consolidation:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- planning ---------------------------------------------------------------------------------

    def _scan(self) -> None:
        """One pass over the records: episodes per stream, finished windows, content digests."""
        kinds = set(self.opts.kinds)
        scopes = list(self.opts.scopes) if self.opts.scopes is not None else None
        per_scope_other: dict[str, list[Record]] = {}
        for r in self.store.iter_records(scopes):
            self._digests.setdefault(r.scope, {}).setdefault(r.match_digest, r.id)
            src = r.source
            if src.get("type") == "consolidate" and isinstance(src.get("window"), str):
                key = str(src["window"])
                item = str(src.get("item", ""))
                self._items[(key, item)] = r.id
                if item == "summary" or r.kind == "summary":
                    self._done_windows.add(key)
            if r.kind in kinds:
                if r.status in ("active", "candidate"):
                    self._streams.setdefault((r.scope, _conversation(r)), []).append(r)
            elif r.status in ("active", "candidate"):
                per_scope_other.setdefault(r.scope, []).append(r)
        for stream in self._streams.values():
            stream.sort(key=lambda e: (e.recorded_at, e.id))
        for scope, recs in per_scope_other.items():
            recs.sort(key=lambda e: (e.recorded_at, e.id), reverse=True)
            self._existing[scope] = recs[: self.opts.existing]

    def plan(self) -> list[Window]:
        """Every window to process this run, stream by stream (sorted), oldest first."""
        self._marks = load_watermark(self.store)
        self._scan()
        windows: list[Window] = []
        n, m = self.opts.window, self.opts.overlap
        for skey in sorted(self._streams, key=lambda k: (k[0], k[1] or "")):
            eps = self._streams[skey]
            mark = self._marks.get(skey)
            start = 0
            if mark is not None:
                pos = mark.position()
                while (
                    start < len(eps) and (format_time(eps[start].recorded_at), eps[start].id) <= pos
                ):
                    start += 1
            while start < len(eps):
                ctx = eps[max(0, start - m) : start]
                new = eps[start : start + (n - len(ctx))]
                if len(new) < self.opts.min_new:
                    self.report.deferred.append(
                        {
                            "scope": skey[0],
                            "conversation": skey[1],
                            "new": len(new),
                            "min_new": self.opts.min_new,
                        }
                    )
                    break
                group = (*ctx, *new)
                windows.append(Window(skey[0], skey[1], group, len(ctx), window_key(group)))
                start += len(new)
        return windows

    # -- the window JSON ----------------------------------------------------------------------

    def window_input(self, w: Window) -> dict[str, Any]:
        """The JSON document written to the summarizer's stdin (consolidate-window schema)."""
        in_window = set(w.episode_ids)
        existing = [r for r in self._existing.get(w.scope, []) if r.id not in in_window]
        return {
            "format": WINDOW_FORMAT,
            "version": VERSION,
            "window": w.key,
            "scope": w.scope,
            "conversation": w.conversation,
            "overlap": w.overlap,
            "episodes": [
                {
                    "id": e.id,
                    "kind": e.kind,
                    "recorded_at": format_time(e.recorded_at),
                    "turn": e.source.get("turn"),
                    "role": e.source.get("role"),
                    "tags": list(e.tags),
                    "overlap": i < w.overlap,
                    "content": e.content,
                }
                for i, e in enumerate(w.episodes)
            ],
            "existing": [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "status": r.status,
                    "recorded_at": format_time(r.recorded_at),
                    "tags": list(r.tags),
                    "content": r.content,
                }
                for r in existing
            ],
            "limits": {
                "min_summary_chars": self.opts.min_summary_chars,
                "min_fact_chars": self.opts.min_fact_chars,
                "max_facts": MAX_FACTS,
                "max_supersedes": MAX_SUPERSEDES,
                "episode_kinds": list(self.opts.kinds),
            },
        }

    # -- steps ------------------------------------------------------------------------------------

    def is_done(self, w: Window) -> bool:
        """True when a summary of exactly this window exists (its records were written)."""
        return w.key in self._done_windows

    def read_journal(self, w: Window) -> Answer | None:
        """A validated answer journaled for this window by a run that stopped mid-window."""
        path = _journal_path(self.store, w.key)
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            remove_file(path)
            return None
        if (
            not isinstance(data, dict)
            or data.get("format") != JOURNAL_FORMAT
            or data.get("window") != w.key
            or not isinstance(data.get("answer"), dict)
        ):
            remove_file(path)
            return None
        try:
            return parse_answer(json.dumps(data["answer"]).encode("utf-8"), self.opts)
        except Refusal:
            remove_file(path)
            return None

    def summarize(self, w: Window) -> tuple[Answer, bool]:
        """The window's answer: from the journal if a run stopped mid-window, else from the
        summarizer. Returns (answer, resumed). Raises :class:`Refusal`."""
        journaled = self.read_journal(w) if self.opts.mode == "run" else None
        if journaled is not None:
            return journaled, True
        payload = json.dumps(self.window_input(w), ensure_ascii=False).encode("utf-8")
        self._calls += 1
        raw = run_summarizer(self.opts.summarizer, payload, self.opts.timeout)
        return parse_answer(raw, self.opts), False

    def _check_window(self, w: Window) -> None:
        """Every episode of the window is still live and unchanged (under the writer lock)."""
        for e in w.episodes:
            try:
                cur = self.store.get(e.id, e.scope)
            except NotFoundError:
                raise Refusal(
                    "window-changed",
                    f"episode {e.id} was forgotten while the window was summarized",
                ) from None
            if cur.digest != e.digest:
                raise Refusal(
                    "window-changed", f"episode {e.id} was edited while the window was summarized"
                )

    def _check_targets(self, w: Window, answer: Answer) -> list[Supersession]:
        """Supersession targets: live, same scope, active or candidate, not an episode.

        Returns the supersessions still to apply (one already applied for this window, by a
        run that stopped mid-window, is skipped).
        """
        todo: list[Supersession] = []
        in_window = set(w.episode_ids)
        for i, s in enumerate(answer.supersedes):
            if (w.key, f"supersede:{i}") in self._items:
                continue
            where = f"supersedes[{i}]"
            if s.id in in_window:
                raise Refusal(
                    "bad-target",
                    f"{where} names an episode of this window; episodes are not superseded",
                )
            try:
                old = self.store.get(s.id, w.scope)
            except NotFoundError:
                raise Refusal(
                    "bad-target",
                    f"{where} names {s.id}, which is not a live record in scope {w.scope!r}",
                ) from None
            if old.status not in ("active", "candidate"):
                raise Refusal("bad-target", f"{where} names {s.id}, which is {old.status}")
            if old.kind in self.opts.kinds:
                raise Refusal(
                    "bad-target", f"{where} names {s.id}, an episode; episodes are not superseded"
                )
            if match_digest(s.content) == old.match_digest:
                raise Refusal("bad-target", f"{where} repeats the content of {s.id}")
            todo.append(s)
        return todo

    def _source(self, w: Window, item: str) -> dict[str, Any]:
        src: dict[str, Any] = {"type": "consolidate"}
        if w.conversation is not None:
            src["conversation"] = w.conversation
        src.update(
            {"summarizer": self.opts.program, "window": w.key, "item": item, "writer": _writer()}
        )
        return src

    def apply(self, w: Window, answer: Answer, *, resumed: bool = False) -> WindowResult:
        """Write the window's records (or, in preview mode, work out what would be written).

        Order: journal the answer, then under the writer lock re-check the window and the
        supersession targets, then supersessions, facts and the summary last. A content that was
        forgotten in the scope, or that an existing record already holds, is dropped (reported),
        never resurrected or duplicated. Raises :class:`Refusal` before any write.
        """
        res = WindowResult(
            w, "created" if self.opts.mode == "run" else "previewed", resumed=resumed, answer=answer
        )
        write = self.opts.mode == "run"
        status = "active" if self.opts.trust else "candidate"
        if write:
            journal = {
                "format": JOURNAL_FORMAT,
                "version": VERSION,
                "window": w.key,
                "scope": w.scope,
                "answer": answer.to_dict(),
            }
            ensure_dir(_journal_dir(self.store))
            atomic_write(_journal_path(self.store, w.key), json.dumps(journal, ensure_ascii=False))
        store = self.store
        guard: contextlib.AbstractContextManager[Store] = (
            store.batch() if write else contextlib.nullcontext(store)
        )
        with guard:
            self._check_window(w)
            sups = self._check_targets(w, answer)
            digests = self._digests.setdefault(w.scope, {})
            tomb = store.tombstones.load(w.scope)
            for i, s in enumerate(answer.supersedes):
                if s not in sups:
                    res.superseded.append(
                        {"old": s.id, "new": self._items[(w.key, f"supersede:{i}")]}
                    )
                    continue
                md = match_digest(s.content)
                if md in tomb.digests:
                    res.dropped.append({"item": f"supersede:{i}", "reason": "forgotten"})
                    continue
                rule = find_secret(s.content)
                if rule is not None:  # the secrets policy: a summarizer's text is never allowed
                    res.dropped.append({"item": f"supersede:{i}", "reason": "secret", "rule": rule})
                    continue
                if write:
                    new, _old = store.supersede(
                        s.id,
                        s.content,
                        reason=s.reason,
                        source=self._source(w, f"supersede:{i}"),
                        status=status,
                        derived_from=w.episode_ids,
                    )
                    self._items[(w.key, f"supersede:{i}")] = new.id
                    digests.setdefault(md, new.id)
                    res.superseded.append({"old": s.id, "new": new.id})
                else:
                    res.superseded.append({"old": s.id, "new": ""})
                    digests.setdefault(md, "")
            for i, f in enumerate(answer.facts):
                item = f"fact:{i}"
                rid = self._write_derived(
                    w,
                    res,
                    item,
                    f.content,
                    kind=f.kind,
                    tags=f.tags,
                    confidence=self.opts.confidence if f.confidence is None else f.confidence,
                    status=status,
                    write=write,
                    dedup=True,
                )
                if rid is not None:
                    res.facts.append(rid)
            res.summary = self._write_derived(
                w,
                res,
                "summary",
                answer.summary,
                kind="summary",
                tags=(),
                confidence=self.opts.confidence,
                status=status,
                write=write,
                dedup=False,
            )
        if write:
            self._done_windows.add(w.key)
        return res

    def _write_derived(
        self,
        w: Window,
        res: WindowResult,
        item: str,
        content: str,
        *,
        kind: str,
        tags: Sequence[str],
        confidence: float,
        status: str,
        write: bool,
        dedup: bool,
    ) -> str | None:
        existing = self._items.get((w.key, item))
        if existing is not None:
            return existing  # written by a run that stopped mid-window
        digests = self._digests.setdefault(w.scope, {})
        md = match_digest(content)
        if dedup and md in digests:
            res.dropped.append(
                {"item": item, "reason": "duplicate", "duplicate_of": digests[md] or None}
            )
            return None
        rec = make_record(
            scope=w.scope,
            kind=kind,
            content=content,
            status=status,
            confidence=confidence,
            tags=list(tags),
            derived_from=w.episode_ids,
            source=self._source(w, item),
        )
        try:
            self.store.check_not_tombstoned(rec)
        except TombstonedError:
            res.dropped.append({"item": item, "reason": "forgotten"})
            return None
        secret = record_secret(rec)
        if secret is not None:  # the secrets policy: a summarizer's text is never allowed
            res.dropped.append({"item": item, "reason": "secret", "rule": secret[1]})
            return None
        if not write:
            digests.setdefault(md, "")
            return ""
        self.store.put(
            rec, op="consolidate", detail={"outcome": "created", "window": w.key, "item": item}
        )
        self._items[(w.key, item)] = rec.id
        digests.setdefault(md, rec.id)
        return rec.id

    def advance(self, w: Window) -> None:
        """Move the stream's watermark past the window's last episode (atomic write)."""
        skey = (w.scope, w.conversation)
        prev = self._marks.get(skey)
        last = w.last
        self._marks[skey] = Mark(
            recorded_at=format_time(last.recorded_at),
            id=last.id,
            window=w.key,
            windows=(prev.windows if prev else 0) + 1,
        )
        with self.store.lock:
            save_watermark(self.store, self._marks)
        remove_file(_journal_path(self.store, w.key))

    def _log(self, w: Window, outcome: str, refusal: Refusal | None = None) -> None:
        detail: dict[str, Any] = {
            "outcome": outcome,
            "window": w.key,
            "episodes": len(w.episodes),
            "summarizer": self.opts.program,
        }
        if refusal is not None:
            detail["code"] = refusal.code
            detail["reason"] = refusal.message
        with self.store.lock:
            self.store.log.append("consolidate", scope=w.scope, detail=detail)

    def process(self, w: Window) -> WindowResult | None:
        """Handle one window; None when it is not run (budget spent, or its stream is blocked)."""
        skey = (w.scope, w.conversation)
        if skey in self._blocked:
            self.report.not_run.append(w)
            return None
        mode = self.opts.mode
        if mode == "plan":
            res = WindowResult(w, "done" if self.is_done(w) else "planned")
            self.report.results.append(res)
            return res
        if self.is_done(w):
            if mode == "run":
                self.advance(w)
            res = WindowResult(w, "done")
            self.report.results.append(res)
            return res
        spent = self.opts.max_windows is not None and self._calls >= self.opts.max_windows
        if spent and not (mode == "run" and _journal_path(self.store, w.key).exists()):
            self.report.budget_exhausted = True
            self.report.not_run.append(w)
            return None
        try:
            answer, resumed = self.summarize(w)
            if answer.none:
                if mode == "run":
                    self._log(w, "none")
                    self.advance(w)
                res = WindowResult(w, "none", resumed=resumed, answer=answer)
            else:
                res = self.apply(w, answer, resumed=resumed)
                if mode == "run":
                    self.advance(w)
        except Refusal as ref:
            if mode == "run":
                self._log(w, "refused", ref)
                remove_file(_journal_path(self.store, w.key))
            self._blocked.add(skey)
            res = WindowResult(w, "refused", refusal=ref)
        self.report.results.append(res)
        return res

    def cleanup_journal(self, windows: Sequence[Window]) -> None:
        """Remove journal entries of windows that no longer exist (their episodes changed or were
        forgotten), in the scopes this run covers; derived text must not outlive its sources."""
        if self.opts.mode != "run":
            return
        d = _journal_dir(self.store)
        if not d.is_dir():
            return
        keep = {w.key.split(":", 1)[-1] for w in windows}
        for p in d.glob("*.json"):
            if p.stem in keep:
                continue
            if self.opts.scopes is not None:
                try:
                    scope = json.loads(p.read_text("utf-8")).get("scope")
                except (OSError, ValueError, AttributeError):
                    scope = None
                if scope is not None and scope not in self.opts.scopes:
                    continue  # another scope's window: not ours to judge in this run
            remove_file(p)


def _writer() -> str:
    from mem import __version__

    return f"mem {__version__}"


def consolidate(store: Store, opts: Options) -> Report:
    """Run a whole consolidation (see :class:`Consolidation` for the steps)."""
    with Consolidation(store, opts) as run:
        windows = run.plan()
        run.cleanup_journal(windows)
        for w in windows:
            run.process(w)
        return run.report


__all__ = [
    "Answer",
    "Consolidation",
    "Fact",
    "Options",
    "Refusal",
    "Report",
    "Supersession",
    "Window",
    "WindowResult",
    "consolidate",
    "load_watermark",
    "parse_answer",
    "run_summarizer",
    "save_watermark",
    "window_key",
]
