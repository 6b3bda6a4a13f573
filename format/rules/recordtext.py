"""The text of a record file: the canonical layout's constants, the frontmatter fast path.

Pure functions over strings with no dataclass, pathlib or hashlib import, so that the lean read
path of ``mem search --mode lexical`` (:mod:`mem.format.search.lexfast`) reads record files with the
same rules as :mod:`mem.format.model.record`, which re-exports every name here (one implementation).
"""

from __future__ import annotations

from mem.format.base.errors import RecordParseError
from mem.format.base.jsonlite import loads as _json_loads
from mem.format.rules import ids
from mem.format.rules.timeutil import is_canonical_form

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

STATUSES: tuple[str, ...] = ("candidate", "active", "superseded", "rejected")

#: Frontmatter keys in canonical order. ``extra`` keys follow, sorted.
KEY_ORDER: tuple[str, ...] = (
    "id",
    "scope",
    "kind",
    "status",
    "confidence",
    "tags",
    "valid_from",
    "valid_to",
    "recorded_at",
    "updated_at",
    "superseded_at",
    "supersedes",
    "superseded_by",
    "derived_from",
    "source",
    "digest",
)
REQUIRED_KEYS: tuple[str, ...] = ("id", "scope", "kind", "status", "recorded_at", "digest")
#: Provenance keys in canonical order; other keys follow, sorted.
SOURCE_ORDER: tuple[str, ...] = (
    "type",
    "writer",
    "system",
    "original_id",
    "conversation",
    "turn",
    "transcript",
    "pattern",
    "command",
)
SOURCE_TYPES: tuple[str, ...] = ("cli", "api", "mcp", "capture", "import", "consolidate", "edit", "merge")

MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_RECORD_BYTES = 4 * 1024 * 1024

_YAML_WORDS = {
    "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n",
}  # fmt: skip
# The fast path's grammars, as code rather than regular expressions (``import re`` costs a
# third of a lean ``mem search``, see ids.py); a test holds each to the pattern in its docstring.
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_PLAIN_FIRST = frozenset(_LETTERS + "_")
_PLAIN_CHARS = _LETTERS + "0123456789_./@+-:"
_KEY_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz_")
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-"
_DIGITS = "0123456789"


def _is_plain(s: str) -> bool:
    """``^[A-Za-z_][A-Za-z0-9_./@+-]*(?::[A-Za-z0-9_./@+-]+)*$``: a word YAML reads as a string."""
    return s != "" and s[0] in _PLAIN_FIRST and not s.strip(_PLAIN_CHARS) and "::" not in s \
        and s[-1] != ":"


def _is_int(s: str) -> bool:
    """``^-?(0|[1-9][0-9]*)$``."""
    if s.startswith("-"):
        s = s[1:]
    return s != "" and not s.strip(_DIGITS) and (s[0] != "0" or s == "0")


def _is_float(s: str) -> bool:
    """``^-?(0|[1-9][0-9]*)\\.[0-9]+(e[-+][0-9]+)?$``."""
    whole, dot, rest = s.partition(".")
    if not dot or not _is_int(whole):
        return False
    frac, e, exp = rest.partition("e")
    return frac != "" and not frac.strip(_DIGITS) and (
        not e or (len(exp) > 1 and exp[0] in "+-" and not exp[1:].strip(_DIGITS)))


def _is_key(s: str) -> bool:
    """``^[a-z_][a-z0-9_-]*$``: a frontmatter key the fast path reads."""
    return s != "" and s[0] in _KEY_FIRST and not s.strip(_KEY_CHARS)


def canonical_body(text: str) -> str:
    """The body as stored: LF newlines, no BOM, no leading blank lines, one trailing newline."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.lstrip("\n").rstrip()
    return text + "\n" if text else ""


_KNOWN_KEYS = frozenset(KEY_ORDER)


class _NotFast(Exception):
    """The fast path cannot read this frontmatter; use the YAML fallback."""


#: ``_fast_value``'s results for the short scalars records repeat (a scope, a kind, a status,
#: ``1.0``, a source's type or writer): it is a pure function of the text, so an immutable result
#: is kept, for texts shorter than an id, a time or a digest (those are unique), at most
#: ``_VALUES_MAX`` of them.
_VALUES: dict[str, Any] = {}
_VALUES_MAX = 4096
_MISSING = object()


def _fast_value(raw: str) -> Any:
    got = _VALUES.get(raw, _MISSING)
    if got is not _MISSING:
        return got
    value = _read_value(raw)
    if len(raw) < 24 and not isinstance(value, list | dict):
        if len(_VALUES) >= _VALUES_MAX:
            _VALUES.clear()
        _VALUES[raw] = value
    return value


def _read_value(raw: str) -> Any:
    if raw == "":
        raise _NotFast
    c = raw[0]
    if c in '"[{':
        try:
            return _json_loads(raw)
        except (ValueError, RecursionError) as exc:
            raise _NotFast from exc
    if c.isdigit() or c == "-":
        if is_canonical_form(raw):
            return raw
        if _is_int(raw):
            return int(raw)
        if _is_float(raw):
            return float(raw)
        if ids.is_id(raw):
            return raw
        raise _NotFast
    if _is_plain(raw):
        low = raw.lower()
        if low not in _YAML_WORDS:
            return raw
        if low in ("null", "~"):
            return None
        if raw in ("true", "false"):
            return raw == "true"
    elif raw == "~":
        return None
    raise _NotFast


def line_value(raw: str) -> Any:
    """The value of a frontmatter line's text as the reader's line parser reads it; ValueError
    when it does not (the reader then hands the frontmatter to its YAML parser)."""
    try:
        return _fast_value(raw)
    except _NotFast:
        raise ValueError(f"not a plain value: {raw[:40]!r}") from None


def is_key(s: str) -> bool:
    """Whether ``s`` is a valid frontmatter or source key."""
    return _is_key(s)


def _fast_key(key: str) -> str:
    """A mapping key as the canonical form writes it: plain, or JSON-quoted when it is a word
    YAML would read as a boolean or null (``"no"``, ``"on"``...)."""
    if key.startswith('"'):
        if len(key) < 3 or not key.endswith('"') or key[1:-1] not in _YAML_WORDS:
            raise _NotFast
        return key[1:-1]
    return key


def _parse_fast(fm: str) -> dict[str, Any]:
    data: dict[str, Any] = {}
    block: dict[str, Any] | None = None
    for line in fm.split("\n"):
        key, sep, raw = line.partition(": ")
        if sep and key in _KNOWN_KEYS:  # the common line, read as the last branch below would
            if key in data:
                raise _NotFast
            block = None
            data[key] = _fast_value(raw)
            continue
        if not line:
            continue
        if line.startswith("  "):
            if block is None:
                raise _NotFast
            key, sep, raw = line[2:].partition(": ")
            if key[:1] == '"':
                key = _fast_key(key)
            if not sep or not _is_key(key) or key in block:
                raise _NotFast
            block[key] = _fast_value(raw)
            continue
        if line.endswith(":") and _is_key(line[:-1]):
            key = line[:-1]
            if key in data:
                raise _NotFast
            block = {}
            data[key] = block
            continue
        block = None
        key, sep, raw = line.partition(": ")
        if key[:1] == '"':
            key = _fast_key(key)
        if not sep or key in data or (key not in _KNOWN_KEYS and not _is_key(key)):
            raise _NotFast
        data[key] = _fast_value(raw)
    return data


def split_record_text(text: str, path: str | None = None) -> tuple[str, str, int]:
    """Split a record file into (frontmatter, body, line number where the body starts)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---\n"):
        raise RecordParseError(
            "record does not start with a '---' frontmatter line", path=path, line=1
        )
    end = text.find("\n---\n", 3)
    if end == -1:
        if text.endswith("\n---"):
            end = len(text) - 4
        else:
            raise RecordParseError(
                "frontmatter is not closed by a '---' line", path=path, line=text.count("\n") + 1
            )
    fm = text[4 : end + 1]
    body = text[end + 5 :]
    if len(fm.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise RecordParseError(
            f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes", path=path, line=2
        )
    return fm, body, fm.count("\n") + 3
