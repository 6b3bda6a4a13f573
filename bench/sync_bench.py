"""``mem sync`` at scale: its time for 1 and 100 changed records in a large store, beside plain
git doing the same exchange (the floor), and a simulation of a team's day.

    python bench/sync_bench.py --records 100000 --changes 1 100 --runs 3 [--work /tmp/syncbench]
    python bench/sync_bench.py --simulate            # the team table only (no store needed)

Part 1 builds a store of N records (bench/corpus.py), commits it to a bare remote and makes two
clones, A (writes) and B (reads), each with its lexical index built. Each round imports k new
records into A, then times, interleaved with the same exchange done by plain git:

- ``mem sync`` on A (commit, fetch, push) against ``git add -A; git commit; git push``;
- ``mem sync`` on B (fetch, merge, forget check, index refresh) against ``git pull``.

Reported: medians of the whole commands (process start included) and the ratio to git. The cost
should grow with k, not with N.

Part 2 simulates W writers a day (each writing 20 times a day, 80% adds and 20% updates of the
records of a shared hot set, syncing every 15 minutes, each sync's time taken from part 1) and
counts how often a push finds that another machine pushed first (a retry), and how often two
machines changed the same record between two syncs (a field merge; a content conflict becomes
a candidate for review). Its model: a push that arrives while another push is in flight is
retried (a whole sync again); the costs are part 1's figures (``--sync-seconds``,
``--per-change-ms``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "MEM_ACTOR": "bench@bench",
       "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@bench", "GIT_COMMITTER_NAME": "bench",
       "GIT_COMMITTER_EMAIL": "bench@bench"}  # fmt: skip


def sh(args: list[str], cwd: Path, check: bool = True) -> float:
    t = time.perf_counter()
    p = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    if check and p.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {cwd}: {p.stderr}")
    return time.perf_counter() - t


def build(work: Path, n: int) -> tuple[Path, Path, Path, Path]:
    """(A, B, A-git, B-git): clones of one store of ``n`` records (built once, then reused)."""
    from corpus import generate

    seed = work / f"seed-{n}"
    remote = work / f"remote-{n}.git"
    if not remote.exists():
        generate(seed, n)
        sh([str(BIN / "mem"), "init", "--git"], seed)
        sh(["git", "checkout", "-q", "-b", "main"], seed)
        sh(["git", "add", "-A"], seed)
        sh(["git", "commit", "-q", "--no-verify", "-m", "seed"], seed)
        sh(["git", "init", "-q", "--bare", "-b", "main", str(remote)], work)
        sh(["git", "push", "-q", str(remote), "main"], seed)
    clones = []
    for name in ("A", "B", "A-git", "B-git"):
        d = work / f"{name}-{n}"
        if not d.exists():
            sh(["git", "clone", "-q", str(remote), str(d)], work)
            sh([str(BIN / "mem"), "init", "--git"], d)
            sh([str(BIN / "mem"), "rebuild", "--lexical"], d)
        clones.append(d)
    return clones[0], clones[1], clones[2], clones[3]


def add_records(d: Path, k: int, tag: str) -> None:
    lines = [json.dumps({"scope": "ana", "kind": "fact", "content": f"sync bench {tag} record {i} {time.time_ns()}"})
             for i in range(k)]
    f = d.parent / f"in-{tag}.jsonl"
    f.write_text("\n".join(lines) + "\n", "utf-8")
    sh([str(BIN / "mem"), "import", str(f), "--from", "jsonl", "--no-embed"], d)


def part_sync(a: argparse.Namespace) -> None:
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    A, B, Ag, Bg = build(work, a.records)
    print(f"store of {a.records} records, 4 clones: {time.perf_counter() - t:.0f} s to set up", file=sys.stderr)
    rows = []
    for k in a.changes:
        push_m, push_g, pull_m, pull_g = [], [], [], []
        for r in range(a.runs):
            for order in ((True, False) if r % 2 == 0 else (False, True)):
                if order:
                    add_records(A, k, f"m{k}-{r}")
                    push_m.append(sh([str(BIN / "mem"), "sync"], A))
                    pull_m.append(sh([str(BIN / "mem"), "sync", "--no-push"], B))
                else:
                    add_records(Ag, k, f"g{k}-{r}")
                    t = time.perf_counter()
                    sh(["git", "add", "-A"], Ag)
                    sh(["git", "commit", "-q", "--no-verify", "-m", "bench"], Ag)
                    sh(["git", "pull", "-q", "--no-rebase", "--no-edit"], Ag)
                    sh(["git", "push", "-q"], Ag)
                    push_g.append(time.perf_counter() - t)
                    pull_g.append(sh(["git", "pull", "-q", "--no-rebase", "--no-edit"], Bg))
        rows.append((k, statistics.median(push_m), statistics.median(push_g), statistics.median(pull_m),
                     statistics.median(pull_g)))
    print(f"\n`mem sync` in a store of {a.records:,} records, medians of {a.runs} runs (whole commands, seconds)\n")
    print("| changed records | mem sync, sending | git add+commit+pull+push | ratio | mem sync --no-push, receiving | git pull | ratio |")
    print("|---|---|---|---|---|---|---|")
    for k, pm, pg, qm, qg in rows:
        print(f"| {k} | {pm:.2f} | {pg:.2f} | {pm / pg:.1f}x | {qm:.2f} | {qg:.2f} | {qm / qg:.1f}x |")


def simulate(writers: int, sync_s: float, per_change_s: float, push_s: float = 0.3, seed: int = 1) -> dict[str, float]:
    """One day of ``writers`` machines (see the module text); returns the rates."""
    rng = random.Random(seed)
    writes_per_day, interval, hot = 20, 15 * 60, 500
    events: list[tuple[float, int, str, int]] = []  # (time, writer, op, record)
    for w in range(writers):
        for _ in range(writes_per_day):
            at = rng.uniform(0, 86_400)
            events.append((at, w, "update" if rng.random() < 0.2 else "add", rng.randrange(hot)))
    events.sort()
    offsets = [rng.uniform(0, interval) for _ in range(writers)]
    pending: list[set[int]] = [set() for _ in range(writers)]  # hot records changed since last sync
    changed_since: dict[int, float] = {}  # record -> last time a sync pushed a change to it
    last_sync = [-interval + o for o in offsets]
    syncs = retries = conflicts = 0
    spent = 0.0
    busy_until = 0.0  # the remote: a push that lands while another's push is in flight is retried
    ei = 0
    t = 0.0
    while t < 86_400:
        t += 1.0
        while ei < len(events) and events[ei][0] <= t:
            _, w, op, rec = events[ei]
            if op == "update":
                pending[w].add(rec)
            ei += 1
        for w in range(writers):
            if t - last_sync[w] >= interval:
                syncs += 1
                dur = sync_s + per_change_s * len(pending[w])
                if t < busy_until:
                    retries += 1
                    dur *= 2  # fetch, merge and push again
                busy_until = max(busy_until, t) + push_s
                spent += dur
                for rec in pending[w]:
                    if changed_since.get(rec, -1e9) > last_sync[w]:
                        conflicts += 1
                    changed_since[rec] = t
                pending[w].clear()
                last_sync[w] = t
    return {"syncs": syncs, "retries": retries, "conflicts": conflicts, "mean_s": spent / max(1, syncs)}


def part_simulate(sync_s: float, per_change_s: float) -> None:
    print("\nA team's day, simulated (20 writes per machine a day, 20% of them updates of a hot set of 500 "
          f"records, a sync every 15 minutes of {sync_s:.2f} s + {per_change_s * 1000:.1f} ms per changed record, "
          "the remote busy 0.3 s per push)\n")
    print("| writers | syncs a day | mean sync time (s) | pushes retried (another pushed first) | same record changed on two machines between syncs |")
    print("|---|---|---|---|---|")
    for w in (10, 100, 1000):
        r = simulate(w, sync_s, per_change_s)
        print(f"| {w} | {r['syncs']:,} | {r['mean_s']:.2f} | {r['retries']:,} ({r['retries'] / r['syncs']:.1%}) | "
              f"{r['conflicts']:,} ({r['conflicts'] / max(1, w * 20 * 0.2):.1%} of updates) |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--changes", type=int, nargs="+", default=[1, 100])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default="/tmp/syncbench")
    ap.add_argument("--simulate", action="store_true", help="the team table only")
    ap.add_argument("--sync-seconds", type=float, default=1.0, help="simulation: one sync's fixed cost")
    ap.add_argument("--per-change-ms", type=float, default=5.0, help="simulation: cost per changed record")
    a = ap.parse_args()
    if not a.simulate:
        part_sync(a)
    part_simulate(a.sync_seconds, a.per_change_ms / 1000)


if __name__ == "__main__":
    main()
