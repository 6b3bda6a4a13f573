"""Bulk embedding runs in threads nicer than the process; a search's embedding does not."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.backlog import (
    BULK_NICE,
    BulkEmbedder,
    bulk_nice,
    embed_backlog,
    load_bulk_embedder,
)
from mem.format.rules.config import Config
from mem.format.search.engine import Searcher
from mem.format.store.store import Store
from tests.conftest import run_mem

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value is Linux's")


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


class NiceProbe(HashingEmbedder):
    """The hashing embedder, noting the thread and the nice value each call ran with."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, int]] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.seen.append((threading.get_native_id(), _nice()))
        return super().embed(texts)


def test_bulk_embedding_threads_run_nicer_and_the_callers_thread_does_not() -> None:
    base = _nice()
    want = min(19, base + BULK_NICE)
    texts = [f"note {i} about the garden" for i in range(100)]
    for workers in (2, 1):
        probe = NiceProbe()
        bulk = BulkEmbedder(probe, workers)
        try:
            bulk.embed(texts)
            bulk.embed(texts[:3])  # a small call too: in a pool thread, not the caller's
        finally:
            bulk.close()
        assert probe.seen and {n for _, n in probe.seen} == {want}, (workers, probe.seen)
        assert threading.get_native_id() not in {t for t, _ in probe.seen}
        assert _nice() == base  # the caller's thread is untouched
    probe = NiceProbe()
    bulk = BulkEmbedder(probe, 2, nice=0)  # [embedder] bulk_nice = 0: off
    try:
        bulk.embed(texts)
    finally:
        bulk.close()
    assert {n for _, n in probe.seen} == {base}


def test_bulk_nice_setting() -> None:
    from mem.format.base.errors import EmbedderUnavailableError

    assert bulk_nice(None) == BULK_NICE and bulk_nice(Config(embedder={"bulk_nice": 0})) == 0
    assert bulk_nice(Config(embedder={"bulk_nice": 19})) == 19
    for bad in (20, -1, "5", True, 2.5):
        with pytest.raises(EmbedderUnavailableError, match="bulk_nice"):
            bulk_nice(Config(embedder={"bulk_nice": bad}))


def test_a_search_embeds_at_the_process_priority_while_a_bulk_run_does_not(sstore: Store) -> None:
    base = _nice()
    for i in range(20):
        sstore.add(f"kite flying note number {i} on the hill", scope="ana", kind="fact")
    probe = NiceProbe()
    with Searcher(sstore, embedder=probe, long_lived=True) as s:  # backfill and the query's vector
        assert s.search("kite flying", mode="hybrid").hits
    assert probe.seen and {n for _, n in probe.seen} == {base}
    for i in range(50):
        sstore.add(f"garden note number {i} about tomatoes", scope="ana", kind="fact")
    bulk_probe = NiceProbe()
    bulk = BulkEmbedder(bulk_probe, 2)
    try:
        rep = embed_backlog(sstore, bulk)
    finally:
        bulk.close()
    assert rep.embedded > 0 and {n for _, n in bulk_probe.seen} == {min(19, base + BULK_NICE)}
    assert _nice() == base


def test_load_bulk_embedder_reads_bulk_nice_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    store = Store.init(tmp_path / "s", actor="tester@test")
    (store.root / "config.toml").write_text('[embedder]\nprovider = "hashing"\nbulk_nice = 3\n')
    bulk = load_bulk_embedder(Store.open(store.root))
    try:
        assert bulk.nice == 3
    finally:
        bulk.close()
    (store.root / "config.toml").write_text('[embedder]\nprovider = "hashing"\nbulk_nice = 40\n')
    (tmp_path / "in.jsonl").write_text('{"content": "a note about kites"}\n')
    r = run_mem("--store", str(store.root), "import", str(tmp_path / "in.jsonl"), env={"MEM_EMBEDDER": "hashing"})
    # the import keeps its records and says why nothing was embedded; `mem embed` refuses
    assert r.returncode == 0 and "[embedder] bulk_nice = 40 must be" in r.stderr, (r.returncode, r.stderr)
    e = run_mem("--store", str(store.root), "embed", env={"MEM_EMBEDDER": "hashing"})
    assert e.returncode == 10 and "[embedder] bulk_nice = 40 must be a whole number from 0 (off) to 19" in e.stderr
    v = run_mem("--store", str(store.root), "verify", env={"MEM_EMBEDDER": "hashing"})
    assert "E007" in v.stdout and "bulk_nice = 40" in v.stdout, v.stdout
