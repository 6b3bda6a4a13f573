"""Validating a summarizer's answer (the schema: spec/schemas/consolidate-answer.schema.json)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from mem.format.ops.consolidate.model import (
    MAX_ANSWER_BYTES,
    MAX_FACTS,
    MAX_SUPERSEDES,
    MAX_TAGS,
    Answer,
    Fact,
    Options,
    Refusal,
    Supersession,
)
from mem.format.rules import ids

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
