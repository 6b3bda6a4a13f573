"""Grounding a captured memory in its turn's time (``spec/capture.md`` section 10).

A transcript turn says "tomorrow" or "next Thursday" relative to the moment it was typed; stored
as is, the memory would mean something else a week later. :func:`ground` resolves such phrases
in a candidate's text against the turn's time and says when the memory became true:

- a relative date in the text is replaced by the date it names ("tomorrow" ->
  "on 2026-12-03", "next Thursday" -> "on Thursday 2026-12-10"), and that date is the record's
  ``valid_from``;
- otherwise a statement about the present ("User lives in Berlin") is true from the turn:
  ``valid_from`` is the turn's time; a statement about the past ("User used to ...") gets none.

Dates are computed in the local time zone of the machine running ``mem capture`` (``TZ`` is
honoured): a turn typed at 23:30 in New York is stamped 04:30Z the next day, and "tomorrow"
means the New York tomorrow. Weekday rule: "Thursday", "on/this/coming Thursday" is the first
Thursday strictly after the turn's day; "next Thursday" is the Thursday of the following
calendar week (weeks start on Monday). Pure functions, no store access.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUM = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2,
}  # fmt: skip
_DAY_RE = "|".join(_DAYS)

_PHRASE = re.compile(
    r"(?i)\b(?:"
    r"(?P<tmw>(?:on )?(?:the day after tomorrow|tomorrow))"
    r"|(?P<tdy>(?:later )?today|tonight|this (?:morning|afternoon|evening))"
    r"|(?P<ytd>yesterday)"
    r"|(?<!every )(?<!every other )(?<!each )(?P<wd>(?:(?P<wq>next|this|coming|on|this coming) )?(?P<day>"
    + _DAY_RE + r"))"
    r"|(?P<nw>next (?P<unit>week|month|year))"
    r"|(?P<inn>in (?P<n>\d{1,3}|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten) "
    r"(?P<u>days?|weeks?))"
    r")\b"
)
_PAST = re.compile(
    r"(?i)\b(?:used to|previously|formerly|last (?:week|month|year)|ago|yesterday|was|were|had been|"
    r"did)\b"
)


@dataclass(frozen=True, slots=True)
class Grounding:
    """What :func:`ground` made of a candidate: its text, ``valid_from`` and resolved phrases."""

    content: str
    valid_from: _dt.datetime | _dt.date | None
    resolved: tuple[tuple[str, str], ...] = ()  # (phrase as typed, ISO date)


def local_day(t: _dt.datetime) -> _dt.date:
    """The calendar day of ``t`` where ``mem`` runs (the machine's local time zone)."""
    return t.astimezone().date()


def _weekday_after(day: _dt.date, target: int) -> _dt.date:
    delta = (target - day.weekday()) % 7
    return day + _dt.timedelta(days=delta or 7)


def _add_months(day: _dt.date, n: int) -> _dt.date:
    m = day.month - 1 + n
    return _dt.date(day.year + m // 12, m % 12 + 1, 1)


def resolve(phrase_match: re.Match[str], day: _dt.date) -> tuple[_dt.date, str]:
    """The date a matched phrase names, seen from ``day``, and the words that replace it."""
    g = phrase_match.group
    if g("tmw"):
        n = 2 if "after" in g("tmw").lower() else 1
        d = day + _dt.timedelta(days=n)
        return d, f"on {d.isoformat()}"
    if g("tdy"):
        return day, f"on {day.isoformat()}"
    if g("ytd"):
        d = day - _dt.timedelta(days=1)
        return d, f"on {d.isoformat()}"
    if g("wd"):
        target = _DAYS.index(g("day").lower())
        if (g("wq") or "").lower() == "next":
            monday_next = day + _dt.timedelta(days=7 - day.weekday())
            d = monday_next + _dt.timedelta(days=target)
        else:
            d = _weekday_after(day, target)
        return d, f"on {g('day').capitalize()} {d.isoformat()}"
    if g("nw"):
        unit = g("unit").lower()
        if unit == "week":
            d = day + _dt.timedelta(days=7 - day.weekday())
            return d, f"in the week of {d.isoformat()}"
        if unit == "month":
            d = _add_months(day, 1)
            return d, f"in {d.strftime('%Y-%m')}"
        d = _dt.date(day.year + 1, 1, 1)
        return d, f"in {d.year}"
    raw_n = g("n").lower()
    n = int(raw_n) if raw_n.isdigit() else _NUM[raw_n]
    days = n * (7 if g("u").lower().startswith("week") else 1)
    d = day + _dt.timedelta(days=days)
    return d, f"on {d.isoformat()}"


def is_about_present(content: str) -> bool:
    """True when a memory's text states something true now (not a past state or event)."""
    return _PAST.search(content) is None


def ground(content: str, turn_time: _dt.datetime | None) -> Grounding:
    """Resolve relative dates in ``content`` against ``turn_time`` and choose ``valid_from``.

    Without a turn time nothing is resolved and ``valid_from`` stays unset.
    """
    if turn_time is None:
        return Grounding(content, None)
    day = local_day(turn_time)
    resolved: list[tuple[str, str]] = []
    first: _dt.date | None = None
    out: list[str] = []
    pos = 0
    for m in _PHRASE.finditer(content):
        d, words = resolve(m, day)
        resolved.append((m.group(0), d.isoformat()))
        first = d if first is None else first
        # "on Monday" keeps one "on": the replacement starts with it when the phrase did not
        lead = content[max(0, m.start() - 3) : m.start()].lower()
        if words.startswith("on ") and lead == "on ":
            words = words[3:]
        out.append(content[pos : m.start()])
        out.append(words)
        pos = m.end()
    out.append(content[pos:])
    text = "".join(out)
    if first is not None:
        return Grounding(text, first, tuple(resolved))
    return Grounding(text, turn_time if is_about_present(content) else None)
