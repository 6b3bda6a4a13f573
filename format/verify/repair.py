"""Explicit repair after a crash or an outside edit: nothing here runs unless asked.

``repair(store)`` takes the writer lock and
1. moves a torn last line of any audit chain or tombstone file to ``.mem/quarantine/``
   (never silently dropped: the event logged says how many bytes, and the bytes are kept);
2. completes interrupted forgets (a record file whose id is tombstoned);
3. completes interrupted supersessions (a new record lists ``supersedes: [old]`` while the old
   one is still active or candidate);
4. removes leftover temporary files of interrupted writes;
5. logs an ``adopt`` event for a record that has no audit event at all (a write cut off
   between the record file and its log line, or a file copied in); with ``adopt=True``, it
   also accepts changes made outside mem (e.g. in an editor): a record whose
   file is not canonical (or whose ``digest:`` line is stale) is rewritten canonically, and an
   ``adopt`` event is logged for each record whose digest differs from what the audit log last
   recorded for it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import RecordParseError
from mem.format.base.fsutil import TMP_MARKER, remove_file
from mem.format.base.jsonl import has_torn_tail, repair_torn_tail
from mem.format.model.record import dump_record
from mem.format.rules.timeutil import now
from mem.format.store.store import (
    LOG_DIR,
    RECORDS_DIR,
    STATE_DIR,
    TOMBSTONES_DIR,
    Change,
    Store,
    superseded_version,
)


@dataclass
class RepairReport:
    torn_tails: list[dict[str, Any]] = field(default_factory=list)
    completed_forgets: list[str] = field(default_factory=list)
    completed_supersessions: list[str] = field(default_factory=list)
    removed_temp_files: list[str] = field(default_factory=list)
    adopted: list[str] = field(default_factory=list)
    #: records changed outside mem (content, digest line or form) that only ``--adopt`` accepts
    needs_adopt: list[str] = field(default_factory=list)
    dry_run: bool = False

    @property
    def changed(self) -> bool:
        return bool(
            self.torn_tails
            or self.completed_forgets
            or self.completed_supersessions
            or self.removed_temp_files
            or self.adopted
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "torn_tails": self.torn_tails,
            "completed_forgets": self.completed_forgets,
            "completed_supersessions": self.completed_supersessions,
            "removed_temp_files": self.removed_temp_files,
            "adopted": self.adopted,
            "needs_adopt": self.needs_adopt,
        }


def last_logged_digests(store: Store) -> dict[str, str | None]:
    """record id -> digest after its latest event (None when the latest event removed it)."""
    out: dict[str, str | None] = {}
    for ev in store.log.iter_events():
        rid = ev.get("id")
        if isinstance(rid, str) and ev.get("op") not in ("lift-tombstone", "sighting"):
            after = ev.get("after")
            out[rid] = after if isinstance(after, str) else None
    return out


def repair(store: Store, *, dry_run: bool = False, adopt: bool = False) -> RepairReport:
    rep = RepairReport(dry_run=dry_run)
    with store.lock:
        # 1. torn tails
        jsonl_files = sorted((store.root / LOG_DIR).glob("*.jsonl")) + sorted(
            (store.root / TOMBSTONES_DIR).glob("*.jsonl")
        )
        for p in jsonl_files:
            if has_torn_tail(p):
                size = p.stat().st_size
                entry: dict[str, Any] = {"path": str(p.relative_to(store.root))}
                if not dry_run:
                    tail = repair_torn_tail(p, store.local_dir / "quarantine")
                    entry["bytes"] = len(tail or b"")
                else:
                    data = p.read_bytes()
                    entry["bytes"] = size - (data.rfind(b"\n") + 1)
                rep.torn_tails.append(entry)
        if rep.torn_tails and not dry_run:
            store.log._tail = None
            for entry in rep.torn_tails:
                store.log.append(
                    "repair",
                    detail={"action": "quarantined torn line", "path": entry["path"], "bytes": entry["bytes"]},
                )
        # 2. interrupted forgets
        for scope in store.tombstones.scopes():
            for rid in list(store.tombstones.load(scope).ids):
                if (store.records_dir / scope / f"{rid}.md").exists():
                    rep.completed_forgets.append(rid)
        if rep.completed_forgets and not dry_run:
            store.complete_interrupted_forgets()
        # 3. interrupted supersessions
        live = {}
        with contextlib.suppress(RecordParseError):
            live = {r.id: r for r in store.iter_records(on_error=lambda e: None)}
        for r in live.values():
            for old_id in r.supersedes:
                old = live.get(old_id)
                if old is not None and old.status in ("active", "candidate") and old.superseded_by is None:
                    rep.completed_supersessions.append(old_id)
                    if not dry_run:
                        new_old = superseded_version(old, r.id, r.recorded_at, r.valid_from or r.recorded_at)
                        new_old = new_old.with_changes(updated_at=now())
                        store._write_file(new_old)
                        store.log.append(
                            "repair",
                            id=old.id,
                            scope=old.scope,
                            before=old.digest,
                            after=new_old.digest,
                            detail={"action": "completed supersession", "superseded_by": r.id,
                                    "previous_status": old.status},
                        )
                        store._notify([Change("put", old.id, old.scope, new_old)])
        # 3b. a superseded record whose successor was forgotten by an interrupted forget
        for r in live.values():
            succ = r.superseded_by
            if r.status == "superseded" and succ and succ not in live and store.tombstones.find_id(succ):
                rep.completed_supersessions.append(r.id)
                if not dry_run:
                    ghost = r.with_changes(id=succ, supersedes=(r.id,), status="active", superseded_by=None)
                    for restored in store._restorations([ghost], set()):
                        store._write_file(restored)
                        store.log.append(
                            "repair",
                            id=r.id,
                            scope=r.scope,
                            before=r.digest,
                            after=restored.digest,
                            detail={"action": "restored a record whose successor was forgotten"},
                        )
                        store._notify([Change("put", r.id, r.scope, restored)])
        # 4. temp files (we hold the lock: no writer of ours is running)
        for sub in (RECORDS_DIR, TOMBSTONES_DIR, LOG_DIR, STATE_DIR, "."):
            base = store.root / sub
            if not base.is_dir():
                continue
            walker = os.walk(base) if sub != "." else [(str(base), [], os.listdir(base))]
            for dirpath, _dirs, files in walker:
                for f in files:
                    if TMP_MARKER in f:
                        tmp = Path(dirpath) / f
                        rep.removed_temp_files.append(os.path.relpath(tmp, store.root))
                        if not dry_run:
                            remove_file(tmp)
        # 5. records with no audit event at all (a write interrupted between the record and its
        #    log line, or a file created outside mem) are always logged; with ``adopt``, records
        #    changed outside mem are too (rewritten canonically when their file is not)
        logged = last_logged_digests(store)
        for r in live.values():
            if r.id in rep.completed_forgets:
                continue
            unlogged = r.id not in logged
            path = store.record_path(r.scope, r.id)
            stale_file = path.read_text("utf-8") != dump_record(r)
            outside = logged.get(r.id) != r.digest or stale_file
            if not unlogged and outside and not adopt:
                rep.needs_adopt.append(r.id)  # reported, so that a repair never hides it
                continue
            if not (unlogged or (adopt and outside)):
                continue
            rep.adopted.append(r.id)
            if dry_run:
                continue
            if stale_file:
                store._write_file(r)  # canonical form, digest line recomputed
            store.log.append(
                "adopt",
                id=r.id,
                scope=r.scope,
                before=logged.get(r.id),
                after=r.digest,
                detail={
                    "reason": "record had no audit event" if unlogged else "record changed outside mem"
                },
            )
    return rep
