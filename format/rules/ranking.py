"""How a search ranks and which statuses it shows: the statuses shown by default, and a hit's prior
(status x confidence x recency), by which its relevance is multiplied. The one-shot lexical path
and the full search both call these (spec/format.md §13).

Standard library only and cheap to import (no datetime at import: annotations only).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Sequence

#: The statuses a listing or search shows when it names none and asks for no point in time.
DEFAULT_STATUSES: tuple[str, ...] = ("active", "candidate")
#: The statuses shown by default when a point in time is asked for (``as_of``, ``known_at``):
#: what was true then may have been superseded since.
TEMPORAL_STATUSES: tuple[str, ...] = ("active", "candidate", "superseded")
#: The prior of each status; any other status has 0.5.
STATUS_PRIOR = {"active": 1.0, "candidate": 0.85, "superseded": 0.7, "rejected": 0.5}


def effective_statuses(statuses: Sequence[str] | None, temporal: bool) -> tuple[str, ...]:
    """The statuses a filter keeps: those named, else the default (``temporal``: a point in time
    is asked for)."""
    if statuses is not None:
        return tuple(statuses)
    return TEMPORAL_STATUSES if temporal else DEFAULT_STATUSES


def fields_match(kind: str, status: str, tags: Sequence[str], valid_from: _dt.datetime | None,
                 valid_to: _dt.datetime | None, recorded_at: _dt.datetime | None,
                 superseded_at: _dt.datetime | None, *, kinds: Sequence[str] | None, statuses: Sequence[str],
                 want_tags: Sequence[str] | None, as_of: _dt.datetime | None,
                 known_at: _dt.datetime | None) -> bool:
    """Whether a record with these fields passes a filter (spec/format.md §13): one of ``kinds``
    (None: any), one of ``statuses`` (the effective ones), every tag of ``want_tags``, valid in the
    world at ``as_of`` (valid_from <= as_of < valid_to) and known at ``known_at`` (recorded_at <=
    known_at < superseded_at; ``recorded_at`` is read only when ``known_at`` is set).
    ``RecordFilter`` and the one-shot search call it."""
    if kinds is not None and kind not in kinds:
        return False
    if status not in statuses:
        return False
    if want_tags and not set(want_tags).issubset(tags):
        return False
    if as_of is not None:
        if valid_from is not None and valid_from > as_of:
            return False
        if valid_to is not None and valid_to <= as_of:
            return False
    if known_at is not None:
        if recorded_at is not None and recorded_at > known_at:
            return False
        if superseded_at is not None and superseded_at <= known_at:
            return False
    return True


def prior_of(status: str, confidence: float, recorded_at: _dt.datetime,
             at: _dt.datetime) -> tuple[float, dict[str, float]]:
    """A hit's prior at time ``at``: status x confidence x recency, and its parts."""
    s = STATUS_PRIOR.get(status, 0.5)
    c = 0.75 + 0.25 * float(confidence)
    age_days = max(0.0, (at - recorded_at).total_seconds() / 86400.0)
    r: float = 1.0 + 0.1 * 0.5 ** (age_days / 180.0)
    return s * c * r, {"status": s, "confidence": round(c, 4), "recency": round(r, 4)}


def prior_ms(status: str, confidence: float, recorded_ms: int, at_ms: int) -> float:
    """``prior_of``'s value from epoch milliseconds, without its parts: the same float when both
    times are whole milliseconds (``(at - recorded_at).total_seconds()`` is then the correctly
    rounded ``(at_ms - recorded_ms) / 1000``)."""
    age_days = max(0.0, (at_ms - recorded_ms) / 1000 / 86400.0)
    r: float = 1.0 + 0.1 * 0.5 ** (age_days / 180.0)
    return STATUS_PRIOR.get(status, 0.5) * (0.75 + 0.25 * float(confidence)) * r
