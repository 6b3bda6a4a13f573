"""Which records a listing or a search considers (``RecordFilter``)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass

from mem.format.model.record import Record
from mem.format.rules.ranking import effective_statuses, fields_match


@dataclass
class RecordFilter:
    """Which records a listing (or search) considers. ``None`` means "no restriction"."""

    scopes: Sequence[str] | None = None
    kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = None  # None: the default for the time filters used
    tags: Sequence[str] | None = None  # all of these
    as_of: _dt.datetime | None = None  # world time: valid_from <= t < valid_to
    known_at: _dt.datetime | None = None  # record time: recorded_at <= t < superseded_at
    recorded_after: _dt.datetime | None = None
    recorded_before: _dt.datetime | None = None
    ids: Sequence[str] | None = None

    def effective_statuses(self) -> tuple[str, ...]:
        return effective_statuses(self.statuses, self.as_of is not None or self.known_at is not None)

    def matches(self, r: Record) -> bool:
        if self.ids is not None and r.id not in self.ids:
            return False
        if not fields_match(r.kind, r.status, r.tags, r.valid_from, r.valid_to, r.recorded_at, r.superseded_at,
                            kinds=self.kinds, statuses=self.effective_statuses(), want_tags=self.tags,
                            as_of=self.as_of, known_at=self.known_at):
            return False
        if self.recorded_after is not None and r.recorded_at < self.recorded_after:
            return False
        return not (self.recorded_before is not None and r.recorded_at >= self.recorded_before)

    def matches_fields(self, rid: str, kind: str, status: str, tags: Sequence[str],
                       valid_from: _dt.datetime | None, valid_to: _dt.datetime | None) -> bool:
        """``matches`` for the id, kind, status, tags and world time (``as_of``) alone: all of
        it when the filter has no ``known_at``, ``recorded_after`` or ``recorded_before``."""
        if self.ids is not None and rid not in self.ids:
            return False
        return fields_match(kind, status, tags, valid_from, valid_to, None, None, kinds=self.kinds,
                            statuses=self.effective_statuses(), want_tags=self.tags, as_of=self.as_of,
                            known_at=None)
