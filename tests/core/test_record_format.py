"""The record file format: canonical round trip, fast path = YAML path, bad input."""

from __future__ import annotations

import datetime as dt
import string
import time

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base.errors import RecordParseError, ValidationError
from mem.format.model.record import (
    STATUSES,
    _parse_fast,
    dump_record,
    make_record,
    match_digest,
    parse_record,
    split_record_text,
)
from mem.format.rules import ids

UTC = dt.UTC

scopes = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True)
kinds = st.sampled_from(list(ids.KNOWN_KINDS)) | st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
tags = st.lists(st.text(alphabet=string.ascii_letters + string.digits + "-_/.:é日", min_size=1, max_size=12), max_size=4)
times = st.datetimes(
    min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(2200, 1, 1), timezones=st.just(UTC)
)
body_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=300
).filter(lambda s: s.strip() != "")
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=30),
)
source_maps = st.dictionaries(
    st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True),
    scalars | st.lists(st.text(max_size=10), max_size=3),
    max_size=4,
).map(lambda d: {"type": "api", **d})


@st.composite
def records(draw: st.DrawFn):  # type: ignore[no-untyped-def]
    rec_at = draw(times)
    vf = draw(st.none() | times)
    vt = None
    if vf is not None and draw(st.booleans()):
        vt = vf + dt.timedelta(days=draw(st.integers(0, 1000)))
    return make_record(
        id=ids.new_id(draw(st.integers(0, 2**47))),
        scope=draw(scopes),
        kind=draw(kinds),
        content=draw(body_text),
        status=draw(st.sampled_from(STATUSES)),
        confidence=draw(st.floats(0, 1)),
        tags=draw(tags),
        valid_from=vf,
        valid_to=vt,
        recorded_at=rec_at,
        updated_at=draw(st.none() | times),
        derived_from=[ids.new_id(draw(st.integers(0, 2**47))) for _ in range(draw(st.integers(0, 2)))],
        source=draw(source_maps),
        extra=draw(st.dictionaries(st.from_regex(r"x_[a-z]{1,6}", fullmatch=True), scalars, max_size=2)),
    )


@settings(max_examples=300, deadline=None)
@given(records())
def test_round_trip_is_byte_identical(rec) -> None:  # type: ignore[no-untyped-def]
    text = dump_record(rec)
    back = parse_record(text)
    assert back == rec
    assert dump_record(back) == text


@settings(max_examples=300, deadline=None)
@given(records())
def test_fast_parser_agrees_with_yaml(rec) -> None:  # type: ignore[no-untyped-def]
    """The canonical fast path must read exactly what a YAML parser reads."""
    fm, _, _ = split_record_text(dump_record(rec))
    fast = _parse_fast(fm)
    slow = yaml.safe_load(fm)
    for key, value in slow.items():
        if isinstance(value, dt.datetime):
            slow[key] = value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    assert fast == slow


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=30) | st.sampled_from(["1.0", "0", "-3", "ana", "null", "~", "true", "True", "no", "[]",
                                               '["a", "b"]', '"quoted"', "{}", "2024-01-01T00:00:00.000Z"]))
def test_remembered_fast_values_are_what_the_reading_gives(raw: str) -> None:
    """``_fast_value`` keeps the results of short texts: each call gives what ``_read_value``
    gives (value and type), a refused text stays refused, and a list is never shared."""
    from mem.format.rules.recordtext import _fast_value, _NotFast, _read_value

    try:
        want = _read_value(raw)
    except _NotFast:
        for _ in range(2):
            with pytest.raises(_NotFast):
                _fast_value(raw)
        return
    for _ in range(2):
        got = _fast_value(raw)
        assert got == want and type(got) is type(want)
    if isinstance(want, list | dict):
        first = _fast_value(raw)
        first.clear()
        assert _fast_value(raw) == want


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="ab \t\n\r\ufeff\x1c\u2003", max_size=10))
def test_canonical_body_shortcut_only_says_yes_to_canonical_bodies(text: str) -> None:
    from mem.format.rules.recordtext import canonical_body, is_canonical_body

    if is_canonical_body(text):
        assert canonical_body(text) == text
    out = canonical_body(text)
    if out and not out.startswith("\ufeff"):  # what a record holds: the shortcut applies
        assert is_canonical_body(out)


def test_non_canonical_record_still_loads() -> None:
    text = (
        "---\r\nid: 01JD3Z8Q4T6W0000000000000A\r\nscope: alice\r\nkind: fact\r\nstatus: active\r\n"
        "tags:\r\n  - b\r\n  - a\r\nrecorded_at: 2024-05-01 10:00:00+02:00\r\n"
        "digest: sha256:0000\r\n---\r\n\r\nHello  \r\n\r\n"
    )
    rec = parse_record(text)
    assert rec.tags == ("a", "b")
    assert rec.content == "Hello\n"
    assert rec.recorded_at == dt.datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
    assert dump_record(rec) != text  # verify warns: not canonical


@pytest.mark.parametrize(
    ("text", "needle", "line"),
    [
        ("no frontmatter\n", "does not start with a '---'", 1),
        ("---\nid: x\n", "not closed", None),
        ("---\nid: [unclosed\nscope: a\n---\nbody\n", "not valid YAML", None),
        ("---\n- a\n- b\n---\nbody\n", "not a mapping", 2),
        ("---\nscope: a\n---\nbody\n", "lacks required key(s): id", None),
        ("---\na: &x [1]\nb: *x\n---\nbody\n", "anchors are not allowed", 2),
        ("---\na: !!python/object:os.system ls\n---\nbody\n", "not valid YAML", None),
    ],
)
def test_bad_record_text_is_a_coded_error(text: str, needle: str, line: int | None) -> None:
    with pytest.raises(RecordParseError) as ei:
        parse_record(text, "records/a/X.md")
    assert needle in ei.value.message
    assert ei.value.path == "records/a/X.md"
    if line is not None:
        assert ei.value.line == line


def test_empty_body_is_refused() -> None:
    rec = make_record(scope="a", kind="fact", content="x")
    text = dump_record(rec).replace("x\n", "   \n")
    with pytest.raises(RecordParseError, match="content is empty"):
        parse_record(text, "f.md")


@pytest.mark.parametrize("scope", ["../x", "/etc", "a/b", "..", ".", "", "A", "a..b", "-a", "x" * 70])
def test_bad_scopes_are_refused(scope: str) -> None:
    with pytest.raises(ValidationError):
        ids.check_scope(scope)


@pytest.mark.parametrize("rid", ["../../etc/passwd", "01JD3Z8Q4T6W0000000000000", "01JD3Z8Q4T6W0000000000000U", ""])
def test_bad_ids_are_refused(rid: str) -> None:
    with pytest.raises(ValidationError):
        ids.check_id(rid)


def test_match_digest_folds_case_space_and_edge_punctuation() -> None:
    assert match_digest("I am allergic to peanuts.") == match_digest("  i AM allergic\nto peanuts ")
    assert match_digest("I am allergic to peanuts") != match_digest("I am allergic to cashews")


def test_ids_sort_by_time_and_are_unique() -> None:
    made = [ids.new_id() for _ in range(2000)]
    assert made == sorted(made)
    assert len(set(made)) == len(made)
    assert ids.new_id(1469918176385).startswith("01ARYZ6S41")  # the ULID spec's example time


def test_ids_for_one_given_time_increase_and_leave_the_clock_alone() -> None:
    """make_record passes its recorded_at: records made in one millisecond sort in the order
    they were made (consolidation's summary after its facts); a far time given once (an import)
    does not move the ids made for the current time."""
    made = [ids.new_id(1_796_000_000_123) for _ in range(500)]
    assert made == sorted(made) and len(set(made)) == 500
    assert {ids.id_time_ms(x) for x in made} == {1_796_000_000_123}
    ids.new_id(2**47)
    assert abs(ids.id_time_ms(ids.new_id()) - int(time.time() * 1000)) < 60_000


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_scope_for_always_valid_and_distinct(a: str, b: str) -> None:
    sa, sb = ids.scope_for(a), ids.scope_for(b)
    ids.check_scope(sa)
    assert (sa == sb) == (a == b)


def test_scope_for_never_merges_outside_names() -> None:
    names = ["alice", "Alice", "alice@home", "Alice-Home", "alice-home", "алиса", "борис",
             "аlice", "lice", "Zoé", "zoe", "con", "nul.txt", "COM1", "con.x"]
    scopes = [ids.scope_for(n) for n in names]
    assert len(set(scopes)) == len(names)
    assert ids.scope_for("alice") == "alice" and ids.scope_for("alice-home") == "alice-home"
    assert not any(ids.is_windows_reserved(s) for s in scopes)


def test_duplicate_keys_are_refused() -> None:
    rec = make_record(scope="a", kind="fact", content="x")
    text = dump_record(rec).replace("kind: fact\n", "kind: fact\nkind: note\n")
    with pytest.raises(RecordParseError, match="'kind' appears more than once") as ei:
        parse_record(text, "f.md")
    assert ei.value.line == 5


@pytest.mark.parametrize("word", ["no", "yes", "on", "off", "y", "n", "true", "false", "null"])
def test_yaml_word_keys_are_quoted_and_read_back(word: str) -> None:
    """A source or extension key that YAML 1.1 would read as a boolean or null is written
    JSON-quoted, so the fast path and a YAML parser read the same string key (found by
    hypothesis: source {"no": None} read back as {False: None} by YAML)."""
    rec = make_record(scope="a", kind="fact", content="x", source={"type": "api", word: None},
                      extra={word: "v"})
    text = dump_record(rec)
    assert f'  "{word}": null\n' in text and f'\n"{word}": v\n' in text
    fm, _, _ = split_record_text(text)
    fast, slow = _parse_fast(fm), yaml.safe_load(fm)
    slow["recorded_at"] = fast["recorded_at"]  # YAML reads a datetime; compared elsewhere
    assert fast == slow
    back = parse_record(text)
    assert back.source == {"type": "api", word: None} and back.extra == {word: "v"}
    assert dump_record(back) == text
