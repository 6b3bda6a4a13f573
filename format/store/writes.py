"""Writing a store: the write machinery (the writer lock, batches, undo on failure, the listeners
told of each ``Change``), the tombstone check, and the writes of one record: ``put``, ``add``,
``update``, ``replace``, ``set_status``."""

from __future__ import annotations

import builtins
import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from mem.format.base.errors import ConflictError, NotFoundError, TombstonedError, ValidationError
from mem.format.base.fsutil import atomic_write, ensure_dir, remove_file, undoable
from mem.format.base.jsonl import TornTailError, has_torn_tail
from mem.format.model.record import (
    Record,
    canonical_body,
    dump_record,
    make_record,
    validate_record,
)
from mem.format.rules import ids
from mem.format.rules.secretpolicy import check_record
from mem.format.rules.timeutil import format_time, now, parse_time
from mem.format.store.reads import StoreReads
from mem.format.store.sourcekey import source_key


def _writer() -> str:
    from mem import __version__

    return f"mem {__version__}"


@dataclass(frozen=True, slots=True)
class Change:
    """One committed change, as given to index listeners."""

    op: str  # "put" (added or rewritten) or "delete"
    id: str
    scope: str
    record: Record | None = None  # the record written; None in the changes of a batch
    old_scope: str | None = None


def _secret_detail(detail: Mapping[str, Any] | None, allowed: str | None) -> dict[str, Any]:
    """The audit detail of a write, with ``allow_secret: <rule>`` when the secrets policy was
    overridden (the rule's name only, never the text)."""
    out = dict(detail or {})
    if allowed is not None:
        out["allow_secret"] = allowed
    return out


def check_supersession_fields(rec: Record) -> None:
    """Refuse a record whose status and ``superseded_by`` disagree (``mem verify``'s E208):
    writers refuse what verify rejects."""
    if rec.status == "superseded" and rec.superseded_by is None:
        raise ValidationError(
            f"record {rec.id} has status superseded but no superseded_by [E208]",
            hint="set superseded_by to the record that replaced it, or use `mem supersede`",
        )
    if rec.superseded_by is not None and rec.status != "superseded":
        raise ValidationError(
            f"record {rec.id} names superseded_by {rec.superseded_by} but its status is "
            f"{rec.status} [E208]",
            hint="a record with a successor has status superseded",
        )


class StoreWrites(StoreReads):
    """A store's writes of one record, and the machinery every write uses."""

    @contextlib.contextmanager
    def batch(self) -> Iterator[Self]:
        """Group many writes: one lock, deferred fsync and one index update at the end."""
        self.lock.acquire()
        outer = self._batch is None
        if outer:
            self._batch = []
        self._batch_depth += 1
        try:
            yield self
        finally:
            self._batch_depth -= 1
            changes: builtins.list[Change] = []
            if outer:
                changes, self._batch = self._batch or [], None
                self._batch_ids = None
            try:
                if outer and changes:
                    os.sync()
                    self.log.sync()
            finally:
                self.lock.release()
            if outer and changes:
                self._notify(changes)

    def _id_exists(self, record_id: str) -> bool:
        """Whether a record file with this id exists in any scope.

        Inside a batch, one listing of the store answers every question (a 100k-record import
        must not list every scope folder once per record)."""
        if self._batch is None:
            return self.find_path(record_id) is not None
        if self._batch_ids is None:
            self._batch_ids = {rid for _, rid, _ in self.iter_paths()}
        return record_id in self._batch_ids

    @contextlib.contextmanager
    def writing(self, scopes: Iterable[str] = ()) -> Iterator[None]:
        """One write of the store: every precondition checked before its first change, and
        every change undone if a later step fails (a full disk, a torn line, an interrupt), so a
        failed write leaves nothing and a retry makes no duplicate (``spec/format.md``).

        Call it with the writer lock held; ``scopes`` are those whose tombstone file the
        write may append to."""
        self.check_appendable(scopes)
        with undoable():
            yield

    def check_appendable(self, scopes: Iterable[str] = ()) -> None:
        """Refuse (exit 5) before any change when the audit chain, or a tombstone file this write
        would append to, ends in a torn line: appending would build on it."""
        paths = [self.log.path, *(self.tombstones.path(s) for s in scopes)]
        for p in paths:
            if has_torn_tail(p):
                raise TornTailError(
                    "refusing to write: the last line of this file is incomplete (a write was "
                    "interrupted); nothing was changed",
                    path=p,
                    hint="run `mem repair` to move the torn line aside, then run the command again",
                )

    @property
    def _sync(self) -> bool:
        return self._batch is None

    def _notify(self, changes: builtins.list[Change]) -> None:
        if self._batch is not None:
            # held until the batch ends without its record (no listener reads it there): an
            # import of 100k records held every record it wrote (bench/README.md, issue 21)
            self._batch.extend(Change(c.op, c.id, c.scope, None, c.old_scope) for c in changes)
            return
        for fn in list(self.listeners):
            fn(changes)

    def _write_file(self, rec: Record) -> Path:
        path = self.record_path(rec.scope, rec.id)
        d = path.parent
        if not d.is_dir():
            ensure_dir(d, self.config.dir_mode)
        atomic_write(path, dump_record(rec), self.config.file_mode, sync=self._sync)
        return path

    def check_not_tombstoned(self, rec: Record) -> None:
        """Refuse a record whose id or normalized content (or source item) was forgotten."""
        t = self.tombstones.load(rec.scope)
        if rec.id in t.ids:
            raise TombstonedError(
                f"record id {rec.id} was forgotten in scope {rec.scope!r}; it cannot come back"
            )
        hit = t.digests.get(rec.match_digest)
        if hit is not None:
            raise TombstonedError(
                f"this content was forgotten in scope {rec.scope!r} (tombstone {hit})",
                hint="pass --allow-forgotten (logged) if you really mean to store it again",
            )
        key = source_key(rec.source)
        if key is not None and key in t.digests:
            raise TombstonedError(
                f"the source item of this record was forgotten in scope {rec.scope!r} "
                f"(tombstone {t.digests[key]})"
            )

    def _admit(self, rec: Record, allow_tombstoned: bool, reason: str | None) -> None:
        try:
            self.check_not_tombstoned(rec)
        except TombstonedError:
            t = self.tombstones.load(rec.scope)
            if not allow_tombstoned or rec.id in t.ids:
                raise
            key = source_key(rec.source)
            digest = rec.match_digest if rec.match_digest in t.digests or key is None else key
            if key is not None and key in t.digests and rec.match_digest in t.digests:
                self.tombstones.lift(
                    rec.scope, key, rec.id, format_time(now()), reason or "explicit override", self.actor
                )
            self.tombstones.lift(
                rec.scope, digest, rec.id, format_time(now()), reason or "explicit override", self.actor
            )
            self.log.append(
                "lift-tombstone",
                id=rec.id,
                scope=rec.scope,
                after=digest,
                detail={"reason": reason or "explicit override"},
            )

    def put(
        self,
        rec: Record,
        *,
        op: str = "add",
        detail: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
        allow_secret: bool = False,
    ) -> Record:
        """Write a new record (already built). Refuses an existing id, forgotten content and
        (unless ``allow_secret``) text that holds a secret (:mod:`.secretpolicy`)."""
        rec = validate_record(rec)
        detail = _secret_detail(detail, check_record(rec, allow=allow_secret))
        check_supersession_fields(rec)
        with self.lock:
            if self._id_exists(rec.id):
                raise ConflictError(f"a record with id {rec.id} already exists")
            with self.writing([rec.scope]):
                self._admit(rec, allow_tombstoned, override_reason)
                self._write_file(rec)
                self.log.append(
                    op, id=rec.id, scope=rec.scope, after=rec.digest, detail=dict(detail or {}), sync=self._sync
                )
            if self._batch_ids is not None:
                self._batch_ids.add(rec.id)
        self._notify([Change("put", rec.id, rec.scope, rec)])
        return rec

    def add(
        self,
        content: str,
        *,
        scope: str,
        kind: str = "note",
        status: str = "active",
        confidence: float = 1.0,
        tags: Iterable[str] = (),
        derived_from: Iterable[str] = (),
        valid_from: object = None,
        valid_to: object = None,
        recorded_at: object = None,
        source: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
        op: str = "add",
        allow_secret: bool = False,
    ) -> Record:
        """Create a record. ``derived_from`` ids must exist (lineage is never dangling)."""
        src = dict(source or {"type": "api"})
        src.setdefault("type", "api")
        src.setdefault("writer", _writer())
        derived = tuple(ids.parse_id(d, "derived_from id") for d in derived_from)
        rec = make_record(
            scope=scope,
            kind=kind,
            content=content,
            status=status,
            confidence=confidence,
            tags=list(tags),
            valid_from=valid_from,
            valid_to=valid_to,
            recorded_at=recorded_at,
            derived_from=derived,
            source=src,
            extra=extra,
        )
        with self.lock:
            # under the lock: a forget of a source cannot slip in between the check and the write
            self._check_lineage(derived)
            return self.put(
                rec, op=op, allow_tombstoned=allow_tombstoned, override_reason=override_reason,
                allow_secret=allow_secret,
            )  # fmt: skip

    def _check_lineage(self, derived: Iterable[str]) -> None:
        """Refuse ``derived_from`` ids that are not live records (call it under the lock)."""
        for d in derived:
            p = self.find_path(d)
            if p is None or self.is_forgotten(p.parent.name, d):
                raise NotFoundError(f"derived_from names {d}, which is not a live record")

    def _rewrite(
        self,
        old: Record,
        new: Record,
        op: str,
        detail: Mapping[str, Any] | None = None,
        admit: tuple[bool, str | None] | None = None,
    ) -> Record:
        """Write a changed version of an existing record (same id), moving it if the scope changed.

        ``admit`` = (allow_tombstoned, reason): check the new content against the tombstones
        first (lifting one when allowed), as part of the same undoable write."""
        new = validate_record(new)
        if new.id != old.id:
            raise ValidationError("a record's id cannot change")
        moved = new.scope != old.scope
        with self.writing([new.scope]):
            if admit is not None:
                self._admit(new, *admit)
            self._write_file(new)
            if moved:
                remove_file(self.record_path(old.scope, old.id), sync=self._sync)
            self.log.append(
                op,
                id=new.id,
                scope=new.scope,
                before=old.digest,
                after=new.digest,
                detail=dict(detail or {}, **({"from_scope": old.scope} if moved else {})),
                sync=self._sync,
            )
        self._notify([Change("put", new.id, new.scope, new, old.scope if moved else None)])
        return new

    def update(
        self,
        record_id: str,
        *,
        content: str | None = None,
        kind: str | None = None,
        scope: str | None = None,
        confidence: float | None = None,
        tags: Iterable[str] | None = None,
        add_tags: Iterable[str] = (),
        remove_tags: Iterable[str] = (),
        valid_from: object = ...,
        valid_to: object = ...,
        source_update: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
        detail: Mapping[str, Any] | None = None,
        op: str = "update",
        allow_secret: bool = False,
    ) -> Record:
        """Change fields of a record in place (content corrections, tags, validity...).

        Use :meth:`supersede` when the world changed (a new fact replaces an old one); use
        ``update`` when the record was wrong or incomplete.
        """
        with self.lock:
            old = self.get(record_id)
            t = set(old.tags) if tags is None else set(tags)
            t |= set(add_tags)
            t -= set(remove_tags)
            changes: dict[str, Any] = {"tags": tuple(t), "updated_at": now()}
            if content is not None:
                changes["content"] = canonical_body(content)
            if kind is not None:
                changes["kind"] = ids.check_kind(kind)
            if scope is not None:
                changes["scope"] = ids.check_scope(scope)
            if confidence is not None:
                changes["confidence"] = confidence
            if valid_from is not ...:
                changes["valid_from"] = parse_time(valid_from, "valid_from") if valid_from else None
            if valid_to is not ...:
                changes["valid_to"] = parse_time(valid_to, "valid_to") if valid_to else None
            if source_update:
                changes["source"] = {**old.source, **source_update}
            new = validate_record(old.with_changes(**changes))
            if new == old.with_changes(updated_at=new.updated_at):
                return old  # nothing changed: no write, no git diff
            detail = _secret_detail(detail, check_record(new, old=old, allow=allow_secret))
            if scope is not None and scope != old.scope and self.find_path(old.id, scope):
                raise ConflictError(f"record {old.id} already exists in scope {scope!r}")
            admit = (allow_tombstoned, override_reason) if content is not None or new.scope != old.scope else None
            return self._rewrite(old, new, op, detail, admit)

    def replace(self, new: Record, *, op: str = "update", detail: Mapping[str, Any] | None = None,
                allow_tombstoned: bool = False, allow_secret: bool = False) -> Record:
        """Replace a record by an edited version of it (``mem edit``); id must be unchanged."""
        with self.lock:
            old = self.get(new.id)
            new = validate_record(new.with_changes(updated_at=now()))
            if new.with_changes(updated_at=None) == old.with_changes(updated_at=None):
                return old
            detail = _secret_detail(detail, check_record(new, old=old, allow=allow_secret))
            check_supersession_fields(new)
            sb = new.superseded_by
            if sb is not None and sb != old.superseded_by and self.find_path(sb) is None \
                    and self.tombstones.find_id(sb) is None:
                raise ValidationError(
                    f"superseded_by names {sb}, which is not in the store [E207]",
                    hint="name the record that replaced this one, or use `mem supersede`",
                )
            admit = (allow_tombstoned, None) if new.match_digest != old.match_digest or new.scope != old.scope else None
            return self._rewrite(old, new, op, detail, admit)

    def set_status(
        self, record_id: str, status: str, *, reason: str | None = None, scope: str | None = None
    ) -> Record:
        """Accept (-> active), reject (-> rejected) or reopen (-> candidate, e.g. undo in review).

        With ``scope``, the record is looked up in that scope only (an id present in two scopes
        resolves to that copy)."""
        if status not in ("active", "rejected", "candidate"):
            raise ValidationError(
                "set_status takes 'active', 'rejected' or 'candidate'; use supersede for superseded"
            )
        op = {"active": "accept", "rejected": "reject", "candidate": "reopen"}[status]
        with self.lock:
            old = self.get(record_id, scope)
            if old.status == status:
                return old
            allowed = {
                "active": ("candidate", "rejected"),
                "rejected": ("candidate", "active"),
                "candidate": ("active", "rejected"),
            }
            if old.status not in allowed[status]:
                raise ConflictError(
                    f"record {old.id} is {old.status}; it cannot be {op}ed "
                    f"(only a {' or '.join(allowed[status])} record can)"
                )
            new = old.with_changes(status=status, updated_at=now())
            return self._rewrite(old, new, op, {"reason": reason} if reason else None)

    def accept(self, record_id: str, *, reason: str | None = None, scope: str | None = None) -> Record:
        return self.set_status(record_id, "active", reason=reason, scope=scope)

    def reject(self, record_id: str, *, reason: str | None = None, scope: str | None = None) -> Record:
        return self.set_status(record_id, "rejected", reason=reason, scope=scope)

    def reopen(self, record_id: str, *, reason: str | None = None, scope: str | None = None) -> Record:
        """Put an accepted or rejected record back to ``candidate`` (logged as ``reopen``)."""
        return self.set_status(record_id, "candidate", reason=reason, scope=scope)
