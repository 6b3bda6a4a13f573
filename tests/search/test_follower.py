"""A long-lived searcher picks up new records off its search path (format/index/follower.py):
the write journal, the changed scopes and the new records' vectors are applied by its background
thread; its searches answer from the index as committed, never do that work, and still never
return a forgotten record or a record of another scope."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

import mem.format.index.backlog as backlog
from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.backlog import BACKFILL_MAX
from mem.format.index.derived import attach
from mem.format.index.lexical import LexicalIndex
from mem.format.search.engine import MODES, Searcher, open_searcher
from mem.format.search.results import SearchResult
from mem.format.store.store import Store
from tests.conftest import run_mem


def ids_of(res: SearchResult) -> list[str]:
    return [h.id for h in res.hits]


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, noting which thread embedded how many texts."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int]] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append((threading.current_thread().name, len(texts)))
        return super().embed(texts)


@pytest.fixture
def upkeep(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """(what, thread name) of every change applied to the lexical index and every backfill."""
    seen: list[tuple[str, str]] = []
    real_apply, real_backfill = LexicalIndex.apply, backlog.backfill

    def apply(self: LexicalIndex, *a: Any, **kw: Any) -> Any:
        seen.append(("apply", threading.current_thread().name))
        return real_apply(self, *a, **kw)

    def backfill(*a: Any, **kw: Any) -> Any:
        seen.append(("backfill", threading.current_thread().name))
        return real_backfill(*a, **kw)

    monkeypatch.setattr(LexicalIndex, "apply", apply)
    monkeypatch.setattr(backlog, "backfill", backfill)
    yield seen


def test_a_new_record_is_picked_up_off_the_search_path(sstore: Store, upkeep: list[tuple[str, str]]) -> None:
    s = open_searcher(sstore)
    try:
        s.search("tea", mode="hybrid")  # the first search brings the index up to date itself
        s.search("tea", mode="hybrid")
        upkeep.clear()
        me = threading.current_thread().name
        # another process writes (the real `mem`): its record is journaled for the index
        out = run_mem("--store", str(sstore.root), "add", "Gina repairs bicycles on Sundays", "--scope", "bob",
                      "--json")
        assert out.returncode == 0, out.stderr
        for _ in range(3):  # searches meanwhile answer from the index as it was, or as picked up
            s.search("bicycles", mode="hybrid")
        s.catch_up()
        res = s.search("bicycles", mode="hybrid")
        assert "Gina repairs bicycles" in res.hits[0].content
        assert res.hits[0].arms == ["lexical", "vector"]  # embedded too, in the background
        assert res.unembedded == 0 and res.warnings == []
        assert ("apply", "mem-follow") in upkeep and ("backfill", "mem-follow") in upkeep
        assert all(thread != me for _what, thread in upkeep)  # never the searching thread
        assert s._follower is not None and s._follower.rounds >= 1
    finally:
        s.close()


def test_no_background_round_runs_beside_the_first_search(sstore: Store) -> None:
    """The first search brings the index up to date itself (the first build, the vector index,
    the backfill, each under the writer lock, which a search waits for at most READER_LOCK_WAIT):
    the background thread starts once it is done, so that no round of it takes the lock
    meanwhile (under load one did, and the first search of the MCP server answered with a
    warning: tests/ecosystem/test_mcp_floor.py)."""
    alive_while_embedding: list[bool] = []
    # (threads of searchers that earlier tests in this worker process left open are not this one's)
    others = {t for t in threading.enumerate() if t.name == "mem-follow"}

    class Watching(HashingEmbedder):
        def embed(self, texts: Sequence[str]) -> Any:
            alive_while_embedding.append(any(t.name == "mem-follow" and t not in others
                                             for t in threading.enumerate()))
            return super().embed(texts)

    s = open_searcher(sstore, embedder=Watching())
    try:
        res = s.search("tea", mode="hybrid")
        assert res.warnings == [] and res.hits and res.hits[0].arms == ["lexical", "vector"]
        assert alive_while_embedding and not any(alive_while_embedding)  # the records and the query
        assert s._follower is not None and s._follower._thread is not None  # started after it
        sstore.add("Ana bakes rye bread on Saturdays", scope="ana", kind="fact")
        s.catch_up()  # the thread's round picks the new record up and embeds it
        assert alive_while_embedding[-1]
        assert "rye bread" in s.search("rye bread", mode="hybrid").hits[0].content
    finally:
        s.close()
    assert not any(t.name == "mem-follow" and t not in others for t in threading.enumerate())


def test_the_search_after_a_commit_takes_a_reader_warmed_off_its_path(sstore: Store,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The background thread reloads the searches' reader after its commit, runs the last search
    on the new tantivy searcher and only then hands it over (``LexicalIndex.reload(warm=True)``):
    the search after it neither reloads nor makes a searcher itself, and sees the new record."""
    made_on: list[str] = []
    reloads: list[tuple[str, bool]] = []
    real_searcher, real_reload = LexicalIndex.searcher, LexicalIndex.reload

    def searcher(self: LexicalIndex) -> Any:
        if self._searcher is None:
            made_on.append(threading.current_thread().name)
        return real_searcher(self)

    def reload(self: LexicalIndex, warm: bool = False) -> None:
        reloads.append((threading.current_thread().name, warm))
        real_reload(self, warm)

    monkeypatch.setattr(LexicalIndex, "searcher", searcher)
    monkeypatch.setattr(LexicalIndex, "reload", reload)
    s = open_searcher(sstore)
    try:
        s.search("green tea", mode="hybrid")
        s.search("green tea", mode="hybrid")
        held = s._lex
        assert held is not None and held._searcher is not None
        made_on.clear()
        reloads.clear()
        out = run_mem("--store", str(sstore.root), "add", "Gina repairs bicycles on Sundays", "--scope", "bob",
                      "--json")
        assert out.returncode == 0, out.stderr
        s.catch_up()
        assert ("mem-follow", True) in reloads
        assert held._last_search is not None and held._last_search[0] == "green tea"  # what it ran again
        me = threading.current_thread().name
        res = s.search("bicycles", mode="hybrid")
        assert "Gina repairs bicycles" in res.hits[0].content and res.warnings == []
        assert me not in made_on and all(thread != me for thread, _warm in reloads)
        assert s._lex is held  # the same generation, its reader reloaded in place
    finally:
        s.close()


def test_the_searchers_own_writes_are_seen_by_its_next_search(sstore: Store,
                                                               upkeep: list[tuple[str, str]]) -> None:
    """A write through the searcher's own store (the MCP server's `remember`) is seen by the
    next search with no catch_up: that search waits for the round that applies it."""
    s = open_searcher(sstore)
    try:
        s.search("tea", mode="hybrid")
        upkeep.clear()
        rec = sstore.add("Hugo sails a small boat on the lake", scope="ana", kind="fact")
        assert ids_of(s.search("boat lake", mode="lexical"))[0] == rec.id
        assert ids_of(s.search("boat lake", mode="hybrid"))[0] == rec.id
        assert upkeep and {thread for _what, thread in upkeep} == {"mem-follow"}
    finally:
        s.close()


def test_a_forgotten_record_is_never_returned_once_forget_has_returned(sstore: Store) -> None:
    s = open_searcher(sstore)
    try:
        for mode in MODES:
            assert s.search("Ana green tea coffee", mode=mode).hits
        tea = next(r for r in sstore.list() if "tea" in r.content)
        lives = next(r for r in sstore.list() if "Lisbon" in r.content)
        # by another process (the real `mem forget`), and by a writer with no index listener:
        # no catch_up, no wait; the next search leaves them out (their tombstones are checked)
        out = run_mem("--store", str(sstore.root), "forget", tea.id, "--reason", "test", "--yes")
        assert out.returncode == 0, out.stderr
        Store.open(sstore.root).forget([lives.id], reason="test")
        for mode in MODES:
            got = ids_of(s.search("Ana green tea coffee Lisbon river", mode=mode, k=20))
            assert tea.id not in got and lives.id not in got, mode
    finally:
        s.close()


def test_scopes_hold_for_records_picked_up_in_the_background(sstore: Store) -> None:
    s = open_searcher(sstore)
    try:
        s.search("tea", mode="hybrid")
        other = Store.open(sstore.root)
        attach(other)
        bob = other.add("Bob keeps a zeppelin model in the garage", scope="bob", kind="fact")
        s.catch_up()
        for mode in MODES:
            assert ids_of(s.search("zeppelin garage", mode=mode))[0] == bob.id, mode
            assert bob.id not in ids_of(s.search("zeppelin garage", scopes=["ana"], mode=mode, k=20)), mode
            assert all(h.scope == "ana" for h in s.search("zeppelin garage", scopes=["ana"], mode=mode).hits)
    finally:
        s.close()


def test_the_searching_thread_embeds_only_queries(sstore: Store) -> None:
    """A backlog is embedded by the background thread, at most BACKFILL_MAX records a round
    (a round per search or write, as a search embedded them before); the searches embed their
    query alone, and say how many records are still without a vector."""
    emb = CountingEmbedder()
    s = open_searcher(sstore, embedder=emb)
    try:
        s.search("warm up", mode="hybrid")
        other = Store.open(sstore.root)
        attach(other)
        for i in range(3 * BACKFILL_MAX):
            other.add(f"kite flying note number {i} on the hill", scope="ana", kind="fact")
        emb.calls.clear()
        left = []
        for _ in range(8):
            s.catch_up()
            left.append(s.search("kite hill", mode="hybrid").unembedded)
        me = threading.current_thread().name
        assert {n for thread, n in emb.calls if thread == me} <= {1}  # the query, when embedded here
        assert all(n <= backlog.BACKFILL_CHUNK for thread, n in emb.calls if thread == "mem-follow")
        assert sum(n for thread, n in emb.calls if thread == "mem-follow") >= 3 * BACKFILL_MAX
        assert left == sorted(left, reverse=True) and left[-1] == 0
    finally:
        s.close()


def test_a_one_shot_searcher_has_no_background_thread(sstore: Store, upkeep: list[tuple[str, str]]) -> None:
    s = Searcher(sstore, long_lived=False)
    other = Store.open(sstore.root)
    attach(other)
    rec = other.add("Ivo tunes pianos in the old town", scope="ana", kind="fact")
    assert ids_of(s.search("tunes pianos", mode="hybrid"))[0] == rec.id  # its search refreshed
    assert s._follower is None
    assert {thread for _what, thread in upkeep} == {threading.current_thread().name}
    s.close()
