"""A long-lived reader of the vector index keeps the side tables (``delta``, ``dead``) in memory
and, when another connection writes them, re-reads only the keys the table's log names
(``vecdb.read_changes``); it must end where a reader opened afresh starts, whatever the writes:
new vectors, replaced ones, dropped ones, main rows made dead, and rows written by a writer that
knows nothing of the log (triggers log them). Before the log, the first search after each new
record re-read the whole delta (10 ms per 1,250 rows at 100k records: bench/README.md, issue 21)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.index import vectors as vectors_mod
from mem.format.index.build import rebuild
from mem.format.index.vecdb import LOG_SQL
from mem.format.index.vectors import VectorIndex
from mem.format.store.store import Store

SCOPES = ("ana", "bob", "carol")
NEW_IDS = [f"01JN0000000000000000000{i:03d}"[:26] for i in range(6)]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, list[str]]]]:
    """An index folder of a small store, both indexes built (main rows in ana and bob), and the
    ids of its main rows by scope."""
    mp = pytest.MonkeyPatch()
    mp.setenv("MEM_EMBEDDER", "hashing")
    root = tmp_path_factory.mktemp("sidelog")
    store = Store.init(root / "store")
    for scope, text in (("ana", "Ana lives in Lisbon"), ("ana", "Ana drinks green tea"),
                        ("bob", "Bob lives in Porto"), ("bob", "Bob's dentist is on Friday")):
        store.add(text, scope=scope)
    rebuild(store)
    vec = VectorIndex.open(store.index_dir)
    assert vec is not None
    mains = {s: [str(r[0]) for r in vec.main(s).rows] for s in vec.scopes()}
    vec.close()
    assert mains["ana"] and mains["bob"]
    yield store.index_dir, mains
    mp.undo()


def fresh_copy(template: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(template, dest)
    return dest


def open_vec(index_dir: Path) -> VectorIndex:
    vec = VectorIndex.open(index_dir)
    assert vec is not None
    return vec


def state(vec: VectorIndex) -> dict[str, Any]:
    """What a search reads of the side tables, per scope: live digests, each live vector, the
    delta stack as a map, the dead main rows."""
    out: dict[str, Any] = {}
    for scope in SCOPES:
        valid = vec.valid_digests(scope)
        vecs = {rid: tuple(np.round(vec.vector_of(scope, rid), 6)) for rid in sorted(valid)}  # type: ignore[arg-type]
        stack: dict[str, Any] = {}
        if vec._delta.get(scope):
            ids, dgs, mat = vec._delta_stack(scope)
            assert len(ids) == len(dgs) == mat.shape[0]
            stack = {rid: (dg, tuple(np.round(mat[i], 6))) for i, (rid, dg) in enumerate(zip(ids, dgs, strict=True))}
        dead = vec._dead_index(scope) if scope in vec.scopes() else None
        out[scope] = (valid, vecs, stack, None if dead is None else dead.tolist())
    return out


def unit(seed: int, dim: int) -> Any:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


op = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(SCOPES), st.integers(0, 4), st.integers(0, 3)),
    st.tuples(st.just("drop"), st.sampled_from(SCOPES), st.integers(0, 4), st.just(0)),
    st.tuples(st.just("raw"), st.sampled_from(SCOPES), st.integers(0, 4), st.integers(0, 3)),
    st.tuples(st.just("raw-undead"), st.sampled_from(SCOPES), st.integers(0, 4), st.just(0)),
    st.tuples(st.just("look"), st.just("ana"), st.just(0), st.just(0)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(op, min_size=1, max_size=30))
def test_reader_follows_every_write_as_a_fresh_reader_sees_it(
        template: tuple[Path, dict[str, list[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ops: list[tuple[str, str, int, int]]) -> None:
    index_dir = fresh_copy(template[0], tmp_path / "index")
    mains = template[1]
    whole = []
    real = vectors_mod.read_side
    monkeypatch.setattr(vectors_mod, "read_side", lambda db: whole.append(1) or real(db))
    reader, writer = open_vec(index_dir), open_vec(index_dir)
    dim = reader.space.dim
    raw = sqlite3.connect(str(reader.path / "vectors.db"), isolation_level=None)
    try:
        state(reader)  # the reader's first look reads the tables whole
        assert len(whole) == 1
        for kind, scope, key, version in ops:
            pool = mains.get(scope, []) + NEW_IDS[:3]  # main rows' ids first: an add supersedes them
            rid = pool[key % len(pool)]
            if kind == "add":
                writer.add([(scope, rid, f"dg{version}", unit(key * 10 + version, dim))])
            elif kind == "drop":
                writer.drop([(scope, rid)])
            elif kind == "raw":  # a writer that knows nothing of the log
                raw.execute("INSERT OR REPLACE INTO delta(scope, id, digest, vec) VALUES (?,?,?,?)",
                            (scope, rid, f"raw{version}", unit(key * 7 + version, dim).tobytes()))
            elif kind == "raw-undead":  # one that removes a dead row (no writer of mem does)
                raw.execute("DELETE FROM dead WHERE scope=? AND id=?", (scope, rid))
            else:
                fresh = open_vec(index_dir)
                assert state(reader) == state(fresh)
                fresh.close()
        got = state(reader)
        fresh = open_vec(index_dir)
        try:
            assert got == state(fresh)
        finally:
            fresh.close()
        # the log was there from the writer's first write: no whole read after the first
        # (but the fresh readers' own)
        assert len(whole) == 1 + 1 + sum(1 for o in ops if o[0] == "look")
    finally:
        raw.close()
        reader.close()
        writer.close()


def test_a_table_made_before_the_log_is_read_whole_until_a_writer_installs_it(
        template: tuple[Path, dict[str, list[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = fresh_copy(template[0], tmp_path / "index")
    reader = open_vec(index_dir)
    db = sqlite3.connect(str(reader.path / "vectors.db"), isolation_level=None)
    for t in ("delta", "dead"):
        for o in ("insert", "delete", "update"):
            db.execute(f"DROP TRIGGER {t}_{o}")
    db.execute("DROP TABLE log")
    # a writer older than the log: its rows are not logged, and the reader reads the tables whole
    whole = []
    real = vectors_mod.read_side
    monkeypatch.setattr(vectors_mod, "read_side", lambda d: whole.append(1) or real(d))
    dim = reader.space.dim
    assert reader.valid_digest("ana", NEW_IDS[0]) is None
    db.execute("INSERT INTO delta(scope, id, digest, vec) VALUES ('ana', ?, 'old', ?)", (NEW_IDS[0], unit(1, dim).tobytes()))
    assert reader.valid_digest("ana", NEW_IDS[0]) == "old"
    assert len(whole) == 2
    # a writer of this version installs the log at its first write; the reader's next look is
    # whole (it has no position in the log yet), the ones after it follow the log
    writer = open_vec(index_dir)
    writer.add([("ana", NEW_IDS[1], "new", unit(2, dim))])
    assert {"log"} <= {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert reader.valid_digest("ana", NEW_IDS[1]) == "new"
    assert len(whole) == 3
    writer.drop([("ana", NEW_IDS[0])])
    db.execute("INSERT INTO delta(scope, id, digest, vec) VALUES ('bob', ?, 'raw', ?)", (NEW_IDS[2], unit(3, dim).tobytes()))
    assert reader.valid_digest("ana", NEW_IDS[0]) is None
    assert reader.valid_digest("bob", NEW_IDS[2]) == "raw"
    assert len(whole) == 3
    db.close()
    writer.close()
    reader.close()


def test_many_changes_since_the_last_look_are_read_whole(
        template: tuple[Path, dict[str, list[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``CHANGES_MAX`` log rows (or a quarter of the tables), the keys one by one would cost
    more than the tables whole."""
    index_dir = fresh_copy(template[0], tmp_path / "index")
    reader, writer = open_vec(index_dir), open_vec(index_dir)
    dim = reader.space.dim
    writer.add([("carol", f"01JN{i:022d}", "d", unit(i, dim)) for i in range(300)])
    assert len(reader.valid_digests("carol")) == 300
    whole = []
    real = vectors_mod.read_side
    monkeypatch.setattr(vectors_mod, "read_side", lambda d: whole.append(1) or real(d))
    writer.add([("carol", f"01JP{i:022d}", "d", unit(i, dim)) for i in range(10)])
    assert len(reader.valid_digests("carol")) == 310 and not whole  # 10 keys: one by one
    writer.drop([("carol", f"01JN{i:022d}") for i in range(100)])
    assert len(reader.valid_digests("carol")) == 210 and whole == [1]  # 100 > 310 // 4: whole
    reader.close()
    writer.close()


def test_a_new_record_grows_the_delta_stack_without_copying_what_a_search_holds(
        template: tuple[Path, dict[str, list[str]]], tmp_path: Path) -> None:
    index_dir = fresh_copy(template[0], tmp_path / "index")
    reader, writer = open_vec(index_dir), open_vec(index_dir)
    dim = reader.space.dim
    writer.add([("carol", NEW_IDS[0], "a", unit(1, dim))])
    reader._refresh_cache()
    held = reader._delta_stack("carol")  # what a search running meanwhile holds
    held_rows = held[2].copy()
    for i in range(1, 5):
        writer.add([("carol", NEW_IDS[i], "b", unit(i + 1, dim))])
        reader._refresh_cache()
        ids, dgs, mat = reader._delta_stack("carol")
        assert ids == NEW_IDS[:i + 1] and mat.shape == (i + 1, dim)
        assert np.allclose(mat[i], unit(i + 1, dim))
    assert held[0] == NEW_IDS[:1] and np.array_equal(held[2], held_rows)
    # a replaced vector is not an addition: the stack is made again, with the new row
    writer.add([("carol", NEW_IDS[2], "c", unit(99, dim))])
    reader._refresh_cache()
    ids, dgs, mat = reader._delta_stack("carol")
    assert dgs[ids.index(NEW_IDS[2])] == "c" and np.allclose(mat[ids.index(NEW_IDS[2])], unit(99, dim))
    reader.close()
    writer.close()


def test_the_log_sql_names_every_change_of_both_tables() -> None:
    """Inserts, deletes and updates of ``delta`` and ``dead``: six triggers, one per change."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.executescript("CREATE TABLE delta(scope, id, digest, vec); CREATE TABLE dead(scope, id);" + LOG_SQL)
    db.execute("INSERT INTO delta VALUES ('a', '1', 'd', x'00')")
    db.execute("UPDATE delta SET digest='e' WHERE id='1'")
    db.execute("DELETE FROM delta")
    db.execute("INSERT INTO dead VALUES ('b', '2')")
    db.execute("DELETE FROM dead")
    assert db.execute("SELECT scope, id FROM log ORDER BY seq").fetchall() == [("a", "1")] * 3 + [("b", "2")] * 2

