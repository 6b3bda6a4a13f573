"""Candidates are ranked from the lexical index's state, and only the hits are read from files.

Every test compares against the path that reads each candidate's file (the state's ranking
fields disabled), which is how every search ranked before: results must be identical.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mem.format.index.derived as index_pkg
import mem.format.model.record as record_mod
from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.backlog import embed_backlog
from mem.format.index.derived import attach
from mem.format.index.lexical import META_COLUMNS, DocFields, LexicalIndex, open_state
from mem.format.index.terms import presence, terms
from mem.format.rules.timeutil import UTC, epoch_ms, from_epoch_ms
from mem.format.search.engine import open_searcher
from mem.format.search.relevance import POOL_MIN
from mem.format.store.store import RecordFilter, Store
from tests.conftest import searched
from tests.search.conftest import QUERIES, WORDS, words_of


@pytest.fixture
def big(store: Store) -> Iterator[Store]:
    """60 records in two scopes: kinds, statuses, tags, confidences and validity times vary."""
    attach(store)
    for i in range(60):
        words = words_of(i)
        status = ("active", "candidate", "active", "rejected")[i % 4]
        kw: dict[str, Any] = {}
        if i % 5 == 0:
            kw["valid_from"] = f"20{10 + i % 15:02d}-03-01"
        if i % 7 == 0:
            kw["valid_to"] = f"20{18 + i % 6:02d}-09-30"
        store.add(f"Note {i} about {words}", scope=("ana", "bob")[i % 2], kind=("fact", "event", "note")[i % 3],
                  status=status, tags=(["t1"] if i % 3 == 0 else []) + (["t2"] if i % 4 == 1 else []),
                  confidence=0.5 + (i % 5) / 10, **kw)
    embed_backlog(store, HashingEmbedder())  # every vector there, as a bulk write leaves them
    yield store


def _results(store: Store, **kw: Any) -> list[Any]:
    s = open_searcher(store)
    try:
        out: list[Any] = []
        for q in QUERIES:
            for mode in ("hybrid", "lexical", "vector"):
                out.append(s.search(q, mode=mode, explain=True, **kw).to_dict())
                out.append([(h.id, h.score) for h in s.search(q, mode=mode, **kw).hits])  # unrounded
        return out
    finally:
        s.close()


FILTERS: list[dict[str, Any]] = [
    {},
    {"k": 3},
    {"scopes": ["bob"]},
    {"kinds": ["event"], "k": 25},
    {"statuses": ["rejected", "active"]},
    {"tags": ["t1"]},
    {"as_of": dt.datetime(2019, 6, 1, tzinfo=UTC)},
    {"known_at": dt.datetime(2100, 1, 1, tzinfo=UTC)},  # known_at: always the file path
]


@pytest.mark.parametrize("flt", FILTERS, ids=[",".join(f) or "none" for f in FILTERS])
def test_same_results_as_reading_every_candidate(big: Store, flt: dict[str, Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _freeze_clock(monkeypatch)  # the recency prior: the same "now" for both, so scores compare exactly
    fast = _results(big, **flt)
    monkeypatch.setattr(LexicalIndex, "meta_of", lambda self, keys: {})
    slow = _results(big, **flt)
    assert fast == slow
    assert any(r["hits"] for r in fast)


def _freeze_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import mem.format.rules.timeutil as tu

    at = tu.now()
    monkeypatch.setattr(tu, "now", lambda: at)


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    real = record_mod.read_record_file

    def counting(path: Path, *a: Any, **kw: Any) -> Any:
        seen.append(Path(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(record_mod, "read_record_file", counting)
    return seen


def test_only_the_hits_are_read(big: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    searched(big, "warm up the index", mode="vector")
    reads = _count_reads(monkeypatch)
    for mode in ("hybrid", "lexical", "vector"):
        s = open_searcher(big)  # nothing cached
        reads.clear()
        res = s.search("river tea coffee", mode=mode, k=3, explain=True)
        assert len(res.hits) == 3
        # no other candidate; a hybrid search reads its pool, the best relevance.POOL_MIN of stage 1
        # (spec/cli/search.md, "Scores"), the hits of the same search with k = POOL_MIN
        got = sorted(p.stem for p in reads)
        read = s.search("river tea coffee", mode=mode, k=POOL_MIN).hits if mode == "hybrid" else res.hits
        assert got == sorted(h.id for h in read), mode
        assert [h.id for h in read[:3]] == [h.id for h in res.hits]
        s.close()


def test_state_without_ranking_fields_reads_candidates(big: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _freeze_clock(monkeypatch)
    before = _results(big)
    lex = LexicalIndex.open(big.index_dir)
    assert lex is not None
    keys = [tuple(r) for r in lex.db.execute("SELECT scope, id FROM records")]
    lex.db.execute("UPDATE records SET status = NULL")  # what rows an older mem wrote look like
    assert lex.meta_of(keys) == {}
    reads = _count_reads(monkeypatch)
    assert _results(big) == before
    assert len(reads) > 3 * len(QUERIES)  # the candidates were read
    # ... and their rows got their ranking fields back from those reads
    filled = lex.meta_of(keys)
    assert 0 < len(filled) <= len(keys)
    assert all(m.status in ("active", "candidate", "rejected") for m in filled.values())
    reads.clear()
    assert _results(big) == before
    assert len(reads) <= sum(len(r["hits"]) for r in before if isinstance(r, dict))  # now only hits are read
    lex.close()


def test_filling_ranking_fields_never_waits_for_a_writer(big: Store) -> None:
    searched(big, "build", mode="lexical")
    lex = LexicalIndex.open(big.index_dir)
    other = LexicalIndex.open(big.index_dir)
    assert lex is not None and other is not None
    lex.db.execute("UPDATE records SET status = NULL")
    rows = list(lex.db.execute("SELECT scope, id FROM records LIMIT 3"))
    recs = [big.get(rid, sc) for sc, rid in rows]
    items = []
    for r in recs:
        st_ = os.stat(big.record_path(r.scope, r.id))
        items.append((DocFields.from_record(r), st_.st_mtime_ns, st_.st_size))
    other.db.execute("BEGIN IMMEDIATE")  # a writer holds the state
    t = time.monotonic()
    assert lex.fill_meta(items) == 0
    assert time.monotonic() - t < 1.0
    other.db.execute("ROLLBACK")
    assert lex.fill_meta(items) == 3
    assert lex.fill_meta(items) == 0  # only rows without the fields
    stale = [(f, mt + 1, sz) for f, mt, sz in items]
    lex.db.execute("UPDATE records SET status = NULL")
    assert lex.fill_meta(stale) == 0  # the file changed since the row: left for the refresh
    lex.close()
    other.close()


def test_older_state_table_gets_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE records(id TEXT NOT NULL, scope TEXT NOT NULL, mtime_ns INTEGER NOT NULL, "
        "size INTEGER NOT NULL, digest TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(scope, id)) WITHOUT ROWID;"
        "INSERT INTO records VALUES ('01J0000000000000000000000A', 'ana', 1, 2, 'sha256:x', 1);")
    db.commit()
    db.close()
    db = open_state(path)
    cols = [r[1] for r in db.execute("PRAGMA table_info(records)")]
    assert cols[6:] == [c for c, _t in META_COLUMNS]
    assert db.execute("SELECT status FROM records").fetchall() == [(None,)]
    db.close()


def test_a_status_edited_in_place_is_seen(big: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refresh does not stat every file here (as in a big store): the check of each hit does."""
    monkeypatch.setattr(index_pkg, "FULL_SCAN_MAX_DOCS", 0)
    s = open_searcher(big, long_lived=False)
    hits = s.search("river tea", mode="hybrid", k=5).hits
    top = hits[0]
    path = big.record_path(top.scope, top.id)
    d = os.stat(path.parent)
    text = path.read_text("utf-8")
    assert "\nstatus: active\n" in text
    path.write_text(text.replace("\nstatus: active\n", "\nstatus: rejected\n"), "utf-8")
    os.utime(path.parent, ns=(d.st_atime_ns, d.st_mtime_ns))  # the folder looks untouched
    for mode in ("hybrid", "lexical", "vector"):
        assert top.id not in [h.id for h in s.search("river tea", mode=mode, k=5).hits], mode
        got = s.search("river tea", mode=mode, k=60, statuses=["rejected"]).hits
        assert top.id in [h.id for h in got], mode
    s.close()


def test_a_state_row_that_disagrees_with_its_file_is_repaired(big: Store) -> None:
    s = open_searcher(big, long_lived=False)
    top = s.search("river tea", mode="hybrid", k=1, explain=True).hits[0]
    lex = LexicalIndex.open(big.index_dir)
    assert lex is not None
    key = (top.scope, top.id)
    lex.db.execute("UPDATE records SET tags = '[\"zzz\"]' WHERE id = ?", (top.id,))  # same stat, wrong field
    assert lex.meta_of([key])[key].tags == ("zzz",)
    again = s.search("river tea", mode="hybrid", k=1, explain=True).hits[0]
    assert again.id == top.id and again.score == pytest.approx(top.score, abs=1e-6)  # (the clock moved)
    assert lex.meta_of([key])[key].tags == tuple(top.record.tags)  # re-indexed from the file
    assert s.search("river tea", mode="hybrid", tags=["zzz"]).hits == []
    lex.close()
    s.close()


def test_presence_reads_terms_from_the_index(big: Store) -> None:
    searched(big, "build the index", mode="lexical")
    recs = {(r.scope, r.id): r for r in big.list(RecordFilter(statuses=["active", "candidate", "rejected"]))}
    lex = LexicalIndex.open(big.index_dir)
    assert lex is not None
    words = sorted(terms(" ".join(WORDS))) + [f"absent{i}" for i in range(25)]  # > one query's 20 terms
    keys = list(recs)[:30]
    got = presence(lex.searcher(), lex.index.schema, keys, words)
    for key in keys:
        want = terms(recs[key].content) & set(words)
        assert (got[key][1] if key in got else frozenset()) == want
        if key in got:
            assert got[key][0] == recs[key].digest
    assert presence(lex.searcher(), lex.index.schema, [], words) == {}
    lex.close()


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-62_135_596_800_000, max_value=253_402_300_799_999))
def test_epoch_ms_is_exact(ms: int) -> None:
    t = from_epoch_ms(ms)
    assert epoch_ms(t) == ms
    assert epoch_ms(t + dt.timedelta(microseconds=999)) == ms  # floored
    assert epoch_ms(t.replace(tzinfo=None)) == ms  # naive is UTC


def test_an_older_state_table_that_cannot_get_the_columns_still_works(sstore: Store) -> None:
    """Opened while another process writes it (or read-only), an older state table keeps its six
    columns: opening does not wait, rows are written with six columns, searches read files."""
    s = open_searcher(sstore)
    assert s.search("Ana", mode="lexical").hits
    s.close()
    lex = LexicalIndex.open(sstore.index_dir)
    assert lex is not None
    path = lex.path / "state.db"
    lex.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        "BEGIN; CREATE TABLE old(id TEXT NOT NULL, scope TEXT NOT NULL, mtime_ns INTEGER NOT NULL, "
        "size INTEGER NOT NULL, digest TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(scope, id)) WITHOUT ROWID;"
        "INSERT INTO old SELECT id, scope, mtime_ns, size, digest, seq FROM records; DROP TABLE records;"
        "ALTER TABLE old RENAME TO records; CREATE INDEX records_seq ON records(seq); COMMIT;")
    db.execute("BEGIN IMMEDIATE")  # another writer holds it
    t = time.monotonic()
    s = open_searcher(sstore, long_lived=False)
    lex = s._lexical([])
    assert not lex.has_meta and time.monotonic() - t < 5.0
    db.execute("ROLLBACK")
    db.close()
    new = sstore.add("Ana adopted a cat named Miso", scope="ana", kind="fact")
    for mode in ("lexical", "hybrid"):
        assert new.id in [h.id for h in s.search("cat Miso", mode=mode).hits], mode
    cols = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(records)")]
    assert "status" not in cols  # still the older table: written with its six columns
    s.close()
    s = open_searcher(sstore)  # opened again, not busy: it gets them
    assert s.search("cat Miso", mode="hybrid").hits[0].id == new.id
    assert "status" in [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(records)")]
    s.close()
