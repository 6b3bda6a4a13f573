"""The garbage collector's passes during a long-lived searcher's full scan (issue 21): how many
of each generation, how long, and how many objects a full pass walks, with the searcher's
loaded objects frozen (``gc.freeze``) or not.

    python bench/scan_gc.py STORE [--scans 3] [--embedder hashing] [--freeze]

STORE: a store with both indexes built (read only: the scan's plan is made, nothing applied).
A long-lived searcher is opened and warmed by a few hybrid searches (its background thread
stopped, so that only the scans below run); ``--freeze`` then calls ``gc.collect()`` and
``gc.freeze()`` as ``open_searcher(freeze_gc=True)`` does. Each scan is the plan a full scan
makes (``staleness._plan(store, lex, full=True)``: every record file stat-ed and compared with
the index's state, one scope's state at a time). The counts do not depend on the machine's
load; the times do (the load average is printed). To compare with another commit, run this
file from that commit's tree: ``PYTHONPATH=TREE/src python bench/scan_gc.py ...``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from pathlib import Path

QUERIES = ["who is behind schedule", "travel recommendations for food", "team lead contact",
           "what happened last week", "keep messages short", "kite flying on the hill"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--scans", type=int, default=3)
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--freeze", action="store_true")
    args = ap.parse_args()
    os.environ["MEM_EMBEDDER"] = args.embedder
    import mem
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.staleness import _plan
    from mem.format.search.engine import open_searcher
    from mem.format.store.store import Store

    print(f"mem from {Path(mem.__file__).resolve().parent}; load average {os.getloadavg()[0]:.1f}; "
          f"freeze {args.freeze}", flush=True)
    s = open_searcher(args.store)
    for q in QUERIES:
        s.search(q, mode="hybrid")
    if s._follower is not None:
        s._follower.stop()
    gc.collect()
    tracked = len(gc.get_objects())
    if args.freeze:
        gc.freeze()
    t = time.thread_time()
    gc.collect()
    full_ms = 1000 * (time.thread_time() - t)
    print(f"objects the collector tracks in the warmed searcher: {tracked:,}; a full gc.collect(): "
          f"{full_ms:.1f} ms CPU; frozen: {gc.get_freeze_count():,}")
    passes: list[tuple[int, float, float]] = []  # generation, wall s, this thread's CPU s
    start: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            start[:] = [time.perf_counter(), time.thread_time()]
        elif start:
            passes.append((int(info.get("generation", -1)), time.perf_counter() - start[0],
                           time.thread_time() - start[1]))

    store = Store.open(args.store)
    lex = LexicalIndex.open(store.index_dir)
    assert lex is not None
    walls = []
    gc.callbacks.append(on_gc)
    for _ in range(args.scans):
        t = time.perf_counter()
        plan = _plan(store, lex, True)
        walls.append(time.perf_counter() - t)
        assert not plan.puts and not plan.deletes, "the store changed: give a store nothing writes to"
    gc.callbacks.remove(on_gc)
    lex.close()
    s.close()
    docs = lex.manifest.get("docs")
    print(f"full scans of {docs} records: {args.scans}, wall median {statistics.median(walls):.2f} s")
    print("| generation | passes per scan | wall median / max ms | CPU median / max ms | CPU ms per scan |\n"
          "|---|---|---|---|---|")
    for g in (0, 1, 2):
        d = [1000 * x for gen, x, _c in passes if gen == g]
        c = [1000 * y for gen, _x, y in passes if gen == g]
        if d:
            print(f"| {g} | {len(d) / args.scans:.1f} | {statistics.median(d):.2f} / {max(d):.2f} | "
                  f"{statistics.median(c):.2f} / {max(c):.2f} | {sum(c) / args.scans:.1f} |")
        else:
            print(f"| {g} | 0 | - | - | 0 |")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
