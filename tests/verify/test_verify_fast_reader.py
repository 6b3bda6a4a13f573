"""``mem verify``'s fast level reads a canonical record file with the rules layer's reader asked
only for the fields verify reports (``scan_canonical(text, linking=True)``: the times checked,
not kept). It gives up exactly where the whole scan gives up and reads what the full reader
reads; a file whose time no calendar holds is still found, with the full reader's code and
message, through the API and through the ``mem`` executable."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.model.record import parse_record
from mem.format.rules import recordtext
from mem.format.store.store import Store
from mem.format.verify import checks as verify
from mem.format.verify.checks import verify_store
from tests.conftest import run_mem
from tests.core.test_one_reader import _edits, damage, record_texts


def _reported(text: str) -> tuple[object, ...]:
    """What verify's fast level takes of a record, from the full reader (and the digest line)."""
    rec = parse_record(text)
    return (rec.id, rec.scope, rec.status, rec.supersedes, rec.superseded_by, rec.derived_from, rec.source,
            rec.content, recordtext.stored_digest(text))


def _agree(text: str) -> None:
    whole = recordtext.scan_canonical(text)
    links = recordtext.scan_canonical(text, linking=True)
    assert (links is None) == (whole is None), text
    lite = verify._lite_record(text)
    assert (lite is None) == (links is None), text
    if links is not None:
        assert links == _reported(text), text
        assert lite is not None and tuple(lite) == links[:8]


@settings(max_examples=400, deadline=None)
@given(text=record_texts(), edits=_edits, drop=st.integers(0, 3))
def test_the_linking_scan_gives_up_where_the_scan_does_and_reads_what_the_full_reader_reads(
        text: str, edits: list[tuple[int, str]], drop: int) -> None:
    _agree(text)
    _agree(damage(text, edits, drop))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_after_a_frontmatter_line(raw: bytes) -> None:
    try:
        text = (b"---\n" + raw).decode("utf-8")
    except UnicodeDecodeError:
        return
    _agree(text)


#: A line of a record file changed (old, new), and the finding verify reports, as it did before the
#: fast level stopped building the times (code, sub-rule, message).
_BAD_TIMES = [
    ("30 February", "recorded_at: {rec}", "recorded_at: 2024-02-30T00:00:00.000Z",
     ("E103", "E103.7", "recorded_at '2024-02-30T00:00:00.000Z' is not a valid time (no such date or time of day)")),
    ("month 13", "recorded_at: {rec}", "recorded_at: 2023-13-01T10:00:00.000Z",
     ("E103", "E103.7", "recorded_at '2023-13-01T10:00:00.000Z' is not a valid time (no such date or time of day)")),
    ("minute 60", "recorded_at: {rec}", "recorded_at: {rec}\nupdated_at: 2024-01-01T00:60:00.000Z",
     ("E103", "E103.7", "updated_at '2024-01-01T00:60:00.000Z' is not a valid time (no such date or time of day)")),
    ("valid_to before valid_from", "kind: fact", "kind: fact\nstatus: active\nconfidence: 1.0\n"
     "valid_from: 2024-05-01T00:00:00.000Z\nvalid_to: 2024-04-30T23:59:59.999Z",
     ("E103", "E103.8", "valid_to is earlier than valid_from")),
]


def _store_with_bad_time(tmp_path: Path, old: str, new: str) -> tuple[Path, str, str]:
    store = Store.init(tmp_path / "s", actor="t@t")
    good = store.add("the ferry leaves at nine", scope="a", kind="fact")
    rec = store.add("green tea", scope="a", kind="fact")
    path = tmp_path / "s" / "records" / "a" / f"{rec.id}.md"
    text = path.read_text("utf-8")
    stamp = text.split("recorded_at: ", 1)[1].split("\n", 1)[0]
    old, new = old.format(rec=stamp), new.format(rec=stamp)
    if old == "kind: fact":  # (status and confidence follow kind: written again before the times)
        assert "status: active\nconfidence: 1.0\n" in text
        text = text.replace("status: active\nconfidence: 1.0\n", "")
    assert old in text
    text = text.replace(old, new, 1)
    path.write_text(text, "utf-8")
    assert recordtext.scan_canonical(text, linking=True) is None and verify._lite_record(text) is None
    return tmp_path / "s", f"records/a/{rec.id}.md", good.id


@pytest.mark.parametrize(("what", "old", "new", "finding"), _BAD_TIMES, ids=[b[0] for b in _BAD_TIMES])
def test_verify_finds_a_time_no_calendar_holds(what: str, old: str, new: str, finding: tuple[str, str, str],
                                               tmp_path: Path) -> None:
    root, rel, _ = _store_with_bad_time(tmp_path, old, new)
    for workers in (1, 2):  # this process, and forked workers
        report = verify_store(root, workers=workers)
        got = [(f.code, f.rule, f.message) for f in report.findings if f.path == rel]
        assert got == [finding], report.findings
        assert report.records == 2


@pytest.mark.parametrize(("what", "old", "new", "finding"), _BAD_TIMES[:1] + _BAD_TIMES[-1:],
                         ids=[b[0] for b in _BAD_TIMES[:1] + _BAD_TIMES[-1:]])
def test_mem_verify_names_the_file_the_rule_and_the_time(what: str, old: str, new: str,
                                                          finding: tuple[str, str, str], tmp_path: Path) -> None:
    root, rel, good = _store_with_bad_time(tmp_path, old, new)
    r = run_mem("verify", str(root), "--json")
    assert r.returncode == 1, r.stderr
    found = r.json()["findings"]
    assert [(f["code"], f.get("rule"), f["message"]) for f in found if f["path"] == rel] == [finding]
    assert not [f for f in found if good in f["path"]]
