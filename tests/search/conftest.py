"""Fixtures for search tests: the hashing embedder (fast, not semantic) unless a test says otherwise."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mem.format.index.derived import attach
from mem.format.store.store import Store

#: Words and queries of the larger search fixtures (test_rank_from_state, test_scan_pipeline).
WORDS = ("river", "tea", "coffee", "bridge", "dentist", "garden", "piano", "budget", "train", "museum")
QUERIES = ("river tea", "coffee bridge dentist", "garden", "piano budget train museum", "Ana river")


def words_of(i: int) -> str:
    """Record i's words: a different subset of WORDS for each i."""
    return " ".join(WORDS[j] for j in range(len(WORDS)) if (i >> (j % 6)) & 1 or j == i % len(WORDS))


@pytest.fixture(autouse=True)
def _hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")


@pytest.fixture
def sstore(store: Store) -> Iterator[Store]:
    """A store with the index listener attached (as the CLI does) and a few records."""
    attach(store)
    store.add("Ana lives in Lisbon and walks along the river every morning", scope="ana", kind="fact")
    store.add("Ana prefers green tea over coffee", scope="ana", kind="preference", tags=["drinks"])
    store.add("Bob lives in Porto near the old bridge", scope="bob", kind="fact")
    store.add("Bob's dentist appointment is on Friday", scope="bob", kind="event", status="candidate")
    yield store
