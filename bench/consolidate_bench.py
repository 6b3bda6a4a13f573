"""Benchmark ``mem consolidate``: planning, a no-op re-run, and the cost per window.

    python bench/consolidate_bench.py [--sizes 10000 100000] [--runs 3] [--windows 10] [--work DIR]

For each size, builds a store with bench/corpus.py (about 1 record in 13 is an episode, in three
scopes), then measures, side by side and alternating, warm cache, median of ``--runs``:

* ``plan`` (in process): ``Consolidation(mode="plan").plan()`` against the baseline
  ``scan``: one pass of ``store.iter_records()`` (parse every record).
* ``rerun`` (whole process): ``mem consolidate --summarizer S --json`` when every stream is
  already consolidated (nothing to do) against the baseline ``mem stats --json`` (a command
  that also reads every record).
* ``per_window``: a real run of ``--windows`` windows with the deterministic test summarizer
  (tests/consolidate/summarizers/fake.py), minus the fixed cost of a run (a ``--dry-run`` of
  the same store: start-up and the planning scan), per window, against the baseline of running
  the same summarizer on the same window documents directly (``run_summarizer``): the ratio is
  mem's cost per window (the call, validation, the journal, the records, fsyncs, the watermark)
  over the summarizer's own.

Prints one JSON line per size and writes bench/out/consolidate.json.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import generate  # noqa: E402

from mem.format.ops.consolidate import Consolidation, Options, run_summarizer  # noqa: E402
from mem.format.store.store import Store  # noqa: E402

MEM = str(Path(sys.executable).parent / "mem")
FAKE = [
    sys.executable,
    str(HERE.parent / "tests" / "consolidate" / "summarizers" / "fake.py"),
    "ok",
]


def _time(fn: object) -> float:
    t = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - t


def _proc(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True)


def bench_size(work: Path, n: int, runs: int, windows: int) -> dict[str, object]:
    root = work / f"store-{n}"
    if root.exists():
        shutil.rmtree(root)
    generate(root, n)
    store = Store.open(root)
    out: dict[str, object] = {"records": n}

    # 1. planning vs one parse pass
    plan_t, scan_t = [], []
    for _ in range(runs):
        scan_t.append(_time(lambda: sum(1 for _ in Store.open(root).iter_records())))
        plan_t.append(_time(lambda: Consolidation(Store.open(root), Options(mode="plan")).plan()))
    with Consolidation(store, Options(mode="plan")) as run:
        planned = run.plan()
    out["episodes"] = sum(len(w.new_episodes) for w in planned)
    out["windows_to_do"] = len(planned)
    out["plan_s"] = statistics.median(plan_t)
    out["scan_s"] = statistics.median(scan_t)
    out["plan_over_scan"] = round(out["plan_s"] / out["scan_s"], 2)  # type: ignore[operator]

    # 2. per window: a real run of `windows` windows vs the summarizer alone on the same input
    docs = []
    with Consolidation(store, Options(mode="plan")) as run:
        for w in run.plan()[:windows]:
            docs.append(json.dumps(run.window_input(w)).encode("utf-8"))
    alone = _time(lambda: [run_summarizer(FAKE, d, 60) for d in docs])
    # the fixed cost of a run (start-up, the scan that plans): a dry run, just before
    fixed = _time(lambda: _proc(MEM, "--store", str(root), "consolidate", "--dry-run", "--json"))
    t = time.perf_counter()
    _proc(MEM, "--store", str(root), "consolidate", "--summarizer", shlex.join(FAKE),
          "--max-windows", str(windows), "--json")  # fmt: skip
    real = time.perf_counter() - t - fixed
    out["run_fixed_s"] = round(fixed, 3)
    out["per_window_s"] = round(real / windows, 4)
    out["summarizer_alone_per_window_s"] = round(alone / windows, 4)
    out["per_window_over_summarizer"] = round(real / alone, 2)

    # 3. a no-op re-run: advance every stream's watermark (no records), then time processes
    with Consolidation(store, Options(summarizer=FAKE, mode="run")) as run:
        for w in run.plan():
            run.advance(w)
    rerun_t, stats_t = [], []
    for _ in range(runs):
        stats_t.append(_time(lambda: _proc(MEM, "--store", str(root), "stats", "--json")))
        rerun_t.append(
            _time(
                lambda: _proc(
                    MEM,
                    "--store",
                    str(root),
                    "consolidate",
                    "--summarizer",
                    shlex.join(FAKE),
                    "--json",
                )
            )
        )
    out["rerun_s"] = statistics.median(rerun_t)
    out["stats_s"] = statistics.median(stats_t)
    out["rerun_over_stats"] = round(out["rerun_s"] / out["stats_s"], 2)  # type: ignore[operator]
    for k in ("plan_s", "scan_s", "rerun_s", "stats_s"):
        out[k] = round(out[k], 3)  # type: ignore[call-overload]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--windows", type=int, default=10)
    ap.add_argument("--work", type=Path, default=None)
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="mem-consolidate-bench-"))
    results = []
    for n in a.sizes:
        r = bench_size(work, n, a.runs, a.windows)
        print(json.dumps(r), flush=True)
        results.append(r)
    (HERE / "out").mkdir(exist_ok=True)
    (HERE / "out" / "consolidate.json").write_text(json.dumps(results, indent=1) + "\n", "utf-8")
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
