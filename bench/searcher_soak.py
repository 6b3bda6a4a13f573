"""A long-lived searcher under a steady stream of searches and writes (issue 21): no search
slower than 5x its p50, the background full scan and the new records' vectors included.

    python bench/searcher_soak.py STORE [--minutes 10] [--write-every 5] [--embedder minilm]

STORE: an existing store with both indexes built (e.g. the 100k store `bench/import_search.py
--n 100000` leaves); the run writes to it (give it a copy). One long-lived searcher
(``open_searcher``, as the MCP server keeps: with ``freeze_gc`` unless ``--no-freeze``) runs
hybrid searches back to back for ``--minutes``, cycling over a few queries; meanwhile, every
``--write-every`` seconds, a separate `mem add` process writes a record (the searcher's background
thread, format/index/follower.py, indexes and embeds it). Prints the latency table (p50, p90,
p99, max, max / p50, searches over 5x p50), how many full scans and index-changing rounds the
background thread ran, and the slowest searches with their time into the run. Not a test:
nothing is asserted; the machine's load is printed.

The timeline (``--timeline``, on by default): what overlapped each search slower than 5x p50,
from hooks that only note times: the garbage collector's passes (``gc.callbacks``: generation,
duration), the background thread's rounds (``Follower.round`` wrapped: a full scan, a round that
changed the index, or one that did neither), the `mem add` processes, and the load average
sampled every 5 s. Prints the slow searches by what overlapped them, per minute, and the 15
slowest each with its overlaps.
"""

from __future__ import annotations

import argparse
import gc
import json
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
    ap.add_argument("--no-timeline", dest="timeline", action="store_false")
    ap.add_argument("--no-freeze", dest="freeze", action="store_false",
                    help="open the searcher without freeze_gc (the MCP server and --batch freeze)")
    args = ap.parse_args()
    os.environ["MEM_EMBEDDER"] = args.embedder
    env = {**os.environ, "MEM_ACTOR": "bench@bench", "NO_COLOR": "1"}
    print(f"load average at start: {os.getloadavg()[0]:.1f}; store {args.store}; {args.minutes} min; "
          f"freeze_gc {args.freeze}", flush=True)
    s = open_searcher(args.store, freeze_gc=args.freeze)
    for q in QUERIES:  # warm: the model, the indexes, the page cache
        s.search(q, mode="hybrid")
    stop = threading.Event()
    writes: list[float] = []
    new_ids: set[str] = set()  # records the `mem add`s made (an add of a content already stored makes none)
    tl = Timeline(getattr(s, "_follower", None)) if args.timeline else None
    # this run's own contents: `mem add` is idempotent, and a store an earlier run wrote to holds
    # that run's notes (run on such a copy, 105 of 110 adds wrote nothing)
    run = time.strftime("%Y%m%d%H%M%S")

    def writer() -> None:
        i = 0
        while not stop.wait(args.write_every):
            t = time.perf_counter()
            out = subprocess.run([MEM, "--store", str(args.store), "add",
                                  f"kite flying note {i} on the hill, soak run {run}", "--scope", "ana", "--json"],
                                 env=env, capture_output=True, stdin=subprocess.DEVNULL, text=True)
            writes.append(time.perf_counter() - t)
            if out.returncode == 0 and f"soak run {run}" in out.stdout:
                new_ids.add(json.loads(out.stdout)["id"])
            if tl is not None:
                tl.writes.append((t, time.perf_counter()))
            i += 1

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    lat: list[tuple[float, float, int]] = []  # (seconds into the run, latency s, unembedded)
    t0 = time.perf_counter()
    if tl is not None:
        tl.start(t0, stop)
    end = t0 + args.minutes * 60
    i = 0
    while time.perf_counter() < end:
        t = time.perf_counter()
        res = s.search(QUERIES[i % len(QUERIES)], mode="hybrid")
        lat.append((t - t0, time.perf_counter() - t, res.unembedded))
        i += 1
    stop.set()
    th.join()
    if tl is not None:
        tl.stop()
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
    print(f"| records written meanwhile (`mem add`, one process each) | {len(new_ids)} of {len(writes)} adds |")
    print(f"| most unembedded records a search reported | {max(x[2] for x in lat)} |")
    slow = sorted(lat, key=lambda x: -x[1])[:5]
    print("slowest: " + ", ".join(f"{x[1] * 1000:.0f} ms at {x[0]:.0f} s" for x in slow))
    if tl is not None:
        tl.report(lat, 5 * p50 / 1000, t0)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


Span = tuple[float, float, str]  # (start, end, what), perf_counter seconds


class Timeline:
    """Times of what may slow a search, noted by hooks (see the module text)."""

    def __init__(self, follower: object) -> None:
        self.gcs: list[Span] = []
        self.rounds: list[Span] = []
        self.writes: list[tuple[float, float]] = []
        self.loads: list[tuple[float, float]] = []
        self._gc_start: float | None = None
        self._follower = follower
        self._sampler: threading.Thread | None = None

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        elif self._gc_start is not None:
            self.gcs.append((self._gc_start, time.perf_counter(), f"gc{info.get('generation')}"))
            self._gc_start = None

    def start(self, t0: float, stop: threading.Event) -> None:
        gc.callbacks.append(self._gc)
        f = self._follower
        if f is not None:
            real = f.round  # type: ignore[attr-defined]

            def round_(poked: bool = True) -> None:
                scans, rounds, t = f.scans, f.rounds, time.perf_counter()  # type: ignore[attr-defined]
                try:
                    real(poked)
                finally:
                    kind = ("scan" if f.scans != scans else  # type: ignore[attr-defined]
                            "change" if f.rounds != rounds else "round")  # type: ignore[attr-defined]
                    self.rounds.append((t, time.perf_counter(), kind))

            f.round = round_  # type: ignore[attr-defined]

        def sample() -> None:
            while not stop.wait(5.0):
                self.loads.append((time.perf_counter() - t0, os.getloadavg()[0]))

        self._sampler = threading.Thread(target=sample, daemon=True)
        self._sampler.start()

    def stop(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)

    def overlaps(self, a: float, b: float) -> list[str]:
        out = []
        for s, e, what in self.gcs:
            if s < b and e > a:
                out.append(f"{what} {1000 * (e - s):.0f} ms")
        for s, e, what in self.rounds:
            if s < b and e > a and (what != "round" or e - s > 0.005):  # not the idle rounds
                out.append(f"follower {what} {1000 * (e - s):.0f} ms")
        if any(s < b and e > a for s, e in self.writes):
            out.append("mem add running")
        return out

    def report(self, lat: list[tuple[float, float, int]], slow_s: float, t0: float) -> None:
        slow = [(at, dt) for at, dt, _u in lat if dt > slow_s]
        kinds: dict[str, int] = {}
        per_min: dict[int, int] = {}
        for at, dt in slow:
            a = t0 + at
            o = self.overlaps(a, a + dt)
            tags = sorted({" ".join(x.split(" ")[:2]) if x.startswith(("follower", "mem")) else x.split(" ")[0]
                           for x in o}) or ["nothing noted"]
            key = " + ".join(tags)
            kinds[key] = kinds.get(key, 0) + 1
            per_min[int(at // 60)] = per_min.get(int(at // 60), 0) + 1
        gen = {g: sum(1 for *_x, w in self.gcs if w == g) for g in ("gc0", "gc1", "gc2")}
        g2 = [e - s for s, e, w in self.gcs if w == "gc2"]
        print(f"timeline: {len(slow)} searches over 5x p50 ({1000 * slow_s:.1f} ms); GC passes {gen}, "
              f"gen-2 max {1000 * max(g2, default=0):.0f} ms; follower rounds "
              f"{ {k: sum(1 for *_x, w in self.rounds if w == k) for k in ('scan', 'change', 'round')} }; "
              f"writes {len(self.writes)}")
        scans = sorted(e - s for s, e, w in self.rounds if w == "scan")
        changes = sorted(1000 * (e - s) for s, e, w in self.rounds if w == "change")
        if scans:
            print(f"full scans: {len(scans)}, {scans[0]:.1f}-{scans[-1]:.1f} s each")
        if changes:
            print(f"rounds that changed the index (not scans): {len(changes)}, median {statistics.median(changes):.0f} ms, "
                  f"max {changes[-1]:.0f} ms")
        print("| what overlapped the slow search | searches |\n|---|---|")
        for k, v in sorted(kinds.items(), key=lambda x: -x[1]):
            print(f"| {k} | {v} |")
        print("slow searches per minute: " + ", ".join(f"{m}: {per_min.get(m, 0)}"
                                                      for m in range(max(per_min, default=-1) + 1)))
        print("load average every 5 s: " + " ".join(f"{v:.1f}" for _t, v in self.loads))
        for at, dt in sorted(slow, key=lambda x: -x[1])[:15]:
            a = t0 + at
            print(f"  {1000 * dt:.0f} ms at {at:.1f} s: {', '.join(self.overlaps(a, a + dt)) or 'nothing noted'}")


if __name__ == "__main__":
    main()
