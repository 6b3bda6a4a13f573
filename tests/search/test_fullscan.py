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

    monkeypatch.setattr(follower, "MAX_YIELD_S", 60.0)  # (searches back to back: 50 ms at a time)
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
