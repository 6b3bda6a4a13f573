"""Round-2 capture: chat normalization, clauses, lead-ins, the section-1a decisions, corpus hygiene."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.capture.extract import extract
from mem.format.capture.normalize import clauses, complete, normalize, strip_leadins

DATA = Path(__file__).parent / "data"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("capture_bench", Path(__file__).parents[2] / "bench" / "capture_precision.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _found(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.content) for c in extract(text)]


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("im from brazil", "I'm from brazil"),
        ("i dont eat pork", "I don't eat pork"),
        ("id rather take the bus", "I'd rather take the bus"),
        ("pls remind me", "please remind me"),
        ("I’m allergic", "I'm allergic"),
        ("im alergic to latex", "I'm allergic to latex"),
        ("I'M VEGAN AND PROUD", "I'm vegan and proud"),
        ("I love, love, love it", "I love it"),
        ("i.e. the rest", "i.e. the rest"),
    ],
)
def test_normalize(raw: str, norm: str) -> None:
    assert normalize(raw) == norm


def test_clauses_split_before_first_person_and_keep_compound_subjects() -> None:
    assert clauses("I'm from Brazil originally but I live in Lisbon now") == ["I'm from Brazil originally", "I live in Lisbon now"]
    assert clauses("my wife and I live in Utrecht") == ["my wife and I live in Utrecht"]
    assert clauses("If I lived in Paris, I'd go to the Louvre") == ["If I lived in Paris, I'd go to the Louvre"]
    assert clauses("I'd move there, if I could") == ["I'd move there"]


def test_leadins_and_completion() -> None:
    assert strip_leadins("oh and btw my daughter's name is Ivy") == "my daughter's name is Ivy"
    assert strip_leadins("No more emojis") == "No more emojis"  # 'no' needs punctuation to be a lead-in
    assert strip_leadins("No, I live in Oslo") == "I live in Oslo"
    assert complete("just moved to seattle") == "I just moved to seattle"
    assert complete("every monday I have band practice") == "I have band practice every monday"
    assert complete("my partner and I live in Bristol") == "we live in Bristol"


def test_casual_turns_are_captured_with_the_original_quote() -> None:
    text = "im from brazil originally but i live in lisbon now"
    got = extract(text)
    assert [(c.kind, c.content) for c in got] == [("fact", "User is from brazil"), ("fact", "User lives in lisbon")]
    assert all(c.quote == text for c in got)
    assert _found("thanks that's really helpful!! oh and btw my daughter's name is Ivy") == [("contact", "User's daughter is named Ivy")]
    assert _found("from now on call me Mo") == [("instruction", "Call the user Mo")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I used to live in Tokyo.", [("fact", "User used to live in Tokyo")]),
        ("I used to love skateboarding.", []),
        ("I don't live in London anymore.", []),
        ("I prefer the second option.", []),
        ("My wife loves sushi.", []),
        ("my mum lives in Cardiff", [("contact", "User's mum lives in Cardiff")]),
        ("I have a meeting at 4.", []),
        ("I have a job interview on Monday morning.", [("event", "User has a job interview on Monday morning")]),
        ("I always forget my keys.", []),
        ("I walk the dog twice a day.", [("fact", "User walks the dog twice a day")]),
        ("always read the fine print, folks", []),
        ("Never use a semicolon, said my teacher.", []),
        ("Sure, because I love doing taxes.", []),
        ("I'm a world class procrastinator", []),
        ("I'm a welder.", [("fact", "User is a welder")]),
    ],
)
def test_decisions_of_section_1a(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected


def test_secret_in_a_casual_turn_is_still_refused() -> None:
    got = extract("oh and btw my password is hunter2")
    assert got and all(x.secret == "password" and x.content == "" and x.quote == "" for x in got)
    # a secret anywhere in the sentence refuses every find of that sentence, never echoed
    got = extract("im 41 and my password is hunter2")
    assert got and all(x.secret == "password" and x.content == "" and x.quote == "" for x in got)


def test_held_out_sets_are_present_large_enough_and_disjoint_from_the_pinned_set() -> None:
    bench = _bench()
    sets = {name: (n, m) for name, _, n, m in bench.corpus_sets()}
    assert {"pinned", "holdout2", "holdout3"} <= set(sets)
    assert len(sets["holdout2"][0]) >= 250 and len(sets["holdout2"][1]) >= 200
    assert len(sets["holdout3"][0]) >= 60 and len(sets["holdout3"][1]) >= 60
    pinned = set(sets["pinned"][0]) | {t for _, t in sets["pinned"][1]}
    for name in ("holdout2", "holdout3"):
        lines = set(sets[name][0]) | {t for _, t in sets[name][1]}
        assert not lines & pinned, (name, sorted(lines & pinned)[:5])
    h2 = set(sets["holdout2"][0]) | {t for _, t in sets["holdout2"][1]}
    h3 = set(sets["holdout3"][0]) | {t for _, t in sets["holdout3"][1]}
    assert not h2 & h3


@given(st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), max_size=120))
@settings(max_examples=150, deadline=None)
def test_normalize_clauses_never_fail(text: str) -> None:
    for c in clauses(normalize(text)):
        assert isinstance(complete(strip_leadins(c)), str)
