"""A long-lived searcher left open is found after its test (tests/conftest.py's autouse fixture
``_no_searcher_left_open`` and its helper ``searchers_left_open``): its background thread
(``mem-follow``, format/index/follower.py) would run on into the tests after it, calling what
they patch. One closed is never flagged."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mem.format.index.follower import running
from mem.format.search.engine import Searcher, open_searcher
from mem.format.store.store import Store
from tests.conftest import searchers_left_open


def test_a_searcher_left_open_is_named_and_stopped(sstore: Store) -> None:
    s = open_searcher(sstore)
    try:
        assert s.search("tea", mode="lexical").hits  # its first search starts its background thread
        [(thread, fol)] = running()
        assert thread.name == "mem-follow" and thread.is_alive() and fol.root == sstore.root
        assert searchers_left_open(join_s=0.05) == [
            f"a long-lived searcher left open: thread mem-follow for store {sstore.root}"]
        assert not thread.is_alive() and running() == []  # stopped: it runs into no later test
        assert searchers_left_open() == []  # named once
    finally:
        s.close()


def test_a_closed_searcher_is_never_flagged(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        assert s.search("tea", mode="hybrid").hits
        [(thread, _fol)] = running()
    assert not thread.is_alive() and running() == []  # close() ended it: nothing to join
    assert searchers_left_open(join_s=0.0) == []


def test_threads_running_before_the_test_are_spared(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        s.search("tea", mode="lexical")
        before = frozenset(t for t, _f in running())
        assert len(before) == 1
        assert searchers_left_open(before, join_s=0.0) == []
        assert [t for t, _f in running()] == list(before)  # spared: still running


def test_a_one_shot_searcher_and_an_unsearched_one_start_no_thread(sstore: Store) -> None:
    with Searcher(sstore, long_lived=False) as s:
        assert s.search("tea", mode="hybrid").hits
        assert running() == []
    s2 = open_searcher(sstore)  # no search yet: no thread
    assert running() == []
    s2.close()


@pytest.mark.parametrize("given", ["store", "path"])
def test_a_searcher_dropped_unclosed_ends_its_thread_once_collected(sstore: Store, given: str) -> None:
    """The background thread holds its searcher weakly (and so does the store's listener): a
    searcher dropped without close() is collected, and its thread then ends; one still
    referenced keeps its thread."""
    kept = open_searcher(sstore)
    kept.search("tea", mode="lexical")
    s = open_searcher(sstore if given == "store" else sstore.root)
    assert s.search("tea", mode="lexical").hits
    [(thread, _fol)] = [(t, f) for t, f in running() if f is s._follower]
    del s
    gc.collect()
    thread.join(60)
    assert not thread.is_alive()
    assert [f for _t, f in running()] == [kept._follower]  # the one still referenced runs on
    sstore.add("Ana bought a new kite", scope="ana")  # the store's listener: no searcher to tell
    assert [h.content for h in kept.search("kite", mode="lexical").hits] == ["Ana bought a new kite\n"]
    kept.close()
    assert running() == []


def test_the_fixture_fails_the_test_that_leaves_one_open_and_only_it(tmp_path: Path) -> None:
    """The real conftest, in a pytest run of its own: the test that leaves a searcher open errs
    at its teardown with the store named; the one that closes its searcher and the one after the
    leak (which sees no thread left running) pass."""
    shutil.copy(Path(__file__).parents[1] / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_leaky.py").write_text(textwrap.dedent('''
        from mem.format.index.derived import attach
        from mem.format.index.follower import running
        from mem.format.search.engine import open_searcher


        def _searchable(store):
            attach(store)
            store.add("Ana drinks green tea", scope="ana", kind="fact")
            return store


        def test_closes(store):
            with open_searcher(_searchable(store)) as s:
                assert s.search("tea", mode="lexical").hits


        KEPT = []  # (a searcher dropped unclosed ends its thread once collected: this one is kept)


        def test_leaves_it_open(store):
            KEPT.append(open_searcher(_searchable(store)))
            assert KEPT[-1].search("tea", mode="lexical").hits


        def test_after_the_leak(store):
            assert running() == []
        '''), "utf-8")
    env = {**os.environ, "MEM_EMBEDDER": "hashing"}
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                        f"--basetemp={tmp_path / 'runs'}", str(tmp_path)], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "3 passed, 1 error" in out, out  # (the leaky test passed; its teardown errs)
    assert "ERROR at teardown of test_leaves_it_open" in out, out
    named = tmp_path / "runs" / "test_leaves_it_open0" / "store"
    assert f"a long-lived searcher left open: thread mem-follow for store {named}" in out, out
