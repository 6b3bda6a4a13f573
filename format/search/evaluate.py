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
from pathlib import Path
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


# -- a store owner's labelled queries (mem eval) ----------------------------------------------

#: Keys a labelled query line may have; others are refused, so typos are seen.
LABEL_KEYS = frozenset({"query", "scope", "scopes", "answers", "answer_contents", "kind", "id"})
#: The modes ``mem eval`` measures, besides the BM25 reference.
EVAL_MODES: tuple[str, ...] = ("lexical", "vector", "hybrid", "reranked")


@dataclass(frozen=True)
class Labelled:
    """One line of a labelled-query file, checked: ``answers`` are normalized ids."""

    line: int
    query: str
    scopes: tuple[str, ...] | None
    answers: tuple[str, ...]
    contents: tuple[str, ...]
    kind: str | None
    label: str | None


def _strings(obj: Mapping[str, Any], key: str, bad: Callable[[str], Exception]) -> tuple[str, ...] | None:
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise bad(f"{key!r} must be a list of non-empty strings")
    return tuple(v)


def parse_labelled(lines: Iterable[str], display: str) -> list[Labelled]:
    """Labelled queries from JSON Lines text; the first bad line raises, naming file and line.

    A line: ``{"query": str, "scope"|"scopes": str | [str], "answers": [ids],
    "answer_contents": [str], "kind": str, "id": str}``; ``query`` and one of ``answers`` /
    ``answer_contents`` are required; both empty means the store holds no answer to it.
    """
    import json

    from mem.format.base.errors import InvalidInputError
    from mem.format.rules import ids

    out: list[Labelled] = []
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue

        def bad(msg: str, n: int = n) -> InvalidInputError:
            return InvalidInputError(msg, path=display, line=n)

        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise bad(f"not JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise bad("not a JSON object")
        unknown = sorted(set(obj) - LABEL_KEYS)
        if unknown:
            raise bad(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(LABEL_KEYS))})")
        query = obj.get("query")
        if not isinstance(query, str) or not query.strip():
            raise bad("\"query\" must be a non-empty string")
        if "scope" in obj and "scopes" in obj:
            raise bad("give \"scope\" or \"scopes\", not both")
        scopes = _strings(obj, "scopes" if "scopes" in obj else "scope", bad)
        answers = _strings(obj, "answers", bad) if obj.get("answers") != [] else ()
        contents = _strings(obj, "answer_contents", bad) if obj.get("answer_contents") != [] else ()
        if answers is None and contents is None:
            raise bad("no \"answers\" (record ids) or \"answer_contents\": give one "
                      "(an empty list: the store holds no answer to this query)")
        try:
            for sc in scopes or ():
                ids.check_scope(sc)
        except InvalidInputError as exc:
            raise bad(exc.message) from None
        norm = []
        for a in answers or ():
            if not ids.is_id(ids.normalize_id(a)):
                raise bad(f"answer {a!r} is not a record id (26 characters, Crockford base32)")
            norm.append(ids.normalize_id(a))
        kind, label = obj.get("kind"), obj.get("id")
        if kind is not None and not isinstance(kind, str):
            raise bad("\"kind\" must be a string")
        if label is not None and not isinstance(label, (str, int)):
            raise bad("\"id\" must be a string or a number")
        out.append(Labelled(n, query, scopes, tuple(norm), contents or (), kind,
                            None if label is None else str(label)))
    if not out:
        raise InvalidInputError("no labelled queries in the file", path=display)
    return out


def read_labelled(path: Path, display: str | None = None) -> list[Labelled]:
    """Labelled queries from a JSON Lines file (see :func:`parse_labelled`)."""
    from mem.format.base.errors import InvalidInputError, NotFoundError

    name = display or str(path)
    if not path.exists():
        raise NotFoundError("no such file", path=name)
    if not path.is_file():
        raise InvalidInputError("not a regular file", path=name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read: {exc.strerror}", path=name) from None
    return parse_labelled(decode_lines(data, name), name)


def decode_lines(data: bytes, display: str) -> list[str]:
    """The UTF-8 lines of ``data`` (a BOM dropped); an undecodable line raises with its number."""
    from mem.format.base.errors import InvalidInputError

    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    out = []
    for n, raw in enumerate(data.split(b"\n"), start=1):
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"not valid UTF-8 (byte {exc.start} of the line)", path=display, line=n) from None
    return out


def evaluate_store(
    store: Any,
    labelled: Sequence[Labelled],
    display: str,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    modes: Sequence[str] = EVAL_MODES,
    min_score: float | None = None,
) -> dict[str, Any]:
    """``mem eval``: each mode's recall@k and MRR over ``labelled``, with plain BM25 beside them.

    ``min_score`` is passed to every search (the relevance floor of ``mem search --min-score``;
    BM25 has none): queries without an answer then show how often the floor leaves nothing.

    An answer given by content is found when any record of the query's scopes with that content
    (compared as for de-duplication: ``normalize_for_match``) is; one given by id, when that
    record is. Every answer must exist in the query's scopes: an answer that cannot be found
    would only lower every mode alike, so it is an error naming the file and line.
    """
    from mem.format.base.errors import (
        EmbedderUnavailableError,
        IndexUnavailableError,
        InvalidInputError,
        NotFoundError,
    )
    from mem.format.model.record import normalize_for_match
    from mem.format.search.engine import Searcher
    from mem.format.store.store import RecordFilter

    kk = check_ks(ks)
    depth = max(kk)
    records = {r.id: r for r in store.list(RecordFilter())}  # what search considers by default
    by_content: dict[str, list[str]] = defaultdict(list)
    for r in records.values():
        by_content[normalize_for_match(r.content)].append(r.id)

    queries: list[Query] = []
    unit_of: list[dict[str, str]] = []  # per query: record id -> the answer it stands for
    for lq in labelled:

        def in_scope(rid: str, lq: Labelled = lq) -> bool:
            return lq.scopes is None or records[rid].scope in lq.scopes

        units: dict[str, str] = {}
        for rid in lq.answers:
            if rid not in records:
                try:
                    rec = store.get(rid)
                    why = f"is {rec.status}, which search does not return" if rec.status not in (
                        "active", "candidate") else "is not searchable"
                except NotFoundError as exc:
                    why = exc.message.replace(f"record {rid} ", "").replace(f"no record {rid}", "is not in the store")
                raise InvalidInputError(f"answer {rid} {why}", path=display, line=lq.line)
            if not in_scope(rid):
                raise InvalidInputError(f"answer {rid} is in scope {records[rid].scope!r}, outside the query's "
                                        f"scope(s) {', '.join(lq.scopes or ())}", path=display, line=lq.line)
            units[rid] = f"id:{rid}"
        for i, text in enumerate(lq.contents):
            found = [rid for rid in by_content.get(normalize_for_match(text), []) if in_scope(rid)]
            if not found:
                where = f" in scope(s) {', '.join(lq.scopes)}" if lq.scopes else ""
                raise InvalidInputError(f"answer_contents[{i}] matches no searchable record{where}: {text[:60]!r}",
                                        path=display, line=lq.line)
            for rid in found:
                units.setdefault(rid, f"content:{i}")
        queries.append(Query(lq.query, frozenset(units.values()), lq.scopes[0] if lq.scopes and len(lq.scopes) == 1
                             else None, lq.kind, str(len(queries))))
        unit_of.append(units)

    def as_units(q: Query, rids: Iterable[str]) -> list[str]:
        units = unit_of[int(q.qid or 0)]
        out: list[str] = []
        for rid in rids:  # one answer found twice (two records with its content) counts once;
            u = units.get(rid, rid)  # the second keeps its rank as a non-answer
            out.append(u if u not in out else f"again:{rid}")
        return out[:depth]

    bm25_cache: dict[tuple[str, ...] | None, BM25] = {}

    def bm25(q: Query) -> list[str]:
        sc = labelled[int(q.qid or 0)].scopes
        if sc not in bm25_cache:
            bm25_cache[sc] = BM25((r.id, r.content) for r in records.values() if sc is None or r.scope in sc)
        return as_units(q, bm25_cache[sc].search(q.text, depth))

    report: dict[str, Any] = {"queries": len(queries), "answerable": sum(1 for q in queries if q.relevant),
                              "ks": list(kk), "records": len(records), "min_score": min_score,
                              "modes": {}, "warnings": []}
    rankers: dict[str, Ranker] = {"bm25": bm25}
    unavailable: dict[str, str] = {}
    searcher = Searcher(store, long_lived=True)
    try:
        for mode in modes:
            kw: dict[str, Any] = {"mode": "hybrid" if mode == "reranked" else mode,
                                  "rerank": mode == "reranked", "min_score": min_score}
            try:  # one search tells whether the mode can run at all (an embedder, its vectors)
                probe = searcher.search(queries[0].text, scopes=labelled[0].scopes, k=1, **kw)
            except (EmbedderUnavailableError, IndexUnavailableError) as exc:
                unavailable[mode] = exc.message
                continue
            if probe.mode != kw["mode"]:
                unavailable[mode] = "; ".join(probe.warnings) or f"searched in {probe.mode} mode instead"
                continue
            if mode == "reranked":
                refused = [w for w in probe.warnings if w.startswith("reranking unavailable")]
                if refused:
                    unavailable[mode] = refused[0]
                    continue

            def rank(q: Query, kw: dict[str, Any] = kw) -> list[str]:
                res = searcher.search(q.text, scopes=labelled[int(q.qid or 0)].scopes, k=depth, **kw)
                for w in res.warnings:
                    if w not in report["warnings"]:
                        report["warnings"].append(w)
                return as_units(q, (h.id for h in res.hits))

            rankers[mode] = rank
        results = evaluate(queries, rankers, kk)
    finally:
        searcher.close()
    for mode in ("bm25", *modes):
        if mode in results:
            report["modes"][mode] = {"available": True, **results[mode]}
        elif mode in unavailable:
            report["modes"][mode] = {"available": False, "reason": unavailable[mode]}
    return report


def check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    """The cut-offs, sorted and de-duplicated; each must be 1..1000."""
    from mem.format.base.errors import ValidationError

    if not ks:
        return DEFAULT_KS
    for k in ks:
        if not 1 <= k <= 1000:
            raise ValidationError(f"k must be between 1 and 1000, got {k}")
    return tuple(sorted(set(ks)))


__all__ = [
    "BM25",
    "DEFAULT_KS",
    "EVAL_MODES",
    "LABEL_KEYS",
    "Labelled",
    "Query",
    "Ranker",
    "Tally",
    "check_ks",
    "decode_lines",
    "evaluate",
    "evaluate_store",
    "parse_labelled",
    "read_labelled",
    "recall_at",
    "reciprocal_rank",
    "tokens",
]
