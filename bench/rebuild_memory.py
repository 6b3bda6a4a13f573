"""`mem rebuild --vectors` side by side: peak RSS and records/s of two `mem` executables on the
same store, alternating (issue 21, "Memory bounded").

    python bench/rebuild_memory.py STORE [STORE ...] --base /path/to/old/mem [--runs 3]
                                   [--embedder hashing] [--args --vectors]

Each run is one whole process under /usr/bin/time (wall seconds, user+system CPU seconds, peak
RSS); the two executables take turns (base, this checkout's `mem`, base, ...), so that a change
in the machine's load falls on both. Prints per store: the medians of each, records/s (wall and
per CPU-second) and the ratios new / base. ``--base`` is any command that runs another version
of mem (e.g. a script that puts an extracted tree of main first on PYTHONPATH). Not a test:
nothing is asserted; the load average at start and end is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MEM = str(Path(sys.executable).parent / "mem")


def timed(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf.name, *cmd], env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        fields = tf.read().split()
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    wall, user, sys_, kb = (float(x) for x in fields[-4:])
    return {"wall": wall, "cpu": user + sys_, "rss_mb": kb / 1024, "out": p.stdout}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("stores", type=Path, nargs="+")
    ap.add_argument("--base", required=True, help="the baseline mem command")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--args", nargs="*", default=["--vectors"])
    a = ap.parse_args()
    env = {**os.environ, "MEM_EMBEDDER": a.embedder, "NO_COLOR": "1", "MEM_ACTOR": "bench@bench"}
    print(f"load average at start: {os.getloadavg()[0]:.1f}; embedder {a.embedder}; "
          f"`mem rebuild {' '.join(a.args)}`; {a.runs} runs each, alternating", flush=True)
    print("| store | records | version | wall s (median) | rec/s | rec/CPU-s | peak RSS MB (median; min-max) |")
    print("|---|---|---|---|---|---|---|")
    for store in a.stores:
        got: dict[str, list[dict[str, Any]]] = {"base": [], "new": []}
        n = 0
        for _ in range(a.runs):
            for name, exe in (("base", a.base), ("new", MEM)):
                r = timed([exe, "--store", str(store), "rebuild", *a.args, "--json"], env)
                n = int(json.loads(r["out"])["records"])
                got[name].append(r)
                print(f"  {name}: {r['wall']:.1f} s, {r['cpu']:.1f} CPU-s, {r['rss_mb']:.0f} MB "
                      f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        med: dict[str, dict[str, float]] = {}
        for name, runs in got.items():
            m = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "rss_mb")}
            med[name] = m
            rss = [r["rss_mb"] for r in runs]
            print(f"| {store.name} | {n:,} | {name} | {m['wall']:.1f} | {n / m['wall']:.0f} | {n / m['cpu']:.0f} | "
                  f"{m['rss_mb']:.0f} ({min(rss):.0f}-{max(rss):.0f}) |")
        print(f"| {store.name} | | new / base | {med['new']['wall'] / med['base']['wall']:.2f} | | "
              f"{med['base']['cpu'] / med['new']['cpu']:.2f} (rec/CPU-s) | "
              f"{med['new']['rss_mb'] / med['base']['rss_mb']:.2f} |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
