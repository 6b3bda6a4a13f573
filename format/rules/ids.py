"""Identifiers and names: record ids (ULID), scopes, kinds and tags.

Every value here ends up in a path or a frontmatter key, so each has a strict grammar that
cannot name anything outside the store (no separators, no ``..``, no absolute paths).
"""

from __future__ import annotations

import _thread
import os
import time

from mem.format.base.errors import ValidationError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    from typing import TypeGuard

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DECODE = {c: i for i, c in enumerate(_CROCKFORD)}

#: Grammars as ECMA-262 patterns (the JSON Schemas in spec/schemas/ use the same strings).
ID_PATTERN = r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$"
SCOPE_PATTERN = (
    r"^(?!(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?![a-z0-9_-]))"
    r"[a-z0-9](?:(?:[a-z0-9_-]|\.(?!\.)){0,62}[a-z0-9_-])?$"
)
#: Names Windows reserves for devices, with or without an extension (``nul.txt``): a folder or
#: file so named cannot be checked out there, so no scope may be one (spec/format.md §4.2).
WINDOWS_RESERVED: frozenset[str] = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(10)]
)
KIND_PATTERN = r"^[a-z][a-z0-9_]{0,31}$"
TAG_PATTERN = r"^[^\s,\"'#\[\]{}]{1,64}$"


#: The same grammars as code (``is_id`` ...), not compiled patterns: ``import re`` (which imports
#: enum) is a large share of a whole lexical ``mem search``, whose lean path checks ids, scopes,
#: kinds and tags (bench/README.md, "Figures behind constants in the code"). A test holds each function to its pattern.
_ID_FIRST = frozenset("01234567")
_LOWER_DIGIT = "abcdefghijklmnopqrstuvwxyz0123456789"
_SCOPE_FIRST = frozenset(_LOWER_DIGIT)
_SCOPE_CHARS = _LOWER_DIGIT + "_-."
_KIND_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz")
_KIND_CHARS = _LOWER_DIGIT + "_"
_TAG_BANNED = frozenset(",\"'#[]{}")


def is_id(value: object) -> TypeGuard[str]:
    """``value`` matches ID_PATTERN: a ULID in upper-case Crockford base32."""
    return isinstance(value, str) and len(value) == 26 and value[0] in _ID_FIRST \
        and not value.strip(_CROCKFORD)


def is_scope(value: object) -> TypeGuard[str]:
    """``value`` matches SCOPE_PATTERN: 1-64 of [a-z0-9._-], starting with a letter or digit,
    not ending with '.', no '..', and not a name Windows reserves (``con``, ``nul.txt``...)."""
    return isinstance(value, str) and 0 < len(value) <= 64 and value[0] in _SCOPE_FIRST \
        and not value.strip(_SCOPE_CHARS) and value[-1] != "." and ".." not in value \
        and not is_windows_reserved(value)


def is_windows_reserved(name: str) -> bool:
    """``name`` (any case) is a device name Windows reserves, alone or before a '.'."""
    return name.split(".", 1)[0].lower() in WINDOWS_RESERVED


def is_kind(value: object) -> TypeGuard[str]:
    """``value`` matches KIND_PATTERN: 1-32 of [a-z0-9_], starting with a letter."""
    return isinstance(value, str) and 0 < len(value) <= 32 and value[0] in _KIND_FIRST \
        and not value.strip(_KIND_CHARS)


def is_tag(value: object) -> TypeGuard[str]:
    """``value`` matches TAG_PATTERN: 1-64 characters, none a space, a comma, a quote, '#' or a
    bracket."""
    # split() cuts at exactly the characters isspace() names: one piece, the value, means none
    return isinstance(value, str) and 0 < len(value) <= 64 and _TAG_BANNED.isdisjoint(value) \
        and value.split() == [value]


#: Kinds the format defines; any other name matching ``KIND_PATTERN`` is allowed as an extension.
KNOWN_KINDS: tuple[str, ...] = (
    "fact",
    "preference",
    "instruction",
    "event",
    "episode",
    "summary",
    "action_item",
    "contact",
    "note",
)

_lock = _thread.allocate_lock()  # threading.Lock, without importing threading (lean search path)
_last_ms = -1
_last_rand = 0
_given_ms = -1  # the last time given to new_id, and its random part
_given_rand = 0


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def new_id(ms: int | None = None) -> str:
    """A new ULID for the time ``ms`` (default: now). Ids made in one process are strictly
    increasing, even within a millisecond: those of the current time among themselves, and
    those made for one given ``ms`` after another (records made in the same millisecond)."""
    global _last_ms, _last_rand, _given_ms, _given_rand
    with _lock:
        if ms is None:
            now = int(time.time() * 1000)
            if now <= _last_ms:  # the same millisecond, or the clock went back
                now, rand = _last_ms, _last_rand + 1
            else:
                rand = int.from_bytes(os.urandom(10), "big")
            _last_ms, _last_rand = now, rand
        else:
            now = ms
            rand = _given_rand + 1 if ms == _given_ms else int.from_bytes(os.urandom(10), "big")
            _given_ms, _given_rand = ms, rand
    if now >= 1 << 48:
        raise ValidationError(f"timestamp {now} ms is out of the ULID range")
    return _encode(now, 10) + _encode(rand & ((1 << 80) - 1), 16)


def id_from(ms: int, rand: int) -> str:
    """The ULID of time ``ms`` whose random part is ``rand`` (its low 80 bits): a deterministic
    id, for items that must get the same id on every run (tombstones of imported deletions)."""
    if not 0 <= ms < 1 << 48:
        raise ValidationError(f"timestamp {ms} ms is out of the ULID range")
    return _encode(ms, 10) + _encode(rand & ((1 << 80) - 1), 16)


def id_time_ms(record_id: str) -> int:
    """The millisecond timestamp encoded in a ULID."""
    value = 0
    for c in record_id[:10]:
        value = value * 32 + _DECODE[c]
    return value


def check_id(value: object, what: str = "id", rule: str = "E103.2") -> str:
    """``value`` as a record id; ValidationError names ``what`` and ``rule`` (E103.2, a record's
    own id; E103.10 for a link to another record)."""
    if not is_id(value):
        raise ValidationError(
            f"{what} {value!r} is not a record id (26 characters, Crockford base32, e.g. "
            "01JD3Z8Q4T6W0000000000000A)", rule=rule
        )
    assert isinstance(value, str)
    return value


def parse_id(value: str, what: str = "id") -> str:
    """A record id as a user typed it: normalized (:func:`normalize_id`), then checked; an
    error quotes the id as typed, not its normalized form."""
    rid = normalize_id(value)
    if not is_id(rid):
        check_id(value, what)  # raises, quoting the typed value
        check_id(rid, what)
    return rid


def normalize_id(value: str) -> str:
    """Accept lower case and the Crockford aliases (I, L -> 1; O -> 0) from a user's typing."""
    v = value.strip().upper().replace("I", "1").replace("L", "1").replace("O", "0")
    return v


def check_scope(value: object) -> str:
    if not is_scope(value):
        if isinstance(value, str) and is_windows_reserved(value):
            raise ValidationError(
                f"scope {value!r} is not valid: {value.split('.', 1)[0]!r} is a device name Windows "
                "reserves (con, prn, aux, nul, com0-9, lpt0-9, with or without an extension); "
                "a store must be checkout-able on every system", rule="E103.3"
            )
        raise ValidationError(
            f"scope {value!r} is not valid: use 1-64 lower-case letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (no '/', no '..')", rule="E103.3"
        )
    return value


def check_kind(value: object) -> str:
    if not is_kind(value):
        raise ValidationError(
            f"kind {value!r} is not valid: use a lower-case name such as "
            + ", ".join(KNOWN_KINDS), rule="E103.4"
        )
    return value


def check_tag(value: object) -> str:
    if not is_tag(value):
        raise ValidationError(
            f"tag {value!r} is not valid: 1-64 characters, no spaces, commas, quotes, '#' or brackets",
            rule="E103.9",
        )
    return value


def scope_for(name: str) -> str:
    """The scope for an outside name (a user id, a character name), deterministic; two different
    names never share a scope. The one rule for import and capture (``--scope-from``).

    A name that is a valid scope already is kept as it is. Any other is folded (accents to
    ASCII, lower case, every other character to '-') and keeps a short digest of the original
    name: ``Alice-Home`` and ``alice@home`` fold alike but get different digests, ``Zoé`` is
    ``zoe-…``, ``алиса`` is ``x-…``, and ``аlice`` (a Cyrillic а) is ``lice-…``, never ``lice``.
    """
    if is_scope(name):
        return name
    import hashlib
    import re
    import unicodedata

    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    s = re.sub(r"[^a-z0-9._-]+", "-", folded)
    s = re.sub(r"\.{2,}", ".", s).strip("-._")[:52].rstrip("-._")
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    out = f"{s}-{digest}" if s else f"x-{digest}"
    if is_windows_reserved(out):  # "con.x" -> "con.x-…": still a device name before its dot
        out = f"x-{out}"
    return check_scope(out)
