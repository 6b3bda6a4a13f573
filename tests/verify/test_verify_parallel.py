"""verify reads record files in worker processes on a large store: the report must be the same,
finding for finding, as when one process reads them; and its own match digest must equal the
format's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base.errors import RecordParseError
from mem.format.model.record import dump_record, make_record, match_digest, parse_record
from mem.format.rules import recordtext
from mem.format.store.store import Store, source_key
from mem.format.verify import checks as verify
from mem.format.verify.checks import verify_store

FIXTURES = Path(__file__).resolve().parents[2] / "spec" / "fixtures"
IDS = ["01JGZ00000000000000000000" + c for c in "ABCDEFGH"]


def _same_report(root: Path, full: bool) -> dict[str, object]:
    one = verify_store(root, full=full, workers=1).to_dict()
    two = verify_store(root, full=full, workers=2).to_dict()
    assert two == one
    return one


def test_every_fixture_reports_the_same_with_workers() -> None:
    for d in sorted(FIXTURES.iterdir()):
        if d.is_dir() and (d / "records").is_dir():
            for full in (False, True):
                _same_report(d, full)


def test_mixed_damage_across_scopes_and_chunks(store: Store, tmp_path: Path) -> None:
    with store.batch():
        recs = {
            scope: [store.add(f"{scope} note number {i}", scope=scope) for i in range(8)]
            for scope in ("alice", "bob", "carol")
        }
        uni = store.add("Ça va — l'ÉCOLE ﬁnit à 5h", scope="alice")
        src = store.add("imported phone number", scope="bob", source={"type": "import",
                        "system": "crm", "original_id": "42"})
    root = store.root
    a0, b0 = recs["alice"][0], recs["bob"][0]
    # E201: a forget whose file removal never ran
    gone = recs["carol"][3]
    gone_text = store.record_path("carol", gone.id).read_text("utf-8")
    store.forget([uni.id, src.id, gone.id], reason="test")
    # E107: the same id in a second scope folder
    shutil.copy(store.record_path("alice", a0.id), root / "records" / "bob" / f"{a0.id}.md")
    # E202 (non-ASCII content) and E203 (a forgotten source item) brought back by hand
    store.record_path("carol", gone.id).write_text(gone_text, "utf-8")
    back = make_record(scope="alice", kind="note", content="ça va — l'école  FINIT à 5h!")
    store.record_path("alice", back.id).write_text(dump_record(back), "utf-8")
    again = make_record(scope="bob", kind="note", content="the phone number, reworded",
                        source={"type": "import", "system": "crm", "original_id": "42"})
    store.record_path("bob", again.id).write_text(dump_record(again), "utf-8")
    # E101, E105, and a hand edit (E108 at --full)
    store.record_path("carol", recs["carol"][0].id).write_bytes(b"---\nid: \xff\n---\nx\n")
    store.record_path("carol", recs["carol"][1].id).write_text(
        dump_record(recs["carol"][2]), "utf-8")
    p = store.record_path("bob", b0.id)
    p.write_text(p.read_text("utf-8").replace("note number", "memo number"), "utf-8")

    fast = _same_report(root, False)
    full = _same_report(root, True)
    fast_codes = {f["code"] for f in fast["findings"]}  # type: ignore[attr-defined]
    full_codes = {f["code"] for f in full["findings"]}  # type: ignore[attr-defined]
    assert {"E101", "E105", "E107", "E201", "E202", "E203", "W301"} <= fast_codes
    assert "E108" not in fast_codes and "E108" in full_codes
    assert fast["counts"]["records"] == 8 * 3 + 1 + 1 + 1  # type: ignore[index]


def test_auto_choice_uses_the_pool_on_a_large_store(store: Store, monkeypatch) -> None:
    with store.batch():
        for i in range(12):
            store.add(f"note {i}", scope="team")
    expected = verify_store(store.root, workers=1).to_dict()
    monkeypatch.setattr(verify, "POOL_MIN_RECORDS", 5)
    used: list[int] = []
    real = verify._tasks
    monkeypatch.setattr(verify, "_tasks", lambda job, chunk: used.append(chunk) or real(job, chunk))
    assert verify_store(store.root).to_dict() == expected
    if verify._pool_size(12, None) > 1:  # several CPUs, and pytest runs with one thread
        assert used and used[0] < 12  # chunked for the workers, not one in-process run
    monkeypatch.setattr(verify, "POOL_MIN_RECORDS", 13)
    assert verify._pool_size(12, None) == 1 and verify._pool_size(12, 2) == 2


def test_a_worker_that_dies_fails_the_check_instead_of_hanging(store: Store, monkeypatch) -> None:
    from concurrent.futures.process import BrokenProcessPool

    with store.batch():
        for i in range(6):
            store.add(f"note {i}", scope="team")
    monkeypatch.setattr(verify, "_check_file", lambda *a: os._exit(3))
    with pytest.raises(BrokenProcessPool):
        verify_store(store.root, workers=2)


_ascii = st.text(st.characters(max_codepoint=127), max_size=80)
_mixed = st.text(
    st.one_of(
        st.characters(max_codepoint=127),
        st.sampled_from("\u00a0\u0085\u2028\u3000ﬁǅẞßİÉé\u0301½Ⅻ\ufeff—…_"),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=80,
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_ascii, _mixed))
def test_match_digest_fast_path_equals_the_format(content: str) -> None:
    assert verify._match_digest(content) == match_digest(content)


@pytest.mark.parametrize("content", ["", " ", "\x1c\x1f\x0b\x0c", "_a_", "A\tB\r\nC", "...x..."])
def test_match_digest_edges(content: str) -> None:
    assert verify._match_digest(content) == match_digest(content)


_ts = st.sampled_from([None, "2024-02-03T04:05:06.007Z", "2025-12-31T23:59:59.999Z"])


@st.composite
def _record_texts(draw: st.DrawFn) -> str:
    status = draw(st.sampled_from(["active", "candidate", "rejected", "superseded"]))
    rec = make_record(
        id=IDS[0], scope=draw(st.sampled_from(["a", "alice", "x.y", "team_1"])),
        kind=draw(st.sampled_from(["fact", "note", "preference", "x_1"])),
        content=draw(st.text(min_size=1, max_size=60).filter(str.strip)),
        status=status, confidence=draw(st.sampled_from([1.0, 0.5, 0.25])),
        tags=draw(st.lists(st.sampled_from(["a", "b:c", "d-e"]), max_size=2, unique=True)),
        valid_from=draw(st.sampled_from([None, "2024-02-03T04:05:06.007Z"])),
        valid_to=draw(st.sampled_from([None, "2025-12-31T23:59:59.999Z"])), updated_at=draw(_ts),
        superseded_at=draw(_ts),
        supersedes=draw(st.lists(st.sampled_from(IDS[1:4]), max_size=2, unique=True)),
        superseded_by=IDS[5] if status == "superseded" else draw(st.sampled_from([None, IDS[6]])),
        derived_from=draw(st.lists(st.sampled_from(IDS[4:8]), max_size=2, unique=True)),
        source=draw(st.one_of(st.none(), st.dictionaries(
            st.sampled_from(["system", "original_id", "turn", "pattern"]),
            st.one_of(st.text(max_size=12), st.integers()), max_size=3))),
        extra=draw(st.one_of(st.none(), st.just({"x_ext": "v"}))),
    )
    return dump_record(rec)


_edits = st.lists(
    st.tuples(st.integers(0, 10_000), st.sampled_from(["", "\n", " ", "  ", ": ", "---\n", "x", '"', ".", "..", "Z", "U", "0", "\u0661"])),
    max_size=3,
)


def _as_the_reader_reads(text: str) -> object:
    """What the fast level keeps of a record, taken from the reader's own parse (None: the
    reader refuses the text)."""
    try:
        r = parse_record(text)
    except RecordParseError:
        return None
    return (r.id, r.scope, r.status, r.supersedes, r.superseded_by, r.derived_from,
            source_key(r.source), r.content)


def _lite(text: str) -> object:
    lite = verify._lite_record(text)
    return None if lite is None else (
        lite.id, lite.scope, lite.status, lite.supersedes, lite.superseded_by, lite.derived_from,
        source_key(lite.source), lite.content,
    )  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_record_texts(), _edits, st.integers(0, 3))
def test_canonical_layout_scan_reads_what_the_reader_reads(text: str, edits, drop: int) -> None:
    """The fast level's one-regex scan of the canonical layout accepts only texts the reader
    accepts, and reads them as the reader does, including damaged ones (edited bytes, a dropped
    line); anything else it leaves to the reader (None)."""
    if "x_ext" not in text:  # no extension key: the canonical layout's one match reads it
        assert recordtext.canonical_pattern().match(text)
        assert _lite(text) == _as_the_reader_reads(text) != None  # noqa: E711
    for at, ins in edits:
        at %= len(text) + 1
        text = text[:at] + ins + text[at + 1 :]
    lines = text.split("\n")
    if drop and len(lines) > drop:
        del lines[drop]
    text = "\n".join(lines)
    got = _lite(text)
    assert got is None or got == _as_the_reader_reads(text)
