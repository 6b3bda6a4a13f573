"""The second conversational benchmark (bench/convo2) is what it says: deterministic, big enough,
every question with its evidence, written independently of bench/convo, and its runner (bench/convo's
harness, imported) works end to end."""

from __future__ import annotations

import ast
import datetime as dt
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH / "convo2"))
sys.path.insert(0, str(BENCH / "convo"))

import convo2_generate as generate  # noqa: E402
import convo2_run  # noqa: E402
import convo_generate  # noqa: E402
import convo_run  # noqa: E402


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return generate.dataset()


def test_deterministic_and_large_enough(data: dict[str, Any]) -> None:
    assert generate.dataset() == data
    convs = data["conversations"]
    assert len(convs) >= 20
    assert all(len(c["sessions"]) >= 15 for c in convs)
    assert sum(len(s["turns"]) for c in convs for s in c["sessions"]) >= 4000
    assert generate.dataset(seed=7, conversations=2)["digest"] != generate.dataset(conversations=2)["digest"]
    kinds = {q["kind"] for c in convs for q in c["questions"]}
    assert kinds == {"single", "multi", "temporal", "preference", "unanswerable"}
    assert {c["split"] for c in convs} == {"heldout"}  # a test set: no development half


def test_questions_carry_their_evidence(data: dict[str, Any]) -> None:
    for c in data["conversations"]:
        turns = {t["id"]: (s, t) for s in c["sessions"] for t in s["turns"]}
        for q in c["questions"]:
            if q["kind"] == "unanswerable":
                assert q["evidence"] == [] and q["trap"] in ("absent-topic", "unstated", "other-person"), q
                continue
            assert q["evidence"] and all(t in turns for t in q["evidence"]), q
            sessions = {turns[t][0]["index"] for t in q["evidence"]}
            if q["kind"] == "multi":
                assert len(sessions) >= 2, q
            if q["kind"] == "temporal":  # a day (or the week/weekend of one) near the session's day
                day = dt.date.fromisoformat(turns[q["evidence"][0]][0]["date"][:10])
                when = dt.datetime.strptime(q["answer"].split(" of ")[-1], "%d %B %Y").date()
                assert day - dt.timedelta(days=14) <= when <= day + dt.timedelta(days=35), q


def test_an_absent_topic_is_absent(data: dict[str, Any]) -> None:
    """An ``absent-topic`` question asks about a storyline the conversation never had."""
    for c in data["conversations"]:
        had = {q["story"] for q in c["questions"] if q["kind"] != "unanswerable" or q["trap"] != "absent-topic"}
        for q in c["questions"]:
            if q.get("trap") == "absent-topic":
                assert q["story"] not in had, q


def test_one_record_per_turn(data: dict[str, Any]) -> None:
    from mem.format.model.record import normalize_for_match

    for c in data["conversations"]:
        texts = [normalize_for_match(t["text"]) for s in c["sessions"] for t in s["turns"]]
        assert len(texts) == len(set(texts)), c["id"]


def test_independent_of_bench_convo(data: dict[str, Any]) -> None:
    """No turn or question of bench/convo longer than four words is said here (a short "night!"
    may come up in both by chance)."""
    other = convo_generate.dataset()
    theirs = {t["text"].lower() for c in other["conversations"] for s in c["sessions"] for t in s["turns"]}
    theirs |= {q["question"].lower() for c in other["conversations"] for q in c["questions"]}
    ours = {t["text"].lower() for c in data["conversations"] for s in c["sessions"] for t in s["turns"]}
    ours |= {q["question"].lower() for c in data["conversations"] for q in c["questions"]}
    assert not {t for t in ours & theirs if len(t.split()) > 4}


def test_generator_uses_the_standard_library_only() -> None:
    local = {"convo2_stories", "convo2_chatter", "convo2_generate", "convo_cli"}  # convo_cli: bench/convo's
    for name in ("convo2/convo2_generate.py", "convo2/convo2_stories.py", "convo2/convo2_chatter.py",
                 "convo/convo_cli.py"):
        tree = ast.parse((BENCH / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            for m in mods:
                assert m.split(".")[0] in sys.stdlib_module_names | local, (name, m)


def test_runner_end_to_end_on_two_conversations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bench/convo's harness over this data: every turn one episode, every mode, BM25, the floor."""
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    own = convo_run.dataset
    prep = convo2_run.prepare("hashing", conversations=2, cache=tmp_path)
    assert convo_run.dataset is own  # handed back
    assert prep.data == generate.dataset(conversations=2)
    assert len(prep.turn_of) == sum(len(s["turns"]) for c in prep.data["conversations"] for s in c["sessions"])
    from mem.format.store.store import Store

    rec = next(iter(Store.open(prep.store_dir).iter_records(["convo2-c00"])))
    assert rec.kind == "episode" and rec.valid_from is not None
    assert rec.source["speaker"] in prep.data["conversations"][0]["speakers"]

    m = convo2_run.measure(prep, modes=["lexical", "hybrid"], floor=1e9, keep_hits=True, ks=(5, 10, 20))
    modes = m["heldout"]["modes"]
    assert {"bm25", "lexical", "hybrid", "hybrid@floor"} <= set(modes)
    qs = [q for c in prep.data["conversations"] for q in c["questions"]]
    assert modes["bm25"]["all"]["queries"] == sum(1 for q in qs if q["evidence"])
    un = modes["hybrid@floor"]["all"]
    assert un["empty"] == un["unanswerable"] == sum(1 for q in qs if not q["evidence"]) > 0
    assert modes["hybrid"]["all"]["empty"] == 0
    assert "convo2 (test set)" not in convo_run.tables(m)  # the runner relabels; the harness does not
    assert "recall@20" in modes["hybrid"]["all"]
    dump = tmp_path / "hits.jsonl"
    convo_run._dump(prep, m, dump)
    table = convo2_run.subsets(dump, prep.data)
    answerable = sum(1 for q in qs if q["evidence"])
    assert f"| all answerable | {answerable} |" in table
    by = [line for line in table.splitlines() if line.startswith("| evidence by")]
    assert sum(int(line.split("|")[2]) for line in by) == answerable
    prefix = convo2_run.k_prefix(prep, (50,))
    assert "| 50 | " in prefix and f" of {len(qs)} |" in prefix
    ab = convo2_run.ablation(prep, tmp_path)
    assert set(ab) == {"none", "speaker", "when", "stage2"}
    plain = convo2_run.measure(prep, modes=["hybrid"])["heldout"]["modes"]["hybrid"]["all"]
    assert ab["none"]["all"] == plain  # nothing switched off: the default search
    assert set(ab["none"]["slices"]) == {convo2_run.BY_NAMED, convo2_run.BY_FRIEND}
    assert "| speaker term off |" in convo2_run.ablation_table(ab)
    with convo2_run.ablated("stage2"):
        from mem.format.search import relevance

        assert relevance.name_match(relevance.read_query("When did Kasia move?"), "kasia") == 0.0
    assert relevance.name_match(relevance.read_query("When did Kasia move?"), "kasia") == 1.0


def test_speaker_in_text_variant() -> None:
    """The variant writes each turn as "Name: text", under another digest; the data is untouched."""
    data = generate.dataset(conversations=1)
    before = [t["text"] for s in data["conversations"][0]["sessions"] for t in s["turns"]]
    var = convo2_run.speaker_in_text(data)
    turns = [t for s in var["conversations"][0]["sessions"] for t in s["turns"]]
    assert [t["text"] for t in turns] == [f"{t['speaker']}: {b}" for t, b in zip(turns, before, strict=True)]
    assert var["digest"] != data["digest"]
    assert [t["text"] for s in data["conversations"][0]["sessions"] for t in s["turns"]] == before
    # the same turns with no speaker in the source: a store of their own
    only = convo2_run.speaker_in_text(data, keep_source_speaker=False)
    assert only["source_speaker"] is False and var["source_speaker"] is True
    assert only["digest"] not in (var["digest"], data["digest"])
    assert [t["text"] for s in only["conversations"][0]["sessions"] for t in s["turns"]] == [t["text"] for t in turns]
