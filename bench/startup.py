"""Whole-process start-up of `mem` against the interpreter floor, as medians of repeated runs.

    .venv/bin/python bench/startup.py [--runs 21] [--store examples/store]

Prints one row per command: median and p90 wall time in ms, and the ratio to `python -c pass`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--store", default=str(ROOT / "examples" / "store"))
    a = ap.parse_args()
    mem = str(Path(sys.executable).parent / "mem")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        shutil.copytree(a.store, store, ignore=shutil.ignore_patterns(".mem"))
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("python -c 'import mem.format'", [sys.executable, "-c", "import mem.format"]),
            ("mem --version", [mem, "--version"]),
            ("mem --help", [mem, "--help"]),
            ("mem list --json", [mem, "--store", str(store), "list", "--json"]),
            ("mem stats --json", [mem, "--store", str(store), "stats", "--json"]),
        ]
        rows = []
        base = None
        for name, argv in cases:
            timed(argv, 2)  # warm the page cache
            ts = timed(argv, a.runs)
            med = statistics.median(ts)
            p90 = sorted(ts)[int(0.9 * (len(ts) - 1))]
            base = base or med
            rows.append((name, med, p90, med / base))
    print(f"runs per command: {a.runs}; store: {a.store}")
    print(f"{'command':<34}{'median ms':>10}{'p90 ms':>9}{'× floor':>9}")
    for name, med, p90, ratio in rows:
        print(f"{name:<34}{med:>10.1f}{p90:>9.1f}{ratio:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
