"""What a hybrid search's score means, and what a query asks of a record.

**The score is a calibrated relevance.** A hybrid hit's ``score`` is ``relevance × prior``, where
``relevance`` estimates the probability that the record answers the query: a logistic function
of the first stage's evidence (``z = SCALE·base + BIAS``, ``base`` the convex combination of
cosine and query-term coverage) and, for the hits the second stage reads (``mem search
--rerank``), of the reranker's evidence too (``rerank_z``). Its coefficients were fitted on the
development half of the conversational benchmark (bench/conv.py; the fit: bench/fit_ranking.py,
with the command and figures in bench/README.md) and never on its held-out half. The inputs are
fractions that do not grow with a store's size or its records' length (cosine, the
idf-weighted share of the query's words a record holds, the share of the query's tokens the
record matches in meaning), so a floor on the score means the same in every store:
``--min-score 0.5`` keeps the hits judged more likely to answer than not. The priors (status,
confidence, recency; at most ×1.1) then weigh it as they weigh every score.

**Queries are read for what they ask.** Question words and the little words of a question
("when", "did", "the", ...) carry no evidence of which record answers it: they are left out of
the coverage (``content_weights``) when the query has other words. A name in the query
(a capitalized word that is not a question's first word) is matched against the record's
speaker (``speaker_of``: an imported turn's ``source.speaker``), and a date it names ("in May
2023", "2023-05-07", "on 7 May") against the record's time (``record_time``: ``valid_from``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The first stage's calibration: relevance = sigmoid(SCALE * base + BIAS) (fitted: see the
#: module docstring).
SCALE = 9.0
BIAS = -4.5
#: The vector weight of the convex combination ``w * cosine + (1 - w) * coverage ** 2`` when
#: ``[search] vector_weight`` is not set (fitted on the development half, see SCALE).
VECTOR_WEIGHT = 0.6
#: How many of the first stage's best hits the reranker reads (``[search] rerank_top``).
RERANK_TOP = 20
#: The second stage: z = first-stage z + MAXSIM * (maxsim - MAXSIM_CENTER) + NAME * name + DATE * date.
MAXSIM = 8.0
MAXSIM_CENTER = 0.5
NAME = 0.5
DATE = 1.0
#: The floor MCP ``recall`` applies when its caller gives none (``[mcp] min_score``).
RECALL_MIN_SCORE = 0.3

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
    """The first stage's log-odds of relevance, from its convex ``base``."""
    return SCALE * base + BIAS


def rerank_z(z1: float, maxsim: float, name: float, date: float) -> float:
    """The second stage's log-odds of relevance (see the constants)."""
    return z1 + MAXSIM * (maxsim - MAXSIM_CENTER) + NAME * name + DATE * date


_STOP_TERMS: frozenset[str] | None = None


def stop_terms() -> frozenset[str]:
    """QUESTION_WORDS and STOP_WORDS as the lexical index holds them (stemmed: "does" is "doe")."""
    global _STOP_TERMS
    if _STOP_TERMS is None:
        from .index.terms import terms

        _STOP_TERMS = terms(" ".join(sorted(QUESTION_WORDS | STOP_WORDS)))
    return _STOP_TERMS


def content_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """The query's term weights without its question and stop words, unless nothing else is left.

    ``weights`` maps the query's indexed terms (stemmed, lower-case) to their idf."""
    stop = stop_terms()
    kept = {t: w for t, w in weights.items() if t not in stop}
    return kept if kept else dict(weights)


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
    "QueryReading",
    "content_weights",
    "date_match",
    "first_z",
    "name_match",
    "read_query",
    "rerank_z",
    "sigmoid",
    "speaker_of",
]
