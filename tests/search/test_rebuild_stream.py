"""A vector build streams (format/index/vecstream.py): the vectors are made a window of records
at a time as the records are read, and kept on disk until the generation is written. The
generation holds exactly the embedder's vector of every record (rows sorted by id, every scope);
the records read ahead of the embedding never exceed a window; the reading workers run a bounded
number of tasks ahead of what is taken; a vector reused from the live index is the one it had;
through `mem`: a store of more than one window rebuilt and searched by vector."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mem.format.base import workers
from mem.format.base.errors import EmbedderUnavailableError
from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.common import VECTORS_POINTER, remove_tree
from mem.format.index.derived import build_indexes, new_build_dir, rebuild, swap_in
from mem.format.index.vectors import VectorIndex
from mem.format.store.store import Store
from tests.conftest import run_mem

WORDS = ["harbour", "lantern", "copper", "meadow", "violet", "granite", "orchard", "falcon", "ember", "quartz"]


class Recording(HashingEmbedder):
    """The hashing embedder, noting for each call how many texts it got and how many records
    the build had read by then (``read`` is set by the progress callback below)."""

    def __init__(self) -> None:
        super().__init__()
        self.read = 0
        self.calls: list[tuple[int, int]] = []  # (records read, texts in this call)

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append((self.read, len(texts)))
        return super().embed(texts)


def _fill(store: Store, n: int) -> None:
    with store.batch():
        for i in range(n):
            # lengths vary, so that the shortest-first order differs from the reading order
            words = " ".join(WORDS[(i * k) % 10] for k in range(1, 2 + i % 9))
            store.add(f"{words} note {i}", scope=("ana", "bob", "team.x")[i % 3])
    gone = store.add("a record whose scope ends up empty", scope="emptied")
    store.forget([gone.id], reason="test")


def _build(store: Store, emb: Recording, *, window: int, batch: int, workers_: int | None = 1,
           reuse: bool = False) -> Any:
    def progress(items: Iterable[Any], total: int | None, label: str) -> Iterator[Any]:
        assert label == "reading and embedding records"
        for x in items:
            emb.read += 1
            yield x

    dest = new_build_dir(store.index_dir)
    try:
        built = build_indexes(store, dest, lexical=True, vectors=True, embedder=emb, progress=progress,
                              reuse_vectors=reuse, window=window, batch=batch, workers=workers_)
        assert not (dest / "vectors-made").exists()  # the vectors' files are gone once written
        swap_in(store, built)
    finally:
        remove_tree(dest)
    return built


def test_a_streamed_build_holds_the_embedders_vector_of_every_record(store: Store) -> None:
    _fill(store, 700)
    emb = Recording()
    built = _build(store, emb, window=128, batch=32)
    assert built.records == built.embedded == 700 and built.reused == 0
    assert max(n for _r, n in emb.calls) <= 32
    vec = VectorIndex.open(store.index_dir)
    assert vec is not None
    try:
        scopes = vec.manifest["scopes"]
        assert set(scopes) == set(store.scopes()) and {"ana", "bob", "team.x"} <= set(scopes)
        assert all(scopes[s]["rows"] == 0 for s in set(scopes) - {"ana", "bob", "team.x"})
        recs = list(store.iter_records())
        want = HashingEmbedder().embed([r.content for r in recs])
        for r, w in zip(recs, want, strict=True):
            got = vec.vector_for(r.scope, r.id, r.digest)
            assert got is not None and np.array_equal(got, w), r.id
        for s in ("ana", "bob", "team.x"):
            rows = list(vec.main(s).rows)
            assert [rid for rid, _dg in rows] == sorted(r.id for r in recs if r.scope == s)
    finally:
        vec.close()


@pytest.mark.parametrize("workers_", [1, 2])
def test_the_records_read_ahead_of_the_embedding_stay_within_a_window(store: Store, workers_: int) -> None:
    """The embedding starts before the reading ends, and at each call of the embedder at most a
    window of records has been read and not yet embedded (before, every record was read and
    held first)."""
    if workers_ > 1 and not workers.can_fork():
        pytest.skip("no fork on this platform")
    _fill(store, 900)
    emb = Recording()
    window = 100
    built = _build(store, emb, window=window, batch=25, workers_=workers_)
    assert built.embedded == 900
    assert emb.calls[0][0] < 900  # the first window is embedded while the rest is unread
    done = 0
    for read, n in emb.calls:
        assert read - done <= window, emb.calls
        done += n
    assert done == 900


def test_a_rebuild_that_reuses_keeps_each_vector_and_embeds_only_the_changed(store: Store) -> None:
    _fill(store, 300)
    rebuild(store, embedder=HashingEmbedder())
    vec = VectorIndex.open(store.index_dir)
    assert vec is not None
    before = {(r.scope, r.id): vec.vector_for(r.scope, r.id, r.digest) for r in store.iter_records()}
    vec.close()
    changed = next(iter(store.iter_records(["bob"])))
    store.update(changed.id, content="copper kettle, changed since the last build")
    emb = Recording()
    built = _build(store, emb, window=64, batch=16, reuse=True)
    assert built.reused == 299 and built.embedded == 1 and sum(n for _r, n in emb.calls) == 1
    vec = VectorIndex.open(store.index_dir)
    assert vec is not None
    try:
        for r in store.iter_records():
            got = vec.vector_for(r.scope, r.id, r.digest)
            assert got is not None
            if r.id == changed.id:
                assert np.array_equal(got, HashingEmbedder().embed([r.content])[0])
            else:
                assert np.array_equal(got, before[(r.scope, r.id)])
    finally:
        vec.close()


def _mark(job: str, task: int) -> int:
    """A worker's task: leave a file saying it started."""
    Path(job, f"{task}.started").touch()
    return task


def _started(d: Path) -> int:
    return sum(1 for p in d.iterdir() if p.name.endswith(".started"))


def _settles_at(d: Path, want: int) -> int:
    """The count of started tasks once it reaches ``want`` (or after 60 s), then a moment later."""
    deadline = time.monotonic() + 60
    while _started(d) < want and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # time for a task beyond the bound to start, if one were queued
    return _started(d)


@pytest.mark.skipif(not workers.can_fork(), reason="no fork on this platform")
def test_a_pools_map_with_ahead_runs_at_most_that_many_tasks_beyond_the_results_taken(tmp_path: Path) -> None:
    ahead, n = 3, 12
    with workers.worker_pool(str(tmp_path), 2) as pool:
        it = pool.map(_mark, range(n), ahead=ahead)
        assert _settles_at(tmp_path, ahead) == ahead  # queued at once: nothing more before a take
        taken = []
        for k in range(1, n + 1):
            taken.append(next(it))
            assert _settles_at(tmp_path, min(n, k + ahead)) == min(n, k + ahead)
        assert taken == list(range(n))  # in task order
        assert next(it, None) is None


def test_mem_rebuild_vectors_of_more_than_a_window(tmp_path: Path) -> None:
    from mem.format.index.backlog import BULK_WINDOW

    env = {"MEM_EMBEDDER": "hashing"}
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=env).returncode == 0
    n = BULK_WINDOW + 300
    src = tmp_path / "in.jsonl"
    with open(src, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"content": f"{WORDS[i % 10]} {WORDS[(3 * i) % 10]} entry {i} zq{i}x",
                                "scope": ("ana", "bob")[i % 2]}) + "\n")
    assert run_mem("--store", str(root), "import", str(src), "--no-embed", env=env, timeout=300).returncode == 0
    r = run_mem("--store", str(root), "rebuild", "--vectors", "--json", env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["records"] == out["vectors"]["embedded"] == n and out["vectors"]["reused"] == 0
    assert (root / ".mem" / "index" / VECTORS_POINTER).exists()
    assert not [p.name for p in (root / ".mem" / "index").iterdir() if p.name.startswith("build-")]
    last = n - 1  # read in the last window
    r = run_mem("--store", str(root), "search", f"zq{last}x entry {last}", "--mode", "vector", "--json", env=env)
    assert r.returncode == 0, r.stderr
    hits = r.json()["hits"] if isinstance(r.json(), dict) else r.json()
    assert f"zq{last}x" in hits[0]["content"]
    r = run_mem("--store", str(root), "search", "entry", "--mode", "vector", "--json", env=env)
    assert "unembedded" not in r.json()


def test_a_failing_embedder_leaves_the_live_vectors_and_no_build_behind(store: Store) -> None:
    _fill(store, 300)
    rebuild(store, embedder=HashingEmbedder())
    idx = store.index_dir
    before = sorted(p.name for p in idx.iterdir())
    pointer = (idx / VECTORS_POINTER).read_text("utf-8")

    class Failing(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def embed(self, texts: Sequence[str]) -> Any:
            self.calls += 1
            if self.calls == 2:
                raise EmbedderUnavailableError("the model failed on its second batch")
            return super().embed(texts)

    with pytest.raises(EmbedderUnavailableError, match="second batch"):
        rebuild(store, lexical=False, vectors=True, embedder=Failing())
    assert sorted(p.name for p in idx.iterdir()) == before
    assert (idx / VECTORS_POINTER).read_text("utf-8") == pointer
