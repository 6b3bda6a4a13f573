#!/usr/bin/env python3
"""A capture run with nothing new, over a folder of Claude Code sessions (issue 23).

    .venv/bin/python bench/capture_hosts.py --sessions 200 --lines 300 [--baseline OTHER_MEM] [--runs 5]

Writes SESSIONS synthetic sessions shaped like tests/capture/hosts/claude (each line of the
fixture repeated, assistant entries padded to about 2 KB), captures the folder once with each
executable (into a store of its own), then times `mem capture FOLDER` again RUNS times per
executable, interleaved, and prints the medians. Nothing is new on the re-runs: this is the cost
of a cron line or a watcher's first pass.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "capture" / "hosts" / "claude" / "-home-sam-proj"


def make(folder: Path, sessions: int, lines: int) -> None:
    src = next(FIXTURE.glob("*.jsonl")).read_text("utf-8").splitlines()
    root = folder / "-home-sam-proj"
    root.mkdir(parents=True)
    for n in range(sessions):
        sid = f"00000000-0000-4000-8000-{n:012d}"
        out = []
        for i in range(lines):
            obj = json.loads(src[i % len(src)])
            if "sessionId" in obj:
                obj["sessionId"] = sid
            if obj.get("type") == "assistant":
                obj["message"]["content"].append({"type": "text", "text": "x" * 2000})
            out.append(json.dumps(obj))
        (root / f"{sid}.jsonl").write_text("\n".join(out) + "\n", "utf-8")


def run(mem: str, store: Path, folder: Path) -> float:
    t = time.perf_counter()
    subprocess.run([mem, "--store", str(store), "capture", "--scope", "s", str(folder), "--json"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--lines", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", help="another mem executable to time beside this one")
    args = ap.parse_args()
    mine = shutil.which("mem", path=str(Path(sys.executable).parent)) or "mem"
    exes = {"this": mine, **({"baseline": args.baseline} if args.baseline else {})}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "projects"
        make(folder, args.sessions, args.lines)
        size = sum(p.stat().st_size for p in folder.rglob("*.jsonl"))
        stores = {}
        for name, exe in exes.items():
            stores[name] = Path(tmp) / f"store-{name}"
            subprocess.run([exe, "init", str(stores[name])], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            first = run(exe, stores[name], folder)
            print(f"{name}: first capture {first:.1f} s")
        times: dict[str, list[float]] = {n: [] for n in exes}
        for _ in range(args.runs):
            for name, exe in exes.items():
                times[name].append(run(exe, stores[name], folder))
    print(f"{args.sessions} sessions, {size / 1e6:.1f} MB; re-run with nothing new, median of {args.runs}:")
    for name, ts in times.items():
        print(f"  {name:<9} {statistics.median(ts):6.2f} s   ({', '.join(f'{t:.2f}' for t in ts)})")
    if "baseline" in times:
        print(f"  ratio this/baseline {statistics.median(times['this']) / statistics.median(times['baseline']):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
