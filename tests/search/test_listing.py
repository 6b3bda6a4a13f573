"""``mem list --limit N`` chooses the newest records from the lexical index's state (format/search/listing.py).

Every test compares with ``Store.list``, which reads every record: the records and their order
must be the same, whatever the filter, and whatever changed in the files since they were indexed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mem.format.index.derived as index_pkg
import mem.format.search.listing as listing
from mem.format.base.errors import LockTimeoutError
from mem.format.index.derived import attach, refresh
from mem.format.index.lexical import LexicalIndex
from mem.format.model.record import STATUSES, make_record
from mem.format.rules.timeutil import UTC
from mem.format.search.listing import newest
from mem.format.store.store import RecordFilter, Store
from tests.conftest import run_mem

KINDS = ("fact", "event", "note")
TAGS = ("t1", "t2", "t3")
#: few distinct record times, so that many records share one (the order is then by id)
TIMES = [dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC) + dt.timedelta(milliseconds=ms)
         for ms in (0, 1, 1, 2, 999, 1000, 86_400_000)]


@pytest.fixture
def varied(store: Store) -> Iterator[Store]:
    """48 records in three scopes: kinds, statuses, tags, validity and (often equal) record times vary."""
    attach(store)
    first = ""
    for i in range(48):
        kw: dict[str, Any] = {}
        if i % 5 == 0:
            kw["valid_from"] = f"20{10 + i % 15:02d}-03-01"
        if i % 7 == 0:
            kw["valid_to"] = f"20{18 + i % 6:02d}-09-30"
        status = STATUSES[i % len(STATUSES)]
        rec = make_record(content=f"Note {i}", scope=("ana", "bob", "cy")[i % 3], kind=KINDS[i % 3 if i % 4 else 0],
                          status=status, tags=[t for j, t in enumerate(TAGS) if (i >> j) & 1],
                          recorded_at=TIMES[i % len(TIMES)], source={"type": "api"},
                          superseded_by=first if status == "superseded" else None, **kw)
        first = first or store.put(rec).id  # a superseded record names a successor (writers refuse it alone)
        if rec.id != first:
            store.put(rec)
    refresh(store)
    yield store


def _ids(records: list[Any]) -> list[str]:
    return [r.id for r in records]


def _no_full_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading every record (``Store.list``) fails the test: the index must answer."""
    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("every record was read")

    monkeypatch.setattr(Store, "list", refuse)


filters = st.fixed_dictionaries({}, optional={
    "scopes": st.lists(st.sampled_from(["ana", "bob", "cy", "nobody"]), max_size=3, unique=True),
    "kinds": st.lists(st.sampled_from(KINDS), max_size=2, unique=True),
    "statuses": st.lists(st.sampled_from(STATUSES), max_size=4, unique=True),
    "tags": st.lists(st.sampled_from(TAGS), max_size=2, unique=True),
    "as_of": st.sampled_from([dt.datetime(y, 6, 1, tzinfo=UTC) for y in (2009, 2015, 2020, 2030)]),
})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kw=filters, limit=st.integers(1, 60), page_min=st.sampled_from([1, 3, 64]))
def test_same_records_in_the_same_order_as_reading_every_record(varied: Store, kw: dict[str, Any],
                                                                 limit: int, page_min: int) -> None:
    """Also when the state's rows are asked for a few at a time (``page_min``: pages of twice the
    limit, at least that many), past rows the filter rejects."""
    flt = RecordFilter(**kw)
    want = _ids(varied.list(flt, limit=limit))
    with pytest.MonkeyPatch.context() as mp:
        _no_full_read(mp)
        mp.setattr(listing, "PAGE_MIN", page_min)
        assert _ids(newest(varied, flt, limit)) == want


def test_pages_of_a_few_rows(varied: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every limit with the smallest pages, where the rows a page ends on are picked or passed
    over: no row is seen twice or skipped between pages."""
    monkeypatch.setattr(listing, "PAGE_MIN", 1)
    for kw in ({}, {"statuses": ["rejected"]}, {"tags": ["t1", "t2"], "statuses": list(STATUSES)},
               {"scopes": ["bob"], "kinds": ["event", "note"], "statuses": list(STATUSES)}):
        flt = RecordFilter(**kw)
        for limit in range(1, 50):
            want = _ids(varied.list(flt, limit=limit))
            with monkeypatch.context() as mp:
                _no_full_read(mp)
                assert _ids(newest(varied, flt, limit)) == want, (kw, limit)


def test_only_the_records_listed_are_read(varied: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Path] = []
    read = Store.read_path

    def counting(self: Store, path: Path) -> Any:
        reads.append(path)
        return read(self, path)

    monkeypatch.setattr(Store, "read_path", counting)
    _no_full_read(monkeypatch)
    got = newest(varied, RecordFilter(statuses=list(STATUSES)), 5)
    assert len(got) == 5 and len(reads) == 5


def test_an_edit_in_place_that_keeps_the_folder_mtime_is_seen(varied: Store) -> None:
    """The listing's refresh stats every file: an editor that writes in place is never missed,
    neither for a record that now passes the filter nor for one that no longer does."""
    flt = RecordFilter(statuses=["active"])
    first = newest(varied, flt, 3)
    old = next(r for r in varied.list(RecordFilter(statuses=["rejected"])) if r.recorded_at == TIMES[-1])
    for rec, (was, now) in ((old, ("rejected", "active")), (first[0], ("active", "rejected"))):
        path = varied.record_path(rec.scope, rec.id)
        d = os.stat(path.parent)
        text = path.read_text("utf-8")
        assert f"\nstatus: {was}\n" in text
        path.write_text(text.replace(f"\nstatus: {was}\n", f"\nstatus: {now}\n"), "utf-8")
        os.utime(path.parent, ns=(d.st_atime_ns, d.st_mtime_ns))  # the folder looks untouched
    got = _ids(newest(varied, flt, 3))
    assert old.id in got and first[0].id not in got
    assert got == _ids(varied.list(flt, limit=3))


def test_a_forgotten_record_is_never_listed(varied: Store) -> None:
    """Even when its file comes back (a checkout of an older commit) with an index that still
    holds it: the tombstone is checked for every row chosen."""
    everything = RecordFilter(statuses=list(STATUSES))
    top = newest(varied, everything, 1)[0]
    path = varied.record_path(top.scope, top.id)
    saved = path.read_bytes()
    varied.forget([top.id])
    assert top.id not in _ids(newest(varied, everything, 48))
    path.write_bytes(saved)  # the file is back
    got = _ids(newest(varied, everything, 48))
    assert top.id not in got and got == _ids(varied.list(everything, limit=48))


def test_records_added_removed_or_changed_outside_mem_are_seen(varied: Store, tmp_path: Path) -> None:
    everything = RecordFilter(statuses=list(STATUSES))
    other = Store.init(tmp_path / "other", actor="tester@test")
    fresh = other.add("Made elsewhere", scope="ana", kind="fact", recorded_at="2030-01-01")
    shutil.copy(other.record_path("ana", fresh.id), varied.record_path("ana", fresh.id))  # git pull
    gone = newest(varied, everything, 2)[1]
    varied.record_path(gone.scope, gone.id).unlink()
    got = _ids(newest(varied, everything, 5))
    assert got[0] == fresh.id and gone.id not in got
    assert got == _ids(varied.list(everything, limit=5))


def test_known_at_and_record_time_filters_read_every_record(varied: Store) -> None:
    """The state lacks ``superseded_at``: those filters are answered from the records."""
    for flt in (RecordFilter(known_at=TIMES[3]), RecordFilter(recorded_after=TIMES[2]),
                RecordFilter(recorded_before=TIMES[4]), RecordFilter(ids=[newest(varied, None, 1)[0].id])):
        assert listing._from_index(varied, flt, 10) is None
        assert _ids(newest(varied, flt, 10)) == _ids(varied.list(flt, limit=10))


def test_without_an_index_or_when_locked_every_record_is_read(varied: Store,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    want = _ids(varied.list(RecordFilter(), limit=7))

    def locked(*_a: Any, **_k: Any) -> Any:
        raise LockTimeoutError("the store is locked")

    with monkeypatch.context() as mp:
        mp.setattr(index_pkg, "refresh", locked)
        assert listing._from_index(varied, RecordFilter(), 7) is None
        assert _ids(newest(varied, None, 7)) == want
    shutil.rmtree(varied.index_dir)
    assert listing._from_index(varied, RecordFilter(), 7) is None
    assert _ids(newest(varied, None, 7)) == want
    assert not (varied.index_dir / "lexical.json").exists()  # a listing builds no index


def test_state_rows_without_ranking_fields_read_every_record(varied: Store) -> None:
    lex = LexicalIndex.open(varied.index_dir)
    assert lex is not None
    lex.db.execute("UPDATE records SET status = NULL WHERE scope = 'bob'")  # rows an older mem wrote
    lex.close()
    assert listing._from_index(varied, RecordFilter(), 9) is None
    assert listing._from_index(varied, RecordFilter(scopes=["ana"]), 9) is not None  # bob's rows not asked
    assert _ids(newest(varied, None, 9)) == _ids(varied.list(RecordFilter(), limit=9))


def test_a_state_that_disagrees_with_a_file_reads_every_record(varied: Store) -> None:
    """A state row changed behind the refresh's back (same mtime and size): the record read
    disagrees with it, and the records answer."""
    top = newest(varied, None, 1)[0]
    lex = LexicalIndex.open(varied.index_dir)
    assert lex is not None
    lex.db.execute("UPDATE records SET kind = 'other' WHERE id = ?", (top.id,))
    lex.close()
    assert listing._from_index(varied, RecordFilter(), 4) is None
    assert _ids(newest(varied, None, 4)) == _ids(varied.list(RecordFilter(), limit=4))


def test_cli_list_with_a_limit(varied: Store) -> None:
    sdir = str(varied.root)
    for args in ([], ["--scope", "bob"], ["--status", "all", "--tag", "t1"], ["--kind", "event,note"]):
        got = run_mem("--store", sdir, "list", "-n", "4", "--json", *args)
        assert got.returncode == 0, got.stderr
        full = run_mem("--store", sdir, "list", "--json", *args)
        assert got.json() == full.json()[:4]


def test_cli_list_names_an_unreadable_record_as_before(varied: Store) -> None:
    victim = newest(varied, RecordFilter(statuses=list(STATUSES)), 48)[-1]  # far from the newest
    path = varied.record_path(victim.scope, victim.id)
    path.write_text("---\nid: [unclosed\n---\n", "utf-8")
    sdir = str(varied.root)
    limited = run_mem("--store", sdir, "list", "-n", "2")
    full = run_mem("--store", sdir, "list")
    # the unreadable record is skipped with a warning naming it (one bad file never takes down
    # the listing), by the index's path and by the full read alike
    assert limited.returncode == full.returncode == 0
    assert victim.id in limited.stderr and limited.stderr == full.stderr
    assert victim.id not in full.stdout and len(limited.stdout.splitlines()) == 2


def test_stats_count_the_state_after_a_full_stat_scan(varied: Store, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The same counts as reading every record, after changes of every kind made outside mem, an
    unreadable file (left out by both) and a forgotten record whose file came back."""
    kinds = newest(varied, RecordFilter(statuses=list(STATUSES)), 48)
    a, b, c, d = kinds[3], kinds[10], kinds[20], kinds[30]
    path = varied.record_path(a.scope, a.id)  # edited in place: another kind, the folder untouched
    st_dir = os.stat(path.parent)
    text = path.read_text("utf-8")
    path.write_text(text.replace(f"\nkind: {a.kind}\n", "\nkind: recipe\n"), "utf-8")
    os.utime(path.parent, ns=(st_dir.st_atime_ns, st_dir.st_mtime_ns))
    saved = varied.record_path(d.scope, d.id).read_bytes()
    varied.forget([d.id])
    varied.record_path(d.scope, d.id).write_bytes(saved)
    varied.record_path(b.scope, b.id).unlink()
    varied.record_path(c.scope, c.id).write_text("---\nid: [unclosed\n---\n", "utf-8")
    other = Store.init(tmp_path / "other", actor="tester@test")
    fresh = other.add("Made elsewhere", scope="dee", kind="fact")
    (varied.records_dir / "dee").mkdir()
    shutil.copy(other.record_path("dee", fresh.id), varied.record_path("dee", fresh.id))
    want = varied.stats()
    assert want["by_kind"]["recipe"] == 1 and want["by_scope"]["dee"] == 1
    assert want["records"] == 48 - 3 + 1
    read_all = Store.iter_records

    def refuse(self: Store, *a: Any, **k: Any) -> Any:
        raise AssertionError("every record was read")

    monkeypatch.setattr(Store, "iter_records", refuse)
    assert listing.stats(varied) == want
    monkeypatch.setattr(Store, "iter_records", read_all)
    lex = LexicalIndex.open(varied.index_dir)
    assert lex is not None
    lex.db.execute("UPDATE records SET kind = NULL WHERE scope = 'bob'")  # rows an older mem wrote
    lex.close()
    assert listing.stats(varied) == want  # read from the records
    shutil.rmtree(varied.index_dir)
    assert listing.stats(varied) == want
    assert not (varied.index_dir / "lexical.json").exists()


def test_cli_stats(varied: Store) -> None:
    got = run_mem("--store", str(varied.root), "stats", "--json")
    assert got.returncode == 0, got.stderr
    assert got.json() == json.loads(json.dumps(varied.stats()))


def test_an_index_it_may_not_write_still_lists_and_counts(varied: Store, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only store (a mounted checkout): the refresh cannot apply a change made outside mem,
    and every record is read instead, as before the listing used the index."""
    import sqlite3

    other = Store.init(tmp_path / "other", actor="tester@test")
    fresh = other.add("Made elsewhere", scope="ana", kind="fact", recorded_at="2030-01-01")
    shutil.copy(other.record_path("ana", fresh.id), varied.record_path("ana", fresh.id))

    def read_only(*_a: Any, **_k: Any) -> Any:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(LexicalIndex, "apply", read_only)
    assert listing._from_index(varied, RecordFilter(), 3) is None
    assert _ids(newest(varied, None, 3))[0] == fresh.id
    assert listing.stats(varied) == varied.stats()

    def read_only_fs(*_a: Any, **_k: Any) -> Any:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(LexicalIndex, "apply", read_only_fs)
    assert _ids(newest(varied, None, 3)) == _ids(varied.list(RecordFilter(), limit=3))
