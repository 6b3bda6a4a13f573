"""Concurrency: 4 writer processes x 250 adds at once, with readers running alongside.

All 1,000 records present and intact, ids unique, one audit chain per clone that verifies with
exactly one add event per record, no reader error; a writer that cannot take the lock in time
exits with ExitCode.LOCKED (7) and writes nothing.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_driver import content_for
from rel_harness import DRIVER, MEM_EXE, PYTHON, driver, driver_env, has_command, mem, parse_outcome

from mem.format.base.errors import ExitCode
from mem.format.base.lock import WriterLock
from mem.format.model.audit import verify_chain
from mem.format.model.record import canonical_body
from mem.format.store.store import Store

WRITERS = 4
PER_WRITER = 250
READERS = 2
READS_EACH = 15


@pytest.mark.parametrize(
    ("per_writer", "attach"),
    [(PER_WRITER, False), (10, True)],
    ids=["api-writers-searchers-refresh", "writers-update-index"],
)
def test_four_writers_with_parallel_reads(
    per_writer: int, attach: bool, tmp_path: Path, tally: Callable[..., None]
) -> None:
    """250 adds each through the API (the searches bring the index up to date under the lock),
    and a smaller run where every add also updates the index itself (a tantivy commit each).
    The store starts without an index: the two readers' first searches race to build it."""
    root = tmp_path / "s"
    Store.init(root, actor="reliability@test")
    read_cmd = "search" if has_command("search") else "list"
    # MEM_LOCK_TIMEOUT raised from 10 s: the writer lock polls (not fair), and on this shared
    # machine at load ~10 one of 4 index-updating writers once waited > 10 s and gave up (exit 7);
    # bench/soak.py --attach-index measures it (0 of 4 at load ~4). Correctness is what this tests.
    env = driver_env({"REL_SEARCH_CMD": read_cmd, "MEM_LOCK_TIMEOUT": "300",
                      "REL_ATTACH_INDEX": "1" if attach else "0"})
    # no index is built beforehand: the readers' first searches build it (serialized under the
    # writer lock, re-checked once held) while the writers add and swap nothing away
    procs = [
        subprocess.Popen(
            driver("add", root, tag=f"w{w}", n=per_writer, scope=f"scope-{w % 2}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for w in range(WRITERS)
    ]
    readers = [
        subprocess.Popen(
            [PYTHON, str(DRIVER), "search", "--store", str(root), "--mem", MEM_EXE, "--n", str(READS_EACH)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for _ in range(READERS)
    ]
    added: dict[str, tuple[str, int, str]] = {}
    all_ids: list[str] = []
    for w, p in enumerate(procs):
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        o = parse_outcome(out, killed=False)
        assert len(o.added) == per_writer
        for rid, (scope, i) in o.added.items():
            added[rid] = (scope, i, f"w{w}")
            all_ids.append(rid)
    read_errors: list[str] = []
    reads_ok = 0
    for p in readers:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        read_errors += [ln for ln in out.splitlines() if ln.startswith("ERROR")]
        reads_ok += sum(int(ln.split()[1]) for ln in out.splitlines() if ln.startswith("SEARCHES"))

    store = Store.open(root)
    problems: list[str] = []
    lost = 0
    assert len(all_ids) == len(set(all_ids)) == WRITERS * per_writer  # ids unique
    for rid, (scope, i, tag) in added.items():
        rec = store.get(rid, scope)
        if rec.content != canonical_body(content_for(tag, i)):
            lost += 1
    assert sum(1 for _ in store.iter_records()) == WRITERS * per_writer
    chains = sorted((root / "log").glob("*.jsonl"))
    if len(chains) != 1:
        problems.append(f"{len(chains)} audit chains for one clone")
    for c in chains:
        problems += [f"{c.name}:{p.line}: {p.message}" for p in verify_chain(c)]
    adds = Counter(ev["id"] for ev in store.log.iter_events() if ev["op"] == "add")
    problems += [f"{rid} has {adds[rid]} add events" for rid in added if adds[rid] != 1]
    problems += read_errors
    if has_command("verify"):
        v = mem("--store", str(root), "verify", "--json")
        if v.returncode != 0:
            problems.append(f"mem verify after the run: exit {v.returncode}: {v.stdout[-2000:]}")
    tally(
        f"concurrency: {WRITERS} writers x {per_writer} adds{' (each updating the index)' if attach else ''} + {READERS} `mem {read_cmd}` readers",
        trials=1, lost=lost, inconsistent=len(problems), examples=reads_ok,
        note=f"{reads_ok} reads alongside the writers, all answered",
    )
    assert lost == 0
    assert problems == [], "\n".join(problems)


def test_writer_that_cannot_lock_exits_7(tmp_path: Path, tally: Callable[..., None]) -> None:
    root = tmp_path / "s"
    Store.init(root, actor="reliability@test")
    before = sorted(p.name for p in (root / "records").rglob("*"))
    log_before = b"".join(p.read_bytes() for p in sorted((root / "log").glob("*.jsonl")))
    holder = WriterLock(root / ".mem" / "lock", timeout=1)
    with holder:
        r1 = mem("--store", str(root), "--lock-timeout", "0.2", "add", "blocked by the lock")
        r2 = mem("--store", str(root), "add", "blocked too", env={"MEM_LOCK_TIMEOUT": "0.1"})
        r3 = mem("--store", str(root), "--json-errors", "--lock-timeout", "0", "add", "and again")
    for r in (r1, r2, r3):
        assert r.returncode == ExitCode.LOCKED == 7, r.stderr
        assert r.stdout == ""
        assert "Traceback" not in r.stderr
    assert "writer lock" in r1.stderr and "lock-timeout" in r1.stderr
    import json

    assert json.loads(r3.stderr)["error"] == "locked"
    assert json.loads(r3.stderr)["exit_code"] == 7
    assert sorted(p.name for p in (root / "records").rglob("*")) == before
    assert b"".join(p.read_bytes() for p in sorted((root / "log").glob("*.jsonl"))) == log_before
    # and once the holder is gone the same command works
    assert mem("--store", str(root), "--lock-timeout", "0.2", "add", "now it works").returncode == 0
    tally("concurrency: writer lock timeout -> exit 7", trials=3, lost=0, inconsistent=0)


def test_search_survives_a_generation_swap_between_pointer_and_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem.format.index import lexical as lexmod
    from mem.format.index.derived import rebuild
    from mem.format.search.engine import open_searcher

    root = tmp_path / "s"
    s = Store.init(root, actor="reliability@test")
    for i in range(5):
        s.add(content_for("g", i), scope="default")
    rebuild(Store.open(root), lexical=True, vectors=False)
    real_open = lexmod.LexicalIndex.open.__func__  # type: ignore[attr-defined]
    swapped = {"done": False}

    def open_then_swap(cls: type, index_dir: Path) -> object:
        lex = real_open(cls, index_dir)
        if not swapped["done"]:  # another process swaps a generation in right now
            swapped["done"] = True
            rebuild(Store.open(root), lexical=True, vectors=False)
        return lex

    monkeypatch.setattr(lexmod.LexicalIndex, "open", classmethod(open_then_swap))
    with open_searcher(root, embedder="hashing") as searcher:
        res = searcher.search("workload", mode="lexical")
    assert len(res.hits) == 5
