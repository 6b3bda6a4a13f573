"""Hybrid fusion: query-term coverage (mem.format.index.terms) and the convex combination."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.index.derived import rebuild
from mem.format.index.lexical import LexicalIndex
from mem.format.index.terms import analyzer, coverage, query_weights, terms
from mem.format.rules.lexicon import nfc, query_words
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store
from tests.conftest import searched

TRICKY = [
    "Running runners ran quickly through the Lisbon café's courtyards",
    "PX-20931 and 192.168.7.254 are identifiers; don't split words like e-mail wrongly",
    "Ünïcödé Wörds, CAPITALS and camelCase tokens mixed with numbers 4471",
    "a" * 100 + " is too long to be indexed but short words are",
    "我住在东京，東京タワーに行きました and the commit 3f9a0c1d2e4b5a6978877665544332211aabbcc0 shipped",
]


def test_terms_are_exactly_the_indexed_terms(store: Store) -> None:
    """Every term the fusion analyzer produces for a record exists in the lexical index."""
    for text in TRICKY:
        store.add(text, scope="ana")
    rebuild(store, lexical=True, vectors=False)
    lex = LexicalIndex.open(store.index_dir)
    searcher = lex.searcher()
    for text in TRICKY:
        got = terms(text)
        assert got
        for t in got:
            assert searcher.doc_freq("content", t) >= 1, (t, text)
    assert "a" * 100 not in terms(TRICKY[3])  # words of 100 bytes or more are not indexed
    # a Chinese character or a kana is a word; a 40-digit commit id is one (en_stem dropped it)
    assert {"东", "京", "タ", "き", "3f9a0c1d2e4b5a6978877665544332211aabbcc0", "ship"} <= terms(TRICKY[4])
    assert "run" in terms(TRICKY[0]) and "Running" not in terms(TRICKY[0])


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from("ab Z9_-.,'éÉ東京たワｶﾀー・中文我서울\u3000\u0301\U00020000xyz"), max_size=40))
def test_query_words_are_the_index_words(s: str) -> None:
    """Each word of a query is at most one indexed term (a word that tokenized to several would be
    read by tantivy as a phrase: a Chinese sentence would then match only itself), except words
    joined by '_' (snake_case: a phrase of its parts, on purpose), and the query's words are the
    terms the index makes of the same text (operators aside)."""
    words = query_words(s)
    for w in words:
        assert "_" in w or len(analyzer().analyze(w)) <= 1, (s, w)
    want = analyzer().analyze(nfc(s))
    if len(words) != len(want):  # only and/or/not/to/in left out of a query with other words
        assert [t for t in want if t not in {"and", "or", "not", "to", "in"}] == analyzer().analyze(" ".join(words))
    else:
        assert analyzer().analyze(" ".join(words)) == want


def test_query_weights_are_bm25_idf(store: Store) -> None:
    store.add("tea in Lisbon", scope="ana")
    store.add("tea in Porto", scope="ana")
    store.add("coffee in Porto", scope="ana")
    rebuild(store, lexical=True, vectors=False)
    searcher = LexicalIndex.open(store.index_dir).searcher()
    w = query_weights(searcher, "Tea LISBON tea? unknownword")
    assert set(w) == {"tea", "lisbon", "unknownword"}
    assert w["lisbon"] > w["tea"] > 0  # rarer term, higher idf
    assert w["unknownword"] > w["lisbon"]  # df 0: the highest idf


def test_coverage_bounds() -> None:
    w = {"a": 2.0, "b": 1.0, "c": 1.0}
    assert coverage(w, frozenset({"a", "b", "c", "x"})) == 1.0
    assert coverage(w, frozenset({"a"})) == 0.5
    assert coverage(w, frozenset({"b"})) == 0.25
    assert coverage(w, frozenset()) == 0.0
    assert coverage({}, frozenset({"a"})) == 0.0


@settings(max_examples=60, deadline=None)
@given(w=st.dictionaries(st.text(min_size=1, max_size=5), st.floats(0, 20), max_size=6),
       d=st.frozensets(st.text(min_size=1, max_size=5), max_size=8))
def test_coverage_is_a_fraction(w: dict[str, float], d: frozenset[str]) -> None:
    c = coverage(w, d)
    assert 0.0 <= c <= 1.0 + 1e-9


def test_hybrid_explain_reports_coverage_and_full_match_wins_over_length(store: Store) -> None:
    """A long record containing every query term gets coverage 1.0; one sharing a common word
    gets less (hashing embedder: only the coverage part is asserted, never semantics)."""
    filler = " ".join(f"filler{i} words about nothing in particular" for i in range(60))
    long_id = store.add(filler + " The storage unit padlock combination is 7391.", scope="ana", allow_secret=True).id
    short_id = store.add("The storage room is in the basement.", scope="ana").id
    with open_searcher(store) as s:
        res = s.search("storage unit padlock combination", mode="hybrid", k=10, explain=True)
        by_id = {h.id: h for h in res.hits}
        assert by_id[long_id].explain is not None and by_id[long_id].explain["coverage"] == 1.0
        assert by_id[short_id].explain is not None and 0.0 < by_id[short_id].explain["coverage"] < 0.5
        assert by_id[long_id].explain["fusion"] == "convex(vector_weight=0.6)"
        lex = s.search("storage unit padlock combination", mode="lexical", k=10, explain=True)
        assert all(h.explain is not None and "coverage" not in h.explain for h in lex.hits)


def test_rrf_fusion_is_still_available(store: Store) -> None:
    (store.root / "config.toml").write_text('[search]\nfusion = "rrf"\n', "utf-8")
    store = Store.open(store.root)
    store.add("green tea in the morning", scope="ana")
    res = searched(store, "green tea", mode="hybrid", explain=True)
    assert res.hits and res.hits[0].explain is not None
    assert res.hits[0].explain["fusion"] == "rrf" and "coverage" not in res.hits[0].explain


@pytest.mark.model
def test_real_model_hybrid_finds_a_detail_past_the_embedding_window(store: Store,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """MiniLM sees the first 256 tokens of a record: a detail at the end of a long journal entry
    is invisible to the vector arm. Hybrid still finds it (full coverage), and does not let a
    record that shares one common word outrank a paraphrase the vector arm found."""
    monkeypatch.setenv("MEM_EMBEDDER", "minilm")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from quality import BURIED, QUALITY, buried_record

    # its detail is a padlock combination, which the secrets policy refuses without the override
    buried = store.add(buried_record(0), scope="ana", kind="episode", allow_secret=True).id
    planted = {store.add(q["record"], scope="ana").id: q for q in QUALITY[:20]}
    for i in range(1, 6):
        store.add(buried_record(i)[:400], scope="ana", kind="episode")  # filler-only distractors
    with open_searcher(store) as s:
        s.search("warm up", mode="hybrid")
        s.catch_up()  # every record embedded (the searches embed none: a background thread does)
        q = BURIED[0]["query"]
        vec = [h.id for h in s.search(q, mode="vector", k=10).hits]
        hyb = [h.id for h in s.search(q, mode="hybrid", k=10).hits]
        assert vec[0] != buried  # the vector arm alone does not put it first (its detail is past 256 tokens)
        assert hyb[0] == buried
        for rid, item in planted.items():  # paraphrases: no shared content word with the record
            got = [h.id for h in s.search(item["paraphrase"], mode="hybrid", k=3).hits]
            assert rid in got, item
