"""Values for shell completion: the scopes, kinds and tags a store uses.

Completion runs on every <TAB>, so this must stay cheap on a large store. Scopes are a directory
listing. Kinds and tags come from the records, cached per scope in ``.mem/completion.json``
and keyed on the scope directory's mtime: every write of a record file (an atomic rename into
the directory) changes it, so only scopes changed since the last completion are re-read.
The cache is derived data: if it does not parse it is rebuilt, never trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

from mem.format.base.fsutil import atomic_write
from mem.format.rules.ids import KNOWN_KINDS
from mem.format.store.store import Store

CACHE_FILE = "completion.json"
CACHE_VERSION = 1
WHATS: tuple[str, ...] = ("scopes", "kinds", "tags")


def _scope_mtime(store: Store, scope: str) -> int:
    try:
        return os.stat(store.records_dir / scope).st_mtime_ns
    except OSError:
        return -1


def _scan_scope(store: Store, scope: str) -> dict[str, Any]:
    kinds: set[str] = set()
    tags: set[str] = set()
    for rec in store.iter_records([scope], on_error=lambda exc: None):
        kinds.add(rec.kind)
        tags.update(rec.tags)
    return {"mtime_ns": _scope_mtime(store, scope), "kinds": sorted(kinds), "tags": sorted(tags)}


def _load_cache(store: Store) -> dict[str, Any]:
    path = store.root / ".mem" / CACHE_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    scopes = data.get("scopes")
    return scopes if isinstance(scopes, dict) else {}


def vocabulary(store: Store) -> dict[str, list[str]]:
    """``{"scopes": [...], "kinds": [...], "tags": [...]}`` of the store (kinds include the
    format's known kinds)."""
    scopes = store.scopes()
    cached = _load_cache(store)
    fresh: dict[str, Any] = {}
    changed = False
    for scope in scopes:
        entry = cached.get(scope)
        if (
            isinstance(entry, dict)
            and entry.get("mtime_ns") == _scope_mtime(store, scope)
            and isinstance(entry.get("kinds"), list)
            and isinstance(entry.get("tags"), list)
        ):
            fresh[scope] = entry
        else:
            fresh[scope] = _scan_scope(store, scope)
            changed = True
    if changed or set(cached) != set(fresh):
        with contextlib.suppress(OSError):  # a read-only store still completes
            atomic_write(
                store.local_dir / CACHE_FILE,
                json.dumps({"version": CACHE_VERSION, "scopes": fresh}, sort_keys=True),
                sync=False,
            )
    kinds = set(KNOWN_KINDS)
    tags: set[str] = set()
    for entry in fresh.values():
        kinds.update(str(k) for k in entry["kinds"])
        tags.update(str(t) for t in entry["tags"])
    return {"scopes": scopes, "kinds": sorted(kinds), "tags": sorted(tags)}


def values(store: Store | None, what: str) -> list[str]:
    """One list of :func:`vocabulary` (``what`` in scopes, kinds, tags); no store: kinds only."""
    if what not in WHATS:
        raise ValueError(f"unknown completion value set {what!r}")
    if store is None:
        return sorted(KNOWN_KINDS) if what == "kinds" else []
    return vocabulary(store)[what]
