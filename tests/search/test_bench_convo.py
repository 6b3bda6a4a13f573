"""The generated conversational benchmark (bench/convo) is what it says, and its runner works."""

from __future__ import annotations

import ast
import datetime as dt
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

CONVO = Path(__file__).resolve().parents[2] / "bench" / "convo"
sys.path.insert(0, str(CONVO))

import convo_forms  # noqa: E402
import convo_generate as generate  # noqa: E402
import convo_run  # noqa: E402

STOP = set(
    ["a", "an", "the", "i", "my", "me", "we", "our", "is", "are", "am", "to", "of", "in", "on", "at", "for", "with", "and", "or", "but", "so", "by", "be", "it", "its", "this", "that", "which", "what", "when", "where", "who", "how", "do", "does", "did", "has", "have", "had", "from", "up", "now", "these", "days", "new", "s"]
)


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return generate.dataset()


def test_deterministic_and_large_enough(data: dict[str, Any]) -> None:
    again = generate.dataset()
    assert again["digest"] == data["digest"]
    assert again == data
    convs = data["conversations"]
    assert len(convs) >= 20
    assert all(len(c["sessions"]) >= 15 for c in convs)
    assert sum(len(s["turns"]) for c in convs for s in c["sessions"]) >= 4000
    assert generate.dataset(seed=7)["digest"] != data["digest"]


def test_halves_by_conversation(data: dict[str, Any]) -> None:
    convs = data["conversations"]
    assert [c["split"] for c in convs] == ["dev" if i % 2 == 0 else "heldout" for i in range(len(convs))]
    for split in generate.SPLITS:
        kinds = {q["kind"] for c in convs if c["split"] == split for q in c["questions"]}
        assert kinds == {"single", "multi", "temporal", "preference", "dated", "unanswerable"}


def test_questions_carry_their_evidence(data: dict[str, Any]) -> None:
    for c in data["conversations"]:
        turns = {t["id"]: (s, t) for s in c["sessions"] for t in s["turns"]}
        speakers = set(c["speakers"])
        for q in c["questions"]:
            if q["kind"] == "unanswerable":
                assert q["evidence"] == [] and q["trap"] in ("absent-topic", "other-speaker")
                continue
            assert q["evidence"], q
            for tid in q["evidence"]:
                assert tid in turns, (q, tid)
                assert turns[tid][1]["speaker"] in speakers
            sessions = {turns[t][0]["index"] for t in q["evidence"]}
            if q["kind"] == "multi":
                assert len(sessions) >= 2, q  # facts combined across sessions
            if q["kind"] == "temporal":  # a date the session's date and the turn's words give
                s = turns[q["evidence"][0]][0]
                when = dt.date.fromisoformat(q["answer"])
                day = dt.date.fromisoformat(s["date"][:10])
                assert day - dt.timedelta(days=7) <= when <= day, q
            if q["kind"] == "dated":  # it names the day of an event its one turn tells of, then or days after
                from mem.format.search.relevance import DATE_AFTER_DAYS, read_query

                (start, _end), = read_query(q["question"]).dates
                said = dt.date.fromisoformat(turns[q["evidence"][0]][0]["date"][:10])
                assert len(q["evidence"]) == 1 and start.date() <= said < start.date() + dt.timedelta(
                    days=DATE_AFTER_DAYS), q
                assert turns[q["evidence"][0]][1]["speaker"] in q["question"], q


def test_dated_questions_leave_the_turns_and_other_questions_as_they_were() -> None:
    """Version 2 added the ``dated`` questions from a generator of their own: without version 3's
    friend-spoken turns, the turns (and so the cached stores, keyed by ``turns_digest``) and every
    other question are version 1's."""
    v2 = generate.dataset(friend=False)
    assert v2["turns_digest"] == "44e20ebd4e0c2701"
    v1 = [{**c, "questions": [q for q in c["questions"] if q["kind"] != "dated"]} for c in v2["conversations"]]
    body = json.dumps(v1, sort_keys=True, ensure_ascii=False).encode("utf-8")
    import hashlib

    assert hashlib.sha256(body).hexdigest()[:16] == "bb689645d6afb985"  # version 1's digest
    assert 30 <= sum(q["kind"] == "dated" for c in v2["conversations"] if c["split"] == "dev"
                     for q in c["questions"]) <= 40


def _friend_spoken(conv: dict[str, Any], q: dict[str, Any]) -> bool:
    speaker = {t["id"]: t["speaker"] for s in conv["sessions"] for t in s["turns"]}
    return any(speaker[e] not in q["question"] for e in q["evidence"])


def _frame_match(frames: list[str], text: str) -> re.Match[str] | None:
    pats = [re.escape(f).replace(re.escape("{x}"), "(?P<x>.+)").replace(re.escape("{X}"), "(?P<x>.+)")
            .replace(re.escape("{n}"), "(?P<n>[A-Z][a-z]+)") for f in frames]
    return next((m for p in pats if (m := re.fullmatch(p, text))), None)


def test_friend_spoken_evidence_on_both_halves(data: dict[str, Any]) -> None:
    """Versions 3 and 4: about a tenth of each half's answerable questions are answered by a turn
    the friend said of the person the question names; that turn is the subject's turn of version
    2 with the same id, in the friend's words: to them ("you", version 3's frames), of them by
    name in the third person, or an echo with neither (version 4); every other turn and every
    question is version 2's."""
    from convo_forms import spoken_to

    assert data["version"] == "4" and data["turns_digest"] not in ("44e20ebd4e0c2701", "89657eb1b94e277a")
    v2 = generate.dataset(friend=False)
    assert [c["questions"] for c in v2["conversations"]] == [c["questions"] for c in data["conversations"]]
    forms: dict[str, dict[str, int]] = {split: {} for split in generate.SPLITS}
    for split in generate.SPLITS:
        convs = [(c, o) for c, o in zip(data["conversations"], v2["conversations"], strict=True) if c["split"] == split]
        answerable = [(c, q) for c, _o in convs for q in c["questions"] if q["evidence"]]
        by_friend = [(c, q) for c, q in answerable if _friend_spoken(c, q)]
        before = [(o, q) for _c, o in convs for q in o["questions"] if q["evidence"] and _friend_spoken(o, q)]
        assert 0.08 <= (len(by_friend) - len(before)) / len(answerable) <= 0.13, (split, len(by_friend), len(answerable))
        kinds = {q["kind"] for _c, q in by_friend}
        assert {"single", "temporal", "preference"} <= kinds and "dated" not in kinds
    for c, o in zip(data["conversations"], v2["conversations"], strict=True):
        new = {t["id"]: t for s in c["sessions"] for t in s["turns"]}
        old = {t["id"]: t for s in o["sessions"] for t in s["turns"]}
        assert new.keys() == old.keys()
        changed = [tid for tid in new if new[tid] != old[tid]]
        assert changed, c["id"]
        a, b = c["speakers"]
        for tid in changed:
            subject, said = old[tid]["speaker"], new[tid]["text"]
            assert {new[tid]["speaker"], subject} == {a, b}  # the friend says it now
            assert any(tid in q["evidence"] for q in c["questions"])
            to_them = spoken_to(new[tid]["speaker"].lower(), 0.0, said)
            if (m := _frame_match(generate.FRIEND_FRAMES, said)) is not None:
                form = "you"
                assert m["x"].lower() == generate.second_person(old[tid]["text"]).rstrip(".!").lower()
            elif (m := _frame_match(generate.NAME_FRAMES, said)) is not None:
                form = "name"
                assert m["n"] == subject and to_them == 0.0, said
                assert m["x"].lower() == generate.third_person(old[tid]["text"], generate_gender(c, subject)).rstrip(
                    ".!").lower()
            else:
                m = _frame_match(generate.BARE_FRAMES, said)
                assert m is not None, said
                form = "bare"
                assert to_them == 0.0 and subject not in said, said
                assert m["x"].lower() == (generate.bare_echo(old[tid]["text"]) or "").rstrip(".!").lower()
            forms[c["split"]][form] = forms[c["split"]].get(form, 0) + 1
    for split, n in forms.items():  # every form on both halves, and most turns not "you"
        assert set(n) == set(generate.FRIEND_FORMS) and min(n.values()) >= 3, (split, n)
        assert n["you"] < sum(n.values()) / 2, (split, n)


def generate_gender(conv: dict[str, Any], name: str) -> str:
    return next(g for n, g in generate.SPEAKERS if n == name)


def test_version_3_is_the_friend_speaking_to_them() -> None:
    """``forms=("you",)`` gives version 3's turns (the digest the stores of version 3 were kept
    under), and version 4 rewrites the same turns."""
    v3 = generate.dataset(forms=("you",))
    assert v3["turns_digest"] == "89657eb1b94e277a"
    v4 = generate.dataset()
    v2 = generate.dataset(friend=False)

    def changed(d: dict[str, Any]) -> set[str]:
        return {t["id"] for c, o in zip(d["conversations"], v2["conversations"], strict=True)
                for s, so in zip(c["sessions"], o["sessions"], strict=True)
                for t, to in zip(s["turns"], so["turns"], strict=True) if t != to}

    assert changed(v4) == changed(v3)


def _half_digest(d: dict[str, Any], split: str) -> str:
    import hashlib

    body = json.dumps([c for c in d["conversations"] if c["split"] == split], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def test_extra_development_conversations_leave_the_held_out_half_byte_identical(data: dict[str, Any]) -> None:
    """``dataset(extra_dev=N)`` appends N conversations to the development half: the held-out half
    is the same, byte for byte (its digest pinned), the first 24 conversations are as they are
    without them, and every added one is a conversation of its own, in ``dev``."""
    more = generate.dataset(extra_dev=4)
    assert _half_digest(data, "heldout") == _half_digest(more, "heldout") == "39ecd67224672a82"
    n = generate.CONVERSATIONS
    assert more["conversations"][:n] == data["conversations"]
    added = more["conversations"][n:]
    assert [c["id"] for c in added] == [f"c{i:02d}" for i in range(n, n + 4)]
    assert all(c["split"] == "dev" for c in added)
    assert len({c["scope"] for c in more["conversations"]}) == n + 4
    assert more["turns_digest"] != data["turns_digest"]
    assert generate.dataset(extra_dev=4) == more  # deterministic
    # the default data set (and so its cached stores and its figures) does not move
    assert data["turns_digest"] == "78fd0bd39dbe2831" and data["digest"] == "d39b6edfd24665d1"
    # the digest sees one changed character of a held-out turn
    changed = json.loads(json.dumps(more))
    next(c for c in changed["conversations"] if c["split"] == "heldout")["sessions"][0]["turns"][0]["text"] += "!"
    assert _half_digest(changed, "heldout") != _half_digest(data, "heldout")


def test_spoken_to() -> None:
    """bench/convo's reading of a turn that speaks to someone (the friend's "you" form; the forms
    of convo_fit.py's ``addressed`` terms)."""
    from convo_forms import spoken_to

    assert spoken_to("ben", 0.0, "Congratulations on your new job!") == 1.0
    assert spoken_to("ben", 0.0, "So YOU'RE the one who took the last biscuit") == 1.0
    assert spoken_to("ben", 0.0, "'you' again?") == 1.0
    # negative: the named person's own turn, a turn without a speaker, a turn to nobody, a word
    # that only holds "you"
    assert spoken_to("ana", 1.0, "How are you?") == 0.0
    assert spoken_to(None, 0.0, "How are you?") == 0.0
    assert spoken_to("ben", 0.0, "My cousin had an interview there once.") == 0.0
    assert spoken_to("ben", 0.0, "The youth club and Younger Ltd") == 0.0
    assert spoken_to("ben", 0.0, "") == 0.0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40), st.sampled_from(sorted(convo_forms.YOU_WORDS)))
def test_spoken_to_reads_a_you_word_anywhere(before: str, after: str, you: str) -> None:
    """A "you" word standing alone anywhere makes a turn spoken to someone, in any case; a text
    without the letters "you" never is; the person named's own turn never is."""
    spoken_to = convo_forms.spoken_to
    text = f"{before} {you.upper() if len(before) % 2 else you} {after}"
    assert spoken_to("ben", 0.0, text) == 1.0
    assert spoken_to("ben", 1.0, text) == 0.0 and spoken_to(None, 0.0, text) == 0.0
    if "you" not in (before + after).lower():
        assert spoken_to("ben", 0.0, before + after) == 0.0


def test_third_person_and_bare_echo() -> None:
    tell = generate.third_person
    assert tell("I passed my driving test yesterday!", "f") == "She passed her driving test yesterday!"
    assert tell("I still cheer for them and I do my best. I was there, I am tired", "m") == (
        "He still cheers for them and he does his best. He was there, he is tired")
    assert tell("We named her Rufus, it's ours. I've got it, I'm hooked", "f") == (
        "They named her Rufus, it's theirs. She's got it, she's hooked")
    assert tell("No more hummus for me.", "f") == "No more hummus for her."
    assert tell("Miso is an image of calm at 4am.", "m") == "Miso is an image of calm at 4am."
    echo = generate.bare_echo
    assert echo("I came off my bike earlier today and fractured my wrist. Six weeks in a cast.") == (
        "came off bike earlier today and fractured wrist. Six weeks in a cast.")
    assert echo("Season ticket renewed. I'm hooked.") == "Season ticket renewed. Hooked."
    assert echo("We named her Rufus.") == "named her Rufus."
    # a first-person object cannot be left out: no echo
    assert echo("Robin surprised me with a kayak.") is None and echo("It moved in with us.") is None
    assert echo("I.") is None


def test_second_person() -> None:
    say = generate.second_person
    assert say("I passed my driving test yesterday!") == "You passed your driving test yesterday!"
    assert say("We named her Rufus. I'm hooked, we've got our flat, ours!") == (
        "You named her Rufus. You're hooked, you've got your flat, yours!")
    assert say("I was there. I am tired") == "You were there. You are tired"
    assert say("Rafael, my cousin, had the baby at 4am") == "Rafael, your cousin, had the baby at 4am"
    # nothing first-person: unchanged (no word inside another is touched: "Miso", "image", "4am")
    assert say("Miso is an image of calm at 4am.") == "Miso is an image of calm at 4am."


def test_one_record_per_turn(data: dict[str, Any]) -> None:
    """No two turns of a conversation say the same thing (the importer would merge them)."""
    from mem.format.model.record import normalize_for_match

    for c in data["conversations"]:
        texts = [normalize_for_match(t["text"]) for s in c["sessions"] for t in s["turns"]]
        assert len(texts) == len(set(texts)), c["id"]
    lines = generate.import_lines(data, "dev")
    assert {o["kind"] for o in lines} == {"episode"}
    assert all(o["source"]["speaker"] and o["valid_from"].endswith("Z") for o in lines)


def test_lexical_overlap_does_not_find_most_answers(data: dict[str, Any]) -> None:
    """Questions are paraphrased: most share no content word with any of their evidence turns."""

    def words(text: str) -> set[str]:
        return {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", text.lower())} - STOP

    answerable = disjoint = 0
    for c in data["conversations"]:
        text = {t["id"]: t["text"] for s in c["sessions"] for t in s["turns"]}
        names = {n.lower() for n in c["speakers"]}
        for q in c["questions"]:
            if q["evidence"]:
                answerable += 1
                qw = words(q["question"]) - names
                disjoint += all(not (qw & words(text[t])) for t in q["evidence"])
    assert disjoint / answerable >= 0.4


def test_generator_uses_the_standard_library_only() -> None:
    local = {"convo_facts", "convo_chatter", "convo_generate", "convo_cli"}
    for name in ("convo_generate.py", "convo_facts.py", "convo_chatter.py", "convo_cli.py"):
        tree = ast.parse((CONVO / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module]
            for m in mods:
                top = m.split(".")[0]
                assert top in sys.stdlib_module_names or top in local, (name, m)


def test_runner_end_to_end_on_two_conversations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Import through mem's JSONL importer, vectors with the test embedder, every mode and BM25."""
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    prep = convo_run.prepare("hashing", conversations=2, cache=tmp_path)
    assert prep.build_seconds is not None
    assert len(prep.turn_of) == sum(len(s["turns"]) for c in prep.data["conversations"] for s in c["sessions"])
    from mem.format.store.store import Store

    rec = next(iter(Store.open(prep.store_dir).iter_records(["convo-c00"])))
    assert rec.kind == "episode" and rec.valid_from is not None
    assert rec.source["speaker"] in prep.data["conversations"][0]["speakers"]

    m = convo_run.run("hashing", prepared=prep, min_score=1e9, sweep=[1e9, -1e9], modes=["lexical", "vector", "hybrid"])
    assert set(m) == {"setup", "dev"}  # the held-out half only when asked for
    modes = m["dev"]["modes"]
    assert {"bm25", "lexical", "vector", "hybrid", "hybrid@floor", "hybrid@1e+09", "hybrid@-1e+09"} <= set(modes)
    dev_q = [q for c in prep.data["conversations"] if c["split"] == "dev" for q in c["questions"]]
    assert modes["bm25"]["all"]["queries"] == sum(1 for q in dev_q if q["evidence"])
    assert modes["hybrid@floor"]["all"]["recall@10"] == 0.0  # nothing passes an impossible floor
    un = modes["hybrid@floor"]["all"]
    assert un["empty"] == un["unanswerable"] == sum(1 for q in dev_q if not q["evidence"]) > 0
    assert set(modes["hybrid"]["kinds"]) == {"single", "multi", "temporal", "preference", "dated",
                                             "unanswerable/absent-topic", "unanswerable/other-speaker"}
    assert modes["hybrid"]["all"]["empty"] == 0
    # a floor read off the scores is the API's floor, and no floor at all is the plain mode
    assert modes["hybrid@1e+09"]["all"] == modes["hybrid@floor"]["all"]
    assert modes["hybrid@-1e+09"] == {k: v for k, v in modes["hybrid"].items() if k != "p50_ms"}
    assert modes["hybrid"]["p50_ms"] > 0 and "p50_ms" not in modes["bm25"]
    again = convo_run.prepare("hashing", conversations=2, cache=tmp_path)
    assert again.build_seconds is None  # cached
    both = convo_run.run("hashing", prepared=again, heldout=True, modes=["lexical"], keep_hits=True)
    assert set(both) == {"setup", "dev", "heldout"}
    dump = tmp_path / "hits.jsonl"
    convo_run._dump(again, both, dump)
    rows = [json.loads(line) for line in dump.read_text("utf-8").splitlines()]
    assert len(rows) == sum(len(c["questions"]) for c in prep.data["conversations"])
    found = [r for r in rows if r["first_rank"] is not None]
    assert found and all(r["hits"][r["first_rank"] - 1][0] in {e[0] for e in r["evidence"]} for r in found)
    assert all(r["first_rank"] is None for r in rows if not r["evidence"])
    assert "| bm25 |" in convo_run.tables(both)
    with pytest.raises(ValueError, match="dev half only"):
        convo_run.tune("hashing", split="heldout")


def test_the_speaker_of_a_name_text_turn_is_read_by_the_speaker_rule(data: dict[str, Any]) -> None:
    """With each turn written "Name: text" and no speaker in the source, stage 2's speaker rule
    (``relevance.speaker_of``, the rules layer's) reads every turn's speaker from its text."""
    from mem.format.search.relevance import speaker_of

    var = convo_run.speaker_in_text(data, keep_source_speaker=False)
    turns = [t for c in var["conversations"] for s in c["sessions"] for t in s["turns"]]
    assert len(turns) > 4000
    assert all(speaker_of({}, t["text"], "episode") == t["speaker"].lower() for t in turns)


def test_the_forms_of_a_friends_turn() -> None:
    import convo_forms

    names = frozenset({"maya"})
    assert convo_forms.form_of("A little bird told me: you handed in your notice!", "Ben", names) == "you"
    assert convo_forms.form_of("Just told my mum about Maya: she handed in her notice.", "Ben", names) == "by name"
    assert convo_forms.form_of("Big week for Maya's team.", "Ben", names) == "by name"
    assert convo_forms.form_of("omg. handed in notice?!", "Ben", names) == "neither"
