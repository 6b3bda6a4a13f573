"""The record: one memory, stored as a Markdown file with YAML frontmatter.

Serialization is canonical (``spec/format.md`` section "Canonical form"): keys in a fixed order,
empty optional keys omitted, strings written plain when YAML reads them back unchanged and as
JSON strings otherwise, LF newlines, UTF-8, one trailing newline. ``dump_record(parse_record(t))
== t`` for every canonical ``t``, so a save that changes nothing makes no git diff.

Reading has a fast path for the canonical layout (a line parser) and falls back to a safe,
bounded YAML loader for hand-edited files; both yield the same :class:`Record`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mem.format.base.errors import RecordParseError, ValidationError
from mem.format.rules import ids
from mem.format.rules import recordtext as _rt
from mem.format.rules.recordtext import _KNOWN_KEYS as _KEY_SET
from mem.format.rules.recordtext import _YAML_WORDS, _is_key, _is_plain, fast_frontmatter

# re-exported: these names are part of mem.format.model.record's interface
from mem.format.rules.recordtext import KEY_ORDER as KEY_ORDER
from mem.format.rules.recordtext import MAX_FRONTMATTER_BYTES as MAX_FRONTMATTER_BYTES
from mem.format.rules.recordtext import MAX_RECORD_BYTES as MAX_RECORD_BYTES
from mem.format.rules.recordtext import REQUIRED_KEYS as REQUIRED_KEYS
from mem.format.rules.recordtext import SOURCE_ORDER as SOURCE_ORDER
from mem.format.rules.recordtext import SOURCE_TYPES as SOURCE_TYPES
from mem.format.rules.recordtext import STATUSES as STATUSES
from mem.format.rules.recordtext import _parse_fast as _parse_fast
from mem.format.rules.recordtext import canonical_body as canonical_body
from mem.format.rules.recordtext import split_record_text as split_record_text
from mem.format.rules.timeutil import epoch_ms, format_time, parse_time


@dataclass(frozen=True, slots=True)
class Record:
    """One memory. Times are timezone-aware UTC datetimes; ``content`` is the Markdown body."""

    id: str
    scope: str
    kind: str
    content: str
    status: str = "active"
    confidence: float = 1.0
    tags: tuple[str, ...] = ()
    valid_from: _dt.datetime | None = None
    valid_to: _dt.datetime | None = None
    recorded_at: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.UTC))
    updated_at: _dt.datetime | None = None
    superseded_at: _dt.datetime | None = None
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    derived_from: tuple[str, ...] = ()
    source: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """Digest of the canonical body (``sha256:<hex>``)."""
        return content_digest(self.content)

    @property
    def match_digest(self) -> str:
        """Digest of the content normalized for matching (tombstones, de-duplication)."""
        return match_digest(self.content)

    @property
    def embedding_text(self) -> str:
        """The text its vector is made from: the content without a leading own-speaker prefix
        (:func:`mem.format.rules.embedtext.embedding_text`)."""
        # imported here: a command that embeds nothing (show, add, list) does not load the rule
        from mem.format.rules.embedtext import embedding_text, source_speaker

        return embedding_text(self.content, self.kind, source_speaker(self.source))

    def with_changes(self, **changes: Any) -> Record:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the ``--json`` and export shape of a record)."""
        out: dict[str, Any] = {
            "id": self.id,
            "scope": self.scope,
            "kind": self.kind,
            "status": self.status,
            "confidence": self.confidence,
            "tags": list(self.tags),
            "content": self.content,
            "valid_from": _opt_time(self.valid_from),
            "valid_to": _opt_time(self.valid_to),
            "recorded_at": format_time(self.recorded_at),
            "updated_at": _opt_time(self.updated_at),
            "superseded_at": _opt_time(self.superseded_at),
            "supersedes": list(self.supersedes),
            "superseded_by": self.superseded_by,
            "derived_from": list(self.derived_from),
            "source": dict(self.source),
            "digest": self.digest,
        }
        if self.extra:
            out["extra"] = dict(self.extra)
        return out


def _opt_time(t: _dt.datetime | None) -> str | None:
    return None if t is None else format_time(t)


# ---------------------------------------------------------------------------------------------
# Content normalization and digests


def content_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(canonical_body(content).encode("utf-8")).hexdigest()


_PUNCT_EDGE = re.compile(r"^[\s\W_]+|[\s\W_]+$", re.UNICODE)
_WS = re.compile(r"\s+", re.UNICODE)


def normalize_for_match(content: str) -> str:
    """Content folded for matching: NFKC, case-folded, whitespace collapsed, edge punctuation off.

    Two contents with the same normalized form are "the same memory" for tombstones and dedup.
    """
    t = unicodedata.normalize("NFKC", content).casefold()
    t = _WS.sub(" ", t)
    return _PUNCT_EDGE.sub("", t)


def match_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(normalize_for_match(content).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Construction and validation


def make_record(
    *,
    scope: str,
    kind: str,
    content: str,
    id: str | None = None,
    status: str = "active",
    confidence: float = 1.0,
    tags: tuple[str, ...] | list[str] = (),
    valid_from: object = None,
    valid_to: object = None,
    recorded_at: object = None,
    updated_at: object = None,
    superseded_at: object = None,
    supersedes: tuple[str, ...] | list[str] = (),
    superseded_by: str | None = None,
    derived_from: tuple[str, ...] | list[str] = (),
    source: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Record:
    """Build a validated record from loosely typed values (strings for times are parsed)."""
    from mem.format.rules.timeutil import now as _now

    rec_at = parse_time(recorded_at, "recorded_at") if recorded_at is not None else _now()
    rid = id if id is not None else ids.new_id(epoch_ms(rec_at))
    r = Record(
        id=rid,
        scope=scope,
        kind=kind,
        content=canonical_body(content),
        status=status,
        confidence=confidence,
        tags=tuple(tags),
        valid_from=parse_time(valid_from, "valid_from") if valid_from not in (None, "") else None,
        valid_to=parse_time(valid_to, "valid_to") if valid_to not in (None, "") else None,
        recorded_at=rec_at,
        updated_at=parse_time(updated_at, "updated_at") if updated_at not in (None, "") else None,
        superseded_at=(
            parse_time(superseded_at, "superseded_at") if superseded_at not in (None, "") else None
        ),
        supersedes=tuple(supersedes),
        superseded_by=superseded_by,
        derived_from=tuple(derived_from),
        source=dict(source or {}),
        extra=dict(extra or {}),
    )
    return validate_record(r)


def validate_record(r: Record) -> Record:
    """Check every field; return the record with canonical tag order and rounded confidence."""
    ids.check_id(r.id)
    ids.check_scope(r.scope)
    ids.check_kind(r.kind)
    if r.status not in STATUSES:
        raise ValidationError(f"status {r.status!r} is not one of {', '.join(STATUSES)}", rule="E103.5")
    conf = r.confidence
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not math.isfinite(conf):
        raise ValidationError(f"confidence {conf!r} is not a number", rule="E103.6")
    if not 0.0 <= float(conf) <= 1.0:
        raise ValidationError(f"confidence {conf!r} is outside 0..1", rule="E103.6")
    if not r.content or r.content.isspace():  # what strip() would leave empty, without a copy
        raise ValidationError("content is empty: a record needs a body", rule="E104")
    if len(r.content) > MAX_RECORD_BYTES // 4 and len(r.content.encode("utf-8")) > MAX_RECORD_BYTES:
        raise ValidationError(f"content is larger than {MAX_RECORD_BYTES} bytes", rule="E103.14")
    tags = tuple(sorted({ids.check_tag(t) for t in r.tags})) if r.tags else ()
    for rel in (*r.supersedes, *r.derived_from):
        ids.check_id(rel, "linked id", "E103.10")
    if r.superseded_by is not None:
        ids.check_id(r.superseded_by, "superseded_by", "E103.10")
    if r.id in r.derived_from or r.id in r.supersedes or r.superseded_by == r.id:
        raise ValidationError(f"record {r.id} links to itself", rule="E103.10")
    if r.valid_from and r.valid_to and r.valid_to < r.valid_from:
        raise ValidationError("valid_to is earlier than valid_from", rule="E103.8")
    for k in r.source:
        if not isinstance(k, str) or not _is_key(k):
            raise ValidationError(f"source key {k!r} is not a valid name", rule="E103.11")
    st = r.source.get("type")
    if st is not None and not isinstance(st, str):
        raise ValidationError("source.type must be a string", rule="E103.11")
    for k in r.extra:
        if not isinstance(k, str) or not _is_key(k) or k in KEY_ORDER or k == "content":
            raise ValidationError(f"frontmatter key {k!r} is not a valid extension key", rule="E103.12")
    body = canonical_body(r.content)  # returns the text itself when it is canonical already
    conf_r = round(float(conf), 4)
    sup = tuple(dict.fromkeys(r.supersedes))
    der = tuple(dict.fromkeys(r.derived_from))
    if (
        tags == r.tags
        and conf_r == conf
        and type(conf) is float
        and sup == r.supersedes
        and der == r.derived_from
        and body == r.content
    ):
        return r  # already canonical (the common case when reading a file): no copy
    return replace(r, tags=tags, confidence=conf_r, supersedes=sup, derived_from=der, content=body)


# ---------------------------------------------------------------------------------------------
# Serialization


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(f"{value!r} cannot be stored")
        text = repr(value)
        if "e" in text and "." not in text:
            text = text.replace("e", ".0e")  # YAML 1.1 reads "1e-05" as a string
        return text
    if isinstance(value, _dt.datetime):
        return format_time(value)
    if isinstance(value, str):
        if _is_plain(value) and value.lower() not in _YAML_WORDS:
            return value
        if ids.is_id(value) and not value.isdigit():
            return value
        return _json_text(value)
    if isinstance(value, (list, tuple, dict)):
        return _json_text(_jsonable(value))
    raise ValidationError(f"value {value!r} of type {type(value).__name__} cannot be stored")


_UNSAFE_CHARS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff0-\uffff]"
)


def _json_text(value: Any) -> str:
    """JSON text that YAML also reads back unchanged: every control or invisible format
    character is written as an escape, the rest stays readable UTF-8."""
    text = json.dumps(value, ensure_ascii=False, separators=(_rt.LIST_SEP, _rt.SEP))
    return _UNSAFE_CHARS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _jsonable(value: Any) -> Any:
    if type(value) in _PLAIN_SCALARS:  # the common case, one test
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, _dt.datetime):
        return format_time(value)
    if isinstance(value, _dt.date):  # a hand-written `x_due: 2026-01-15`, which YAML reads as a date
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise ValidationError(f"{value!r} cannot be stored")
    return value


#: Types ``_jsonable`` returns as they are (not their subclasses: a bool is an int).
_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})


def _key(k: str) -> str:
    """A mapping key as written: JSON-quoted when YAML would read it as a boolean or null."""
    return f'"{k}"' if k in _YAML_WORDS else k


def _source_keys(src: Mapping[str, Any]) -> list[str]:
    known = [k for k in SOURCE_ORDER if k in src]
    return known + sorted(k for k in src if k not in SOURCE_ORDER)


#: Keys whose value is written as it is (a status word, a digest).
_AS_IS = frozenset({"status", "digest"})
_BLOCK, _WORD, _CONFIDENCE, _VALUE = range(4)
#: How ``dump_frontmatter`` writes each key of ``KEY_ORDER``, in that order: (key, written even
#: when empty (``ALWAYS_WRITTEN``), how: a block (``BLOCK_KEYS``), a word as it is, the
#: confidence, a time or any other value), decided once rather than for every record.
_PLAN: tuple[tuple[str, bool, int], ...] = tuple(
    (key, key in _rt.ALWAYS_WRITTEN,
     _BLOCK if key in _rt.BLOCK_KEYS else _WORD if key in _AS_IS else _CONFIDENCE if key == "confidence" else _VALUE)
    for key in KEY_ORDER)


def dump_frontmatter(r: Record) -> str:
    """The frontmatter's lines in the canonical layout: ``KEY_ORDER``'s keys that have a value
    (those of ``ALWAYS_WRITTEN`` always), then the extension keys, sorted, by the line grammar of
    :mod:`mem.format.rules.recordtext`."""
    sep = _rt.SEP
    lines: list[str] = []
    append = lines.append
    for key, always, how in _PLAN:
        value = getattr(r, key)
        if not value and not always:
            continue  # None, (), {}: not written
        if how == _VALUE:
            append(f"{key}{sep}{format_time(value) if type(value) is _dt.datetime else _scalar(list(value) if type(value) is tuple else value)}")
        elif how == _WORD:
            append(f"{key}{sep}{value}")
        elif how == _CONFIDENCE:
            append(f"{key}{sep}{_scalar(float(value))}")
        else:
            append(key + _rt.BLOCK_OPEN)
            lines.extend(f"{_rt.INDENT}{_key(k)}{sep}{_scalar(value[k])}" for k in _source_keys(value))
    for k in sorted(r.extra):
        append(f"{_key(k)}{sep}{_scalar(r.extra[k])}")
    return "\n".join(lines) + "\n"


def dump_record(r: Record) -> str:
    """The canonical text of a record file."""
    return _rt.FENCE + dump_frontmatter(r) + _rt.FENCE + canonical_body(r.content)


# ---------------------------------------------------------------------------------------------
# Parsing


def _safe_yaml(fm: str, path: str | None, line_offset: int) -> dict[str, Any]:
    import yaml

    class _Loader(yaml.SafeLoader):
        """SafeLoader that refuses anchors and aliases (no expansion bombs)."""

        def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
            if self.check_event(yaml.AliasEvent):
                ev = self.peek_event()  # type: ignore[no-untyped-call]
                raise RecordParseError(
                    "YAML aliases are not allowed in a record",
                    path=path,
                    rule="E102.4",
                    line=line_offset + ev.start_mark.line + 1,
                )
            ev = self.peek_event()  # type: ignore[no-untyped-call]
            if getattr(ev, "anchor", None):
                raise RecordParseError(
                    "YAML anchors are not allowed in a record",
                    path=path,
                    rule="E102.4",
                    line=line_offset + ev.start_mark.line + 1,
                )
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:  # type: ignore[override]
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
                if isinstance(key, (str, int, float, bool)) and key in seen:
                    raise RecordParseError(
                        f"frontmatter key {key!r} appears more than once",
                        path=path,
                        rule="E102.5",
                        line=line_offset + key_node.start_mark.line + 1,
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    try:
        data = yaml.load(fm, Loader=_Loader)
    except RecordParseError:
        raise
    except RecursionError:
        raise RecordParseError("frontmatter nests too deeply", path=path, rule="E102.6") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = line_offset + mark.line + 1 if mark is not None else None
        raise RecordParseError(
            f"frontmatter is not valid YAML: {exc.problem or exc}", path=path, line=line, rule="E102.2"
        ) from None
    except yaml.YAMLError as exc:
        raise RecordParseError(f"frontmatter is not valid YAML: {exc}", path=path, rule="E102.2") from None
    except (ValueError, OverflowError) as exc:
        # a scalar YAML resolves to a type whose value is impossible: a timestamp on day 0 or
        # 30 February, an integer past float range; yaml's constructors raise these bare
        raise RecordParseError(
            f"frontmatter is not valid YAML: a value cannot be read ({exc})", path=path, rule="E102.2"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RecordParseError("frontmatter is not a mapping of keys to values", path=path, line=2, rule="E102.2")
    return data


def parse_record(text: str, path: str | Path | None = None) -> Record:
    """Parse the text of a record file (canonical or not) into a validated :class:`Record`.

    Raises :class:`RecordParseError` naming the file (and line) on any problem.
    """
    p = str(path) if path is not None else None
    fm, body, _ = split_record_text(text, p)
    try:
        data = fast_frontmatter(fm)
        if data is None:
            data = _safe_yaml(fm, p, 1)
        return record_from_mapping(data, body, p)
    except RecursionError:  # e.g. 5,000 nested brackets in a JSON value of a line
        raise RecordParseError("frontmatter nests too deeply", path=p, rule="E102.6") from None


#: The sub-rule (spec/validation-codes.md) of a key whose value has the wrong type.
_KEY_RULES = {"id": "E103.2", "scope": "E103.3", "kind": "E103.4", "status": "E103.5", "tags": "E103.9",
              "supersedes": "E103.10", "derived_from": "E103.10"}


def record_from_mapping(data: Mapping[str, Any], body: str, path: str | None = None) -> Record:
    """Build a record from parsed frontmatter and a body; errors name the file and the key."""
    missing = [k for k in REQUIRED_KEYS if k not in data or data[k] in (None, "")]
    if missing:
        raise RecordParseError(f"frontmatter lacks required key(s): {', '.join(missing)}", path=path, rule="E103.1")

    def _list(key: str) -> tuple[str, ...]:
        v = data.get(key)
        if v is None:
            return ()
        if isinstance(v, str):
            return (v,)
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise RecordParseError(f"{key} must be a list of strings", path=path, rule=_KEY_RULES[key])
        return tuple(v)

    def _time(key: str) -> _dt.datetime | None:
        v = data.get(key)
        if v in (None, ""):
            return None
        try:
            return parse_time(v, key)
        except ValidationError as exc:
            raise RecordParseError(exc.message, path=path, rule=exc.rule) from None

    src = data.get("source") or {}
    if not isinstance(src, dict):
        raise RecordParseError("source must be a mapping", path=path, rule="E103.11")
    conf = data.get("confidence", 1.0)
    if isinstance(conf, str):
        try:
            conf = float(conf)
        except ValueError:
            raise RecordParseError(f"confidence {conf!r} is not a number", path=path, rule="E103.6") from None
    scope = data.get("scope")
    kind = data.get("kind")
    rid = data.get("id")
    status = data.get("status")
    for key, val in (("id", rid), ("scope", scope), ("kind", kind), ("status", status)):
        if not isinstance(val, str):
            raise RecordParseError(f"{key} must be a string, found {val!r}", path=path, rule=_KEY_RULES[key])
    superseded_by = data.get("superseded_by")
    if superseded_by is not None and not isinstance(superseded_by, str):
        raise RecordParseError("superseded_by must be a record id", path=path, rule="E103.10")
    extra = {} if data.keys() <= _KEY_SET else {k: v for k, v in data.items() if k not in _KEY_SET}
    recorded_at = _time("recorded_at")
    assert recorded_at is not None
    try:
        rec = validate_record(
            Record(
                id=str(rid),
                scope=str(scope),
                kind=str(kind),
                content=body,
                status=str(status),
                confidence=conf,
                tags=_list("tags") if "tags" in data else (),
                valid_from=_time("valid_from") if "valid_from" in data else None,
                valid_to=_time("valid_to") if "valid_to" in data else None,
                recorded_at=recorded_at,
                updated_at=_time("updated_at") if "updated_at" in data else None,
                superseded_at=_time("superseded_at") if "superseded_at" in data else None,
                supersedes=_list("supersedes") if "supersedes" in data else (),
                superseded_by=superseded_by,
                derived_from=_list("derived_from") if "derived_from" in data else (),
                source={str(k): _jsonable(v) for k, v in src.items()},
                extra={str(k): _jsonable(v) for k, v in extra.items()},
            )
        )
    except ValidationError as exc:
        raise RecordParseError(exc.message, path=path, rule=exc.rule) from None
    if not isinstance(data.get("digest"), str):
        raise RecordParseError("digest must be a string", path=path, rule="E103.13")
    return rec


stored_digest = _rt.stored_digest


def read_record_file(path: Path) -> tuple[Record, str]:
    """Read and parse a record file; returns the record and the file's text."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RecordParseError(f"cannot read record: {exc.strerror}", path=path, rule="E102") from None
    if len(raw) > MAX_RECORD_BYTES + MAX_FRONTMATTER_BYTES:
        raise RecordParseError(f"record file is larger than {MAX_RECORD_BYTES} bytes", path=path, rule="E102.3")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise RecordParseError(
            f"record is not valid UTF-8 (byte {exc.start})", path=path, line=line, rule="E101"
        ) from None
    return parse_record(text, path), text
