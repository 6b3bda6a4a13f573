"""The store: a directory of records, tombstones and an audit log, plus derived indexes.

Layout (``spec/format.md``, "Store layout")::

    memstore.json            declaration: format name, version, extensions
    config.toml              optional settings
    records/<scope>/<id>.md  one record per file (the source of truth)
    tombstones/<scope>.jsonl what was forgotten (never the content)
    log/<clone-id>.jsonl     hash-chained audit log, one chain per clone
    state/                   tracked progress markers (capture and consolidation watermarks)
    .mem/                    local and derived: lock, clone id, indexes (git-ignored)

Write order (a crash at any point loses no reported record): record file (atomic rename,
fsync), then the audit event, then derived indexes. Forget writes the tombstone first, then
removes the file, then logs; a record whose id is tombstoned is treated as forgotten by every
read path, so an interrupted forget can never resurface.

One concept a module: ``opening`` (open, init, paths), ``reads``, ``writes`` (the write machinery
and the writes of one record), ``supersession``, ``forgetting``, ``filters`` (``RecordFilter``),
``sourcekey``; ``Store`` is built of them, and their public names are importable from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mem.format.model.record import STATUSES, match_digest
from mem.format.rules.layout import LOCAL_DIR as LOCAL_DIR
from mem.format.rules.layout import LOCK_TIMEOUT_ENV as LOCK_TIMEOUT_ENV
from mem.format.rules.layout import LOG_DIR as LOG_DIR
from mem.format.rules.layout import RECORDS_DIR as RECORDS_DIR
from mem.format.rules.layout import STATE_DIR as STATE_DIR
from mem.format.rules.layout import STORE_ENV as STORE_ENV
from mem.format.rules.layout import TOMBSTONES_DIR as TOMBSTONES_DIR
from mem.format.rules.ranking import DEFAULT_STATUSES as DEFAULT_STATUSES
from mem.format.store.filters import RecordFilter
from mem.format.store.forgetting import ForgetPlan, StoreForgetting
from mem.format.store.opening import find_store_root
from mem.format.store.sourcekey import source_key
from mem.format.store.supersession import StoreSupersession
from mem.format.store.supersession import superseded_version as superseded_version
from mem.format.store.writes import Change
from mem.format.store.writes import check_supersession_fields as check_supersession_fields


class Store(StoreSupersession, StoreForgetting):
    """An open store. Reads need no lock; every write takes the store-wide writer lock."""

    def stats(self, counts: Iterable[tuple[str, str, str, int]] | None = None) -> dict[str, Any]:
        """Records by scope, kind and status, and tombstones. Every record is read (those that
        cannot be are left out), unless ``counts`` gives (scope, kind, status, records) already
        (``listing.stats``: from the lexical index's state)."""
        if counts is None:
            counts = ((r.scope, r.kind, r.status, 1) for r in self.iter_records(on_error=lambda e: None))
        by_scope: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        by_status: dict[str, int] = dict.fromkeys(STATUSES, 0)
        total = 0
        for scope, kind, status, n in counts:
            total += n
            by_scope[scope] = by_scope.get(scope, 0) + n
            by_kind[kind] = by_kind.get(kind, 0) + n
            by_status[status] = by_status.get(status, 0) + n
        tomb = sum(1 for _ in self.tombstones)
        return {
            "store": str(self.root),
            "format": self.declaration.format,
            "version": self.declaration.version,
            "records": total,
            "by_scope": dict(sorted(by_scope.items())),
            "by_kind": dict(sorted(by_kind.items())),
            "by_status": by_status,
            "tombstones": tomb,
        }


def open_store(path: str | Path | None = None, **kwargs: Any) -> Store:
    """Open a store (see :meth:`Store.open`)."""
    return Store.open(path, **kwargs)


__all__ = [
    "Change",
    "ForgetPlan",
    "RecordFilter",
    "Store",
    "find_store_root",
    "match_digest",
    "open_store",
    "source_key",
]
