"""Every corpus line's verdict is pinned; the corpus is big enough and labelled sanely."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
     # Luhn-valid compact times (YYYYMMDDhhmmss): one in ten such times passes the checksum
     "soak run 20261202222604", "backup taken 20261202 222612",
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


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2199, 12, 31, 23, 59, 59)),
       st.sampled_from(["%Y%m%d%H%M%S", "%Y%m%d %H%M%S", "%Y%m%d%H%M%S%f"]))
def test_a_compact_time_is_no_card(when: datetime, form: str) -> None:
    """A time written as digits (a run id, a backup's name, a log's stamp) is no card number,
    whatever its checksum: a Mastercard's 2-series starts 2221-2720, no year of 1900-2199 does."""
    assert find_secret(f"the run of {when.strftime(form)} finished") is None


@pytest.mark.parametrize("number", ["2223 0031 2200 3222", "2223000048400011", "2720-9999-9999-9996"])
def test_a_mastercard_2_series_number_is_still_a_card(number: str) -> None:
    assert find_secret(f"pay with {number} please") == "card-number"
