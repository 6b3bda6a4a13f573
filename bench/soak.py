"""Reliability soak: many more SIGKILL trials and concurrent-writer rounds than the CI suite.

Not part of the test suite (no assertions on time); prints a JSON summary and exits non-zero
when a record was lost or an inconsistency was left after recovery.

    .venv/bin/python bench/soak.py --trials 200 --rounds 3 --writers 4 --per-writer 250

Crash trials rotate over API adds, CLI `mem add` loops, batched adds and forget cascades
(the same workloads and checks as tests/reliability/test_rel_crash.py, seeded). Concurrency
rounds run ``--writers`` processes of ``--per-writer`` API adds each, with the default writer
lock timeout (10 s) unless ``--lock-timeout`` is given, and report how many writers gave up
with exit 7 (lock starvation) and the wall time of each round.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reliability"))

from rel_harness import (
    check_store,
    driver,
    driver_env,
    next_write_works,
    parse_outcome,
    recover,
    run_and_kill,
    seeded,
)

from mem.format.model.audit import verify_chain
from mem.format.store.store import Store


def lineage(root: Path) -> tuple[list[str], dict[str, tuple[str, int]]]:
    from rel_driver import content_for

    s = Store.init(root, actor="soak@test")
    roots: list[str] = []
    live: dict[str, tuple[str, int]] = {}
    i = 0
    with s.batch():
        for _ in range(10):
            prev: list[str] = []
            first = ""
            for _depth in range(4):
                r = s.add(content_for("L", i), scope="default", derived_from=prev)
                live[r.id] = ("default", i)
                i += 1
                first = first or r.id
                prev = [r.id]
            roots.append(first)
    return roots, live


def crash_trials(n: int, work: Path) -> dict[str, dict[str, int]]:
    template = work / "template"
    Store.init(template, actor="soak@test")
    lin = work / "lineage"
    roots, live = lineage(lin)
    rows: dict[str, dict[str, int]] = {}
    kinds = ("add", "cli-add", "batch", "forget")
    for t in range(n):
        kind = kinds[t % len(kinds)]
        rnd = seeded(50_000 + t)
        root = work / f"t{t}"
        shutil.copytree(lin if kind == "forget" else template, root, symlinks=True)
        tag = "L" if kind == "forget" else f"s{t}"
        if kind == "add":
            out = run_and_kill(driver("add", root, tag=tag, n=2000), delay=rnd.uniform(0, 0.6))
        elif kind == "cli-add":
            out = run_and_kill(driver("cli-add", root, tag=tag, n=100), delay=rnd.uniform(0.2, 2.0))
        elif kind == "batch":
            out = run_and_kill(driver("batch", root, tag=tag, n=2000, batch_size=9), delay=rnd.uniform(0, 0.6))
        else:
            out = run_and_kill(driver("forget", root), stdin="\n".join(roots), delay=rnd.uniform(0, 0.4))
        recover(root)
        lost, problems = check_store(root, out, tag=tag, expected_live=live if kind == "forget" else None)
        problems += next_write_works(root, cli=False)
        r = rows.setdefault(kind, {"trials": 0, "lost": 0, "inconsistent": 0, "reported_writes": 0})
        r["trials"] += 1
        r["lost"] += lost
        r["inconsistent"] += len(problems)
        r["reported_writes"] += len(out.added) + len(out.forgotten)
        if problems:
            print(f"trial {t} ({kind}): {problems[:5]}", file=sys.stderr)
        shutil.rmtree(root)
    return rows


def concurrency_round(k: int, writers: int, per_writer: int, lock_timeout: str | None, work: Path,
                      attach: bool = False) -> dict[str, object]:
    root = work / f"c{k}"
    Store.init(root, actor="soak@test")
    extra = {"MEM_LOCK_TIMEOUT": lock_timeout} if lock_timeout else {}
    if attach:  # every add also updates the lexical/vector index (like `mem add`)
        from mem.format.index.derived import rebuild

        rebuild(Store.open(root), lexical=True, vectors=False)
        extra["REL_ATTACH_INDEX"] = "1"
    env = driver_env(extra)
    t0 = time.monotonic()
    procs = [
        subprocess.Popen(driver("add", root, tag=f"w{w}", n=per_writer), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
        for w in range(writers)
    ]
    results = [p.communicate() for p in procs]
    wall = time.monotonic() - t0
    added = 0
    locked = 0
    for p, (out, err) in zip(procs, results, strict=True):
        added += len(parse_outcome(out, killed=False).added)
        if p.returncode != 0 and "writer lock" in err:
            locked += 1
    s = Store.open(root)
    present = sum(1 for _ in s.iter_records())
    chain = sum(len(verify_chain(c)) for c in sorted((root / "log").glob("*.jsonl")))
    shutil.rmtree(root)
    return {"wall_s": round(wall, 2), "index_per_add": attach, "reported": added, "present": present,
            "writers_gave_up_on_lock": locked, "chain_problems": chain}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--per-writer", type=int, default=250)
    ap.add_argument("--attach-index", action="store_true", help="writers update the index on every add")
    ap.add_argument("--lock-timeout", default=None, help="MEM_LOCK_TIMEOUT for the writers (default: mem's 10 s)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mem-soak-") as tmp:
        work = Path(tmp)
        crash = crash_trials(args.trials, work)
        rounds = [concurrency_round(k, args.writers, args.per_writer, args.lock_timeout, work, args.attach_index)
                  for k in range(args.rounds)]
    summary = {"crash": crash, "concurrency": rounds}
    print(json.dumps(summary, indent=1))
    bad = any(r["lost"] or r["inconsistent"] for r in crash.values()) or any(
        r["present"] != r["reported"] or r["chain_problems"] for r in rounds
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
