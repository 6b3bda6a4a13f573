"""Forgetting: records and everything derived from them removed (tombstone first, then the file,
then the log), what they had superseded restored, and a forget cut short completed."""

from __future__ import annotations

import builtins
import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mem.format.base.errors import NotFoundError, RecordParseError
from mem.format.base.fsutil import remove_file
from mem.format.model.record import Record
from mem.format.model.tombstones import Tombstone
from mem.format.rules.timeutil import format_time, now
from mem.format.store.sourcekey import source_key
from mem.format.store.writes import Change, StoreWrites


@dataclass
class ForgetPlan:
    """What a forget removes: the requested records and everything derived from them."""

    requested: list[Record] = field(default_factory=list)
    cascade: list[tuple[Record, str]] = field(default_factory=list)  # (record, derived from id)
    #: records a forgotten record had superseded: they become current again, as they were
    #: before the supersession (the forgotten record is as if it had never been learned)
    restored: list[Record] = field(default_factory=list)

    @property
    def records(self) -> list[Record]:
        return self.requested + [r for r, _ in self.cascade]

    def to_dict(self) -> dict[str, Any]:
        return {
            "requested": [_brief(r) for r in self.requested],
            "cascade": [dict(_brief(r), derived_from=src) for r, src in self.cascade],
            "restored": [_brief(r) for r in self.restored],
            "count": len(self.records),
        }


def _brief(r: Record) -> dict[str, Any]:
    return {"id": r.id, "scope": r.scope, "kind": r.kind, "status": r.status, "content": r.content}


def _leaves_first(records: Sequence[Record]) -> list[Record]:
    """``records`` ordered so that each comes after every record derived from it."""
    by_id = {r.id: r for r in records}
    children: dict[str, list[str]] = {}
    for r in records:
        for src in r.derived_from:
            if src in by_id and src != r.id:
                children.setdefault(src, []).append(r.id)
    out: list[Record] = []
    done: set[str] = set()
    for start in by_id:
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            rid, k = stack.pop()
            if rid in done:
                continue
            kids = children.get(rid, [])
            if k < len(kids):
                stack.append((rid, k + 1))
                if kids[k] not in done:
                    stack.append((kids[k], 0))
            else:
                done.add(rid)
                out.append(by_id[rid])
    return out


class StoreForgetting(StoreWrites):
    """A store's forgets."""

    def plan_forget(
        self, record_ids: Iterable[str], scope: str | Sequence[str] | None = None
    ) -> ForgetPlan:
        """The records a forget of ``record_ids`` removes, with the cascade through lineage.

        ``scope`` (one scope, or several tried in order) is where the ids are looked up: an id
        present in two scopes resolves to the copy there."""
        plan = ForgetPlan()
        seen: set[str] = set()
        for rid in record_ids:
            rec = self._get_in(rid, scope)
            if rec.id not in seen:
                seen.add(rec.id)
                plan.requested.append(rec)
        derived = self.derived_index()
        queue = [r.id for r in plan.requested]
        while queue:
            src = queue.pop(0)
            children: builtins.list[Record] = derived.get(src, [])
            for child in sorted(children, key=lambda r: r.id):
                if child.id in seen:
                    continue
                seen.add(child.id)
                plan.cascade.append((child, src))
                queue.append(child.id)
        plan.restored = self._restorations(plan.records, seen)
        return plan

    def _get_in(self, record_id: str, scope: str | Sequence[str] | None) -> Record:
        """``get`` in one scope, or in the first of several scopes that holds the id."""
        if scope is None or isinstance(scope, str):
            return self.get(record_id, scope)
        first: NotFoundError | None = None
        for s in scope:
            try:
                return self.get(record_id, s)
            except NotFoundError as exc:
                first = first or exc
        raise first or NotFoundError(f"no record {record_id}")

    def _superseded_copy(self, old_id: str, by: Record) -> Record | None:
        """The record ``old_id`` that ``by`` superseded: the copy in ``by``'s scope first (an id
        present in two scopes resolves to the one that names ``by`` as its successor)."""
        for s in [by.scope, *(x for x in self.scopes() if x != by.scope)]:
            try:
                old = self.get(old_id, s)
            except (NotFoundError, RecordParseError):
                continue
            if old.status == "superseded" and old.superseded_by == by.id:
                return old
        return None

    def _restorations(self, forgotten: Iterable[Record], gone: set[str]) -> builtins.list[Record]:
        """Records superseded by a record that is being forgotten, as they will be restored."""
        out: builtins.list[Record] = []
        prior: dict[str, str] | None = None
        for r in forgotten:
            for old_id in r.supersedes:
                if old_id in gone:
                    continue
                old = self._superseded_copy(old_id, r)
                if old is None:
                    continue
                if prior is None:
                    prior = {
                        str(e["id"]): str((e.get("detail") or {}).get("previous_status", "active"))
                        for e in self.log.iter_events()
                        if e.get("op") in ("update", "repair") and (e.get("detail") or {}).get("superseded_by")
                    }
                status = prior.get(old.id, "active")
                ended_by_it = old.valid_to is not None and old.valid_to in (r.valid_from, r.recorded_at)
                out.append(
                    old.with_changes(
                        status=status if status in ("active", "candidate") else "active",
                        superseded_by=None,
                        superseded_at=None,
                        valid_to=None if ended_by_it else old.valid_to,
                        updated_at=now(),
                    )
                )
        return out

    def forget(
        self,
        record_ids: Iterable[str],
        *,
        reason: str = "",
        scope: str | Sequence[str] | None = None,
        dry_run: bool = False,
        check: Callable[[ForgetPlan], None] | None = None,
    ) -> ForgetPlan:
        """Forget records and everything derived from them; returns what was (or would be) removed.

        For each record: the tombstone is appended and synced, then the file is removed, then
        the event is logged, then the indexes drop it. Content never reaches the tombstone or
        the log. ``check`` sees the plan under the writer lock before anything is written (and
        may refuse it by raising): what it approved is what is forgotten.
        """
        with self.lock:
            plan = self.plan_forget(record_ids, scope)
            if check is not None:
                check(plan)
            if dry_run:
                return plan
            with self.writing({r.scope for r in plan.records}):
                at = format_time(now())
                changes: builtins.list[Change] = []
                cascade_src = {r.id: src for r, src in plan.cascade}
                # derived records go before their sources: a crash part-way never leaves a live
                # record whose source is already forgotten (re-running the forget completes it)
                for rec in _leaves_first(plan.records):
                    self.tombstones.add(
                        Tombstone(
                            id=rec.id,
                            scope=rec.scope,
                            digest=rec.match_digest,
                            forgotten_at=at,
                            reason=reason,
                            actor=self.actor,
                            cascade_of=cascade_src.get(rec.id),
                            source_key=source_key(rec.source),
                        ),
                        sync=self._sync,
                    )
                    remove_file(self.record_path(rec.scope, rec.id), sync=self._sync)
                    detail: dict[str, Any] = {"reason": reason}
                    if rec.id in cascade_src:
                        detail["cascade_of"] = cascade_src[rec.id]
                    self.log.append(
                        "forget", id=rec.id, scope=rec.scope, before=rec.digest, detail=detail, sync=self._sync
                    )
                    changes.append(Change("delete", rec.id, rec.scope))
                for restored in plan.restored:
                    was = self.get(restored.id, restored.scope)
                    self._write_file(restored)
                    self.log.append(
                        "update",
                        id=restored.id,
                        scope=restored.scope,
                        before=was.digest,
                        after=restored.digest,
                        detail={"restored": True, "superseded_by_forgotten": was.superseded_by},
                        sync=self._sync,
                    )
                    changes.append(Change("put", restored.id, restored.scope, restored))
            # copies mem keeps outside the records go too: the draft of a failed `mem edit`
            for rec in plan.records:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.drafts_dir / f"{rec.id}.md")
        self._notify(changes)
        return plan

    def complete_interrupted_forgets(self) -> builtins.list[str]:
        """Remove record files whose id is tombstoned (a forget that crashed before removal)."""
        done: builtins.list[str] = []
        with self.lock:
            for scope in self.tombstones.scopes():
                for rid in list(self.tombstones.load(scope).ids):
                    p = self.records_dir / scope / f"{rid}.md"
                    if p.exists():
                        before = None
                        with contextlib.suppress(RecordParseError, OSError):
                            before = self.read_path(p).digest
                        remove_file(p)
                        self.log.append(
                            "forget", id=rid, scope=scope, before=before,
                            detail={"reason": "completing an interrupted forget"},
                        )
                        done.append(rid)
                        self._notify([Change("delete", rid, scope)])
        return done
