"""Consolidation's options, windows and answers (the values a run passes around)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mem.format.base.errors import ValidationError
from mem.format.model.record import Record
from mem.format.rules import ids

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
