"""The watermark (state/consolidate.json) and the journal of validated answers (.mem/consolidate-pending/)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mem.format.base.errors import StoreInvalidError, ValidationError
from mem.format.base.fsutil import atomic_write, ensure_dir
from mem.format.ops.consolidate.model import JOURNAL_DIR, STATE_FILE, VERSION, WATERMARK_FORMAT
from mem.format.rules import ids
from mem.format.rules.timeutil import format_time, parse_time
from mem.format.store.store import Store


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
