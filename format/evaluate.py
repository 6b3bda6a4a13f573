"""Retrieval evaluation: recall@k, MRR and a plain BM25 reference.

One implementation of the metrics, shared by ``mem eval`` (a store owner's labelled queries) and
the conversational benchmark (``bench/convo``):

- **recall@k** of one query: the share of its relevant items found in the first ``k`` results
  (``|relevant ∩ top k| / |relevant|``); a mode's recall@k is the mean over its queries.
- **MRR**: the mean over queries of ``1 / rank`` of the first relevant result within the results
  fetched (the largest ``k`` asked for), 0 when none is there.
- A query with no relevant item ("the store holds no answer") is not averaged into recall: it
  counts as **empty** when its ranking returns nothing (a relevance floor's job), and the share
  of such queries is reported.

The BM25 reference (:class:`BM25`) is deliberately plain: Okapi BM25 (k1 = 1.2, b = 0.75) over
lower-cased ``\\w+`` tokens, no stemming, no stop words, the idf of Lucene
(``ln(1 + (N - n + 0.5) / (n + 0.5))``). It is what "plain BM25 over the same texts" means in
the benchmarks: a reference that any search worth its keep should beat.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_KS: tuple[int, ...] = (5, 10)
BM25_K1 = 1.2
BM25_B = 0.75

_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    """The BM25 reference's tokens: lower-cased runs of word characters."""
    return _TOKEN.findall(text.lower())


def recall_at(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Share of ``relevant`` found in ``ranked[:k]`` (1.0 when nothing is relevant)."""
    rel = set(relevant)
    if not rel:
        return 1.0
    return len(rel.intersection(ranked[:k])) / len(rel)


def reciprocal_rank(ranked: Sequence[str], relevant: Iterable[str]) -> float:
    """``1 / rank`` of the first relevant item of ``ranked`` (ranks from 1), 0.0 when none is."""
    rel = set(relevant)
    for i, item in enumerate(ranked, start=1):
        if item in rel:
            return 1.0 / i
    return 0.0


class BM25:
    """Okapi BM25 over a fixed set of documents (plain: see the module docstring)."""

    def __init__(self, docs: Iterable[tuple[str, str]], *, k1: float = BM25_K1, b: float = BM25_B) -> None:
        self.k1 = k1
        self.b = b
        self.ids: list[str] = []
        self._lengths: list[int] = []
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for doc_id, text in docs:
            n = len(self.ids)
            self.ids.append(doc_id)
            toks = tokens(text)
            self._lengths.append(len(toks))
            for term, tf in Counter(toks).items():
                self._postings[term].append((n, tf))
        count = len(self.ids)
        self._avg = (sum(self._lengths) / count) if count else 0.0
        self._idf = {
            t: math.log(1.0 + (count - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self._postings.items()
        }

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: str) -> dict[str, float]:
        """Each matching document's BM25 score (documents sharing no term are absent)."""
        acc: dict[int, float] = defaultdict(float)
        avg = self._avg or 1.0
        for term in set(tokens(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for n, tf in self._postings[term]:
                norm = self.k1 * (1.0 - self.b + self.b * self._lengths[n] / avg)
                acc[n] += idf * tf * (self.k1 + 1.0) / (tf + norm)
        return {self.ids[n]: s for n, s in acc.items()}

    def search(self, query: str, k: int = 10) -> list[str]:
        """The ids of the ``k`` best documents, best first (ties: the earlier document first)."""
        sc = self.scores(query)
        order = sorted(sc, key=lambda d: -sc[d])  # stable: insertion order breaks ties
        return order[:k]


@dataclass(frozen=True)
class Query:
    """One labelled query: its text, where it is asked, and the ids that answer it."""

    text: str
    relevant: frozenset[str]
    scope: str | None = None
    kind: str | None = None
    qid: str | None = None


#: A ranking function: the ids a mode returns for a query, best first.
Ranker = Callable[[Query], Sequence[str]]


@dataclass
class Tally:
    """Per-query values of one mode (and one kind), summed as they come."""

    ks: tuple[int, ...]
    answerable: int = 0
    recall: dict[int, float] = field(default_factory=dict)
    rr: float = 0.0
    unanswerable: int = 0
    empty: int = 0

    def add(self, ranked: Sequence[str], relevant: frozenset[str]) -> None:
        if not relevant:
            self.unanswerable += 1
            self.empty += not ranked
            return
        self.answerable += 1
        for k in self.ks:
            self.recall[k] = self.recall.get(k, 0.0) + recall_at(ranked, relevant, k)
        self.rr += reciprocal_rank(ranked, relevant)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": self.answerable}
        n = self.answerable
        for k in self.ks:
            out[f"recall@{k}"] = round(self.recall.get(k, 0.0) / n, 4) if n else None
        out["mrr"] = round(self.rr / n, 4) if n else None
        if self.unanswerable:
            out["unanswerable"] = self.unanswerable
            out["empty"] = self.empty
            out["empty_rate"] = round(self.empty / self.unanswerable, 4)
        return out


def evaluate(
    queries: Sequence[Query],
    rankers: Mapping[str, Ranker],
    ks: Sequence[int] = DEFAULT_KS,
) -> dict[str, Any]:
    """Metrics of each ranker over ``queries``: ``{mode: {"all": summary, "kinds": {kind: summary}}}``.

    Each ranker is asked for every query once and should return at least ``max(ks)`` ids when it
    has them (MRR looks at everything it returns).
    """
    kk = tuple(sorted(set(ks)))
    out: dict[str, Any] = {}
    for mode, rank in rankers.items():
        total = Tally(kk)
        kinds: dict[str, Tally] = {}
        for q in queries:
            ranked = list(rank(q))
            total.add(ranked, q.relevant)
            if q.kind is not None:
                kinds.setdefault(q.kind, Tally(kk)).add(ranked, q.relevant)
        out[mode] = {"all": total.summary(), "kinds": {k: t.summary() for k, t in sorted(kinds.items())}}
    return out


def check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    """The cut-offs, sorted and de-duplicated; each must be 1..1000."""
    from .errors import ValidationError

    if not ks:
        return DEFAULT_KS
    for k in ks:
        if not 1 <= k <= 1000:
            raise ValidationError(f"k must be between 1 and 1000, got {k}")
    return tuple(sorted(set(ks)))


__all__ = [
    "BM25",
    "DEFAULT_KS",
    "Query",
    "Ranker",
    "Tally",
    "check_ks",
    "evaluate",
    "recall_at",
    "reciprocal_rank",
    "tokens",
]
