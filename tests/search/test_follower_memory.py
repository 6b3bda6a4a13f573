"""A long-lived searcher's background thread gives the C heap's free pages back after each round
that changed the index or ran a full scan, and only then (format/index/follower.py,
``_release_memory``): counted, not timed."""

from __future__ import annotations

import pytest

import mem.format.index.backlog as backlog
from mem.format.index.derived import attach
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store


@pytest.fixture
def trims(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per call of ``backlog.release_free_memory`` (glibc's malloc_trim)."""
    calls: list[int] = []
    real = backlog.release_free_memory

    def counted() -> None:
        calls.append(1)
        real()

    monkeypatch.setattr(backlog, "release_free_memory", counted)
    return calls


def test_memory_is_released_after_each_round_that_changed_the_index(sstore: Store, trims: list[int]) -> None:
    other = Store.open(sstore.root)  # another writer, as another process would be
    attach(other)
    with open_searcher(sstore) as s:
        s.search("tea", mode="hybrid")
        s.catch_up()
        fol = s._follower
        assert fol is not None
        start = (len(trims), fol.trims, fol.rounds)
        for i in range(3):
            other.add(f"Gina repairs bicycle number {i} on Sundays", scope="bob")
            s.catch_up()
            assert "bicycle number" in s.search(f"bicycle number {i}", mode="hybrid").hits[0].content
        changed = fol.rounds - start[2]
        assert changed >= 3
        assert fol.trims - start[1] == changed == len(trims) - start[0]


def test_no_release_after_rounds_that_changed_nothing(sstore: Store, trims: list[int]) -> None:
    with open_searcher(sstore) as s:
        s.search("tea", mode="hybrid")
        s.catch_up()
        fol = s._follower
        assert fol is not None
        before, rounds = len(trims), fol.rounds
        for q in ("tea", "Lisbon", "dentist", "Porto"):
            s.search(q, mode="hybrid")
            s.catch_up()  # a full round, each: nothing on disk changed
        assert fol.rounds == rounds
        assert len(trims) == before


def test_the_release_runs_on_the_background_thread_of_a_long_lived_searcher_only(sstore: Store,
                                                                                 trims: list[int]) -> None:
    with open_searcher(sstore, long_lived=False) as s:
        sstore.add("Ana bought a new kettle", scope="ana")
        assert "kettle" in s.search("kettle", mode="hybrid").hits[0].content
    assert trims == []
