"""Capture pattern precedence, families and ids: which of two overlapping patterns wins, and the
former ids of renamed patterns still resolving (stored ``source.pattern``, source keys)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mem.format.capture.engine import capture
from mem.format.capture.extract import competing, extract
from mem.format.capture.patterns import FAMILIES, FAMILY_OF, PATTERN_IDS, PATTERNS
from mem.format.capture.patterns.precedence import TIERS
from mem.format.capture.transcripts import read_transcripts
from mem.format.rules import patternids
from mem.format.store.store import Store, source_key

#: (sentence, the pattern that wins, a pattern that matches the same clause on its own and loses).
#: Each row is a real overlap: both patterns capture the clause; the table order decides.
OVERLAPS = [
    # the first tier goes before the specific one
    ("I speak fluent German.", "fact.speaks-language-named", "fact.speaks"),
    # specific phrasings win over the general families of the same kind
    ("Never call me Samuel.", "instruction.always-never", "instruction.always-general"),
    ("Always use metric units.", "instruction.always-never", "instruction.convention"),
    ("Don't ever call me Sammy.", "instruction.dont-ever", "instruction.dont-call-me"),
    ("My name is Sam.", "fact.name", "fact.name-contracted"),
    ("I'm 29 years old", "fact.age", "fact.age-bare"),
    ("I'm from Lagos.", "fact.from", "fact.from-originally"),
    ("I'm a nurse.", "fact.job", "fact.job-noun"),
    ("I love jazz", "preference.like", "preference.taste-verb"),
    ("Kemi is my wife", "contact.is-my", "contact.name-is-my"),
    ("My flight home is on December 18", "event.my-event", "event.my-any-event"),
    # across families: a closed list of states is health, not a job
    ("I'm a vegetarian", "fact.state", "fact.job-noun"),
    ("I have a nut allergy", "fact.allergy-have", "fact.condition-diagnosed"),
    ("I study architecture at Delft", "fact.studies", "fact.habitual-verb"),
    # general over stative
    ("Talk to me like a friend, not a robot.", "instruction.manner", "instruction.talk-to-me"),
    ("I'm going to start learning guitar next month.", "action.plan", "event.travel"),
    ("I'm a twin", "fact.job-noun", "fact.state-household"),
    ("I own a bakery in Lyon", "fact.verb-job", "fact.drive"),
    # stative over the catch-all routines and the open families
    ("I mostly write Go at work", "fact.tool", "fact.habit-adverb"),
    ("I have MS", "fact.condition-diagnosed", "fact.condition-shaped"),
    ("I was a miner for 25 years", "fact.past-job", "fact.past-biography"),
    ("I've been in remission since 2021", "fact.duration", "fact.been-status-span"),
    # routines over the open families
    ("i do yoga on tuesdays", "fact.habit-frequency", "fact.habitual-verb"),
    ("I work four days a week", "fact.habit-frequency", "fact.works-shifts"),
    # within the open families
    ("Write prices in euros", "instruction.convention", "instruction.format-generic"),
    ("we keep pigs and a few chickens", "fact.has-counted", "fact.habitual-verb"),
]


@pytest.mark.parametrize(("sentence", "winner", "loser"), OVERLAPS)
def test_overlapping_patterns_resolve_by_precedence(sentence: str, winner: str, loser: str) -> None:
    (found,) = competing(sentence)
    assert winner in found and loser in found, found  # both capture the clause on their own
    assert found.index(winner) < found.index(loser)
    assert PATTERN_IDS.index(winner) < PATTERN_IDS.index(loser)
    assert [c.pattern for c in extract(sentence)] == [winner]


def test_patterns_are_tried_in_the_precedence_table_order() -> None:
    assert [name for name, _ in TIERS] == [
        "first", "specific", "general", "stative", "routines", "closed-shapes", "open-families",
    ]  # fmt: skip
    order = [pid for _, ids in TIERS for pid in ids]
    assert list(PATTERN_IDS) == order
    assert len(set(order)) == len(order)


def test_every_pattern_belongs_to_one_family_named_by_what_it_captures() -> None:
    defined = [p.id for mod in FAMILIES for p in mod.PATTERNS]
    assert sorted(defined) == sorted(PATTERN_IDS)  # each defined once, each in the table
    assert set(FAMILY_OF) == set(PATTERN_IDS)
    by_family: dict[str, set[str]] = {}
    for p in PATTERNS:
        by_family.setdefault(FAMILY_OF[p.id], set()).add(p.kind)
    # the families of the other kinds hold one kind each; the facts are split by topic
    assert by_family["instructions"] == {"instruction"}
    assert by_family["reminders"] == {"action_item"}
    assert by_family["events"] == {"event"}
    assert by_family["people"] == {"contact"}
    assert by_family["preferences"] == {"preference"}
    for fam in ("identity", "places", "work", "health", "household", "routines", "details"):
        assert by_family[fam] == {"fact"}, fam


def test_ids_say_what_they_match_and_carry_no_round_number() -> None:
    kind_prefix = {"action_item": "action"}
    for p in PATTERNS:
        assert re.fullmatch(r"[a-z_]+\.[a-z]+(?:-[a-z]+)*", p.id), p.id
        assert p.id.split(".")[0] == kind_prefix.get(p.kind, p.kind), p.id


def test_former_ids_are_aliases_of_current_patterns() -> None:
    assert patternids.RENAMED
    for old, new in patternids.RENAMED.items():
        assert new in PATTERN_IDS, (old, new)
        assert old not in PATTERN_IDS, old
        assert patternids.current(old) == new == patternids.current(new)
        assert patternids.key_id(new) == old == patternids.key_id(old)
    assert patternids.current("fact.name") == "fact.name" == patternids.key_id("fact.name")
    assert patternids.describe("fact.speaks2") == "fact.speaks-language-named (recorded as fact.speaks2)"
    assert patternids.describe("fact.name") == "fact.name"


def test_source_key_of_a_renamed_pattern_is_the_key_stored_before_the_rename() -> None:
    src = {"type": "capture", "transcript": "/t.jsonl", "conversation": "c1", "turn": 3}
    before = source_key({**src, "pattern": "fact.habitual4"})
    assert before == source_key({**src, "pattern": "fact.habitual-verb"})
    assert before != source_key({**src, "pattern": "fact.habit-adverb"})


def _transcript(path: Path, text: str) -> Path:
    path.write_text(json.dumps({"role": "user", "content": text, "conversation": "c1"}) + "\n", "utf-8")
    return path


def test_a_record_captured_under_a_former_id_is_recognised(store: Store, tmp_path: Path) -> None:
    p = _transcript(tmp_path / "t.jsonl", "I speak fluent German.")
    (item,) = capture(store, read_transcripts(p)).items
    assert item.pattern == "fact.speaks-language-named"
    (rec,) = store.list()
    # the record as an earlier version wrote it: the same sighting under the former id
    store.update(rec.id, source_update={"pattern": "fact.speaks2"})
    c = capture(store, read_transcripts(p), rescan=True).counts()
    assert (c["captured"], c["duplicate"], c["sighting"]) == (0, 1, 0)
    # and forgotten under the former id: the tombstone's source key still suppresses it
    store.forget([rec.id], reason="test")
    q = _transcript(tmp_path / "t.jsonl", "I speak fluent German and Polish.")  # new content, same turn
    c = capture(store, read_transcripts(q), rescan=True).counts()
    assert (c["captured"], c["suppressed-forgotten"]) == (0, 1)
