"""JSON Lines import: the full export shape (``spec/export.md``) and the minimal script shape.

Each line is one JSON object. ``{"type": "header", ...}`` (first line of an export) is checked;
``{"type": "tombstone"}`` and ``{"type": "lift"}`` lines carry what the exporting store forgot;
anything else (``"type": "record"`` or no type) is a memory. An object with an ``id`` is a record
with its own identity and is written exactly as given; an object without one needs only
``content``. A bad line is reported with its line number and the rest still imports.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from mem.format.base.errors import InvalidInputError, NotFoundError, ValidationError
from mem.format.interchange.importers.base import (
    Entry,
    ImportItem,
    Problem,
    ReadOptions,
    Tombstoneish,
    Where,
    foreign_time,
)
from mem.format.model.record import KEY_ORDER, STATUSES, Record, content_digest, validate_record
from mem.format.rules import ids
from mem.format.rules.timeutil import parse_time

EXPORT_FORMAT = "mem-export"
EXPORT_VERSION = 1

#: Keys a record object may have (the export shape); others are refused, so typos are seen.
RECORD_KEYS = frozenset(
    {
        "type", "id", "scope", "kind", "status", "confidence", "tags", "content", "valid_from",
        "valid_to", "recorded_at", "updated_at", "superseded_at", "supersedes", "superseded_by",
        "derived_from", "source", "digest", "extra",
    }
)  # fmt: skip


def check_header(obj: Mapping[str, Any], where: Where) -> None:
    fmt, version = obj.get("format"), obj.get("version")
    if fmt != EXPORT_FORMAT:
        raise InvalidInputError(
            f"header names format {fmt!r}, not {EXPORT_FORMAT!r}", path=where.file, line=where.line
        )
    if not isinstance(version, int) or isinstance(version, bool) or version > EXPORT_VERSION:
        raise InvalidInputError(
            f"export version {version!r} is not supported (this mem reads version {EXPORT_VERSION})",
            path=where.file,
            line=where.line,
            hint="upgrade mem",
        )


def _str_list(obj: Mapping[str, Any], key: str) -> tuple[str, ...]:
    v = obj.get(key)
    if v is None or v == "":
        return ()
    if isinstance(v, str):
        return tuple(x for x in v.replace(",", " ").split() if x)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValidationError(f"{key} must be a list of strings")
    return tuple(v)


def _opt_str(obj: Mapping[str, Any], key: str) -> str | None:
    v = obj.get(key)
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise ValidationError(f"{key} must be a string, found {v!r}")
    return v


def _confidence(obj: Mapping[str, Any]) -> float:
    v = obj.get("confidence", 1.0)
    if v is None or v == "":
        return 1.0
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            raise ValidationError(f"confidence {v!r} is not a number") from None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValidationError(f"confidence {v!r} is not a number")
    return float(v)


def _mapping(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    v = obj.get(key)
    if v is None or v == "":
        return {}
    if not isinstance(v, dict):
        raise ValidationError(f"{key} must be an object")
    return dict(v)


def item_from_object(
    obj: Mapping[str, Any], where: Where, opts: ReadOptions, system: str = "jsonl"
) -> ImportItem:
    """One memory object (full export shape or minimal) as an import item; raises ValidationError."""
    unknown = sorted(k for k in obj if k not in RECORD_KEYS)
    if unknown:
        raise ValidationError(f"unknown key(s) {', '.join(unknown)} (see spec/export.md)")
    content = obj.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ValidationError("content is missing or empty (it is the one required key)")
    digest = obj.get("digest")
    if digest is not None and digest != content_digest(content):
        raise ValidationError(
            "digest does not match the content (was the content changed after export?)",
        )
    tags = _str_list(obj, "tags")
    status = obj.get("status") or "active"
    if status not in STATUSES:
        raise ValidationError(f"status {status!r} is not one of {', '.join(STATUSES)}")
    source = _mapping(obj, "source")
    extra = _mapping(obj, "extra")
    for k in extra:
        if k in KEY_ORDER or k == "content":
            raise ValidationError(f"extra key {k!r} is a reserved frontmatter key")

    def t(key: str) -> Any:
        return foreign_time(obj.get(key), opts.timezone, key)

    rid = _opt_str(obj, "id")
    scope = _opt_str(obj, "scope")
    if rid is not None:
        rid = ids.check_id(ids.normalize_id(rid))
        recorded_at = t("recorded_at")
        if recorded_at is None:  # the time encoded in the id
            recorded_at = parse_time(ids.id_time_ms(rid) / 1000.0, "recorded_at")
        # the scope is set (and checked) by the importer, after --scope/--scope-map
        rec = validate_record(
            Record(
                id=rid,
                scope="default",
                kind=str(obj.get("kind") or "note"),
                content=content,
                status=status,
                confidence=_confidence(obj),
                tags=tags,
                valid_from=t("valid_from"),
                valid_to=t("valid_to"),
                recorded_at=recorded_at,
                updated_at=t("updated_at"),
                superseded_at=t("superseded_at"),
                supersedes=tuple(ids.normalize_id(x) for x in _str_list(obj, "supersedes")),
                superseded_by=(
                    ids.normalize_id(sb) if (sb := _opt_str(obj, "superseded_by")) else None
                ),
                derived_from=tuple(ids.normalize_id(x) for x in _str_list(obj, "derived_from")),
                source=source,
                extra=extra,
            )
        )
        return ImportItem(
            system=system,
            content=rec.content,
            where=where,
            original_id=rid,
            scope=scope,
            kind=rec.kind,
            record=rec,
        )
    kind = str(obj.get("kind") or "note")
    ids.check_kind(kind)
    for tg in tags:
        ids.check_tag(tg)
    orig = source.get("original_id")
    return ImportItem(
        system=system,
        content=content,
        where=where,
        original_id=None if orig is None else str(orig),
        scope=scope,
        kind=kind,
        status=status,
        confidence=_confidence(obj),
        tags=tags,
        recorded_at=t("recorded_at"),
        valid_from=t("valid_from"),
        valid_to=t("valid_to"),
        updated_at=t("updated_at"),
        source=source,
        derived_from=tuple(ids.check_id(ids.normalize_id(x)) for x in _str_list(obj, "derived_from")),
        extra=extra,
    )


def entry_from_object(
    obj: Any, where: Where, opts: ReadOptions, *, first: bool, system: str = "jsonl"
) -> Entry | None:
    """One parsed line as an entry (None for the header, which is checked)."""
    if not isinstance(obj, dict):
        return Problem("invalid", "not a JSON object", where)
    typ = obj.get("type", "record")
    if typ == "header":
        if not first:
            return Problem("invalid", "a header is only allowed on the first line", where)
        check_header(obj, where)
        return None
    if typ in ("tombstone", "lift"):
        return Tombstoneish(obj, where)
    if typ != "record":
        return Problem("invalid", f"unknown type {typ!r} (record, tombstone, lift or header)", where)
    try:
        return item_from_object(obj, where, opts, system)
    except ValidationError as exc:
        orig = obj.get("id") if isinstance(obj.get("id"), str) else None
        return Problem("invalid", exc.message, where, orig)


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    """Entries of a JSON Lines file (``-`` is not handled here: the CLI passes a path)."""
    name = opts.display or str(path)
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below; the file is streamed
    except FileNotFoundError:
        raise NotFoundError("no such file", path=path) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read: {exc.strerror}", path=path) from None
    with f:
        first = True
        for lineno, raw in enumerate(f, start=1):
            where = Where(name, lineno)
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue  # blank lines are allowed (a trailing newline, a separator)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Problem("invalid", f"not valid UTF-8 (byte {exc.start} of the line)", where)
                first = False
                continue
            try:
                obj = json.loads(text)
            except ValueError as exc:
                yield Problem("invalid", f"not JSON: {exc}", where)
                first = False
                continue
            entry = entry_from_object(obj, where, opts, first=first)
            first = False
            if entry is not None:
                yield entry
