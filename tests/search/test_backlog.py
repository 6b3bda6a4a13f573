"""The embedding backlog: a search never waits on it; bulk writes embed it; `mem embed` catches up."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.backlog import BACKFILL_MAX, bulk_threads, embed_backlog
from mem.format.index.derived import index_stats
from mem.format.search.engine import Searcher, open_searcher
from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem, sigint_default


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, counting its calls and the texts it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append(len(texts))
        return super().embed(texts)


def _backlog(store: Store, n: int) -> None:
    for i in range(n):
        store.add(f"kite flying note number {i} on the hill", scope="ana", kind="fact")


def test_a_search_embeds_no_more_than_its_budget_whatever_the_backlog(sstore: Store) -> None:
    emb = CountingEmbedder()
    # one-shot searches (`mem search`); a long-lived searcher's: test_follower.py
    s = Searcher(sstore, embedder=emb, long_lived=False)
    s.search("warm up", mode="hybrid")  # the 4 fixture records embedded, the index made
    emb.calls.clear()
    _backlog(sstore, 300)
    res = s.search("kite hill", mode="hybrid")
    # the backlog's texts (in chunks) plus the query: never more than BACKFILL_MAX records
    assert sum(emb.calls) <= BACKFILL_MAX + 1
    assert max(emb.calls) <= BACKFILL_MAX
    embedded = sum(emb.calls) - 1
    assert res.unembedded == 300 - embedded > 0
    assert f"{res.unembedded} records have no vector yet" in res.warnings[0]
    assert "mem embed" in res.warnings[0]
    assert res.to_dict()["unembedded"] == res.unembedded
    # the next search catches up a little more, never more than the budget
    emb.calls.clear()
    res2 = s.search("kite hill", mode="hybrid")
    assert sum(emb.calls) <= BACKFILL_MAX + 1
    assert res2.unembedded == res.unembedded - (sum(emb.calls) - 1)


def test_the_backlog_is_searched_by_the_lexical_arm(sstore: Store) -> None:
    emb = CountingEmbedder()
    with open_searcher(sstore, embedder=emb) as s:
        s.search("warm up", mode="hybrid")
        _backlog(sstore, 200)
        # the newest record is past the first search's budget (the backlog is taken oldest first)
        last = sstore.add("the zeppelin hangar smells of oil", scope="ana", kind="fact")
        res = s.search("zeppelin hangar", mode="hybrid")
        assert res.unembedded > 0
        hit = next(h for h in res.hits if h.id == last.id)
        assert hit.arms == ["lexical"]  # found by its words; it has no vector yet
        # the vector arm cannot find what has no vector
        vres = s.search("zeppelin hangar", mode="vector", k=1000)
        assert last.id not in [h.id for h in vres.hits]


def test_no_backlog_reports_nothing(sstore: Store) -> None:
    with open_searcher(sstore) as s:
        res = s.search("tea", mode="hybrid")
        assert res.unembedded == 0 and "unembedded" not in res.to_dict() and res.warnings == []


def test_embed_backlog_embeds_everything_in_large_batches_and_merges(sstore: Store) -> None:
    s = open_searcher(sstore)
    s.search("warm up", mode="hybrid")
    s.close()  # (a long-lived searcher's background thread would embed some of the backlog)
    _backlog(sstore, 150)
    emb = CountingEmbedder()
    rep = embed_backlog(sstore, emb, batch=64, merge_min=100)
    assert (rep.embedded, rep.missing, rep.left, rep.merged) == (150, 150, 0, True)
    assert emb.calls == [64, 64, 22]
    st = index_stats(sstore).to_dict()["vectors"]
    assert st["missing"] == 0 and st["delta"] == 0  # merged into the main matrices
    assert embed_backlog(sstore, emb).embedded == 0  # nothing left: nothing embedded again
    with open_searcher(sstore) as s:
        res = s.search("kite hill", mode="hybrid")
        assert res.unembedded == 0 and res.warnings == []


def test_bulk_threads_follow_the_cores_unless_set() -> None:
    assert bulk_threads(None, env={"MEM_EMBED_THREADS": "3"}) == 3
    assert bulk_threads(None, env={}) == len(os.sched_getaffinity(0))


def _jsonl(path: Path, n: int, words: str = "a note about the harbour and its ferries") -> Path:
    path.write_text("".join(json.dumps({"content": f"{words} {i}", "kind": "fact"}) + "\n" for i in range(n)))
    return path


def test_import_embeds_as_it_writes(tmp_path: Path) -> None:
    env = {"MEM_EMBEDDER": "hashing"}
    run_mem("init", str(tmp_path / "s"), env=env)
    src = _jsonl(tmp_path / "a.jsonl", 40)
    r = run_mem("--store", str(tmp_path / "s"), "import", str(src), "--scope", "ana", env=env)
    assert r.returncode == 0, r.stderr
    assert "vectors: 40 records embedded" in r.stderr
    r = run_mem("--store", str(tmp_path / "s"), "search", "harbour ferries", "--json", env=env)
    out = json.loads(r.stdout)
    assert out["warnings"] == [] and "unembedded" not in out
    assert all("vector" in h["arms"] for h in out["hits"])


def test_no_embed_defers_and_names_the_catch_up(tmp_path: Path) -> None:
    env = {"MEM_EMBEDDER": "hashing"}
    store = str(tmp_path / "s")
    run_mem("init", store, env=env)
    src = _jsonl(tmp_path / "a.jsonl", 100)
    r = run_mem("--store", store, "import", str(src), "--scope", "ana", "--no-embed", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["vectors"] == {"deferred": True, "embedded": 0, "left": None,
                                               "catch_up": "mem embed"}
    r = run_mem("--store", store, "import", str(_jsonl(tmp_path / "b.jsonl", 3, "more")), "--no-embed", env=env)
    assert "vectors deferred (--no-embed): run `mem embed`" in r.stderr
    r = run_mem("--store", store, "search", "harbour ferries", "--json", env=env)
    out = json.loads(r.stdout)
    assert 0 < out["unembedded"] <= 103 and "run `mem embed`" in out["warnings"][0]
    r = run_mem("--store", store, "search", "harbour ferries", env=env)
    assert "records have no vector yet (found by their words only); run `mem embed`" in r.stderr
    r = run_mem("--store", store, "embed", "--json", env=env)
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["left"] == 0 and rep["embedded"] == rep["missing"] > 0
    r = run_mem("--store", store, "search", "harbour ferries", "--json", env=env)
    assert "unembedded" not in json.loads(r.stdout)


def _delta_rows(store: Path) -> int:
    """Vectors committed to the live vector index's side table (0 while it does not exist)."""
    idx = store / ".mem" / "index"
    try:
        gen = json.loads((idx / "vectors.json").read_text())["generation"]
        db = sqlite3.connect(f"file:{idx / gen / 'vectors.db'}?mode=ro", uri=True, timeout=5)
        try:
            return int(db.execute("SELECT count(*) FROM delta").fetchone()[0])
        finally:
            db.close()
    except (FileNotFoundError, KeyError, ValueError, sqlite3.Error):
        return 0


def _run_until_vectors(args: list[str], store: Path, env: dict[str, str], sig: int) -> tuple[subprocess.Popen[str], int]:
    """Start `mem ARGS`, wait until it has committed some vectors, send it ``sig``."""
    full = {**os.environ, "NO_COLOR": "1", **env}
    p = subprocess.Popen([MEM_EXE, "--store", str(store), *args], env=full, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, preexec_fn=sigint_default)
    # readiness only, so generous: a bulk embedding on a machine at load 10-30 (CI) is slow
    deadline = time.monotonic() + READY_S
    while p.poll() is None:
        if _delta_rows(store) > 0:
            p.send_signal(sig)
            break
        if time.monotonic() > deadline:
            p.kill()
            p.wait()
            pytest.fail(f"mem {' '.join(args)} committed no vector in {READY_S} s")
        time.sleep(0.05)
    p.wait(timeout=READY_S)  # (a Ctrl-C's exit: seconds under a CPU hog, bench/README.md)
    return p, _delta_rows(store)


#: How long the tests below wait for a bulk embedding to reach a point (readiness, not speed).
READY_S = 900


def _minilm_store(store: Path, env: dict[str, str]) -> None:
    """A new store for the real model, its bulk embedding at the writer's priority (``[embedder]
    bulk_nice = 0``): the lower priority is tested in test_bulk_priority.py; here, under a
    busy machine (the suite's own workers) a nice-10 thread gets about a tenth of a nice-0 one's
    share of the CPU, and the first batch could outlast the test's waits, while what these tests
    check does not depend on the priority."""
    assert run_mem("init", str(store), env=env).returncode == 0
    (store / "config.toml").write_text("[embedder]\nbulk_nice = 0\n", "utf-8")


N_KILL = 700  # three batches of 256: killed after the first


@pytest.mark.parametrize("how", ["import", "embed"])
def test_killed_halfway_keeps_records_and_vectors_and_the_catch_up_finishes(tmp_path: Path, how: str) -> None:
    """Real model, real SIGKILL: every record and every committed vector survive."""
    env = {"MEM_EMBEDDER": "minilm", "MEM_EMBED_THREADS": "1"}
    store = tmp_path / "s"
    _minilm_store(store, env)
    src = _jsonl(tmp_path / "a.jsonl", N_KILL, "the ferry to the island leaves at dawn, note")
    if how == "embed":
        assert run_mem("--store", str(store), "import", str(src), "--no-embed", env=env).returncode == 0
        args = ["embed"]
    else:
        args = ["import", str(src)]
    p, kept = _run_until_vectors(args, store, env, signal.SIGKILL)
    if p.returncode == 0:
        pytest.skip("the run finished before it could be killed")
    assert p.returncode == -signal.SIGKILL and 0 < kept < N_KILL
    r = run_mem("--store", str(store), "list", "--json", env=env)
    assert len(json.loads(r.stdout)) == N_KILL  # every record written before the embedding
    r = run_mem("--store", str(store), "embed", "--json", env=env, timeout=READY_S)
    rep = json.loads(r.stdout)
    assert r.returncode == 0, r.stderr
    assert rep["embedded"] == rep["missing"] == N_KILL - kept  # only the rest is embedded
    r = run_mem("--store", str(store), "search", "ferry island", "--json", env=env)
    assert "unembedded" not in json.loads(r.stdout)


def test_ctrl_c_says_what_was_kept(tmp_path: Path) -> None:
    env = {"MEM_EMBEDDER": "minilm", "MEM_EMBED_THREADS": "1"}
    store = tmp_path / "s"
    _minilm_store(store, env)
    src = _jsonl(tmp_path / "a.jsonl", N_KILL, "the ferry to the island leaves at dawn, note")
    assert run_mem("--store", str(store), "import", str(src), "--no-embed", env=env).returncode == 0
    p, kept = _run_until_vectors(["embed"], store, env, signal.SIGINT)
    if p.returncode == 0:
        pytest.skip("the run finished before it could be interrupted")
    err = p.stderr.read() if p.stderr else ""
    assert p.returncode == 130, err
    assert (f"mem: interrupted: {kept} records embedded and kept, {N_KILL - kept} still without a vector; "
            "run `mem embed` to embed the rest") in err
    r = run_mem("--store", str(store), "embed", "--json", env=env, timeout=READY_S)
    assert json.loads(r.stdout)["embedded"] == N_KILL - kept


def test_bulk_embedder_gives_the_vectors_of_the_embedder_alone() -> None:
    import numpy as np

    from mem.format.index.backlog import PIECE, BulkEmbedder

    texts = [("word " * (i % 17 + 1)) + str(i) for i in range(3 * PIECE + 5)]
    inner = CountingEmbedder()
    bulk = BulkEmbedder(inner, 2)
    try:
        got = bulk.embed(texts)
    finally:
        bulk.close()
    assert np.array_equal(got, HashingEmbedder().embed(texts))
    assert sorted(inner.calls) == sorted([PIECE] * 3 + [5])  # in pieces, at most PIECE each


class StuckEmbedder(HashingEmbedder):
    """An embedder whose calls stop only when interrupted: the first call sends SIGINT to the
    main thread (Ctrl-C during a bulk run's wait), then each waits for ``interrupt`` (60 s at
    most, and then it embeds, which the test counts as a failure)."""

    def __init__(self) -> None:
        import threading

        super().__init__()
        self.stop = threading.Event()
        self.started: list[int] = []
        self.finished: list[int] = []
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Any:
        import threading

        with self._lock:
            self.started.append(len(texts))
            first = len(self.started) == 1
        if first:
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        if self.stop.wait(60):
            raise RuntimeError("interrupted")
        self.finished.append(len(texts))
        return super().embed(texts)

    def interrupt(self) -> None:
        self.stop.set()


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_in_a_bulk_embedding_waits_for_none_of_its_work(workers: int) -> None:
    """Ctrl-C while a bulk run waits for its threads: the pieces not started are dropped and the
    embedder's calls in progress are interrupted, not waited for (close() joins the threads; a
    MiniLM batch at the pool's lower priority on a busy machine took a minute)."""
    from mem.format.index.backlog import PIECE, BulkEmbedder

    texts = [f"note {i}" for i in range(4 * PIECE)]
    inner = StuckEmbedder()
    bulk = BulkEmbedder(inner, workers)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # even under a runner that ignores it
    try:
        with pytest.raises(KeyboardInterrupt):
            bulk.embed(texts)
        bulk.close()
    finally:
        signal.signal(signal.SIGINT, before)
    assert inner.stop.is_set() and inner.finished == []
    assert len(inner.started) <= workers  # (of 1 call, or of 4 pieces: the 2 running; none queued)


def test_ctrl_c_in_rebuild_vectors_says_nothing_was_kept(tmp_path: Path) -> None:
    env = {"MEM_EMBEDDER": "minilm", "MEM_EMBED_THREADS": "1"}
    store = tmp_path / "s"
    _minilm_store(store, env)
    src = _jsonl(tmp_path / "a.jsonl", N_KILL, "the ferry to the island leaves at dawn, note")
    assert run_mem("--store", str(store), "import", str(src), "--no-embed", env=env).returncode == 0
    assert run_mem("--store", str(store), "search", "ferry", "--mode", "lexical", env=env).returncode == 0
    before = sorted(p.name for p in (store / ".mem" / "index").iterdir())
    full = {**os.environ, "NO_COLOR": "1", **env}
    p = subprocess.Popen([MEM_EXE, "--store", str(store), "rebuild", "--vectors"], env=full, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, preexec_fn=sigint_default)
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline and p.poll() is None:
        if any(x.name.startswith("build-") for x in (store / ".mem" / "index").iterdir()):
            time.sleep(1.0)  # into the embedding
            p.send_signal(signal.SIGINT)
            break
        time.sleep(0.05)
    _out, err = p.communicate(timeout=READY_S)
    if p.returncode == 0:
        pytest.skip("the rebuild finished before it could be interrupted")
    assert p.returncode == 130, err
    assert "mem: interrupted: the vector index is unchanged" in err and "mem embed" in err
    assert sorted(x.name for x in (store / ".mem" / "index").iterdir()) == before  # the build is gone


def test_a_merge_keeps_exactly_the_live_vectors_of_main_delta_and_dead_rows(sstore: Store) -> None:
    """merge_delta reads each scope's delta in id order (fill_scope): the merged generation holds
    the same vectors vector_for gives, for main rows, delta rows, changed and forgotten records."""
    import numpy as np

    from mem.format.index.backlog import merge_delta, open_for_embedding

    s = open_searcher(sstore)
    s.search("warm up", mode="hybrid")
    s.close()  # (its background thread would embed what the test leaves without a vector)
    _backlog(sstore, 40)
    emb = HashingEmbedder()
    embed_backlog(sstore, emb, merge_min=10)  # 40 rows into the main matrices
    _backlog(sstore, 30)  # 30 more, left in the delta
    embed_backlog(sstore, emb, merge_min=-1)
    recs = sorted(sstore.iter_records(["ana"]), key=lambda r: r.id)
    sstore.update(recs[0].id, content="kite changed after its vector was made")  # a main row goes stale
    sstore.update(recs[-1].id, content="kite changed too, in the delta")
    sstore.forget([recs[1].id])
    lex, vec = open_for_embedding(sstore, emb)
    rows = sorted((r.id, r.digest) for r in sstore.iter_records(["ana"]))
    want = {rid: vec.vector_for("ana", rid, dg) for rid, dg in rows}
    mat = np.empty((len(rows), emb.space.dim), dtype=np.float32)
    kept = vec.fill_scope("ana", rows, mat)
    lex.close()
    vec.close()
    assert [rid for rid, _dg in kept] == [rid for rid, v in sorted(want.items()) if v is not None]
    assert len(kept) == len(rows) - 2  # the two changed records have no valid vector
    assert all(np.array_equal(mat[i], want[rid]) for i, (rid, _dg) in enumerate(kept))
    merge_delta(sstore)
    _lex, vec = open_for_embedding(sstore, emb)
    try:
        assert all(np.array_equal(vec.vector_for("ana", rid, dg), want[rid]) for rid, dg in kept)
        assert int(vec.db.execute("SELECT count(*) FROM delta").fetchone()[0]) == 0
    finally:
        vec.close()
        _lex.close()
