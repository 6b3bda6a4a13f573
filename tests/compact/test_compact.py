"""``mem compact``: loss-free (same search results), dead vectors dropped, crash-safe swap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mem.format.index.common import new_build_dir
from mem.format.index.derived import attach, build_indexes, index_stats, rebuild
from mem.format.ops.compact import compact_store
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store
from mem.format.verify.checks import verify_store
from tests.conftest import run_mem, searched

QUERIES = ["tea", "coffee morning", "Lisbon river", "project deadline", "brother", "walks"]
WORDS = ["tea", "coffee", "Lisbon", "river", "morning", "project", "deadline", "brother",
         "walks", "bridge", "Porto", "garden", "music", "piano", "train"]


@pytest.fixture(autouse=True)
def _hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")  # the test embedder: deterministic, offline


def results(store: Store, k: int = 50) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """(query, mode) -> ranked (id, score); k is larger than the store, so every match shows."""
    s = open_searcher(store)
    try:
        return {
            (q, mode): [(h.id, round(h.score, 6)) for h in s.search(q, mode=mode, k=k).hits]
            for q in QUERIES
            for mode in ("lexical", "vector", "hybrid")
        }
    finally:
        s.close()


def assert_identical(a: dict, b: dict) -> None:
    """Same ids in the same order with the same scores. Scores are compared to 1e-5, not with
    ==: the recency prior moves with the clock between two searches (a few 1e-9 per second),
    which can flip the sixth decimal."""
    assert a.keys() == b.keys()
    for key, hits in a.items():
        assert [i for i, _ in b[key]] == [i for i, _ in hits], key
        assert all(abs(x - y) <= 1e-5 for (_, x), (_, y) in zip(b[key], hits, strict=True)), key


def assert_same_results(before: dict, after: dict) -> None:
    """Vector results are identical (ids, order, scores). Lexical and hybrid return the same
    records; their BM25 scores may shift, because before compaction tantivy's collection
    statistics still count deleted documents (that is what compaction removes)."""
    assert before.keys() == after.keys()
    for (q, mode), hits in before.items():
        if mode == "vector":
            assert_identical({q: after[(q, mode)]}, {q: hits})
        else:
            assert {i for i, _ in after[(q, mode)]} == {i for i, _ in hits}, (q, mode)


@pytest.fixture
def churned(store: Store) -> Store:
    """A store with indexes that carry deletes: forgotten and rewritten records."""
    attach(store)
    recs = []
    for i in range(40):
        words = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(6))
        recs.append(store.add(f"Note {i}: {words}", scope="ana" if i % 3 else "bob"))
    rebuild(store)  # a built vector index, so later changes go to the delta / dead tables
    store.forget([r.id for r in recs[:10]], reason="test")
    for r in recs[10:20]:
        store.update(r.id, content=r.content + " (revised)")
    searched(store, "tea", mode="hybrid")  # backfills vectors of changed records
    return store


def test_compaction_is_loss_free_and_drops_dead(churned: Store) -> None:
    before_stats = index_stats(churned).to_dict()
    assert before_stats["lexical"]["deleted_docs"] > 0 or before_stats["vectors"]["dead"] > 0
    before = results(churned)
    out = compact_store(churned)
    after = results(churned)
    assert_same_results(before, after)
    rebuild(churned)  # ground truth: indexes built from the records alone
    assert_identical(results(churned), after)  # compaction == a fresh rebuild, ids, order and scores
    live = len(list(churned.iter_records()))
    stats = index_stats(churned).to_dict()
    assert stats["vectors"]["vectors"] == live == 30
    assert stats["vectors"]["dead"] == 0 and stats["vectors"]["delta"] == 0
    assert stats["lexical"]["docs"] == live and stats["lexical"]["deleted_docs"] == 0
    assert out["after"]["vectors"]["dead"] == 0
    assert out["before"]["bytes"] > 0 and out["after"]["bytes"] > 0
    assert verify_store(churned.root).findings == []


def test_crash_mid_compaction_leaves_the_old_index(churned: Store) -> None:
    before = results(churned)
    # the state a crash leaves: a new generation fully or half built beside the live one, no swap
    dest = new_build_dir(churned.index_dir)
    build_indexes(churned, dest, lexical=True, vectors=False)
    assert_identical(results(churned), before)  # readers still use the old, valid generation
    out = compact_store(churned)
    assert dest.name in out["garbage_removed"]
    assert not dest.exists()
    assert_same_results(before, results(churned))


def test_stale_temp_files_removed_fresh_ones_kept(churned: Store) -> None:
    old = churned.records_dir / "ana" / ".x.md.mem-tmp-00000001"
    new = churned.records_dir / "ana" / ".y.md.mem-tmp-00000002"
    old.write_bytes(b"partial")
    new.write_bytes(b"in progress")
    os.utime(old, (1_000_000_000, 1_000_000_000))
    dry = compact_store(churned, dry_run=True)
    assert dry["temp_files_removed"] == ["records/ana/.x.md.mem-tmp-00000001"] and old.exists()
    out = compact_store(churned)
    assert out["temp_files_removed"] == ["records/ana/.x.md.mem-tmp-00000001"]
    assert not old.exists() and new.exists()


def test_cli_json_and_no_index(store: Store, tmp_path: Path) -> None:
    store.add("just one note about tea", scope="ana")
    r = run_mem("compact", "--json", cwd=store.root, env={"MEM_EMBEDDER": "hashing"})
    assert r.returncode == 0
    data = r.json()
    assert data["temp_files_removed"] == []
    rebuild(store)
    r = run_mem("compact", "--json", cwd=store.root, env={"MEM_EMBEDDER": "hashing"})
    assert r.returncode == 0
    data = r.json()
    assert set(data) >= {"store", "dry_run", "temp_files_removed", "garbage_removed", "index",
                         "before", "after", "lexical", "vectors"}
    assert data["index"] is True and data["after"]["lexical"]["docs"] == 1
    assert data["after"]["vectors"]["vectors"] == 1
