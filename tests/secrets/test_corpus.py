"""Every corpus line's verdict is pinned; the corpus is big enough and labelled sanely."""

from __future__ import annotations

from collections import Counter

import pytest

from mem.format.rules.secretpolicy import find_secret, rule_names

from .corpus import load

LINES = load()


def test_corpus_size_and_sets() -> None:
    labels = Counter(line.label for line in LINES)
    assert labels["secret"] >= 200 and labels["innocent"] >= 200
    assert {line.set for line in LINES} == {"tuning", "holdout1"}
    texts = [line.text for line in LINES]
    assert len(texts) == len(set(texts)), "a sentence appears twice"
    assert {line.verdict for line in LINES} - {None} <= set(rule_names())


@pytest.mark.parametrize("line", LINES, ids=lambda line: f"{line.set}:{line.lineno}")
def test_corpus_verdict(line) -> None:  # type: ignore[no-untyped-def]
    assert find_secret(line.text) == line.verdict, (line.label, line.text)


@pytest.mark.parametrize(
    "text",
    ["I forgot my password yesterday", "the token ring network", "sk-ii skincare",
     "My password is too short", "The secret to good bread is time",
     # Luhn-valid by chance: a millisecond time, and an id made of one
     "saved at 1700000200000 ms", "memories/1700000200000_ef56g",
     # one capital letter in a long name is no random token
     "rollout-2026-11-30T10-15-02-019ad0c4-7e21-7c33-9b1e-2d5f6a7b8c9d.jsonl"],
)
def test_named_near_misses_are_innocent(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize(
    "text",
    ["wifi password for the house is sunnyday123", "pw is hunter2",
     "bank login is sam / Hunter2!", "2FA backup codes are 4821-9932, 1187-2290",
     "my password is hunter2"],
)
def test_named_misses_of_capture_are_secrets(text: str) -> None:
    assert find_secret(text) is not None
