"""Time values of the format: RFC 3339 in UTC with millisecond precision, ``Z`` suffix."""

from __future__ import annotations

import datetime as _dt

from mem.format.base.errors import ValidationError

UTC = _dt.UTC
#: The rule a time value breaks (spec/format.md §6.2; ``mem verify``'s sub-code).
TIME_RULE = "E103.7"


def is_canonical_form(s: str) -> bool:
    """``s`` has the canonical layout ``dddd-dd-ddTdd:dd:dd.dddZ`` (any decimal digits, as the
    pattern ``\\d`` would match; the calendar is not checked). Code, not a regular expression:
    ``import re`` costs a third of a lean ``mem search`` (see ids.py)."""
    # the separators in place, then each replaced by a digit: a separator character found among
    # the digits is replaced first, leaving one in place, and so fails isdecimal (the fastest
    # form without re: bench/README.md, "Figures behind constants in the code")
    return len(s) == 24 and s[4] == s[7] == "-" and s[10] == "T" and s[13] == s[16] == ":" \
        and s[19] == "." and s[23] == "Z" \
        and s[:23].replace("-", "0", 2).replace(":", "0", 2).replace("T", "0", 1).replace(".", "0", 1).isdecimal()


#: The canonical form as a pattern, in ASCII digits: what ``format_time`` writes and
#: ``is_canonical_text`` accepts (a test holds the two together), for the readers that check the
#: times of many files inside one larger pattern (:func:`mem.format.rules.recordtext.canonical_pattern`).
CANONICAL_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"


def is_canonical_text(s: str) -> bool:
    """``s`` is written exactly as ``format_time`` writes a time: ``is_canonical_form`` in ASCII
    digits (the calendar is not checked: ``parse_time`` does)."""
    return s.isascii() and is_canonical_form(s)


def _is_date_form(s: str) -> bool:
    """``s`` is ``dddd-dd-dd`` (decimal digits; the calendar is not checked)."""
    return len(s) == 10 and s[4] == "-" and s[7] == "-" and (s[:4] + s[5:7] + s[8:]).isdecimal()


def now() -> _dt.datetime:
    """The current time, truncated to milliseconds (what the format can represent)."""
    t = _dt.datetime.now(UTC)
    return t.replace(microsecond=(t.microsecond // 1000) * 1000)


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MS = _dt.timedelta(milliseconds=1)


def epoch_ms(t: _dt.datetime) -> int:
    """Milliseconds since the Unix epoch, exactly (floored; a naive time is UTC).

    ``int(t.timestamp() * 1000)`` is off by one for about 0.6 % of millisecond times (the float
    product lands just below the integer); this is integer arithmetic.
    """
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return (t - _EPOCH) // _ONE_MS


def from_epoch_ms(ms: int) -> _dt.datetime:
    """The UTC time ``ms`` milliseconds after the Unix epoch (exact inverse of epoch_ms)."""
    return _EPOCH + _dt.timedelta(milliseconds=ms)


def format_time(t: _dt.datetime) -> str:
    """Canonical text of a time: ``2026-11-29T23:59:01.123Z``."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    t = t.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def parse_canonical(value: str, what: str = "time") -> _dt.datetime | None:
    """The time ``value`` names when it is in the canonical form (``is_canonical_form``), else
    None; ValidationError when that form names no time (month 13, February 30)."""
    if not is_canonical_form(value):
        return None
    return from_canonical(value, what)


def from_canonical(value: str, what: str = "time") -> _dt.datetime:
    """The time ``value`` names, for a ``value`` already known to be in the canonical form
    (``is_canonical_form``, or ``CANONICAL_PATTERN`` matched inside a larger pattern);
    ValidationError when that form names no time (month 13, February 30)."""
    # already UTC and in milliseconds; the form does not check the calendar: fromisoformat does
    try:
        return _dt.datetime.fromisoformat(value)  # its 'Z' read as UTC (Python 3.11)
    except ValueError:
        raise ValidationError(f"{what} {value!r} is not a valid time (no such date or time of day)",
                              rule=TIME_RULE) from None


def parse_time(value: object, what: str = "time", *, naive_is_utc: bool = True) -> _dt.datetime:
    """Parse an RFC 3339 / ISO 8601 time, a date, or an epoch number.

    A time without an offset is read as UTC (``naive_is_utc``) or refused. The result is
    timezone-aware and truncated to milliseconds.
    """
    if isinstance(value, str):
        got = parse_canonical(value, what)
        if got is not None:
            return got
    if isinstance(value, _dt.datetime):
        t = value
    elif isinstance(value, _dt.date):
        t = _dt.datetime(value.year, value.month, value.day, tzinfo=UTC)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        secs = float(value)
        if secs > 1e11:  # epoch milliseconds
            secs /= 1000.0
        try:
            t = _dt.datetime.fromtimestamp(secs, UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValidationError(f"{what} {value!r} is not a valid epoch time", rule=TIME_RULE) from exc
    elif isinstance(value, str):
        s = value.strip()
        if _is_date_form(s):
            s += "T00:00:00+00:00"
        if s.endswith(("Z", "z")):
            s = s[:-1] + "+00:00"
        try:
            t = _dt.datetime.fromisoformat(s)
        except ValueError as exc:
            raise ValidationError(
                f"{what} {value!r} is not a valid time (use RFC 3339, e.g. 2026-01-31T12:00:00Z, "
                "or a date such as 2026-01-31)", rule=TIME_RULE
            ) from exc
    else:
        raise ValidationError(f"{what} {value!r} is not a valid time", rule=TIME_RULE)
    if t.tzinfo is None:
        if not naive_is_utc:
            raise ValidationError(f"{what} {value!r} has no time zone offset", rule=TIME_RULE)
        t = t.replace(tzinfo=UTC)
    t = t.astimezone(UTC)
    return t.replace(microsecond=(t.microsecond // 1000) * 1000)
