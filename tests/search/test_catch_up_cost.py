"""What a catch-up costs (issue 21): a search's bounded refresh lists a changed scope once and
reads each file once (the plan made before the writer lock is reused under it), and a bulk
embedding reads its records as the lexical index does (the fast reader; each scope's tombstones
once), not with the full reader and a tombstone file per record. Counted calls, not times."""

from __future__ import annotations

import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import mem.format.index.derived as derived
import mem.format.index.staleness as staleness
from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.backlog import _readable, embed_backlog
from mem.format.index.derived import READ_BEFORE_LOCK, attach, build_if_absent, refresh
from mem.format.index.lexical import LexicalIndex
from mem.format.index.staleness import UnindexedCount, unindexed_by_scope
from mem.format.model.record import content_digest, dump_record, make_record
from mem.format.model.tombstones import Tombstone, TombstoneSet
from mem.format.store.store import Store
from tests.conftest import run_mem
from tests.search.test_index_budget import _indexed, _write_files


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, Counter[str]]:
    """Each scope folder listed and each record file read by a plan on the test's own thread,
    counted: a long-lived searcher that an earlier test in this worker process left running lists
    its own store's scopes from its background thread, through the same patched functions."""
    listed: Counter[str] = Counter()
    read: Counter[str] = Counter()
    real_list, real_read = staleness.record_files, staleness._read_fields
    mine = threading.get_ident()

    def record_files(scope_dir: str) -> Any:
        if threading.get_ident() == mine:
            listed[os.path.basename(scope_dir)] += 1
        return real_list(scope_dir)

    def read_fields(path: Path, scope: str, rid: str) -> Any:
        if threading.get_ident() == mine:
            read[rid] += 1
        return real_read(path, scope, rid)

    monkeypatch.setattr(staleness, "record_files", record_files)
    monkeypatch.setattr(staleness, "_read_fields", read_fields)
    return {"listed": listed, "read": read}


def _store_with_index(store: Store) -> None:
    attach(store)
    store.add("The first note", scope="inbox")
    store.add("A note elsewhere", scope="other")
    build_if_absent(store)


def test_a_bounded_refresh_lists_a_scope_once_and_reads_each_file_once(
        store: Store, counted: dict[str, Counter[str]]) -> None:
    _store_with_index(store)
    new = _write_files(store, "inbox", READ_BEFORE_LOCK + 40)
    st = refresh(store, full=False, limit=READ_BEFORE_LOCK + 20)
    assert st.left == 20
    # before the lock a plan lists the folder and reads READ_BEFORE_LOCK files; under it the
    # same listing and those fields are used again: one listing, no file read twice
    assert counted["listed"] == Counter({"inbox": 1})
    assert sum(counted["read"].values()) == READ_BEFORE_LOCK + 20
    assert max(counted["read"].values()) == 1
    assert _indexed(store, "inbox") == 1 + READ_BEFORE_LOCK + 20
    # the next refresh lists it again (its mtime was not recorded: files were left) and ends it
    counted["listed"].clear()
    counted["read"].clear()
    assert refresh(store, full=False, limit=READ_BEFORE_LOCK + 20).left == 0
    assert counted["listed"] == Counter({"inbox": 1})
    assert sum(counted["read"].values()) == 20 and set(counted["read"]) <= set(new)
    assert _indexed(store, "inbox") == 1 + len(new)


def test_a_folder_changed_before_the_lock_is_listed_again(
        store: Store, counted: dict[str, Counter[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written between the plan made before the lock and the one made under it changes
    its folder's mtime: that folder is listed again and the file is indexed (not lost)."""
    _store_with_index(store)
    _write_files(store, "inbox", 10)
    real_plan = derived._plan
    late: list[str] = []

    def plan(*a: Any, **kw: Any) -> Any:
        got = real_plan(*a, **kw)
        if kw.get("keep") and not late:  # the plan before the lock: another writer writes now
            late.extend(_write_files(store, "inbox", 1, word="latecomer"))
            folder = store.root / "records" / "inbox"
            st = folder.stat()
            os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # (not the same tick)
        return got

    monkeypatch.setattr(derived, "_plan", plan)
    assert refresh(store, full=False, limit=100).left == 0
    assert counted["listed"] == Counter({"inbox": 2})
    assert _indexed(store, "inbox") == 1 + 10 + 1
    assert counted["read"][late[0]] == 1
    monkeypatch.setattr(derived, "_plan", real_plan)
    counted["listed"].clear()
    assert refresh(store, full=False, limit=100).left == 0 and counted["listed"] == Counter()  # nothing left


def test_a_file_rewritten_before_the_lock_is_read_again(
        store: Store, counted: dict[str, Counter[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The fields read before the lock are used again only for a file whose stat is the one
    listed: a file rewritten meanwhile (its folder relisted) is read again, as it is now."""
    _store_with_index(store)
    rid = _write_files(store, "inbox", 1, word="draft")[0]
    path = store.root / "records" / "inbox" / f"{rid}.md"
    real_plan = derived._plan

    def plan(*a: Any, **kw: Any) -> Any:
        got = real_plan(*a, **kw)
        if kw.get("keep"):
            rec = make_record(scope="inbox", kind="note", content="final words", id=rid)
            path.write_text(dump_record(rec))
            folder = path.parent
            st = folder.stat()
            os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        return got

    monkeypatch.setattr(derived, "_plan", plan)
    refresh(store, full=False, limit=100)
    assert counted["read"][rid] == 2
    lex = LexicalIndex.open(store.index_dir)
    assert lex is not None
    try:
        got = lex.db.execute("SELECT digest FROM records WHERE id = ?", (rid,)).fetchall()
    finally:
        lex.close()
    assert got == [(content_digest("final words"),)]


def test_a_bulk_embedding_reads_as_the_index_does(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The records a bulk embedding reads (``_readable``): the canonical files by the fast reader
    (the full reader only for a hand-written one), each scope's tombstones loaded once; neither
    a record forgotten nor one changed since it was indexed is given to the embedder."""
    attach(store)
    recs = [store.add(f"kite flying note {i} on the hill", scope=("ana", "bob")[i % 2]) for i in range(40)]
    hand = store.root / "records" / "ana" / f"{recs[0].id}.md"
    hand.write_text(hand.read_text("utf-8").replace("\nkind: note\n", "\nkind: 'note'\n"), "utf-8")  # not canonical
    gone, changed = recs[2], recs[3]
    store.tombstones.add(Tombstone(id=gone.id, scope=gone.scope, digest=gone.digest, forgotten_at="2026-01-01T00:00:00.000Z",
                                   reason="test", actor="tester@test"))  # its file still there (a forget under way)
    p = store.root / "records" / changed.scope / f"{changed.id}.md"
    p.write_text(dump_record(make_record(scope=changed.scope, kind="note", content="kite note three", id=changed.id)))
    full_reads: list[str] = []
    loads: Counter[str] = Counter()
    real_full, real_load = staleness.read_record_file, TombstoneSet.load
    mine = threading.get_ident()  # a searcher an earlier test left running calls these too

    def read_record_file(path: Path) -> Any:
        if threading.get_ident() == mine:
            full_reads.append(Path(path).stem)
        return real_full(path)

    def load(self: TombstoneSet, scope: str) -> Any:
        if threading.get_ident() == mine:
            loads[scope] += 1
        return real_load(self, scope)

    monkeypatch.setattr(staleness, "read_record_file", read_record_file)
    monkeypatch.setattr(TombstoneSet, "load", load)
    got = _readable(store, [(r.scope, r.id, r.digest) for r in recs])
    assert full_reads == [recs[0].id]  # the hand-written file only
    assert loads == Counter({"ana": 1, "bob": 1})
    assert [f.id for f in got] == [r.id for r in recs if r not in (gone, changed)]
    assert [f.embedding_text for f in got] == [r.embedding_text for r in recs if r not in (gone, changed)]
    # and a bulk run on the store embeds them (the two left out stay missing)
    refresh(store)
    rep = embed_backlog(store, HashingEmbedder())
    assert rep.embedded == 39 and rep.left == 0  # (the forgotten one is not indexed: not missing)


def test_mem_embed_after_import_no_embed_embeds_every_record(tmp_path: Path) -> None:
    """Through the real executable: `import --no-embed`, then `mem embed` embeds every record
    (read by the fast reader) and the next search finds them all by vector."""
    import json

    root = tmp_path / "s"
    env = {"MEM_EMBEDDER": "hashing"}
    assert run_mem("init", str(root), env=env).returncode == 0
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"content": f"Ferry note {i} about the harbour", "scope": "port"}) + "\n"
                           for i in range(60)), "utf-8")
    r = run_mem("--store", str(root), "import", str(src), "--no-embed", env=env)
    assert r.returncode == 0, r.stderr
    r = run_mem("--store", str(root), "embed", "--json", env=env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["embedded"] == 60 and out["left"] == 0
    r = run_mem("--store", str(root), "search", "harbour ferry", "--mode", "vector", "-k", "100", "--json", env=env)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert len(got["hits"]) == 60 and "unembedded" not in got


def _bump(store: Store, scope: str) -> None:
    """Move a scope folder's mtime on by a second (a write in the same clock tick as the count
    would leave it as it was: not what these tests are about)."""
    folder = store.root / "records" / scope
    st = folder.stat()
    os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_a_locked_out_count_lists_only_the_scopes_that_changed(store: Store) -> None:
    """While a writer holds the lock, a long-lived searcher's background thread counts what it
    cannot find at each refused round (``UnindexedCount``): a scope whose folder did not change
    since the last count keeps its count and is not counted (listed) again."""
    _store_with_index(store)
    store.add("A third scope's note", scope="third")
    refresh(store)
    lex = LexicalIndex.open(store.index_dir)
    assert lex is not None
    count = UnindexedCount()
    try:
        assert count(store, lex) == {} and sorted(count.counted) == ["inbox", "other", "third"]  # the first: all
        assert count(store, lex) == {} and count.counted == []  # nothing changed since
        _write_files(store, "inbox", 5)
        _write_files(store, "other", 3)
        _bump(store, "inbox")
        _bump(store, "other")
        assert count(store, lex) == {"inbox": 5, "other": 3}
        assert sorted(count.counted) == ["inbox", "other"]
        assert count(store, lex) == {"inbox": 5, "other": 3} and count.counted == []  # nothing counted again
        _write_files(store, "other", 2)
        _bump(store, "other")
        assert count(store, lex) == {"inbox": 5, "other": 5} and count.counted == ["other"]
        assert unindexed_by_scope(store, lex) == {"inbox": 5, "other": 5}  # the same as a whole count
    finally:
        lex.close()
    # the index changed meanwhile (another process applied the files): everything counted again
    refresh(store)
    lex = LexicalIndex.open(store.index_dir)
    assert lex is not None
    try:
        assert count(store, lex) == {} and sorted(count.counted) == ["inbox", "other", "third"]
    finally:
        lex.close()


def test_the_background_thread_counts_with_it(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The follower's refused rounds go through one ``UnindexedCount``: the second refused round
    with nothing changed lists no scope; the searches still get the count."""
    from mem.format.base.lock import WriterLock
    from mem.format.index.follower import Follower

    _store_with_index(store)
    monkeypatch.setenv("MEM_LOCK_TIMEOUT", "0.2")
    listed: list[list[str]] = []
    real = UnindexedCount.__call__

    def call(self: UnindexedCount, *a: Any) -> Any:
        got = real(self, *a)
        listed.append(list(self.counted))
        return got

    monkeypatch.setattr(UnindexedCount, "__call__", call)
    fol = Follower(store.root, every=3600)
    fol.round()  # nothing to do
    with WriterLock(store.root / ".mem" / "lock", timeout=1):  # another process's, in effect
        _write_files(store, "inbox", 4)
        _bump(store, "inbox")
        for _ in range(2):
            fol.wrote()  # (a round asked for: the refresh is tried at once, not after SETTLE_S)
            fol.round()
            assert fol.refused is not None and fol.unindexed == {"inbox": 4}
    assert listed == [["inbox", "other"], []]  # the first count: every scope; then none again
    fol.wrote()
    fol.round()  # the lock is free: applied
    assert fol.refused is None and fol.unindexed == {} and _indexed(store, "inbox") == 5
    fol.stop()
