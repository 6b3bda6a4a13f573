"""Neutral import items, the problems a reader reports, and helpers every reader shares.

A reader turns a source (a JSON Lines file, a CSV table, another system's on-disk store) into a
stream of :class:`ImportItem` (one memory each) and :class:`Problem` (something that is not
imported, with the file and line it came from). :mod:`mem.format.interchange.migrate` applies the items to a
store; readers never write anything, and never modify their source.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
import unicodedata
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import ValidationError
from mem.format.model.record import Record
from mem.format.rules import ids
from mem.format.rules.timeutil import UTC, parse_time

#: Outcomes an item (or a skipped file) can have; the keys of the import summary's counts.
OUTCOMES: tuple[str, ...] = (
    "created",
    "unchanged",
    "duplicate",
    "conflict",
    "refused_forgotten",
    "refused_secret",
    "invalid",
    "skipped_not_memory",
    "skipped_empty",
)


@dataclass(frozen=True, slots=True)
class Where:
    """Where an item or a problem came from: a file, and a line or a row when there is one."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return self.file + (f":{self.line}" if self.line is not None else "")


@dataclass
class ImportItem:
    """One memory read from a source, before it becomes a record.

    ``record`` is set for objects that carry their own mem id (the full export shape): they are
    written exactly as given. Otherwise the importer builds a record from the other fields, with
    a new ULID made from ``recorded_at``.
    """

    system: str
    content: str
    where: Where
    original_id: str | None = None  # the item's id in the source system
    scope: str | None = None  # a mem scope (validated after --scope/--scope-map)
    scope_hint: str | None = None  # a foreign name (user id, character) to turn into a scope
    kind: str = "note"
    status: str = "active"
    confidence: float = 1.0
    tags: tuple[str, ...] = ()
    recorded_at: _dt.datetime | None = None
    valid_from: _dt.datetime | None = None
    valid_to: _dt.datetime | None = None
    updated_at: _dt.datetime | None = None
    source: dict[str, Any] = field(default_factory=dict)  # provenance beyond type/system/original_id
    derived_from_original: tuple[str, ...] = ()  # original ids (same system) this item came from
    derived_from: tuple[str, ...] = ()  # mem ids (minimal JSON Lines objects may give them)
    supersedes_original: str | None = None  # original id (same system) of the version this replaces
    extra: dict[str, Any] = field(default_factory=dict)
    record: Record | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """Something read but not imported (or imported with a warning)."""

    outcome: str  # one of OUTCOMES (never "created"), or "warning"
    message: str
    where: Where
    original_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "file": self.where.file,
            "line": self.where.line,
            "original_id": self.original_id,
            "message": self.message,
        }


@dataclass
class Tombstoneish:
    """A tombstone or a tombstone lift from a mem export (``type`` is "tombstone" or "lift"), or
    the tombstone of an item another system deleted (its ``scope_hint`` is a foreign name,
    resolved like an item's, when ``obj`` has no ``scope``)."""

    obj: dict[str, Any]
    where: Where
    scope_hint: str | None = None


Entry = ImportItem | Problem | Tombstoneish


@dataclass
class ReadOptions:
    """What readers need to know: the time zone of naive times, the name to report files by."""

    timezone: _dt.tzinfo = UTC
    display: str | None = None  # e.g. "<stdin>" for a file the CLI spooled from stdin


def get_timezone(name: str | None) -> _dt.tzinfo:
    """The tzinfo for ``--timezone NAME`` (an IANA name such as Europe/Paris, or UTC)."""
    if not name or name.upper() in ("UTC", "Z"):
        return UTC
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationError(
            f"time zone {name!r} is unknown (use an IANA name such as Europe/Paris, or UTC)"
        ) from None


_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")


def foreign_time(value: object, tz: _dt.tzinfo, what: str = "time") -> _dt.datetime | None:
    """A time from another system: ISO text (naive read in ``tz``), or epoch seconds/milliseconds."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        s = value.strip()
        if _NUMERIC.match(s):
            return parse_time(float(s), what)
        if s.endswith(("Z", "z")):
            s = s[:-1] + "+00:00"
        if " " in s and "T" not in s:
            s = s.replace(" ", "T", 1)
        try:
            t = _dt.datetime.fromisoformat(s)
        except ValueError:
            return parse_time(value, what)
        if t.tzinfo is None:
            t = t.replace(tzinfo=tz)
        return parse_time(t, what)
    if isinstance(value, _dt.datetime) and value.tzinfo is None:
        return parse_time(value.replace(tzinfo=tz), what)
    return parse_time(value, what)


def file_time(path: Path) -> _dt.datetime:
    """A file's modification time (for sources whose items carry no time of their own)."""
    return parse_time(path.stat().st_mtime, "file time")


def tag_for(text: str) -> str | None:
    """A valid tag for a foreign label (category, section), or None when nothing is left."""
    t = unicodedata.normalize("NFKC", text).strip().lower()
    t = re.sub(r"[\s,\"'#\[\]{}]+", "-", t).strip("-")[:64]
    return t or None


def stable_id(ms: int, seed: str) -> str:
    """A ULID of time ``ms`` that is the same on every run for the same ``seed``."""
    return ids.id_from(ms, int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:10], "big"))


def short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def rel(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it (for messages and provenance)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def is_temp_leftover(name: str) -> bool:
    """Leftovers of interrupted writes (``x.json.tmp``, ``x.tmp``, ``.x.swp``)."""
    return name.endswith((".tmp", ".temp", ".swp", "~")) or ".tmp." in name


def read_text_file(path: Path, root: Path) -> tuple[str | None, Problem | None]:
    """The UTF-8 text of a file, or a problem (unreadable, not UTF-8, 0 bytes)."""
    where = Where(rel(path, root))
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, Problem("invalid", f"cannot read: {exc.strerror}", where)
    if not raw.strip():
        return None, Problem("skipped_empty", "empty file", where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, Problem("invalid", f"not valid UTF-8 (byte {exc.start})", Where(where.file, line))
    return text.lstrip("\ufeff"), None


def sorted_files(d: Path, pattern: str = "*") -> list[Path]:
    """Regular files (no symbolic links) of a directory matching ``pattern``, by name."""
    if not d.is_dir():
        return []
    return sorted(p for p in d.glob(pattern) if p.is_file() and not p.is_symlink())


def walk_files(d: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames.sort()
        for f in sorted(filenames):
            yield Path(dirpath) / f
