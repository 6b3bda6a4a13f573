"""What a hybrid search's score means, and what a query asks of a record.

**The score is a calibrated relevance.** A hybrid hit's ``score`` is ``relevance × prior``, where
``relevance = sigmoid(z)`` estimates the probability that the record answers the query. The
log-odds ``z`` come in up to three stages, each fitted by logistic regression on the
development half of the conversational benchmark (bench/convo; the fit and its figures:
bench/README.md, "Ranking fitted on the development half"), never on its held-out half:

1. every candidate: ``z1 = SCALE · b + BIAS``, ``b`` the convex evidence ``w · cosine +
   (1 − w) · coverage²`` (``w`` = ``VECTOR_WEIGHT``, the grid's best on the development half);
2. when the query names someone who speaks in the best ``SPEAKER_TOP`` hits (a record's speaker:
   ``speaker_of``, an imported turn's ``source.speaker``), each of those hits:
   ``zs = S_Z1 · z1 + S_NAMED · named + S_NAMED_B · named · b + S_BIAS``, ``named`` = 1 when the
   record's speaker is named. A question about what Sofia said is answered by a turn Sofia
   spoke, whose text says "I", not "Sofia";
3. with reranking (``[search] rerank``, ``--rerank``), the best ``RERANK_TOP``:
   ``zr = R_Z · z + R_MAXSIM · m + R_NAMED_M · named · m + R_BIAS``, ``m`` = the reranker's
   MaxSim (:mod:`mem.format.rerank`) minus 0.5.

The inputs are fractions that do not grow with a store's size or its records' length (cosine,
the idf-weighted share of the query's words a record holds, the share of the query's tokens it
matches in meaning), so a floor on the score reads the same in every store. What it cannot know
is how many records compete: the coefficients come from conversations of a few hundred short,
similar turns, where a relevant turn's probability is modest; a store of a few distinct facts
gets the same, cautious figures. The priors (status, confidence, recency; at most ×1.1) then
weigh it as they weigh every score.

**Queries are read for what they ask.** ``read_query`` finds a question's names (capitalized
words that are neither question words nor the little words of a sentence), the dates it names
("in May 2023", "7 May 2023", "2023-05-07") and whether it asks "when". Names are matched against
the record's speaker (stage 2); a date against the record's time (``valid_from``) is shown by
``--explain`` but not weighed: no question of the development half names a date to fit it on.
A "when" question's answer is the record's time, which every hit carries (``valid_from``).
Leaving a question's own words ("when", "did", "the") out of the coverage was measured and made
recall@10 worse on the development half (0.741 -> 0.730), so the coverage keeps every word.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Stage 1: relevance = sigmoid(SCALE * b + BIAS) (fitted: see the module docstring).
SCALE = 12.095
BIAS = -5.848
#: The vector weight of the convex evidence ``w * cosine + (1 - w) * coverage ** 2`` when
#: ``[search] vector_weight`` is not set (on the development half recall@10 was flat from 0.5 to
#: 0.65, best at 0.6).
VECTOR_WEIGHT = 0.6
#: Stage 2: how many of the best hits are read for their speaker, and its coefficients.
#: (S_Z1 = 2.007 below: stage 1's log-odds count twice as much once the speaker is known.)
SPEAKER_TOP = 30
S_Z1 = 2.007
S_NAMED = 9.551
S_NAMED_B = 2.506
S_BIAS = -4.721
#: Stage 3 (reranking): how many of the best hits the reranker reads (``[search] rerank_top``),
#: and its coefficients.
RERANK_TOP = 10
R_Z = 1.0  # fixed: the reranker adds its evidence to the stage before's log-odds (fitted freely,
#            the weight came out negative, which ranks what the stage before judged worst first)
R_MAXSIM = 7.291
R_NAMED_M = -0.476
R_BIAS = 1.565
MAXSIM_CENTER = 0.5
#: The floor MCP ``recall`` applies when its caller gives none (``[mcp] min_score``): the
#: highest that cost the default search at most 2 points of recall@10 on the development half.
RECALL_MIN_SCORE = 0.015

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


def first_z(base: float) -> float:
    """Stage 1's log-odds of relevance, from the convex evidence ``base``."""
    return SCALE * base + BIAS


def base_of(z1: float) -> float:
    """The convex evidence behind stage 1's ``z1`` (its inverse)."""
    return (z1 - BIAS) / SCALE


def speaker_z(z1: float, named: float) -> float:
    """Stage 2's log-odds of a hit in a query that names a speaker of the best hits."""
    return S_Z1 * z1 + S_NAMED * named + S_NAMED_B * named * base_of(z1) + S_BIAS


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


def speaker_of(source: Mapping[str, Any], content: str) -> str | None:
    """Who said a record, lower-case: ``source.speaker`` (or ``author``/``role`` naming a person),
    else a leading ``Name:`` of its content."""
    for key in ("speaker", "author", "name"):
        v = source.get(key)
        if isinstance(v, str) and v.strip():
            return v.strip().lower()
    head = content[:40]
    colon = head.find(":")
    if 0 < colon <= 30 and " " not in head[:colon].strip() and head[:1].isupper():
        return head[:colon].strip().lower()
    return None


def name_match(reading: QueryReading, speaker: str | None) -> float:
    """1.0 when a name the query holds is the record's speaker, else 0.0."""
    return 1.0 if speaker is not None and speaker in reading.names else 0.0


def date_match(reading: QueryReading, when: _dt.datetime | None) -> float:
    """1.0 when the record's time falls on a date the query names, else 0.0."""
    if when is None or not reading.dates:
        return 0.0
    return 1.0 if any(a <= when < b for a, b in reading.dates) else 0.0


__all__ = [
    "RECALL_MIN_SCORE",
    "RERANK_TOP",
    "SPEAKER_TOP",
    "QueryReading",
    "base_of",
    "date_match",
    "first_z",
    "name_match",
    "read_query",
    "rerank_z",
    "sigmoid",
    "speaker_of",
    "speaker_z",
]
