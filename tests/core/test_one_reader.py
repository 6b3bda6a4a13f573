"""One frontmatter reader: every path that reads record files reads them as the full reader does.

The rules layer (mem.format.rules.recordtext) holds the reader: ``read_fast`` (the line reader)
with ``lean_fields`` (the fields, as ``record_from_mapping`` makes them), ``scan_canonical`` (the
same for the canonical layout, one pattern: the index build and ``mem verify`` read every file
with it) and the YAML fallback of ``parse_record``. Whatever the bytes, each path either gives
up (None) or gives the full reader's fields, malformed input included; where the full reader
refuses a file, every path gives up and the full reader's error names the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base.errors import RecordParseError
from mem.format.index.lexical import DocFields, fast_fields
from mem.format.model.record import Record, dump_record, make_record, parse_record
from mem.format.rules import recordtext
from mem.format.search import lexfast
from mem.format.store.store import Store
from mem.format.verify import checks as verify
from mem.format.verify.checks import verify_store

IDS = ["01JGZ00000000000000000000" + c for c in "ABCDEFGH"]
_ts = st.sampled_from([None, "2024-02-03T04:05:06.007Z", "2025-12-31T23:59:59.999Z", "2026-01-01"])


@st.composite
def record_texts(draw: st.DrawFn) -> str:
    """Canonical record files, with the values YAML or the reader read as another type."""
    status = draw(st.sampled_from(["active", "candidate", "rejected", "superseded"]))
    rec = make_record(
        id=draw(st.sampled_from([IDS[0], "12345670123456701234567012", "01234567012345670123456701"])),
        scope=draw(st.sampled_from(["a", "alice", "x.y", "team_1", "no", "true", "123", "1.5", "null"])),
        kind=draw(st.sampled_from(["fact", "note", "x_1", "yes", "n", "off"])),
        content=draw(st.text(min_size=1, max_size=40).filter(str.strip)),
        status=status, confidence=draw(st.sampled_from([1.0, 0.5, 0.25, 0.0, 0.12345])),
        tags=draw(st.lists(st.sampled_from(["a", "b:c", "d-e", "ü", "no", "1"]), max_size=3, unique=True)),
        valid_from=draw(st.sampled_from([None, "2024-02-03T04:05:06.007Z"])),
        valid_to=draw(st.sampled_from([None, "2025-12-31T23:59:59.999Z"])),
        updated_at=draw(_ts),
        superseded_by=IDS[5] if status == "superseded" else None,
        supersedes=draw(st.lists(st.sampled_from(IDS[1:4]), max_size=2, unique=True)),
        derived_from=draw(st.lists(st.sampled_from(IDS[4:8]), max_size=2, unique=True)),
        source=draw(st.one_of(st.none(), st.dictionaries(
            st.sampled_from(["system", "original_id", "id", "tags", "no"]),
            st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none()), max_size=3))),
        extra=draw(st.one_of(st.none(), st.just({"x_ext": "v"}), st.just({"tags_x": "1"}),
                             st.just({"meta_x": {"a": [1, 2.5], "b": None}}))),
    )
    return dump_record(rec)


#: Edits that damage a file: bytes replaced by a delimiter, a quote, a key, a CR, a BOM...
_edits = st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(
    ["", "\n", " ", "  ", ": ", "---\n", "x", '"', "[", "tags: []\n", "id: x\n", "valid_to\n", "kind",
     "\r", "\ufeff", "source:\n", "  type: 1\n", "digest: x\n", "scope: b\n", "2026-02-30", "e-9", "#"])),
    max_size=3)


def damage(text: str, edits: list[tuple[int, str]], drop: int) -> str:
    for at, ins in edits:
        at %= len(text) + 1
        text = text[:at] + ins + text[at + 1:]
    lines = text.split("\n")
    if drop and len(lines) > drop:
        del lines[drop]
    return "\n".join(lines)


def full(text: str) -> Record | None:
    """The full reader's record (None: it refuses the text)."""
    try:
        return parse_record(text)
    except RecordParseError:
        return None


def lean_of(rec: Record) -> tuple[Any, ...]:
    """A record as ``lean_fields`` gives it."""
    return (rec.id, rec.scope, rec.kind, rec.status, rec.confidence, rec.tags, rec.valid_from, rec.valid_to,
            rec.recorded_at, rec.updated_at, rec.superseded_at, rec.supersedes, rec.superseded_by,
            rec.derived_from, rec.source, rec.content)


def every_path(text: str, rec: Record | None, tmp: Path) -> None:
    """Each reader path gives up or reads ``text`` as the full reader does (``rec``)."""
    want = None if rec is None else lean_of(rec)
    got = recordtext.read_fast(text)
    lean = None if got is None else recordtext.lean_fields(*got)
    assert lean is None or lean == want, text
    scan = recordtext.scan_canonical(text)
    assert scan is None or scan == want, text
    ff = fast_fields(text.encode("utf-8"))
    assert ff is None or (rec is not None and ff == DocFields.from_record(rec)), text
    lite = verify._lite_record(text)
    assert lite is None or (rec is not None and tuple(lite) == (
        rec.id, rec.scope, rec.status, rec.supersedes, rec.superseded_by, rec.derived_from, rec.source,
        rec.content)), text
    if rec is not None:  # the one-shot search: a hit's file, named by its id, in its scope's folder
        p = tmp / "r.md"
        p.write_bytes(text.encode("utf-8"))
        hit = lexfast.read_record(str(p), rec.scope, rec.id)
        assert hit is None or (hit.kind, hit.status, hit.confidence, hit.tags, hit.valid_from, hit.valid_to,
                               hit.recorded_at, hit.superseded_at, hit.content, hit.digest) == (
            rec.kind, rec.status, rec.confidence, rec.tags, rec.valid_from, rec.valid_to, rec.recorded_at,
            rec.superseded_at, rec.content, rec.digest), text
    if got is not None:  # the full reader's first step is the same reader
        fm = recordtext.split_record_text(text)[0]
        assert recordtext.fast_frontmatter(fm) == got[0]


@settings(max_examples=400, deadline=None)
@given(text=record_texts(), edits=_edits, drop=st.integers(0, 3))
def test_every_reader_path_reads_what_the_full_reader_reads(text: str, edits: list[tuple[int, str]], drop: int,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp = tmp_path_factory.mktemp("one")
    rec = full(text)
    assert rec is not None
    every_path(text, rec, tmp)
    # a file mem wrote: the fast paths read it (the scan: unless a value is of the kinds the
    # canonical form quotes or writes otherwise, which it leaves to the line reader)
    got = recordtext.read_fast(text)
    assert got is not None
    assert recordtext.lean_fields(*got) == lean_of(rec)
    if rec.id == IDS[0]:  # (an id of digits only is written quoted: the line reader reads it)
        assert recordtext.scan_canonical(text) == lean_of(rec)
    damaged = damage(text, edits, drop)
    every_path(damaged, full(damaged), tmp)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_after_a_frontmatter_line(raw: bytes) -> None:
    """Arbitrary bytes (malformed input): no path fails; each gives up or agrees."""
    data = b"---\n" + raw
    assert fast_fields(data) is None or full(data.decode("utf-8")) is not None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    rec = full(text)
    if rec is None:
        assert recordtext.scan_canonical(text) is None
        got = recordtext.read_fast(text)
        assert got is None or recordtext.lean_fields(*got) is None
        assert verify._lite_record(text) is None


_MALFORMED = [
    ("no frontmatter", "just text\n", "does not start with a '---' frontmatter line"),
    ("not closed", "---\nid: 01JGZ00000000000000000000A\n", "frontmatter is not closed"),
    ("a key twice", "---\nid: 01JGZ00000000000000000000A\nid: 01JGZ00000000000000000000B\n---\nx\n",
     "appears more than once"),
    ("no required keys", "---\nscope: a\n---\nx\n", "lacks required key(s)"),
    ("kind a YAML word", "---\nid: 01JGZ00000000000000000000A\nscope: a\nkind: yes\nstatus: active\n"
     "confidence: 1.0\nrecorded_at: 2024-01-01T00:00:00.000Z\ndigest: sha256:" + "0" * 64 + "\n---\nx\n",
     "kind must be a string"),
    ("an impossible date", "---\nid: 01JGZ00000000000000000000A\nscope: a\nkind: fact\nstatus: active\n"
     "confidence: 1.0\nrecorded_at: 2024-02-30T00:00:00.000Z\ndigest: sha256:" + "0" * 64 + "\n---\nx\n",
     "not a valid time"),
    ("an id of digits", "---\nid: 12345670123456701234567012\nscope: a\nkind: fact\nstatus: active\n"
     "confidence: 1.0\nrecorded_at: 2024-01-01T00:00:00.000Z\ndigest: sha256:" + "0" * 64 + "\n---\nx\n",
     "id must be a string"),
]


@pytest.mark.parametrize(("what", "text", "message"), _MALFORMED, ids=[m[0] for m in _MALFORMED])
def test_malformed_files_every_path_gives_up_and_the_error_names_the_file(
        what: str, text: str, message: str, tmp_path: Path) -> None:
    assert recordtext.scan_canonical(text) is None
    got = recordtext.read_fast(text)
    assert got is None or recordtext.lean_fields(*got) is None
    assert fast_fields(text.encode("utf-8")) is None
    assert verify._lite_record(text) is None
    with pytest.raises(RecordParseError) as exc:
        parse_record(text, tmp_path / "records" / "a" / "r.md")
    assert message in str(exc.value)
    assert str(tmp_path / "records" / "a" / "r.md") in str(exc.value)


def test_verify_names_a_malformed_file(tmp_path: Path) -> None:
    """Through ``mem verify``'s fast level: the finding names the file and the reader's problem."""
    store = Store.init(tmp_path / "s", actor="t@t")
    rec = store.add("green tea", scope="a", kind="fact")
    path = tmp_path / "s" / "records" / "a" / f"{rec.id}.md"
    path.write_text(path.read_text("utf-8").replace("kind: fact", "kind: yes"), "utf-8")
    report = verify_store(tmp_path / "s")
    found = [f for f in report.findings if f.path.endswith(f"{rec.id}.md")]
    assert found and "kind must be a string" in found[0].message, report.findings


#: Each token of the line grammar, another value for it, and the names derived from it at import.
_TOKENS = [("SEP", ":  ", {}), ("INDENT", "    ", {}), ("BLOCK_OPEN", " :", {}), ("LIST_SEP", ",  ", {}),
           ("FENCE", "+++\n", {"_CLOSE": "\n+++\n", "_CLOSE_AT_END": "\n+++"})]


@pytest.mark.parametrize("token,value,derived", _TOKENS, ids=[t[0] for t in _TOKENS])
def test_a_grammar_token_changed_is_followed_by_the_writer_and_every_reader(
        token: str, value: str, derived: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer, the line reader and the canonical pattern are all made from the grammar's
    tokens: with one of them changed, the writer writes the new form and each reader reads it
    back as the same record (the canonical pattern included: nothing of the old form is left)."""
    rec = make_record(id=IDS[0], scope="alice", kind="fact", content="the harbour ferries\n", status="superseded",
                      confidence=0.5, tags=["a", "b:c"], valid_from="2024-02-03T04:05:06.007Z",
                      superseded_by=IDS[5], supersedes=[IDS[1], IDS[2]], derived_from=[IDS[4]],
                      source={"type": "cli", "system": "x"}, extra={"x_ext": "v", "meta_x": {"a": [1, 2]}})
    before = dump_record(rec)
    for name, v in {token: value, **derived}.items():
        monkeypatch.setattr(recordtext, name, v)
    monkeypatch.setattr(recordtext, "_CANONICAL", None)  # compiled again from the changed token
    text = dump_record(rec)
    assert text != before and value in text
    assert parse_record(text) == rec
    got = recordtext.read_fast(text)
    assert got is not None and recordtext.lean_fields(*got) == lean_of(rec)
    assert recordtext.scan_canonical(text) == lean_of(rec)
    assert recordtext.scan_canonical(before) is None  # the old form is not the canonical layout now
    assert recordtext.stored_digest(text) == rec.digest
    monkeypatch.undo()
    recordtext._CANONICAL = None
    assert recordtext.scan_canonical(before) == lean_of(rec)


@pytest.mark.parametrize("value", ["2024-02-0T04:05:06.007Z", "2024-02-30T04:05:06Z", "2023-13-01"])
def test_an_impossible_date_is_refused_by_every_reader(value: str, tmp_path: Path) -> None:
    """A hand-edited timestamp that YAML resolves but no calendar holds (day 0, 30 February,
    month 13) is a record the full reader refuses with E102.2, not a bare ValueError; no other
    reader path reads it as a record."""
    text = f"---\nid: 01HZX3J4K5M6N7P8Q9R0S1T2V3\ncreated: {value}\n---\nhello\n"
    with pytest.raises(RecordParseError) as err:
        parse_record(text, "notes/x.md")
    assert err.value.rule == "E102.2" and "notes/x.md" in str(err.value)
    every_path(text, None, tmp_path)
