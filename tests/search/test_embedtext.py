"""The text a record's vector is made from: its content without a leading own-speaker prefix
(format/rules/embedtext.py; spec/index.md, "The embedded text"), used by every writer of a
vector, and the recipe the vector index's manifest keeps (W405)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.backlog import embed_backlog, merge_delta
from mem.format.index.derived import compact, rebuild
from mem.format.index.vectors import VectorIndex
from mem.format.model.record import Record
from mem.format.rules.embedtext import (
    LABELS,
    TEXT_RECIPE,
    embedding_text,
    manifest_recipe,
    prefix_end,
    record_speaker,
    same_text,
    source_speaker,
)
from mem.format.search.engine import Searcher
from mem.format.store.store import Store
from mem.format.verify.checks import verify_store
from tests.conftest import run_mem

# -- the rule ---------------------------------------------------------------------------------

_lower = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäéøß", min_size=1, max_size=9)
_names = st.builds(lambda a, b: a + b, st.sampled_from("ABCDEFGHIJKLMNOPRSTUVWZÄÉØ"), _lower).filter(
    lambda w: w.casefold() not in LABELS)
_two_word_names = st.one_of(_names, st.builds(lambda a, b: f"{a} {b}", _names, _names))
#: Texts after a prefix: anything with something other than white space in it.
_rests = st.text(min_size=1, max_size=40).filter(lambda t: t.strip() != "")
_kinds = st.sampled_from(["episode", "fact", "note", "preference", "event"])
_speakers = st.one_of(st.none(), _two_word_names, st.text(max_size=12))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60), _kinds, _speakers)
def test_the_embedded_text_is_the_content_or_a_suffix_after_a_prefix(content: str, kind: str,
                                                                       speaker: str | None) -> None:
    end = prefix_end(content, kind, speaker)
    got = embedding_text(content, kind, speaker)
    assert got == content[end:]
    if end:
        removed = content[:end]
        # what is removed is a prefix: a name, a colon and white space, and nothing else
        m = re.fullmatch(r"[ \t]*([^:\n]+?)[ \t]*:\s+", removed)
        assert m is not None, removed
        if speaker is not None:
            assert " ".join(m.group(1).split()).casefold() == " ".join(speaker.split()).casefold()
        else:
            assert kind == "episode" and m.group(1)[0].isupper()
        assert got.strip(), "never an empty text"
    else:
        assert got == content


@settings(max_examples=300, deadline=None)
@given(_two_word_names, _rests, st.sampled_from(["", " ", "\t"]), st.sampled_from([" ", "  ", "\n"]), _kinds,
       st.sampled_from([str, str.lower, str.upper]))
def test_an_own_speaker_prefix_is_removed_whatever_the_kind_and_case(name: str, rest: str, lead: str, gap: str,
                                                                     kind: str, case: object) -> None:
    content = f"{lead}{name}:{gap}{rest}"
    assert embedding_text(content, kind, case(name)) == f"{gap}{rest}".lstrip()  # type: ignore[operator]


@settings(max_examples=300, deadline=None)
@given(_two_word_names, _rests)
def test_a_name_without_a_source_speaker_is_removed_only_from_an_episode(name: str, rest: str) -> None:
    content = f"{name}: {rest}"
    assert embedding_text(content, "episode", None) == f" {rest}".lstrip()
    for kind in ("fact", "note", "preference", "event", "conversation"):
        assert embedding_text(content, kind, None) == content


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters=":"), max_size=60), _kinds, _speakers)
def test_a_text_without_a_colon_is_unchanged(content: str, kind: str, speaker: str | None) -> None:
    assert embedding_text(content, kind, speaker) == content


@settings(max_examples=200, deadline=None)
@given(_two_word_names, st.sampled_from(["", " ", "\n", " \t\n "]), _kinds, st.booleans())
def test_a_turn_that_is_only_the_prefix_keeps_its_text(name: str, tail: str, kind: str, own: bool) -> None:
    content = f"{name}:{tail}"
    assert embedding_text(content, "episode" if not own else kind, name if own else None) == content


@settings(max_examples=200, deadline=None)
@given(_two_word_names, _two_word_names, _rests, _kinds)
def test_another_persons_name_is_kept_when_the_source_names_the_speaker(speaker: str, other: str, rest: str,
                                                                         kind: str) -> None:
    assume(" ".join(speaker.split()).casefold() != " ".join(other.split()).casefold())
    content = f"{other}: {rest}"
    assert embedding_text(content, kind, speaker) == content


@pytest.mark.parametrize("content", [
    "Note: buy milk", "Notes: the plan", "TODO: call the bank", "NB: closed on Sundays", "FYI: moved",
    "Q: what time?", "Todo: call Ana", "Update: it works", "Monday: gym", "Fun Fact: owls", "Side note: x",
    "10:30 standup with Ana", "at 10:30: standup", "https://example.org/a:b is the link", "Re:the plan",
    "Ottilie:night!", "ottilie: lower case name", "OTTILIE: shouting", "Ana Maria Silva: three words",
    "Dr. Who: a dot", "R2D2: digits", "Bob, Ana: two people", "- Ana: a list item", ": no name",
    "Ottilie:", "Ottilie:   ", "Ottilie:\n\n",
])
def test_what_is_not_a_prefix_is_never_removed(content: str) -> None:
    assert embedding_text(content, "episode", None) == content


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=60), st.builds(lambda n, r: f"{n}: {r}", _two_word_names, _rests)), _kinds)
def test_who_said_a_turn_is_the_prefix_the_embedded_text_leaves_out(content: str, kind: str) -> None:
    """One rule: the speaker of a record whose source names none is the name of the prefix its
    embedded text leaves out (stage 2 matches the name the vector does not hold)."""
    end = prefix_end(content, kind, None)
    who = record_speaker({}, content, kind)
    if end:
        m = re.fullmatch(r"[ \t]*([^:\n]+?)[ \t]*:\s+", content[:end])
        assert m is not None and who == m.group(1)
    elif who is not None:  # a prefix with nothing after it: the turn is only the name
        assert kind == "episode" and not content.split(":", 1)[1].strip()
    if kind != "episode":
        assert who is None


@pytest.mark.parametrize("content", [
    "Note: buy milk", "Notes: the plan", "TODO: call the bank", "NB: closed on Sundays", "FYI: moved",
    "Q: what time?", "Todo: call Ana", "Update: it works", "Monday: gym", "Fun Fact: owls", "Side note: x",
    "10:30 standup with Ana", "at 10:30: standup", "https://example.org/a:b is the link", "Re:the plan",
    "Ottilie:night!", "ottilie: lower case name", "OTTILIE: shouting", "Ana Maria Silva: three words",
    "Dr. Who: a dot", "R2D2: digits", "Bob, Ana: two people", "- Ana: a list item", ": no name", "Ottilie:",
    "I went there: twice",
])
def test_what_is_not_a_prefix_names_no_speaker(content: str) -> None:
    assert record_speaker({}, content, "episode") is None


def test_who_said_a_record() -> None:
    assert record_speaker({}, "Ottilie: night!", "episode") == "Ottilie"
    assert record_speaker({}, "  Mary Ann: see you", "episode") == "Mary Ann"
    assert record_speaker({}, "Ottilie:   ", "episode") == "Ottilie"  # only the prefix: still hers
    assert record_speaker({"speaker": " Bram "}, "Ottilie: night!", "episode") == "Bram"  # the source first
    assert record_speaker({"author": "Kasia"}, "no prefix", "note") == "Kasia"
    for kind in ("fact", "note", "preference", "event", "conversation"):
        assert record_speaker({}, "Ottilie: night!", kind) is None
    assert record_speaker({}, "no prefix at all", "episode") is None


def test_the_speaker_is_read_from_the_source() -> None:
    assert source_speaker({"speaker": " Ottilie "}) == "Ottilie"
    assert source_speaker({"author": "Bram"}) == "Bram"
    assert source_speaker({"speaker": "", "name": "Kasia"}) == "Kasia"
    assert source_speaker({"speaker": 3}) is None and source_speaker({}) is None
    r = Record(id="01JGZ00000000000000000000A", scope="a", kind="fact", content="Ottilie: the race is on Sunday",
               source={"speaker": "ottilie"})
    assert r.embedding_text == "the race is on Sunday"
    assert Record(id="01JGZ00000000000000000000A", scope="a", kind="fact",
                  content="Ottilie: the race is on Sunday").embedding_text == "Ottilie: the race is on Sunday"


def test_the_manifest_recipe() -> None:
    assert manifest_recipe(None) == 1 and manifest_recipe(2) == 2
    assert manifest_recipe("2") == 0 and manifest_recipe(True) == 0 and manifest_recipe(-1) == 0
    assert same_text(TEXT_RECIPE, "Ana: hi there", "episode", None)
    assert same_text(1, "hi there", "episode", None) and not same_text(1, "Ana: hi there", "episode", None)
    assert not same_text(0, "hi there", "episode", None) and not same_text(99, "hi there", "episode", None)


# -- every writer of a vector embeds that text ------------------------------------------------

TURNS = [
    ("Ottilie: I ran the half marathon in Leeds on Sunday", "episode", {"speaker": "Ottilie"}),
    ("Bram: well done!!", "episode", {"speaker": "Bram"}),
    ("Kasia: no source speaker here", "episode", None),
    ("Note: a plain note with a label", "note", None),
    ("the river walk every morning", "fact", None),
    ("Ottilie: a fact about Ottilie, no speaker", "fact", None),
]


def _add_turns(store: Store, scope: str = "ana") -> list[Record]:
    return [store.add(c, scope=scope, kind=k, source=s) for c, k, s in TURNS]


def _vectors(store: Store, recs: list[Record]) -> list[np.ndarray]:
    vec = VectorIndex.open(store.index_dir)
    assert vec is not None
    try:
        got = [vec.vector_for(r.scope, r.id, r.digest) for r in recs]
        assert all(v is not None for v in got)
        return [np.asarray(v).copy() for v in got]  # type: ignore[arg-type]
    finally:
        vec.close()


def _expected(recs: list[Record]) -> list[np.ndarray]:
    return list(HashingEmbedder().embed([r.embedding_text for r in recs]))


def _check(store: Store, recs: list[Record]) -> None:
    got = _vectors(store, recs)
    for r, v, want in zip(recs, got, _expected(recs), strict=True):
        assert np.allclose(v, want, atol=1e-6), r.content
    plain = HashingEmbedder().embed([r.content for r in recs])
    for r, v, p in zip(recs, got, plain, strict=True):
        # a record without a prefix has exactly the vector of its content (as before)
        assert np.allclose(v, p, atol=1e-6) == (r.embedding_text == r.content), r.content


def test_the_expected_texts() -> None:
    recs = [Record(id="01JGZ00000000000000000000A", scope="a", kind=k, content=c, source=s or {}) for c, k, s in TURNS]
    assert [r.embedding_text for r in recs] == [
        "I ran the half marathon in Leeds on Sunday", "well done!!", "no source speaker here",
        "Note: a plain note with a label", "the river walk every morning", "Ottilie: a fact about Ottilie, no speaker"]


def test_a_build_embeds_the_text(sstore: Store) -> None:
    recs = _add_turns(sstore)
    built = rebuild(sstore, embedder=HashingEmbedder())
    assert built.vectors is not None and built.vectors["text_recipe"] == TEXT_RECIPE
    _check(sstore, recs)


def test_a_search_backfill_embeds_the_text(sstore: Store) -> None:
    rebuild(sstore, embedder=HashingEmbedder())
    recs = _add_turns(sstore)
    res = Searcher(sstore, embedder=HashingEmbedder(), long_lived=False).search("marathon", mode="hybrid")
    assert res.unembedded == 0
    _check(sstore, recs)


def test_bulk_embedding_and_a_merge_embed_the_text(sstore: Store) -> None:
    rebuild(sstore, embedder=HashingEmbedder())
    recs = _add_turns(sstore)
    rep = embed_backlog(sstore, HashingEmbedder(), merge_min=-1)
    assert rep.embedded == len(TURNS)
    _check(sstore, recs)
    merge_delta(sstore)
    _check(sstore, recs)
    m = json.loads((sstore.index_dir / "vectors.json").read_text("utf-8"))
    assert m["text_recipe"] == TEXT_RECIPE


def _as_recipe_1(root: Path) -> None:
    """The vector index as a mem of recipe 1 wrote it: no ``text_recipe`` in its manifest."""
    p = root / ".mem" / "index" / "vectors.json"
    m = json.loads(p.read_text("utf-8"))
    del m["text_recipe"]
    p.write_text(json.dumps(m), "utf-8")


def test_an_older_recipe_is_reported_kept_through_a_merge_and_compact_reembeds_only_the_changed(
        sstore: Store) -> None:
    recs = _add_turns(sstore)
    rebuild(sstore, embedder=HashingEmbedder())
    assert {f.code for f in verify_store(sstore.root).findings} == set()
    _as_recipe_1(sstore.root)
    (f,) = verify_store(sstore.root).findings
    assert f.code == "W405" and str(f.path).endswith("vectors.json") and "recipe 1" in f.message
    assert "mem rebuild --vectors" in f.fix and f.severity == "warning"
    # a merge moves the vectors as they are: the recipe it names stays the old one
    merge_delta(sstore)
    assert VectorIndex.open(sstore.index_dir).text_recipe == 1  # type: ignore[union-attr]
    # compact keeps the vectors whose text did not change; re-embeds the 3 records with a prefix
    out = compact(sstore)
    assert out["vectors"]["embedded"] == sum(r.embedding_text != r.content for r in recs) == 3
    assert verify_store(sstore.root).findings == []
    _check(sstore, recs)


def test_an_unknown_recipe_is_reported_and_nothing_of_it_is_reused(sstore: Store) -> None:
    recs = _add_turns(sstore)
    rebuild(sstore, embedder=HashingEmbedder())
    p = sstore.index_dir / "vectors.json"
    p.write_text(json.dumps({**json.loads(p.read_text("utf-8")), "text_recipe": "two"}), "utf-8")
    (f,) = verify_store(sstore.root).findings
    assert f.code == "W405" and "recipe unknown" in f.message
    out = compact(sstore)
    assert out["vectors"]["embedded"] == len(recs) + 4  # and the fixture's 4 records
    _check(sstore, recs)


# -- through the real `mem` executable --------------------------------------------------------


def test_mem_verify_names_the_fix_and_rebuild_vectors_clears_it(tmp_path: Path) -> None:
    env = {"MEM_EMBEDDER": "hashing"}
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=env).returncode == 0
    src = tmp_path / "turns.jsonl"
    src.write_text("".join(json.dumps({"content": c, "kind": k, **({"source": s} if s else {})}) + "\n"
                           for c, k, s in TURNS), "utf-8")
    r = run_mem("--store", str(root), "import", str(src), "--scope", "ana", env=env)
    assert r.returncode == 0, r.stderr
    _as_recipe_1(root)
    r = run_mem("verify", str(root), "--json", env=env)
    assert r.returncode == 0, r.stderr  # a warning
    (f,) = r.json()["findings"]
    assert f["code"] == "W405" and "mem rebuild --vectors" in f["fix"] and f["path"].endswith("vectors.json")
    assert run_mem("--store", str(root), "rebuild", "--vectors", env=env).returncode == 0
    r = run_mem("verify", str(root), "--json", env=env)
    assert r.returncode == 0 and r.json()["findings"] == []


# -- the short turns of the person named no longer crowd out the answer (the real MiniLM) -------

_SHORT = ["No?", "Obviously not", "night!", "Was there something on?", "haha yes", "ok so right??", "sure",
          "lol", "Talent", "same", "omg", "yep"]
_CHAT = ([("Ottilie", t) for t in _SHORT]
         + [("Bram", t) for t in ["how's work going", "did you see the match", "I'm making soup tonight",
                                  "my sister is visiting next week"]]
         + [("Ottilie", "finally did the Leeds half marathon on Sunday, 1:58 and my legs are dead")])
_ANSWER = "Ottilie: finally did the Leeds half marathon on Sunday, 1:58 and my legs are dead"


@pytest.mark.parametrize("speaker_in_source", [True, False])
def test_imported_name_text_turns_the_answer_is_found_over_the_named_persons_short_turns(
        tmp_path: Path, speaker_in_source: bool) -> None:
    """A chat imported as "Name: text" episodes (the speaker in the source, or in the text alone):
    "When was Ottilie's race?" finds the turn about her half marathon first. Embedded with the
    name, her twelve short turns ("Ottilie: No?", "Ottilie: Talent") held all of the top 5 of the
    vector arm and of the default search (bench/README.md, "The speaker's name out of the
    embedded text")."""
    env = {"MEM_EMBEDDER": "minilm"}
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=env).returncode == 0
    src = tmp_path / "chat.jsonl"
    src.write_text("".join(json.dumps({"content": f"{who}: {text}", "kind": "episode",
                                       **({"source": {"speaker": who}} if speaker_in_source else {})}) + "\n"
                           for who, text in _CHAT), "utf-8")
    r = run_mem("--store", str(root), "import", str(src), "--scope", "chat", env=env)
    assert r.returncode == 0, r.stderr
    r = run_mem("--store", str(root), "search", "When was Ottilie's race?", "-k", "5", "--json", env=env)
    assert r.returncode == 0, r.stderr
    hits = [h["content"].strip() for h in r.json()["hits"]]
    assert hits[0] == _ANSWER
    # the records are unchanged: the name stays in the content, and in what the search returns
    assert all(h.startswith(("Ottilie: ", "Bram: ")) for h in hits)
    r = run_mem("--store", str(root), "search", "When was Ottilie's race?", "-k", "5", "--mode", "vector", "--json",
                env=env)
    vector = [h["content"].strip() for h in r.json()["hits"]]
    assert _ANSWER in vector and sum(h.removeprefix("Ottilie: ") in _SHORT for h in vector) <= 3
