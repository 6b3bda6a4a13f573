"""The precision corpora, the pattern table, secret rules and text rewriting."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.capture.confidence import CONFIDENCE
from mem.format.capture.extract import extract
from mem.format.capture.patterns import PATTERN_IDS, PATTERNS, split_sentences, third_singular
from mem.format.rules.secretpolicy import find_secret, luhn_ok

DATA = Path(__file__).parent / "data"


def _lines(name: str) -> list[str]:
    return [ln for ln in (DATA / name).read_text("utf-8").splitlines() if ln.strip() and not ln.startswith("#")]


MUST_NOT = _lines("must_not_capture.txt")
MUST = [tuple(ln.split("\t", 1)) for ln in _lines("must_capture.tsv")]


def test_corpus_sizes() -> None:
    assert len(MUST_NOT) >= 300
    assert len(MUST) >= 150
    assert len(set(MUST_NOT)) == len(MUST_NOT), "duplicate must-not sentences"
    kinds = {k for k, _ in MUST}
    assert {"fact", "preference", "instruction", "action_item", "contact"} <= kinds


def test_no_must_not_sentence_is_captured() -> None:
    captured = {s: [(c.pattern, c.content) for c in extract(s)] for s in MUST_NOT}
    bad = {s: c for s, c in captured.items() if c}
    assert not bad, "ordinary sentences were captured:\n" + "\n".join(f"{s!r} -> {c}" for s, c in bad.items())


def test_recall_on_must_set_and_kinds() -> None:
    missed = [(k, s) for k, s in MUST if not any(c.kind == k for c in extract(s))]
    recall = 1 - len(missed) / len(MUST)
    assert recall >= 0.85, f"recall {recall:.3f}; missed: {missed}"
    # a wrong kind is a false capture too: precision over all captures of the must set
    wrong = [(k, s, c.kind) for k, s in MUST for c in extract(s) if c.kind != k]
    assert len(wrong) <= 0.03 * len(MUST), wrong


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("My name is Sam.", "User's name is Sam"),
        ("I prefer tea over coffee.", "User prefers tea over coffee"),
        ("Don't ever call me Sammy.", "Never call the user Sammy"),
        ("Remind me to call my mom on Sunday.", "Remind the user to call their mom on Sunday"),
        ("Remember that I'm vegetarian.", "User is vegetarian"),
        ("Sarah is my sister.", "Sarah is the user's sister"),
        ("Btw, I work at Acme Corp.", "User works at Acme Corp"),
    ],
)
def test_clean_memory_text(text: str, content: str) -> None:
    (c,) = extract(text)
    assert c.content == content
    assert c.quote == text


def test_each_pattern_has_an_example_that_it_matches() -> None:
    for p in PATTERNS:
        got = extract(p.example)
        assert got and got[0].pattern == p.id, (p.id, p.example, got)


def test_confidence_table_is_the_measured_precision() -> None:
    spec = importlib.util.spec_from_file_location("capture_bench", Path(__file__).parents[2] / "bench" / "capture_precision.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.confidence_table() == CONFIDENCE
    assert set(CONFIDENCE) == set(PATTERN_IDS)
    assert all(0 < v < 1 for v in CONFIDENCE.values())


def test_guards_explain_why() -> None:
    from mem.format.capture.extract import Skip

    why: list[Skip] = []
    extract('She said "my name is Bob." Is my name Sam? I just love traffic lol', explain=why)
    reasons = {w.reason for w in why}
    assert {"reported speech", "question", "sarcasm marker"} <= reasons
    why.clear()
    assert extract("Let's roleplay. My name is Captain Hook.", explain=why) == []
    assert why[0].reason == "hypothetical or role-play frame"


def test_sentence_inside_a_quotation_is_not_mined() -> None:
    assert extract('He wrote: "Great trip. My name is Bob. I live in Oslo." Fun read.') == []


def test_sentence_split_keeps_abbreviations() -> None:
    assert [s for s, _ in split_sentences("My dentist is Dr. Lee. I love Ursula K. Le Guin.")] == [
        "My dentist is Dr. Lee.",
        "I love Ursula K. Le Guin.",
    ]


def test_third_singular() -> None:
    assert [third_singular(v) for v in ("like", "go", "try", "watch", "have", "moved", "can", "play")] == [
        "likes", "goes", "tries", "watches", "has", "moved", "can", "plays",
    ]  # fmt: skip


# -- secrets -------------------------------------------------------------------------------------

SECRET_SENTENCES = {
    "Remember that my password is hunter2.": "password",
    "Remember that our garage code is 4411.": "access-code",
    "Remember that my email is sam@example.com and my pin is 1234.": "access-code",
    "Remember that my API key is sk-proj-abcdefghijklmnopqrstuvwx.": "sk-api-key",
    "My token is ghp_abcdefghijklmnopqrstuvwxyz0123456789.": "github-token",
    "Remember that our AWS key is AKIAIOSFODNN7EXAMPLE.": "aws-access-key",
    "My card number is 4111 1111 1111 1111.": "card-number",
    "Remember that my SSN is 123-45-6789.": "us-ssn",
    "Remember that my key is -----BEGIN OPENSSH PRIVATE KEY-----.": "private-key",
    "Note that our db url is postgres://admin:s3cret@db.example.com/app.": "url-credentials",
    "Remember that my slack token is xoxb-123456789012-abcdefghij.": "slack-token",
}


@pytest.mark.parametrize(("text", "rule"), sorted(SECRET_SENTENCES.items()))
def test_secret_capture_is_refused_by_rule_name(text: str, rule: str) -> None:
    cands = extract(text)
    assert cands, text
    assert all(c.secret is not None for c in cands)
    assert cands[0].secret == rule
    assert all(c.content == "" and c.quote == "" for c in cands)  # never echoed


@pytest.mark.parametrize(
    "text",
    ["My number is 555-201-3344.", "My phone number is +44 7700 900123.", "I was born in 1988.",
     "My shoe size is 42.", "Remind me to change my password on Friday."],
)
def test_no_false_secret(text: str) -> None:
    (c,) = extract(text)
    assert c.secret is None and c.content


@given(st.lists(st.integers(0, 9), min_size=12, max_size=15), st.sampled_from([" ", "-", ""]))
@settings(max_examples=60, deadline=None)
def test_luhn_valid_card_numbers_are_secrets(body: list[int], sep: str) -> None:
    if len(set(body)) == 1:
        body = [*body[:-1], (body[-1] + 1) % 10]
    digits = "".join(map(str, body))
    check = next(d for d in "0123456789" if luhn_ok(digits + d))
    number = digits + check
    grouped = sep.join(number[i : i + 4] for i in range(0, len(number), 4))
    assert find_secret(f"Remember that my card is {grouped}.") == "card-number"


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_extract_never_fails_and_quotes_come_from_the_text(text: str) -> None:
    for c in extract(text):
        assert c.pattern in PATTERN_IDS
        assert c.secret is not None or (c.content and c.quote and c.quote in text)


def test_extract_is_deterministic_over_a_shuffled_corpus() -> None:
    sample = MUST_NOT[:50] + [s for _, s in MUST[:50]]
    first = [[(c.pattern, c.content) for c in extract(s)] for s in sample]
    order = list(range(len(sample)))
    random.Random(7).shuffle(order)
    again = {i: [(c.pattern, c.content) for c in extract(sample[i])] for i in order}
    assert [again[i] for i in range(len(sample))] == first
