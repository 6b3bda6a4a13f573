"""The vector scan shared by two threads (format/index/vecscan.py ``Scan``; format/search/handoff.py
``Handoff``): a long-lived searcher posts its scan before the query's vector is ready, the pool
thread that embeds the query starts it at once, and the searching thread joins when its lexical
work is done. Results equal one thread's; an error on either thread is raised, never a hang."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mem.format.index.vecscan as vmod
from mem.format.base.errors import EmbedderUnavailableError
from mem.format.embed import load_embedder
from mem.format.index.derived import attach, compact
from mem.format.search.engine import Searcher, open_searcher
from mem.format.store.store import Store
from tests.search.conftest import QUERIES, words_of


@pytest.fixture
def big(store: Store) -> Iterator[Store]:
    """66 records in three scopes: 60 in the vector index's main rows (compacted), 6 in its delta."""
    attach(store)
    for i in range(66):
        if i == 60:  # embedded (backfilled by a search), then moved into the main rows
            with open_searcher(store) as s:
                s.search("warm up", mode="vector")
            compact(store)
        words = words_of(i)
        store.add(f"Note {i} about {words}", scope=("ana", "bob", "cy")[i % 3], kind=("fact", "event")[i % 2])
    yield store


class SlowEmbedder:
    """The hashing embedder, ``delay`` seconds slower (the searching thread posts its scan first),
    failing on the query ``fail``."""

    def __init__(self, delay: float = 0.2, fail: str | None = None) -> None:
        self._inner = load_embedder("hashing")
        self.space = self._inner.space
        self.delay, self.fail = delay, fail

    def embed(self, texts: Any) -> Any:
        time.sleep(self.delay)
        if self.fail is not None and self.fail in texts:
            raise RuntimeError(f"cannot embed {self.fail!r}")
        return self._inner.embed(texts)


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every scan shared (no minimum cost), in parts of 7 int8 rows' worth, each taking 1 ms more;
    the threads that fill parts."""
    monkeypatch.setattr(vmod, "SPLIT_MIN_ROWS", 0)
    monkeypatch.setattr(vmod, "PIECE_ROWS", 7)
    fillers: list[str] = []
    fill = vmod._Exact.fill

    def counting(self: Any, lo: int, hi: int, packed: Any) -> None:
        fillers.append(threading.current_thread().name)
        time.sleep(0.001)  # parts as slow as a big store's: both threads get some
        fill(self, lo, hi, packed)

    monkeypatch.setattr(vmod._Exact, "fill", counting)
    return fillers


def _hits(s: Searcher, mode: str) -> list[list[tuple[str, float]]]:
    return [[(h.id, round(h.score, 5)) for h in s.search(q, mode=mode, k=8).hits] for q in QUERIES]


def test_pipelined_scan_answers_as_one_thread(big: Store, shared: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import mem.format.rules.timeutil as tu

    at = tu.now()
    monkeypatch.setattr(tu, "now", lambda: at)  # the recency prior: the same "now" for both
    alone = Searcher(big, embedder=SlowEmbedder(0.0))
    monkeypatch.setattr(alone, "_executor", lambda: None)  # one thread: no pool at all
    piped = Searcher(big, embedder=SlowEmbedder())
    posted: list[bool] = []
    run = vmod.VectorQuery.run

    def watching(self: Any, query: Any, pool: Any = None, helper: Any = None) -> Any:
        posted.append(helper is not None)
        return run(self, query, pool, helper)

    monkeypatch.setattr(vmod.VectorQuery, "run", watching)
    try:
        piped.search("warm up", mode="vector")  # indexes opened, any missing vector backfilled
        for mode in ("hybrid", "vector"):
            want = _hits(alone, mode)
            shared.clear()
            posted.clear()
            assert _hits(piped, mode) == want
            assert posted and all(posted)  # every search: the embedding thread started the scan
            assert any(t.startswith("mem-search") for t in shared) and "MainThread" in shared, sorted(set(shared))
            assert any(h for h in want)
    finally:
        alone.close()
        piped.close()


def test_a_failed_query_embedding_falls_back_or_is_raised(big: Store, shared: list[str]) -> None:
    with Searcher(big, embedder=SlowEmbedder(fail="boom")) as s:
        assert s.search("river", mode="hybrid").hits
        # hybrid: the lexical arm's answer, and a warning naming the cause
        res = s.search("boom", mode="hybrid")
        assert res.mode == "lexical"
        assert any("lexical results only" in w and "RuntimeError: cannot embed 'boom'" in w for w in res.warnings)
        # vector: mem's error, naming the cause (exit 10)
        with pytest.raises(EmbedderUnavailableError, match="cannot embed 'boom'") as ei:
            s.search("boom", mode="vector")
        assert ei.value.exit_code == 10
        assert s.search("river tea", mode="hybrid").hits  # the searcher still works


def test_an_error_in_the_embedding_threads_share_of_the_scan_is_raised(
        big: Store, shared: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fill = vmod._Exact.fill

    def failing(self: Any, lo: int, hi: int, packed: Any) -> None:
        if threading.current_thread().name.startswith("mem-search"):
            raise MemoryError("no memory for this part")
        fill(self, lo, hi, packed)

    with Searcher(big, embedder=SlowEmbedder()) as s:
        assert s.search("river", mode="vector").hits
        monkeypatch.setattr(vmod._Exact, "fill", failing)
        with pytest.raises(MemoryError, match="no memory"):
            s.search("river tea", mode="vector")


def test_a_late_searching_thread_still_gets_every_hit(big: Store, shared: list[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The query is embedded before the searching thread posts its scan (post refused): the
    search runs as any other, sharing the scan with a pool thread."""
    import mem.format.rules.timeutil as tu

    at = tu.now()
    monkeypatch.setattr(tu, "now", lambda: at)
    ref = open_searcher(big)
    want = _hits(ref, "vector")
    ref.close()
    s = Searcher(big, embedder=SlowEmbedder(0.0))
    lexical = s._lexical

    def slow_lexical(warnings: list[str], scopes: Any = None) -> Any:
        time.sleep(0.05)  # the embedding wins the race
        return lexical(warnings, scopes)

    monkeypatch.setattr(s, "_lexical", slow_lexical)
    try:
        assert _hits(s, "vector") == want
    finally:
        s.close()
