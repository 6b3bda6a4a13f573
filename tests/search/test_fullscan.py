"""A long-lived searcher's periodic full scan runs in a background thread, never in a search."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest

import mem.format.index.derived as index_mod
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store


def _wait(cond: Any, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.02)


def test_the_full_scan_runs_off_the_search_path_and_finds_in_place_edits(
        sstore: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = sstore.root / "config.toml"
    cfg.write_text(cfg.read_text("utf-8").replace("[search]\n", "[search]\nfull_scan_seconds = 0.2\n"), "utf-8")
    sstore = Store.open(sstore.root)
    index_mod.attach(sstore)
    monkeypatch.setattr(index_mod, "FULL_SCAN_MAX_DOCS", 0)  # as a big store: scanned periodically
    full_scans: list[str] = []
    real_plan = index_mod._plan

    def plan(store: Store, lex: Any, full: bool, *a: Any, **kw: Any) -> Any:
        if full:
            full_scans.append(threading.current_thread().name)
        return real_plan(store, lex, full, *a, **kw)

    monkeypatch.setattr(index_mod, "_plan", plan)
    s = open_searcher(sstore)
    try:
        tea = next(h for h in s.search("green tea", mode="lexical").hits if "tea" in h.content)
        path = sstore.record_path(tea.scope, tea.id)
        d = os.stat(path.parent)
        path.write_text(path.read_text("utf-8").replace("green tea", "zeppelin tea"), "utf-8")
        os.utime(path.parent, ns=(d.st_atime_ns, d.st_mtime_ns))  # the folder looks untouched
        # found once the background scan has run; every search meanwhile answers at once
        _wait(lambda: tea.id in [h.id for h in s.search("zeppelin", mode="lexical").hits], "the edit")
        assert s._follower.scans >= 1 and s._follower.last_error is None
        thread = s._follower._thread
    finally:
        s.close()
    assert full_scans and set(full_scans) == {"mem-follow"}  # never the searching thread
    # this searcher's scanner is stopped by close (which waits 10 s for a scan in progress; on a
    # loaded machine it may end after); other tests' searchers in this process are not ours to check
    assert thread is not None
    _wait(lambda: not thread.is_alive(), "the scanner to stop")


def test_a_scan_waits_while_a_search_runs(sstore: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import mem.format.index.follower as follower
    from mem.format.index.follower import Follower

    monkeypatch.setattr(follower, "MAX_YIELD_S", 60.0)  # (searches back to back: MAX_YIELD_S at a time)
    sc = Follower(sstore.root, 3600)
    paused = threading.Event()
    with sc.searching():
        t = threading.Thread(target=lambda: (sc._pause(), paused.set()))
        t.start()
        assert not paused.wait(0.3)  # held while the search runs
    t.join(10)
    assert paused.is_set()  # and goes on once it is done


def test_a_scan_that_changed_nothing_is_taken_off_the_search_path(sstore: Store,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A full scan that finds nothing writes only its time into ``lexical.json``: the background
    thread hands that manifest to the searcher, its reader reloaded and warmed there, so the
    searches never take it for another writer's commit and reload on their own path (at 100k
    records that search was 4-8x the median; bench/README.md, "Issue 21, the eighth session")."""
    from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
    from mem.format.index.lexical import LexicalIndex

    cfg = sstore.root / "config.toml"
    cfg.write_text(cfg.read_text("utf-8").replace("[search]\n", "[search]\nfull_scan_seconds = 0.1\n"), "utf-8")
    sstore = Store.open(sstore.root)
    index_mod.attach(sstore)
    monkeypatch.setattr(index_mod, "FULL_SCAN_MAX_DOCS", 0)  # as a big store: scanned periodically
    reloads: list[tuple[str, bool]] = []
    real_reload = LexicalIndex.reload

    def reload(self: LexicalIndex, warm: bool = False) -> None:
        reloads.append((threading.current_thread().name, warm))
        real_reload(self, warm)

    monkeypatch.setattr(LexicalIndex, "reload", reload)
    s = open_searcher(sstore)
    try:
        s.search("green tea", mode="lexical")
        fol = s._follower
        assert fol is not None
        first = read_pointer(sstore.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        assert first is not None
        rounds = fol.rounds
        me = threading.current_thread().name
        # scans that find nothing, each writing its time, while searches run
        _wait(lambda: s.search("green tea", mode="lexical").hits and fol.scans >= 3, "three scans")
        s.catch_up()
        now = read_pointer(sstore.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        assert now is not None and now["full_scan_ns"] != first.get("full_scan_ns")
        assert s.search("green tea", mode="lexical").hits
        assert s._lex is not None and s._lex.manifest == now  # taken from the background thread
        assert fol.rounds == rounds  # nothing was committed
        assert ("mem-follow", True) in reloads
        assert all(thread != me for thread, _warm in reloads)  # never on a search's path
    finally:
        s.close()


def _as_big(sstore: Store, monkeypatch: pytest.MonkeyPatch, every: float) -> Store:
    """The store with ``full_scan_seconds = every``, scanned as a big store is (periodically)."""
    cfg = sstore.root / "config.toml"
    cfg.write_text(cfg.read_text("utf-8").replace("[search]\n", f"[search]\nfull_scan_seconds = {every}\n"), "utf-8")
    monkeypatch.setattr(index_mod, "FULL_SCAN_MAX_DOCS", 0)
    store = Store.open(sstore.root)
    index_mod.attach(store)
    return store


def test_writes_made_during_a_full_scan_are_searchable_before_it_ends(sstore: Store,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan held in the middle (at 100k records, yielding to searches back to back, one lasted
    25 s): the searcher's own write is seen by its next search, and another process's write is
    found, both before the scan ends; the scan then ends as usual and records its time."""
    import mem.format.index.follower as follower
    import mem.format.index.staleness as staleness
    from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer

    sstore = _as_big(sstore, monkeypatch, 3600)  # (the first scan is started by hand below)
    monkeypatch.setattr(staleness, "PAUSE_EVERY", 1)
    monkeypatch.setattr(follower, "CATCH_UP_S", 0.0)
    hold, held = threading.Event(), threading.Event()
    real_pause = follower.Follower._pause

    def pause(self: follower.Follower) -> None:
        real_pause(self)  # (the catch-up included)
        while hold.is_set():  # the scan stays in its first chunk, catching up, until released
            held.set()
            time.sleep(0.01)
            real_pause(self)

    monkeypatch.setattr(follower.Follower, "_pause", pause)
    s = open_searcher(sstore)
    try:
        assert s.search("green tea", mode="lexical").hits
        fol = s._follower
        assert fol is not None
        scans = fol.scans
        before = read_pointer(sstore.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        assert before is not None
        hold.set()
        started = time.time_ns()
        monkeypatch.setattr(fol, "_full_due", lambda *a: True)  # the next round scans
        fol.poke()
        assert held.wait(30), "the scan did not start"
        monkeypatch.setattr(fol, "_full_due", lambda *a: False)
        timer = threading.Timer(20, hold.clear)  # (a search that waits for the scan's end returns)
        timer.start()
        mine = s.store.add("Ana keeps a zeppelin model on her desk", scope="ana")
        assert [h.id for h in s.search("zeppelin", mode="lexical").hits] == [mine.id]
        assert hold.is_set(), "the search after the searcher's own write waited for the scan's end"
        other = Store.open(sstore.root)
        index_mod.attach(other)
        theirs = other.add("Bob repairs quadcopter drones at weekends", scope="bob")
        _wait(lambda: [h.id for h in s.search("quadcopter", mode="lexical").hits] == [theirs.id],
              "another process's write, during the scan")
        assert hold.is_set() and fol.scans == scans and fol.catch_ups >= 1  # the scan is still held
        hold.clear()
        _wait(lambda: fol.scans == scans + 1, "the scan's end")
        s.catch_up()
        after = read_pointer(sstore.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        assert after is not None and int(after.get("full_scan_ns", 0)) >= started  # recorded, with work found
        assert {h.id for h in s.search("zeppelin OR quadcopter", mode="lexical").hits} == {mine.id, theirs.id}
        assert fol.last_error is None
        timer.cancel()
    finally:
        hold.clear()
        s.close()


def test_a_full_scan_that_finds_an_edit_looks_again_only_at_that_file_under_the_lock(
        sstore: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the writer lock, a full scan's refresh lists only the scope folders that changed
    since, and stats again the files the scan found different: at 100k records, the whole scan
    again (a second, yielding to nothing) held every writer after each scan that found a write.
    The time of the scan is recorded with the edit (else the next round finds it due again)."""
    import mem.format.index.staleness as staleness
    from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, read_pointer
    from mem.format.search.engine import search

    sstore = _as_big(sstore, monkeypatch, 3600)
    search(sstore, "tea", mode="lexical")  # (the index built)
    tea = next(h for h in search(sstore, "green tea", mode="lexical").hits if "tea" in h.content)
    path = sstore.record_path(tea.scope, tea.id)
    d = os.stat(path.parent)
    path.write_text(path.read_text("utf-8").replace("green tea", "zeppelin tea"), "utf-8")
    os.utime(path.parent, ns=(d.st_atime_ns, d.st_mtime_ns))  # an edit in place: the folder looks untouched
    listed: list[tuple[str, bool]] = []
    real_files = staleness.record_files

    def record_files(scope_dir: str) -> Any:
        listed.append((os.path.basename(scope_dir), sstore.lock.held))
        return real_files(scope_dir)

    monkeypatch.setattr(staleness, "record_files", record_files)
    started = time.time_ns()
    st = index_mod.refresh(sstore, full=True)
    assert st.changed == [tea.id] and not st.added and not st.removed
    assert sorted(listed) == [("ana", False), ("bob", False)]  # each scope listed once, before the lock
    assert [h.id for h in search(sstore, "zeppelin", mode="lexical").hits] == [tea.id]
    m = read_pointer(sstore.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and int(m["full_scan_ns"]) >= started


def test_a_full_scans_second_look_under_the_lock_sees_what_changed_after_it(
        sstore: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """What changed between the scan and its second look under the lock: a file the scan found
    edited and then removed is removed from the index, one forgotten meanwhile is not put back,
    and a file added to a folder meanwhile is listed with its folder (its mtime changed)."""
    import mem.format.index.staleness as staleness
    from mem.format.index.lexical import LexicalIndex
    from mem.format.search.engine import search

    sstore = _as_big(sstore, monkeypatch, 3600)
    search(sstore, "tea", mode="lexical")
    hits = {h.content: h for h in search(sstore, "Ana OR Bob", mode="lexical", k=10).hits}
    river = next(h for c, h in hits.items() if "river" in c)
    tea = next(h for c, h in hits.items() if "green tea" in c)
    bridge = next(h for c, h in hits.items() if "bridge" in c)
    for h, old, new in ((river, "river", "canal"), (tea, "green tea", "mint tea"), (bridge, "old bridge", "new bridge")):
        p = sstore.record_path(h.scope, h.id)
        d = os.stat(p.parent)
        p.write_text(p.read_text("utf-8").replace(old, new), "utf-8")
        os.utime(p.parent, ns=(d.st_atime_ns, d.st_mtime_ns))
    real_recheck = staleness._recheck
    added: list[str] = []

    def recheck(store: Store, lex: LexicalIndex, found: Any, *a: Any, **kw: Any) -> Any:
        assert {rid for _s, rid in found.found()} == {river.id, tea.id, bridge.id}
        os.remove(sstore.record_path(river.scope, river.id))  # an outside removal, folder time kept
        d = os.stat(sstore.records_dir / "ana")
        os.utime(sstore.records_dir / "ana", ns=(d.st_atime_ns, d.st_mtime_ns))
        sstore.forget([tea.id], reason="test")  # (mem's own: a tombstone, the file removed)
        added.append(sstore.add("Bob learns the cello on Tuesdays", scope="bob").id)
        return real_recheck(store, lex, found, *a, **kw)

    monkeypatch.setattr(index_mod, "_recheck", recheck)
    index_mod.refresh(sstore, full=True)
    got = {h.id for h in search(sstore, "canal OR tea OR bridge OR cello OR river", mode="lexical", k=10).hits}
    assert river.id not in got and tea.id not in got  # removed, forgotten: never put back
    assert bridge.id in got and added[0] in got
    assert [h.id for h in search(sstore, "new bridge", mode="lexical").hits][:1] == [bridge.id]


def test_a_changed_folder_is_not_listed_while_a_writer_holds_the_lock(sstore: Store,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Between its full scans, a big store's background round refreshes only when there is work:
    a folder that changed with no write journal is listed once it has stayed so SETTLE_S, and
    not while another process holds the writer lock (a mem write between its record file and
    its journal line); when nothing changed, no refresh runs at all. Either listing found the
    record journaled by its end, for nothing (a second at 33k files)."""
    import mem.format.index.follower as follower
    from mem.format.index.follower import Follower
    from mem.format.search.engine import search

    monkeypatch.setattr(follower, "SETTLE_S", 0.0)
    search(sstore, "tea", mode="lexical")  # (the index built)
    fol = Follower(sstore.root, 3600)
    monkeypatch.setattr(fol, "_full_due", lambda *a: False)  # (a big store's rounds between its scans)
    store, lex = fol._open()
    assert lex is not None
    try:
        assert not fol._due(store, lex)  # nothing changed: no refresh
        refreshes: list[bool] = []
        real_refresh = index_mod.refresh

        def refresh(*a: Any, **kw: Any) -> Any:
            refreshes.append(True)
            return real_refresh(*a, **kw)

        monkeypatch.setattr(index_mod, "refresh", refresh)
        fol.round()
        assert refreshes == []
        other = Store.open(sstore.root)  # (no index listener: the folder changes, no journal)
        rec = other.add("Ana collects old maps", scope="ana")
        writer = Store.open(sstore.root)
        with writer.lock:  # another process mid-write
            assert not fol._due(store, lex)
            fol.round()
            assert not lex.file_state("ana", [rec.id])  # not listed
        assert fol._due(store, lex)  # the lock free: listed now
        fol.round()
        assert lex.file_state("ana", [rec.id]) and refreshes == [True]
    finally:
        fol._close_indexes()


def test_a_scans_pauses_split_the_indexed_state_and_each_scope(sstore: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state of a scope is read in pieces with a pause between two, and the scan pauses after
    each scope: at 100k records, a scope's state read at once and the look for its removed
    records were 60-85 ms of Python with no pause, beside the searches. What it reads and finds
    is what a scan without pauses does: here a record whose file was removed, and one added."""
    import mem.format.index.lexical as lexical
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.staleness import _plan
    from mem.format.search.engine import open_searcher

    for i in range(5):
        sstore.add(f"Ana note number {i} about kites", scope="ana")
    with open_searcher(sstore) as s:
        s.search("kites", mode="lexical")
    lex = LexicalIndex.open(sstore.index_dir)
    assert lex is not None
    try:
        whole = lex.scope_state("ana")
        assert len(whole) == 7
        monkeypatch.setattr(lexical, "STATE_PIECE", 3)
        pauses: list[int] = []
        assert lex.scope_state("ana", lambda: pauses.append(1)) == whole
        assert len(pauses) == 2  # pieces of 3, 3 and 1 rows
        assert lex.indexed_scopes() == ["ana", "bob"]
        gone = sorted(whole)[3]
        (sstore.records_dir / "ana" / f"{gone}.md").unlink()
        added = Store.open(sstore.root).add("Bob flies a red kite", scope="bob")  # no listener: not indexed
        pauses.clear()
        plan = _plan(sstore, lex, True, pause=lambda: pauses.append(1))
        assert {(f.scope, f.id) for f, _m, _z in plan.puts} == {("bob", added.id)}
        assert set(plan.deletes) == {("ana", gone)}
        # ana: 2 pauses in its state, 2 after it; bob: none in its 2 rows, 2 after it
        assert len(pauses) == 6
        quiet = _plan(sstore, lex, True)
        assert quiet.puts == plan.puts and quiet.deletes == plan.deletes
    finally:
        lex.close()
