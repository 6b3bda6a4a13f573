"""The summarizer answer: the parser, its refusal messages, and agreement with the JSON schema."""

from __future__ import annotations

import json
import sys
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.ops.consolidate import (
    MAX_ANSWER_BYTES,
    Answer,
    Fact,
    Options,
    Refusal,
    parse_answer,
    run_summarizer,
)
from tests.consolidate.conftest import load_schema

FLOOR1 = Options(summarizer=["x"], min_summary_chars=1, min_fact_chars=1)
DEFAULT = Options(summarizer=["x"])
ANSWER_SCHEMA = load_schema("consolidate-answer.schema.json")
VALIDATOR = jsonschema.Draft202012Validator(ANSWER_SCHEMA)


def refusal(raw: str | bytes, opts: Options = DEFAULT) -> tuple[str, str]:
    with pytest.raises(Refusal) as exc:
        parse_answer(raw.encode("utf-8") if isinstance(raw, str) else raw, opts)
    return exc.value.code, exc.value.message


def test_none_forms() -> None:
    for raw in ("NONE", "  NONE\n", '{"none": true}', '\ufeff{"none":true}'):
        assert parse_answer(raw.encode("utf-8"), DEFAULT) == Answer(none=True)
    assert refusal("none")[0] == "malformed"  # the literal is upper case
    assert refusal("SUMMARY: NONE")[0] == "malformed"
    assert refusal('{"none": false}') == ("schema", 'a "none" answer is exactly {"none": true}')
    assert refusal('{"none": true, "summary": "x"}')[0] == "schema"


def test_a_full_answer() -> None:
    raw = json.dumps(
        {
            "summary": "  The user planned a trip to Lisbon in May.  ",
            "facts": [
                "The user is travelling to Lisbon",
                {
                    "content": "The user prefers window seats",
                    "kind": "preference",
                    "tags": ["travel"],
                    "confidence": 0.9,
                },
            ],
            "supersedes": [
                {
                    "id": "01arz3ndektsv4rrffq69g5fav",
                    "content": "Lives in Lisbon now",
                    "reason": "moved",
                }
            ],
        }
    )
    a = parse_answer(raw.encode("utf-8"), DEFAULT)
    assert a.summary == "The user planned a trip to Lisbon in May."
    assert a.facts == (
        Fact("The user is travelling to Lisbon"),
        Fact("The user prefers window seats", "preference", ("travel",), 0.9),
    )
    assert a.supersedes[0].id == "01ARZ3NDEKTSV4RRFFQ69G5FAV"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", ("empty", "the summarizer wrote nothing on stdout")),
        ("   \n", ("empty", "the summarizer wrote nothing on stdout")),
        (b"\xff\xfe", ("malformed", "answer is not valid UTF-8 (byte 0)")),
        (
            "{",
            (
                "malformed",
                "answer is neither NONE nor JSON (line 1, column 2: Expecting property name enclosed in double quotes)",
            ),
        ),
        ("[]", ("schema", "answer must be a JSON object or NONE, not an array")),
        ('{"facts": []}', ("schema", 'answer lacks "summary"')),
        (
            '{"summary": "long enough summary here"}',
            ("schema", 'answer lacks "facts" (use [] for none)'),
        ),
        ('{"summary": "  ", "facts": []}', ("empty", "summary is empty")),
        (
            '{"summary": "too short", "facts": []}',
            ("too-short", "summary is 9 characters; the floor is 20"),
        ),
        ('{"summary": 5, "facts": []}', ("schema", "summary must be a string, not a number")),
        (
            '{"summary": "long enough summary here", "facts": {}}',
            ("schema", "facts must be an array, not an object"),
        ),
        (
            '{"summary": "long enough summary here", "facts": [{"text": "x"}]}',
            (
                "schema",
                'facts[0] has unknown key(s) "text"; allowed: confidence, content, kind, tags',
            ),
        ),
        (
            '{"summary": "long enough summary here", "facts": [{"content": "a fine fact", "kind": "Bad Kind"}]}',
            ("schema", "facts[0].kind is not a valid kind name (lower-case letters, digits, _)"),
        ),
        (
            '{"summary": "long enough summary here", "facts": [{"content": "a fine fact", "kind": "episode"}]}',
            (
                "schema",
                "facts[0].kind may not be an episode kind (episode): facts are not episodes",
            ),
        ),
        (
            '{"summary": "long enough summary here", "facts": [{"content": "a fine fact", "tags": ["a b"]}]}',
            ("schema", "facts[0].tags[0] is not a valid tag (1-64 characters, no spaces)"),
        ),
        (
            '{"summary": "long enough summary here", "facts": [{"content": "a fine fact", "confidence": true}]}',
            ("schema", "facts[0].confidence must be a number within 0..1"),
        ),
        (
            '{"summary": "long enough summary here", "facts": [{"content": "a fine fact", "confidence": 2}]}',
            ("schema", "facts[0].confidence must be a number within 0..1"),
        ),
        (
            '{"summary": "long enough summary here", "facts": [], "supersedes": [{"id": "nope", "content": "a fine fact", "reason": "r"}]}',
            ("schema", "supersedes[0].id is not a record id"),
        ),
        (
            '{"summary": "long enough summary here", "facts": [], "supersedes": [{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "content": "a fine fact"}]}',
            ("schema", 'supersedes[0] lacks "reason"'),
        ),
        (
            '{"summary": "long enough summary here", "facts": [], "supersedes": [{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "content": "a fine fact", "reason": " "}]}',
            ("empty", "supersedes[0].reason is empty"),
        ),
    ],
)
def test_refusal_messages(raw: str | bytes, expected: tuple[str, str]) -> None:
    assert refusal(raw) == expected


def test_limits() -> None:
    many = json.dumps(
        {"summary": "long enough summary here", "facts": [f"fact number {i}" for i in range(51)]}
    )
    assert refusal(many) == ("schema", "facts has 51 items; at most 50 are accepted")
    big = b'{"summary": "' + b"x" * MAX_ANSWER_BYTES + b'", "facts": []}'
    assert refusal(big)[0] == "too-large"
    dup = json.dumps(
        {
            "summary": "long enough summary here",
            "facts": [],
            "supersedes": [
                {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "content": "first new text", "reason": "r"},
                {"id": "01arz3ndektsv4rrffq69g5fav", "content": "second new text", "reason": "r"},
            ],
        }
    )
    assert refusal(dup)[0] == "schema"


def test_refusal_messages_never_quote_the_answer() -> None:
    secret = "Ziggy's bank PIN is 4321"
    for raw in (
        json.dumps({"summary": secret, "facts": [], secret: 1}),
        json.dumps({"summary": secret, "facts": [{"content": secret, "kind": secret}]}),
        json.dumps({"summary": secret, "facts": [{"content": secret, "tags": [secret]}]}),
        json.dumps(
            {
                "summary": secret,
                "facts": [],
                "supersedes": [{"id": secret, "content": secret, "reason": secret}],
            }
        ),
    ):
        _, message = refusal(raw)
        assert "Ziggy" not in message and "4321" not in message, message


# -- the schema and the parser agree (floors at 1: the schema cannot know the configured floor)

_text = st.one_of(st.text(max_size=12), st.sampled_from(["", " ", "a fact", "\t\n", "ok"]))
_tag = st.one_of(st.sampled_from(["travel", "a b", "x,y", "", "#t", "ok-tag"]), st.text(max_size=4))
_id = st.sampled_from(
    [
        "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "01arz3ndektsv4rrffq69g5fav",
        "01ARZ3NDEKTSV4RRFFQ69G5FAU",
        "x",
        " 01ARZ3NDEKTSV4RRFFQ69G5FAV",
    ]
)
_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.floats(-1, 2, allow_nan=False), _text
)
_fact_obj = st.fixed_dictionaries(
    {},
    optional={
        "content": st.one_of(_text, _scalar),
        "kind": st.one_of(
            st.sampled_from(["fact", "preference", "Bad", "episode", "x" * 33]), _scalar
        ),
        "tags": st.one_of(st.lists(st.one_of(_tag, _scalar), max_size=3), _scalar),
        "confidence": _scalar,
        "junk": _scalar,
    },
)
_sup = st.fixed_dictionaries(
    {},
    optional={"id": st.one_of(_id, _scalar), "content": _text, "reason": _text, "extra": _scalar},
)
_answer = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"none": st.one_of(st.just(True), _scalar), "summary": _text}
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "summary": st.one_of(_text, _scalar),
            "facts": st.one_of(st.lists(st.one_of(_text, _fact_obj, _scalar), max_size=3), _scalar),
            "supersedes": st.one_of(st.lists(st.one_of(_sup, _scalar), max_size=2), _scalar),
            "other": _scalar,
        },
    ),
    _scalar,
    st.lists(_scalar, max_size=2),
)

_good_text = st.text(min_size=1, max_size=12).filter(lambda s: s.strip())
_good_fact = st.one_of(
    _good_text,
    st.fixed_dictionaries(
        {"content": _good_text},
        optional={
            "kind": st.sampled_from(["fact", "preference", "note"]),
            "tags": st.lists(st.sampled_from(["travel", "ok-tag", "x"]), max_size=2),
            "confidence": st.floats(0, 1),
        },
    ),
)
_good_sup = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["01ARZ3NDEKTSV4RRFFQ69G5FAV", "01BX5ZZKBKACTAV9WEVGEMMVRZ"]),
        "content": _good_text,
        "reason": _good_text,
    }
)
_good = st.one_of(
    st.just({"none": True}),
    st.fixed_dictionaries(
        {"summary": _good_text, "facts": st.lists(_good_fact, max_size=3)},
        optional={"supersedes": st.lists(_good_sup, max_size=1)},
    ),
)


@st.composite
def _mutated(draw: st.DrawFn) -> Any:
    """A valid answer with one part replaced by something from the fuzzy strategies."""
    doc = draw(_good)
    key = draw(st.sampled_from(["summary", "facts", "supersedes", "none", "extra"]))
    doc = dict(doc)
    doc[key] = draw(st.one_of(_scalar, st.lists(st.one_of(_fact_obj, _sup, _scalar), max_size=2)))
    return doc


@settings(max_examples=200, deadline=None)
@given(st.one_of(_good, _mutated(), _answer))
def test_parser_accepts_exactly_what_the_schema_accepts(doc: Any) -> None:
    raw = json.dumps(doc).encode("utf-8")
    schema_ok = VALIDATOR.is_valid(doc)
    try:
        parse_answer(raw, FLOOR1)
        parser_ok = True
    except Refusal as r:
        parser_ok = False
        # the parser's one extra rule: a fact's kind may not be an episode kind
        if schema_ok:
            assert "episode kind" in r.message or "already superseded" in r.message, (
                doc,
                r.message,
            )
            return
    assert parser_ok == schema_ok, (doc, list(VALIDATOR.iter_errors(doc))[:1])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30).filter(lambda s: s.strip()), max_size=4))
def test_answer_round_trips_through_its_dict(facts: list[str]) -> None:
    doc = {"summary": "a summary long enough to pass", "facts": facts}
    a = parse_answer(json.dumps(doc).encode("utf-8"), FLOOR1)
    assert parse_answer(json.dumps(a.to_dict()).encode("utf-8"), FLOOR1) == a
    assert VALIDATOR.is_valid(a.to_dict())


# -- the process runner -------------------------------------------------------------------------


def test_runner_passes_stdin_and_kills_at_the_deadline() -> None:
    echo = [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().upper())"]
    assert run_summarizer(echo, b"hello", 10) == b"HELLO"
    # a child that does not read its stdin gets no broken pipe error out of mem
    assert (
        run_summarizer([sys.executable, "-c", "print('NONE')"], b"x" * 1_000_000, 10) == b"NONE\n"
    )
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    with pytest.raises(Refusal) as exc:
        run_summarizer(sleeper, b"", 0.3)
    assert exc.value.code == "timeout"
    with pytest.raises(Refusal) as exc:
        run_summarizer([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"], b"", 10)
    assert (exc.value.code, exc.value.message) == (
        "exit-status",
        "the summarizer was killed by signal 9",
    )
