"""Superseding: a new record replaces an old one (the world changed): the new record written
first, then the old one as superseded by it."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from typing import Any

from mem.format.base.errors import ConflictError, ValidationError
from mem.format.model.record import Record, make_record, validate_record
from mem.format.rules import ids
from mem.format.rules.secretpolicy import check_record
from mem.format.rules.timeutil import now, parse_time
from mem.format.store.writes import Change, StoreWrites, _secret_detail, _writer


def superseded_version(old: Record, by_id: str, at: _dt.datetime, valid_from: _dt.datetime) -> Record:
    """``old`` as it is once ``by_id`` supersedes it at record time ``at``, from ``valid_from``.

    Its world time ends where the new record's begins (an earlier end is kept), never before
    its own start."""
    valid_to = old.valid_to if old.valid_to and old.valid_to <= valid_from else valid_from
    if old.valid_from and valid_to < old.valid_from:
        valid_to = old.valid_from
    return old.with_changes(
        status="superseded", superseded_by=by_id, superseded_at=at, valid_to=valid_to, updated_at=at
    )


class StoreSupersession(StoreWrites):
    """A store's supersessions."""

    def supersede(
        self,
        old_id: str,
        content: str,
        *,
        kind: str | None = None,
        tags: Iterable[str] | None = None,
        confidence: float | None = None,
        valid_from: object = None,
        reason: str | None = None,
        source: Mapping[str, Any] | None = None,
        status: str = "active",
        derived_from: Iterable[str] = (),
        scope: str | None = None,
        allow_secret: bool = False,
    ) -> tuple[Record, Record]:
        """Record that ``content`` replaces the record ``old_id`` from ``valid_from`` (default now).

        The new record is written first (``supersedes: [old]``), then the old one becomes
        ``superseded`` with ``superseded_by``, ``superseded_at`` and ``valid_to``. Returns
        (new, old). The new record inherits the old one's ``derived_from``; ``derived_from``
        adds more sources (e.g. the episodes a consolidation read), which must be live records.
        With ``scope``, ``old_id`` is looked up in that scope only.
        """
        with self.lock:
            old = self.get(old_id, scope)
            if old.status not in ("active", "candidate"):
                raise ConflictError(f"record {old.id} is {old.status}; only an active or candidate record can be superseded")
            extra_lineage = tuple(ids.parse_id(d, "derived_from id") for d in derived_from)
            self._check_lineage(extra_lineage)
            t = now()
            vf = parse_time(valid_from, "valid_from") if valid_from else t
            src = dict(source or {"type": "api"})
            src.setdefault("writer", _writer())
            new = make_record(
                scope=old.scope,
                kind=kind or old.kind,
                content=content,
                status=status,
                confidence=old.confidence if confidence is None else confidence,
                tags=list(old.tags if tags is None else tags),
                valid_from=vf,
                recorded_at=t,
                supersedes=(old.id,),
                derived_from=(*old.derived_from, *extra_lineage),
                source=src,
            )
            allowed = check_record(new, old=old, allow=allow_secret)
            new, old_new = self._commit_supersession(
                old, new, "supersede", reason, _secret_detail(None, allowed)
            )
        self._notify([Change("put", new.id, new.scope, new), Change("put", old.id, old.scope, old_new)])
        return new, old_new

    def put_superseding(
        self, new: Record, *, op: str = "supersede", detail: Mapping[str, Any] | None = None,
        allow_secret: bool = False,
    ) -> tuple[Record, Record]:
        """Write a prebuilt record that supersedes ``new.supersedes[0]`` (an import of another
        system's history): as :meth:`supersede`, with the new record's own ``recorded_at`` as
        the record time and its ``valid_from`` (else ``recorded_at``) as the world time of the
        change. Returns (new, old)."""
        new = validate_record(new)
        if len(new.supersedes) != 1:
            raise ValidationError("put_superseding takes a record that supersedes exactly one record")
        with self.lock:
            if self._id_exists(new.id):
                raise ConflictError(f"a record with id {new.id} already exists")
            old = self.get(new.supersedes[0], new.scope)
            if old.status not in ("active", "candidate"):
                raise ConflictError(f"record {old.id} is {old.status}; only an active or candidate record can be superseded")
            detail = _secret_detail(detail, check_record(new, old=old, allow=allow_secret))
            new, old_new = self._commit_supersession(old, new, op, None, detail)
        self._notify([Change("put", new.id, new.scope, new), Change("put", old.id, old.scope, old_new)])
        return new, old_new

    def _commit_supersession(
        self, old: Record, new: Record, op: str, reason: str | None,
        detail: Mapping[str, Any] | None = None,
    ) -> tuple[Record, Record]:
        """Write ``new`` (which supersedes ``old``), then ``old`` as superseded by it; the caller
        holds the lock and notifies the listeners after it."""
        if new.match_digest == old.match_digest:
            raise ConflictError("the new content is the same as the old record's")
        why = {"reason": reason} if reason else {}
        with self.writing([new.scope, old.scope]):
            self._admit(new, False, None)
            self._write_file(new)
            self.log.append(
                op,
                id=new.id,
                scope=new.scope,
                after=new.digest,
                detail={"supersedes": old.id, **why, **dict(detail or {})},
                sync=self._sync,
            )
            old_new = superseded_version(old, new.id, new.recorded_at, new.valid_from or new.recorded_at)
            self._write_file(old_new)
            self.log.append(
                "update",
                id=old.id,
                scope=old.scope,
                before=old.digest,
                after=old_new.digest,
                detail={"superseded_by": new.id, "previous_status": old.status, **why},
                sync=self._sync,
            )
        return new, old_new
