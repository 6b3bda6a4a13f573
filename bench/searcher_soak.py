"""A long-lived searcher under a steady stream of searches and writes (issue 21): no search
slower than 5x its p50, the background full scan and the new records' vectors included.

    python bench/searcher_soak.py STORE [--minutes 10] [--write-every 5] [--embedder minilm]

STORE: an existing store with both indexes built (e.g. the 100k store `bench/import_search.py
--n 100000` leaves). One long-lived searcher (``open_searcher``, as the MCP server keeps) runs
hybrid searches back to back for ``--minutes``, cycling over a few queries; meanwhile, every
``--write-every`` seconds, a separate `mem add` process writes a record (the searcher's background
thread, format/index/follower.py, indexes and embeds it). Prints the latency table (p50, p90,
p99, max, max / p50, searches over 5x p50), how many full scans and index-changing rounds the
background thread ran, and the slowest searches with their time into the run. Not a test:
nothing is asserted; the machine's load is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from mem.format.search.engine import open_searcher

MEM = str(Path(sys.executable).parent / "mem")
QUERIES = ["who is behind schedule", "travel recommendations for food", "team lead contact",
           "what happened last week", "keep messages short", "kite flying on the hill"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--write-every", type=float, default=5.0)
    ap.add_argument("--embedder", default="minilm")
    args = ap.parse_args()
    os.environ["MEM_EMBEDDER"] = args.embedder
    env = {**os.environ, "MEM_ACTOR": "bench@bench", "NO_COLOR": "1"}
    print(f"load average at start: {os.getloadavg()[0]:.1f}; store {args.store}; {args.minutes} min", flush=True)
    s = open_searcher(args.store)
    for q in QUERIES:  # warm: the model, the indexes, the page cache
        s.search(q, mode="hybrid")
    stop = threading.Event()
    writes: list[float] = []

    def writer() -> None:
        i = 0
        while not stop.wait(args.write_every):
            t = time.perf_counter()
            subprocess.run([MEM, "--store", str(args.store), "add", f"kite flying note {i} on the hill, soak run",
                            "--scope", "ana"], env=env, capture_output=True, stdin=subprocess.DEVNULL)
            writes.append(time.perf_counter() - t)
            i += 1

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    lat: list[tuple[float, float, int]] = []  # (seconds into the run, latency s, unembedded)
    t0 = time.perf_counter()
    end = t0 + args.minutes * 60
    i = 0
    while time.perf_counter() < end:
        t = time.perf_counter()
        res = s.search(QUERIES[i % len(QUERIES)], mode="hybrid")
        lat.append((t - t0, time.perf_counter() - t, res.unembedded))
        i += 1
    stop.set()
    th.join()
    follower = getattr(s, "_follower", None)
    scans = getattr(follower, "scans", None)
    rounds = getattr(follower, "rounds", None)
    s.close()
    ms = sorted(x[1] * 1000 for x in lat)
    p50 = statistics.median(ms)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    over = sum(1 for x in ms if x > 5 * p50)
    print("| measure | value |\n|---|---|")
    print(f"| searches (hybrid, one long-lived searcher) | {len(ms):,} in {args.minutes:g} min |")
    print(f"| p50 / p90 / p99 / max | {p50:.1f} / {q[89]:.1f} / {q[98]:.1f} / {ms[-1]:.1f} ms |")
    print(f"| max / p50 | {ms[-1] / p50:.1f}x |")
    print(f"| searches over 5x p50 | {over} |")
    print(f"| full scans run by the background thread | {scans} |")
    print(f"| rounds of the background thread that changed the index | {rounds} |")
    print(f"| records written meanwhile (`mem add`, one process each) | {len(writes)} |")
    print(f"| most unembedded records a search reported | {max(x[2] for x in lat)} |")
    slow = sorted(lat, key=lambda x: -x[1])[:5]
    print("slowest: " + ", ".join(f"{x[1] * 1000:.0f} ms at {x[0]:.0f} s" for x in slow))
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
