"""``mem verify``'s checks of one record file on its own (run in worker processes on a large
store): the fast level's reading of the canonical layout by the rules layer's reader, the full
parse, digests and canonical form; and the listing of a store's folders. Part of
:mod:`mem.format.verify.checks`, which re-exports its names."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from mem.format.base.errors import RecordParseError
from mem.format.base.fsutil import TMP_MARKER
from mem.format.model.record import (
    MAX_FRONTMATTER_BYTES,
    MAX_RECORD_BYTES,
    Record,
    canonical_body,
    content_digest,
    dump_record,
    match_digest,
    parse_record,
    split_record_text,
)
from mem.format.rules import ids
from mem.format.rules.recordtext import canonical_pattern, scan_canonical, stored_digest
from mem.format.store.store import source_key


class _Lite(NamedTuple):
    """The keys of a record that the fast level checks (the others are checked by --full)."""

    id: str
    scope: str
    status: str
    supersedes: tuple[str, ...]
    superseded_by: str | None
    derived_from: tuple[str, ...]
    source: dict[str, Any]
    content: str


canonical_pattern()  # compiled before any worker is forked (workers share it)


#: Lines a merge leaves in a file it could not merge (``git merge``'s conflict markers).
_CONFLICT_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)", re.MULTILINE)


def _lite_record(text: str) -> _Lite | None:
    """The keys of a record that link records, read by the rules layer's reader
    (:func:`mem.format.rules.recordtext.scan_canonical`, the canonical layout); None: a file it
    leaves to the full reader, which the caller then calls (it accepts hand-written YAML or names
    the problem)."""
    f = scan_canonical(text, linking=True)
    return None if f is None else _Lite(*f[:8])


# -- reading the record files (in worker processes on a large store) -------------------------

_READ_LIMIT = MAX_RECORD_BYTES + MAX_FRONTMATTER_BYTES
_FIRST_READ = 1 << 16
_O_READ = os.O_RDONLY | getattr(os, "O_BINARY", 0)
_ID_MATCH = ids.is_id
#: ASCII characters that are not letters or digits: the edge characters ``normalize_for_match``
#: strips (``[\s\W_]``), restricted to ASCII.
_ASCII_EDGE = "".join(c for c in map(chr, range(128)) if not c.isalnum())


class _Links(NamedTuple):
    """What the checks across records need of a live record."""

    scope: str
    status: str
    supersedes: tuple[str, ...]
    superseded_by: str | None
    derived_from: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _ScopeFiles:
    scope: str
    names: tuple[str, ...]  # the record files (<ID>.md), sorted
    forgotten: frozenset[str]  # ids tombstoned in the scope: their files are not read (E201)
    match: bool  # the scope has tombstone digests: compute match digests and source keys


@dataclass(frozen=True, slots=True)
class _Job:
    rdir: str
    full: bool
    scopes: tuple[_ScopeFiles, ...]

    @property
    def total(self) -> int:
        return sum(len(s.names) for s in self.scopes)


#: One record file, checked on its own: findings (code, message), its status and links when it
#: is usable (None: it is not), its stored digest and, in a scope with tombstones, its match digest and
#: source key. Compact on purpose: this is what a worker sends back, never the file's text.
_LinkFields = tuple[str, tuple[str, ...], str | None, tuple[str, ...]]  # _Links without scope
_FileResult = tuple[
    tuple[tuple[str, str], ...], _LinkFields | None, str | None, str | None, str | None
]
#: One task: (scope index, index of its first file, one result per file; None: forgotten, unread).
_TaskResult = tuple[int, int, list[_FileResult | None]]


def _match_digest(content: str) -> str:
    """:func:`mem.format.model.record.match_digest`, with a fast path for ASCII content.

    For ASCII text NFKC is the identity, casefold is lower(), ``str.split`` splits on the
    whitespace ``\\s`` matches, and the edge characters ``[\\s\\W_]`` are the non-alphanumerics;
    the result is the same digest (a property test checks it against the original).
    """
    if content.isascii():
        t = " ".join(content.lower().split()).strip(_ASCII_EDGE)
        return "sha256:" + hashlib.sha256(t.encode("ascii")).hexdigest()
    return match_digest(content)


def _read_fd(fd: int) -> bytes | None:
    """The whole file; None when it is larger than a record may be.

    One read holds every ordinary record (a regular file reads short only at its end); a
    larger file is read on to its end, or to the size limit.
    """
    data = os.read(fd, _FIRST_READ)
    if len(data) < _FIRST_READ:
        return data
    parts, n = [data], len(data)
    while n <= _READ_LIMIT:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        parts.append(b)
        n += len(b)
    return None if n > _READ_LIMIT else b"".join(parts)


def _check_file(path: str, rid: str, scope: str, full: bool, match: bool) -> _FileResult:
    """Every check of one record file that needs no other file.

    The fast level scans the frontmatter with :func:`_lite_record` (canonical layout only) and
    falls back to :func:`parse_record`, which accepts hand-written YAML or names the problem;
    --full parses every file, recomputes its digest and checks its canonical form.
    """
    try:
        fd = os.open(path, _O_READ)
        try:
            raw = _read_fd(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        return (("E102", f"cannot read: {exc.strerror}"),), None, None, None, None
    if raw is None:
        return (("E102.3", f"record file is larger than {MAX_RECORD_BYTES} bytes"),), None, None, None, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return (("E101", f"not valid UTF-8 (byte {exc.start}, line {line})"),), None, None, None, None
    found: list[tuple[str, str]] = []
    if ("<<<<<<<" in text or ">>>>>>>" in text) and _CONFLICT_MARKER.search(text):
        m = _CONFLICT_MARKER.search(text)
        assert m is not None
        found.append(("E110", f"git conflict marker on line {text.count(chr(10), 0, m.start()) + 1}"))
    rec: Record | _Lite | None = None if full else _lite_record(text)
    if rec is None:
        try:
            rec = parse_record(text)
        except RecordParseError as exc:
            return (*found, _classify(text, exc)), None, None, None, None
    if rec.id != rid:
        found.append(("E105", f"file is named {rid} but its frontmatter id is {rec.id}"))
    if rec.scope != scope:
        found.append(("E106", f"file is in records/{scope}/ but its frontmatter scope is {rec.scope!r}"))
    if found and found[-1][0] in ("E105", "E106"):
        return tuple(found), None, None, None, None
    stored = stored_digest(text)
    md = skey = None
    if match:
        md = _match_digest(rec.content)
        skey = source_key(rec.source)
    if full and not found:  # (conflict markers: the digest and the form are that problem's)
        assert isinstance(rec, Record)
        actual = content_digest(rec.content)
        if stored != actual:
            found.append(("E108", f"stored digest {stored or '(none)'} but the content's digest is {actual}"))
        else:
            canon = dump_record(rec)
            if canon != text:
                found.append(("W101", "not in canonical form; " + _first_difference(canon, text)))
    return tuple(found), (rec.status, rec.supersedes, rec.superseded_by, rec.derived_from), stored, md, skey


def _scan(d: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(d) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _skip_name(name: str) -> bool:
    """Names every folder may hold: .gitkeep, and temp files (reported once, as W501)."""
    return name == ".gitkeep" or TMP_MARKER in name


def _classify(text: str, exc: RecordParseError) -> tuple[str, str]:
    """The finding for a record the full reader refuses: an empty body is E104 whatever else is
    wrong with the file; otherwise the rule the reader's error names (``exc.rule``: a sub-rule of
    E102, the frontmatter block, or of E103, its values), or E103 for a value no sub-rule
    describes."""
    msg = exc.message + (f" (line {exc.line})" if exc.line is not None else "")
    try:
        _, body, _ = split_record_text(text)
    except RecordParseError:
        return exc.rule or "E102", msg
    if not canonical_body(body):
        return "E104", "the record has no content after its frontmatter"
    return exc.rule or "E103", msg


def _first_difference(canonical: str, text: str) -> str:
    a, b = canonical.split("\n"), text.split("\n")
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return f"line {i} is {y[:60]!r}, canonical form is {x[:60]!r}"
    if len(a) != len(b):
        return f"the file has {len(b)} lines, canonical form has {len(a)}"
    return "the file differs from its canonical form"
