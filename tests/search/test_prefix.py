"""A search's first n hits are the hits of the same search with k = n (spec/cli/search.md,
"Scores": the pool the later stages reorder does not depend on k)."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.index.backlog import embed_backlog, load_bulk_embedder
from mem.format.index.derived import attach
from mem.format.search.engine import open_searcher, search
from mem.format.search.relevance import POOL_MIN, SPEAKER_TOP, pool_size, read_query
from mem.format.store.store import Store
from tests.conftest import run_mem

UTC = _dt.UTC
WORDS = ("river", "tea", "garden", "piano", "museum", "bridge", "coffee", "train", "budget", "dentist")
#: a plain query, one that names a speaker, one that asks "when", one that names a date
QUERIES = ("garden piano tea", "What did Ana say about the garden and the museum?",
           "When did Ben go to the museum by train?", "What did Ana do on 4 June 2022?")


def _conversation(store: Store) -> None:
    """Two speakers, 160 dated turns over many words, so that every query has many candidates
    and each speaker many turns below the best 30."""
    attach(store)
    day = _dt.datetime(2022, 5, 1, 18, tzinfo=UTC)
    for i in range(160):
        words = " ".join(WORDS[j] for j in range(len(WORDS)) if (i * 7 + j * 3) % 5 < 2 or j == i % 10)
        when = ["yesterday", "last week", "", "", ""][i % 5]
        store.add(f"We talked about the {words} {when}, number {i}".replace("  ", " "), scope="c", kind="episode",
                  source={"speaker": "Ana" if i % 2 else "Ben"},
                  valid_from=day + _dt.timedelta(days=(i * 5) % 70))
    # every record embedded: else each search embeds a few more, and the candidates change
    embed_backlog(store, load_bulk_embedder(store))


def _ids(res: Any) -> list[str]:
    return [h.id for h in res.hits]


def test_pool_size_does_not_depend_on_k() -> None:
    assert pool_size(read_query("garden piano")) == POOL_MIN
    for q in QUERIES[1:]:
        assert pool_size(read_query(q)) == SPEAKER_TOP
    assert pool_size(read_query("garden"), 50) == 50 and pool_size(read_query("When was it?"), 5) == SPEAKER_TOP


@pytest.mark.parametrize("long_lived", [True, False])
def test_top_k_is_a_prefix_of_top_larger_k(store: Store, long_lived: bool) -> None:
    """For every query kind, a search with k = n returns the first n hits of one with k = 120,
    for n below, at and above the pool (with a long-lived searcher and a one-shot search)."""
    _conversation(store)
    with open_searcher(store, long_lived=long_lived) as s:
        for q in QUERIES:
            res = s.search(q, k=120)
            assert res.unembedded == 0 and res.warnings == []
            full = _ids(res)
            assert len(full) == 120 and len(set(full)) == 120
            for n in (1, 5, 10, 11, 29, 30, 31, 45, 50, 80):
                assert _ids(s.search(q, k=n)) == full[:n], (q, n)
            # a one-shot search agrees with the long-lived searcher's
            assert _ids(search(store, q, k=50)) == full[:50]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=st.sampled_from(QUERIES), ks=st.lists(st.integers(1, 200), min_size=2, max_size=2, unique=True))
def test_prefix_property(store: Store, q: str, ks: list[int]) -> None:
    if not store.scopes():
        _conversation(store)
    small, large = sorted(ks)
    with open_searcher(store) as s:
        top = _ids(s.search(q, k=large))
        assert _ids(s.search(q, k=small)) == top[:small]


def test_cli_top_k_is_a_prefix(store: Store) -> None:
    """Through the real executable: `mem search -k 29` is the start of `mem search -k 100`, --json."""
    _conversation(store)
    root = str(store.root)
    env = {"MEM_EMBEDDER": "hashing"}
    for q in QUERIES[1:]:
        small = run_mem("--store", root, "search", q, "-k", "29", "--json", env=env)
        large = run_mem("--store", root, "search", q, "-k", "100", "--json", env=env)
        assert small.returncode == 0 and large.returncode == 0, small.stderr + large.stderr
        a, b = small.json()["hits"], large.json()["hits"]
        assert len(a) == 29 and len(b) == 100
        assert [h["id"] for h in a] == [h["id"] for h in b[:29]]
        # the same scores, up to the float rounding of a product over a matrix of another shape
        # (printed to 6 decimals, a 1e-7 difference can show in the last one)
        assert [h["score"] for h in a] == pytest.approx([h["score"] for h in b[:29]], abs=2e-6)
