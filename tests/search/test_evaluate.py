"""The retrieval metrics and the plain BM25 reference (mem.format.search.evaluate)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base.errors import InvalidInputError, ValidationError
from mem.format.search.evaluate import (
    BM25,
    Query,
    check_ks,
    evaluate,
    parse_labelled,
    recall_at,
    reciprocal_rank,
    tokens,
)

ids = st.lists(st.sampled_from([f"r{i}" for i in range(12)]), unique=True, max_size=12)


def test_recall_and_rr_by_hand() -> None:
    ranked = ["a", "b", "c", "d"]
    assert recall_at(ranked, {"c", "x"}, 2) == 0.0
    assert recall_at(ranked, {"c", "x"}, 3) == 0.5
    assert recall_at(ranked, {"a", "d"}, 10) == 1.0
    assert reciprocal_rank(ranked, {"c", "d"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranked, {"x"}) == 0.0
    assert reciprocal_rank([], {"x"}) == 0.0


@settings(deadline=None)
@given(ids, ids, st.integers(1, 15))
def test_recall_is_a_share_and_grows_with_k(ranked: list[str], relevant: list[str], k: int) -> None:
    r = recall_at(ranked, relevant, k)
    assert 0.0 <= r <= 1.0
    assert recall_at(ranked, relevant, k + 1) >= r
    if relevant:
        found = len(set(relevant) & set(ranked[:k]))
        assert r == found / len(set(relevant))
        assert recall_at(ranked, relevant, len(ranked)) == len(set(relevant) & set(ranked)) / len(set(relevant))


@settings(deadline=None)
@given(ids, ids)
def test_reciprocal_rank_names_the_first_hit(ranked: list[str], relevant: list[str]) -> None:
    rr = reciprocal_rank(ranked, relevant)
    firsts = [i for i, x in enumerate(ranked, 1) if x in set(relevant)]
    assert rr == (1 / firsts[0] if firsts else 0.0)


def test_evaluate_averages_per_mode_and_kind_and_counts_empty_answers() -> None:
    qs = [
        Query("q1", frozenset({"a"}), kind="single"),
        Query("q2", frozenset({"b", "c"}), kind="multi"),
        Query("q3", frozenset(), kind="unanswerable"),
    ]
    answers = {"q1": ["x", "a"], "q2": ["b", "y", "z", "w", "v", "c"], "q3": []}
    out = evaluate(qs, {"m": lambda q: answers[q.text], "none": lambda q: []}, ks=(1, 5))
    m = out["m"]["all"]
    assert m == {"queries": 2, "recall@1": 0.25, "recall@5": 0.75, "mrr": 0.75,
                 "unanswerable": 1, "empty": 1, "empty_rate": 1.0}
    assert out["m"]["kinds"]["multi"] == {"queries": 1, "recall@1": 0.5, "recall@5": 0.5, "mrr": 1.0}
    assert out["m"]["kinds"]["unanswerable"] == {"queries": 0, "recall@1": None, "recall@5": None, "mrr": None,
                                                 "unanswerable": 1, "empty": 1, "empty_rate": 1.0}
    assert out["none"]["all"]["recall@5"] == 0.0 and out["none"]["all"]["mrr"] == 0.0


def test_bm25_by_hand() -> None:
    docs = [("d1", "the cat sat"), ("d2", "the dog sat on the cat"), ("d3", "birds")]
    b = BM25(docs)
    n, avg = 3, (3 + 6 + 1) / 3

    def idf(df: int) -> float:
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def part(tf: int, length: int, df: int) -> float:
        return idf(df) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))

    sc = b.scores("Cat, DOG!")
    assert sc["d1"] == pytest.approx(part(1, 3, 2))
    assert sc["d2"] == pytest.approx(part(1, 6, 2) + part(1, 6, 1))
    assert "d3" not in sc
    assert b.search("cat dog", 5) == ["d2", "d1"]
    assert b.search("nothing here", 5) == []
    assert tokens("It's 5 o'clock, Ana!") == ["it", "s", "5", "o", "clock", "ana"]


@settings(deadline=None)
@given(st.lists(st.text(alphabet="abc xyz", max_size=20), max_size=8), st.text(alphabet="abcxyz ", max_size=10))
def test_bm25_returns_only_documents_sharing_a_term(texts: list[str], query: str) -> None:
    b = BM25((f"d{i}", t) for i, t in enumerate(texts))
    got = b.search(query, 100)
    q = set(tokens(query))
    assert got == [d for d in got if q & set(tokens(texts[int(d[1:])]))]
    assert {f"d{i}" for i, t in enumerate(texts) if q & set(tokens(t))} == set(got)
    scores = b.scores(query)
    assert [scores[d] for d in got] == sorted((scores[d] for d in got), reverse=True)


def test_check_ks() -> None:
    assert check_ks([]) == (5, 10)
    assert check_ks([10, 3, 10]) == (3, 10)
    with pytest.raises(ValidationError):
        check_ks([0])


VALID_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
good_line = st.fixed_dictionaries(
    {"query": st.text(min_size=1, max_size=20).filter(str.strip)},
    optional={
        "scope": st.sampled_from(["ana", "bob", "work.notes"]),
        "answers": st.lists(st.sampled_from([VALID_ID, VALID_ID.lower()]), max_size=2),
        "answer_contents": st.lists(st.text(min_size=1, max_size=10).filter(str.strip), max_size=2),
        "kind": st.sampled_from(["fact", "when"]),
        "id": st.one_of(st.integers(0, 9), st.text(max_size=5)),
    },
).filter(lambda d: "answers" in d or "answer_contents" in d)
BAD = frozenset([
    "{", "[]", '"text"', '{"query": ""}', '{"query": "q"}', '{"query": "q", "answers": "x y"}',
    '{"query": "q", "answers": [1]}', '{"query": "q", "answers": [], "extra": 1}',
    '{"query": "q", "scope": "Not A Scope", "answers": []}', '{"query": 3, "answers": []}',
    '{"query": "q", "scope": "a", "scopes": ["b"], "answers": []}', '{"query": "q", "answers": [], "kind": 1}',
])
bad_line = st.sampled_from(sorted(BAD))


@settings(deadline=None)
@given(st.lists(st.one_of(good_line.map(json.dumps), bad_line, st.just("  ")), min_size=1, max_size=8))
def test_labelled_lines_parse_or_name_the_first_bad_line(lines: list[str]) -> None:
    """Every well-formed line becomes one query; the first bad one is named by its number."""
    bad = [n for n, ln in enumerate(lines, 1) if ln in BAD]
    if bad:
        with pytest.raises(InvalidInputError) as ei:
            parse_labelled(lines, "f.jsonl")
        assert ei.value.line == bad[0] and ei.value.path == "f.jsonl"
        return
    if not any(ln.strip() for ln in lines):
        with pytest.raises(InvalidInputError, match="no labelled queries"):
            parse_labelled(lines, "f.jsonl")
        return
    got = parse_labelled(lines, "f.jsonl")
    objs = [(n, json.loads(ln)) for n, ln in enumerate(lines, 1) if ln.strip()]
    assert [g.line for g in got] == [n for n, _ in objs]
    for g, (_, o) in zip(got, objs, strict=True):
        assert g.query == o["query"]
        assert g.answers == tuple(VALID_ID for _ in o.get("answers", []))
        assert g.contents == tuple(o.get("answer_contents", []))
        assert g.scopes == ((o["scope"],) if "scope" in o else None)
        assert g.label == (None if "id" not in o else str(o["id"]))
