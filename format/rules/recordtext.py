"""The text of a record file: the canonical layout's constants and the one frontmatter reader.

Pure functions over strings with no dataclass, pathlib or hashlib import, so that the lean read
path of ``mem search --mode lexical`` (:mod:`mem.format.search.lexfast`) reads record files with the
same rules as :mod:`mem.format.model.record` (whose ``parse_record`` is this reader plus the YAML
fallback), the index build (:func:`mem.format.index.lexical.fast_fields`) and ``mem verify``.
"""

from __future__ import annotations

from mem.format.base.errors import RecordParseError, ValidationError
from mem.format.base.jsonlite import loads as _json_loads
from mem.format.rules import ids
from mem.format.rules.timeutil import (
    CANONICAL_PATTERN,
    from_canonical,
    is_canonical_form,
    parse_time,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    #: What :func:`lean_fields` returns: (id, scope, kind, status, confidence, tags, valid_from,
    #: valid_to, recorded_at, updated_at, superseded_at, supersedes, superseded_by, derived_from,
    #: source, content), each as the full reader's ``Record`` holds it (times as datetimes).
    LeanFields = tuple[Any, ...]
    #: What ``scan_canonical(text, linking=True)`` returns: (id, scope, status, supersedes,
    #: superseded_by, derived_from, source, content, digest as written).
    LinkFields = tuple[Any, ...]

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


def is_canonical_body(text: str) -> bool:
    """A sufficient test that ``canonical_body(text) == text``, without building a copy: no BOM,
    no carriage return, no leading newline, and one newline after a character that is not
    whitespace (what ``rstrip`` would keep)."""
    return len(text) >= 2 and text[-1] == "\n" and text[0] not in "\ufeff\n" \
        and not text[-2].isspace() and "\r" not in text


def canonical_body(text: str) -> str:
    """The body as stored: LF newlines, no BOM, no leading blank lines, one trailing newline."""
    if is_canonical_body(text):
        return text  # already so (every file mem wrote): no copies
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
        if len(raw) == 26 and ids.is_id(raw):  # (an id: no time, no float; all digits: an int)
            return int(raw) if _is_int(raw) else raw
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


def _fast_key(key: str) -> str:
    """A mapping key as the canonical form writes it: plain, or JSON-quoted when it is a word
    YAML would read as a boolean or null (``"no"``, ``"on"``...)."""
    if key.startswith('"'):
        if len(key) < 3 or not key.endswith('"') or key[1:-1] not in _YAML_WORDS:
            raise _NotFast
        return key[1:-1]
    return key


# -- the frontmatter's line grammar --------------------------------------------------------------
#
# One grammar, here: the fence line that opens and closes the frontmatter (``FENCE``), a key and
# its value on one line (``key: value``, ``SEP`` between them), a block of keys (the key and
# ``BLOCK_OPEN``, then its lines indented by ``INDENT``), a list written as JSON (``LIST_OPEN``,
# ``LIST_SEP``, ``LIST_CLOSE``). The writer (``model.record.dump_record``) writes by these tokens;
# ``_parse_fast`` reads any frontmatter by them, line by line (the one-shot search reads its hits
# so, without ``import re``); ``canonical_pattern`` is compiled from them for the canonical layout
# alone (``KEY_ORDER``'s order, ``ALWAYS_WRITTEN``, ``BLOCK_KEYS``), for the paths that read every
# file of a store: it delimits the lines and checks the grammars of the values that repeat across
# records, the other values are read by ``_fast_value``, and both readers end in the same checks
# (``_times_ok``, ``_content``). tests/core/test_one_reader.py changes each token and checks that
# the writer and both readers follow it.

FENCE = "---\n"
SEP = ": "
BLOCK_OPEN = ":"
INDENT = "  "
LIST_OPEN = "["
LIST_SEP = ", "
LIST_CLOSE = "]"
#: A body's digest as written: this prefix, then ``DIGEST_HEX`` lowercase hex digits (``Record.digest``).
DIGEST_PREFIX = "sha256:"
DIGEST_HEX = 64
#: The keys the canonical layout writes in every record (``dump_frontmatter``); the other keys of
#: ``KEY_ORDER`` only when they have a value.
ALWAYS_WRITTEN: tuple[str, ...] = ("id", "scope", "kind", "status", "confidence", "recorded_at", "digest")
#: The keys whose value is a block (the key and ``BLOCK_OPEN``, then lines indented by ``INDENT``).
BLOCK_KEYS: tuple[str, ...] = ("source",)


def _parse_fast(fm: str) -> dict[str, Any]:
    """The frontmatter's keys and values by the line grammar (``SEP``, ``BLOCK_OPEN``,
    ``INDENT``); _NotFast for a line it does not read, or a key given twice."""
    data: dict[str, Any] = {}
    block: dict[str, Any] | None = None
    sep_, opener, indent, cut = SEP, BLOCK_OPEN, INDENT, len(INDENT)  # (locals: the loop runs once a line)
    for line in fm.split("\n"):
        key, sep, raw = line.partition(sep_)
        if sep and key in _KNOWN_KEYS:  # the common line, read as the last branch below would
            if key in data:
                raise _NotFast
            block = None
            data[key] = _fast_value(raw)
            continue
        if not line:
            continue
        if line.startswith(indent):
            if block is None:
                raise _NotFast
            key, sep, raw = line[cut:].partition(sep_)
            if key[:1] == '"':
                key = _fast_key(key)
            if not sep or not _is_key(key) or key in block:
                raise _NotFast
            block[key] = _fast_value(raw)
            continue
        if line.endswith(opener) and _is_key(line[: -len(opener)]):
            key = line[: -len(opener)]
            if key in data:
                raise _NotFast
            block = {}
            data[key] = block
            continue
        block = None
        if key[:1] == '"':
            key = _fast_key(key)
        if not sep or key in data or (key not in _KNOWN_KEYS and not _is_key(key)):
            raise _NotFast
        data[key] = _fast_value(raw)
    return data


_CLOSE = "\n" + FENCE  # the closing fence, after the frontmatter's last line
_CLOSE_AT_END = _CLOSE[:-1]  # the closing fence as a file's last line, without its newline


def split_record_text(text: str, path: str | None = None) -> tuple[str, str, int]:
    """Split a record file into (frontmatter, body, line number where the body starts)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:  # (a search, cheaper than two copies of every file)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith(FENCE):
        raise RecordParseError(
            "record does not start with a '---' frontmatter line", path=path, line=1, rule="E102.1"
        )
    end = text.find(_CLOSE, 3)
    if end == -1:
        if text.endswith(_CLOSE_AT_END):
            end = len(text) - len(_CLOSE_AT_END)
        else:
            raise RecordParseError(
                "frontmatter is not closed by a '---' line", path=path, line=text.count("\n") + 1,
                rule="E102.1",
            )
    fm = text[len(FENCE) : end + 1]
    body = text[end + len(_CLOSE) :]
    if len(fm) > MAX_FRONTMATTER_BYTES // 4 and len(fm.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise RecordParseError(
            f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes", path=path, line=2, rule="E102.3"
        )
    return fm, body, fm.count("\n") + 3


def stored_digest(text: str) -> str | None:
    """The value of a record file's ``digest`` line as written (unquoted), without reading the
    rest of the frontmatter (nor the body); None without one. ``mem verify`` compares it with the
    content's digest (E108)."""
    end = text.find(_CLOSE, len(FENCE) - 1)
    fm = text[: end + 1] if end != -1 else text
    head = "\ndigest" + SEP
    i = fm.find(head)
    if i == -1:
        return None
    j = fm.find("\n", i + 1)
    return fm[i + len(head) : j if j != -1 else len(fm)].strip().strip('"') or None


# -- the one reader's entry points ----------------------------------------------------------------
#
# Every path that reads a record file reads its frontmatter here: the full reader
# (:func:`mem.format.model.record.parse_record`: ``fast_frontmatter``, else the YAML fallback), and
# the three that read many files or must start fast: the index build (``index.lexical.fast_fields``),
# ``mem verify``'s fast level and the one-shot search (``search.lexfast``): ``read_fast`` and
# ``lean_fields``, which give up (None) wherever the full reader might read the file differently
# or refuse it; the caller then calls the full reader, which reads it or names the problem.


def fast_frontmatter(fm: str) -> dict[str, Any] | None:
    """The keys and values of a frontmatter (the text between the ``---`` lines) as the fast
    reader reads them; None when only the YAML fallback reads it."""
    try:
        return _parse_fast(fm)
    except _NotFast:
        return None


def read_fast(text: str) -> tuple[dict[str, Any], str] | None:
    """A record file's frontmatter as the fast reader reads it, and its body (as written); None
    when the fast reader does not read it (no frontmatter, too large, a value only YAML reads)."""
    try:
        fm, body, _ = split_record_text(text)
        return _parse_fast(fm), body
    except (_NotFast, RecordParseError):
        return None


#: The line grammar for the canonical layout (``dump_frontmatter``'s: ``KEY_ORDER``'s order, the
#: keys of ``ALWAYS_WRITTEN`` in every record, extension keys last), compiled into one pattern, with
#: the grammar of each value that repeats across records built in (``repeated`` below); the other
#: values are captured as text and read by ``_fast_value``. Compiled on first use (``import re``
#: costs a third of a lean ``mem search``, which reads its few files with ``read_fast``).
_CANONICAL: Any = None
#: Where a ``tags`` line's value the pattern took is cut into tags: after the list's opener and
#: the first quote, before the last quote and the closer, at a quote, ``LIST_SEP`` and a quote.
_TAGS_CUT: tuple[int, int, str] = (0, 0, "")


def canonical_pattern() -> Any:
    """The compiled ``_CANONICAL`` (a module that reads many files calls it once at import, so that
    forked workers share it)."""
    global _CANONICAL, _TAGS_CUT
    if _CANONICAL is None:
        import re

        _TAGS_CUT = (len(LIST_OPEN) + 1, -len(LIST_CLOSE) - 1, '"' + LIST_SEP + '"')

        def bare(pattern: str) -> str:  # an ``ids`` grammar (``^...$``) inside a larger pattern
            return "(?:" + pattern[1:-1] + ")"

        # a tag JSON-quoted without an escape (the lookahead: no backslash before the closing quote)
        tag = f'"(?=[^"\\\\\n]*"){bare(ids.TAG_PATTERN)}"'
        # (a scope or kind quoted: a word the reader would read as another type, ``"yes"``, ``"123"``)
        repeated = {
            "id": bare(ids.ID_PATTERN),
            "scope": f'{bare(ids.SCOPE_PATTERN)}|"{bare(ids.SCOPE_PATTERN)}"',
            "kind": f'{bare(ids.KIND_PATTERN)}|"{bare(ids.KIND_PATTERN)}"',
            "status": "|".join(STATUSES),
            # a float's repr, rounded to 4 places (model.record._scalar): ASCII digits
            "confidence": r"0\.[0-9]{1,17}|1\.0|[0-9]\.[0-9]{1,17}e-[0-9][0-9]",
            "tags": f"{re.escape(LIST_OPEN)}{tag}(?:{re.escape(LIST_SEP)}{tag})*{re.escape(LIST_CLOSE)}",
            "superseded_by": bare(ids.ID_PATTERN),
            **dict.fromkeys(_TIME_KEYS, bare(CANONICAL_PATTERN)),  # (other forms: the line reader's)
            "digest": f"{re.escape(DIGEST_PREFIX)}[0-9a-f]{{{DIGEST_HEX}}}",
        }
        any_text = "[^\n]*"

        def line(key: str) -> str:
            if key in BLOCK_KEYS:
                one = f"{re.escape(key + BLOCK_OPEN)}\n((?:{re.escape(INDENT)}{any_text}\n)+)"
            else:
                one = f"{re.escape(key)}{re.escape(SEP)}({repeated.get(key, any_text)})\n"
            return one if key in ALWAYS_WRITTEN else f"(?:{one})?"

        extensions = f"((?:{any_text}\n)*?)"  # (``dump_frontmatter`` writes them last)
        _CANONICAL = re.compile(
            re.escape(FENCE) + "".join(line(key) for key in KEY_ORDER) + extensions + re.escape(FENCE))
    return _CANONICAL


def scan_canonical(text: str, linking: bool = False) -> LeanFields | LinkFields | None:
    """``lean_fields(*read_fast(text))`` for a record file in the canonical layout, faster (one
    pattern, ``_CANONICAL``, delimits the lines and checks the grammars of the values that
    repeat); None for any other text, which the caller reads with ``read_fast`` or the full
    reader. For the paths that read every file of a store: the index build and ``mem verify``.
    tests/core/test_one_reader.py holds it to ``lean_fields`` and the full reader on any text.

    ``linking``: only the fields of ``LinkFields`` (``mem verify``'s fast level), None for the
    same texts; the times are checked, not kept, and the tags and the confidence not built."""
    m = canonical_pattern().match(text)
    if m is None:
        return None
    rid, scope, kind, status, conf, tags_raw, vf, vt, rec, upd, sat, sup, by, der, block, digest, ext = m.groups()
    end = m.end()
    if end > MAX_FRONTMATTER_BYTES // 4 and \
            len(text[len(FENCE) : end - len(FENCE)].encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        return None
    try:
        # the pattern's grammars take words the reader reads as another type when not quoted
        # (``yes``, ``123``; an id of digits only: ``_read_value`` reads it as a number)
        scope, kind = _fast_value(scope), _fast_value(kind)
        if type(scope) is not str or type(kind) is not str or _is_int(rid):
            return None
        if by is not None and (by == rid or _is_int(by)):
            return None
        links = (() if sup is None else _links(_fast_value(sup), rid),
                 () if der is None else _links(_fast_value(der), rid))
        src = {} if block is None else _source_block(block)
        if src is None:
            return None
        if ext:  # (a known key here is out of the layout's order: read_fast reads that file)
            more = _parse_fast(ext)
            if not more.keys().isdisjoint(_KNOWN_KEYS) or not _extensions_ok(more):
                return None
    except _NotFast:
        return None
    if links[0] is None or links[1] is None:
        return None
    try:  # each in the canonical form (the pattern checked it): from_canonical checks the calendar
        if vf is None and vt is None and upd is None and sat is None:  # (the usual record)
            times = [None, None, from_canonical(rec), None, None]
        else:
            times = [None if t is None else from_canonical(t) for t in (vf, vt, rec, upd, sat)]
    except ValidationError:
        return None
    if not _times_ok(times):
        return None
    if linking:
        content = _content(text[end:])
        return None if content is None else (rid, scope, status, links[0], by, links[1], src, content, digest)
    if tags_raw is None:
        tags: tuple[str, ...] = ()
    else:  # the pattern's list of JSON-quoted tags without escapes: cut at the quotes and separators
        first, last, between = _TAGS_CUT
        tags = tuple(sorted(set(tags_raw[first:last].split(between))))
    return _fields(rid, scope, kind, status, conf, tags, times, links[0], by, links[1], src, text[end:])


#: ``_source_block``'s results for the blocks records repeat (a writer's few keys and values),
#: at most ``_VALUES_MAX`` of them; only blocks of scalars, handed out as copies.
_BLOCKS: dict[str, dict[str, Any]] = {}


def _source_block(block: str) -> dict[str, Any] | None:
    """The ``source`` block's lines (after ``source:``) as ``_parse_fast`` reads them; None when
    the full reader would not keep that mapping (``_source_ok``)."""
    got = _BLOCKS.get(block)
    if got is not None:
        return dict(got)
    src: dict[str, Any] = _parse_fast("source:\n" + block)["source"]
    if not _source_ok(src):
        return None
    if len(block) < 256 and all(type(v) in (str, int, float, bool) for v in src.values()):
        if len(_BLOCKS) >= _VALUES_MAX:
            _BLOCKS.clear()
        _BLOCKS[block] = dict(src)
    return src


def _finite(v: Any) -> bool:
    """No infinite or NaN float anywhere in ``v`` (the full reader refuses to keep one)."""
    if type(v) is float:
        return v - v == 0.0
    if type(v) is dict:
        return all(_finite(x) for x in v.values())
    if type(v) is list:
        return all(_finite(x) for x in v)
    return True


_SOURCE_KEYS = frozenset(SOURCE_ORDER)
_TIME_KEYS = ("valid_from", "valid_to", "recorded_at", "updated_at", "superseded_at")

def lean_fields(data: dict[str, Any], body: str) -> LeanFields | None:
    """The fields of a record from frontmatter the fast reader read (``read_fast``), each as
    :func:`mem.format.model.record.record_from_mapping` would make it; None whenever that would
    refuse the record or might read it differently (a subset: a tag or link list written as one
    string, a confidence written as a string are left to it). The property tests in
    tests/core/test_one_reader.py hold every path that calls this to the full reader.
    """
    get = data.get
    rid, scope, kind, status = get("id"), get("scope"), get("kind"), get("status")
    if type(rid) is not str or not ids.is_id(rid) or type(scope) is not str or not ids.is_scope(scope):
        return None
    if type(kind) is not str or not ids.is_kind(kind) or type(status) is not str or status not in STATUSES:
        return None
    digest = get("digest")
    if type(digest) is not str or not digest:
        return None
    if not data.keys() <= _KNOWN_KEYS and not _extensions_ok(data):
        return None
    conf = get("confidence", 1.0)
    if (type(conf) is not float and type(conf) is not int) or not 0.0 <= conf <= 1.0:
        return None
    tags = get("tags")
    if tags is None:
        tags = ()
    elif type(tags) is list and all(type(t) is str and ids.is_tag(t) for t in tags):
        tags = tuple(sorted(set(tags)))
    else:
        return None
    sup: tuple[str, ...] | None = ()
    der: tuple[str, ...] | None = ()
    got = get("supersedes")
    if got is not None and type(got) is list:  # (one id as a string: the full reader's)
        sup = _links(got, rid)
        if sup is None:
            return None
    elif got is not None:
        return None
    got = get("derived_from")
    if got is not None and type(got) is list:
        der = _links(got, rid)
        if der is None:
            return None
    elif got is not None:
        return None
    by = get("superseded_by")
    if by is not None and (type(by) is not str or not ids.is_id(by) or by == rid):
        return None
    src = get("source") or {}
    if not _source_ok(src):
        return None
    times = _read_times([get(key) for key in _TIME_KEYS])
    if times is None:
        return None
    assert sup is not None and der is not None  # (None returned above)
    return _fields(rid, scope, kind, status, conf, tags, times, sup, by, der, src, body)


def _fields(rid: str, scope: str, kind: str, status: str, conf: Any, tags: tuple[str, ...], times: list[Any],
            sup: tuple[str, ...], by: str | None, der: tuple[str, ...], src: dict[str, Any],
            body: str) -> LeanFields | None:
    """The fields as ``record_from_mapping`` makes them, from values each reader has read and
    checked (``lean_fields``, ``scan_canonical``); None for a body the full reader refuses."""
    content = _content(body)
    if content is None:
        return None
    return (rid, scope, kind, status, round(float(conf), 4), tags, times[0], times[1], times[2], times[3],
            times[4], sup, by, der, src, content)


def _content(body: str) -> str | None:
    """The body as the full reader keeps it (``canonical_body``); None for one it refuses (empty,
    larger than ``MAX_RECORD_BYTES``)."""
    if not body or body.isspace():
        return None
    if len(body) > MAX_RECORD_BYTES // 4 and len(body.encode("utf-8")) > MAX_RECORD_BYTES:
        return None
    return canonical_body(body)


def _links(got: Any, rid: str) -> tuple[str, ...] | None:
    """A value of ``supersedes`` or ``derived_from`` as the full reader keeps it (one id, or a
    list of ids each once, none the record's own), or None."""
    if type(got) is str:
        got = [got]
    if type(got) is list and all(type(x) is str and ids.is_id(x) and x != rid for x in got):
        return tuple(dict.fromkeys(got))
    return None


def _extensions_ok(data: dict[str, Any]) -> bool:
    """Every key of ``data`` that is not a known key is one the full reader keeps as an
    extension key (validate_record's rule), with a value it can store."""
    for key, value in data.items():
        if key not in _KNOWN_KEYS and (key == "content" or not _is_key(key) or not _finite(value)):
            return False
    return True


def _source_ok(src: Any) -> bool:
    """``source`` is a mapping the full reader keeps as it is (validate_record's rules)."""
    if type(src) is not dict:
        return False
    if not src.keys() <= _SOURCE_KEYS and not all(_is_key(k) for k in src):
        return False
    for v in src.values():
        if type(v) is not str and not _finite(v):
            return False
    st = src.get("type")
    return st is None or type(st) is str


def _read_times(values: list[Any]) -> list[Any] | None:
    """The five times (``_TIME_KEYS``' order) as datetimes, as the full reader reads them, from
    the values the line reader read; None when it would refuse them (``_times_ok``)."""
    try:
        out = [None if v is None or v == "" else parse_time(v, key)
               for key, v in zip(_TIME_KEYS, values, strict=True)]
    except ValidationError:
        return None
    return out if _times_ok(out) else None


def _times_ok(times: list[Any]) -> bool:
    """The five times, as datetimes, are a record's the full reader keeps: recorded_at given,
    valid_to not before valid_from."""
    vf, vt = times[0], times[1]
    return times[2] is not None and (vf is None or vt is None or vt >= vf)
