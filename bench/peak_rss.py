"""Peak memory of the bulk commands and of a one-shot search, whole processes (issue 21,
"Memory bounded": `mem import` of 100k under 600 MB, a one-shot hybrid search at 100k under
400 MB; no command's peak growing with the store beyond what its indexes need).

    python bench/peak_rss.py --n 10000 --work DIR [--embedder minilm]
                             [--steps import search noembed embed rebuild] [--searches 3]

Writes N JSON Lines memories of 10-40 words (``bench/import_search.py``'s input, same seed) to
DIR/input.jsonl unless it is there, then runs each step as its own process under
``/usr/bin/time -v`` (its peak RSS is the "Maximum resident set size"; wall and CPU seconds
beside it), in this order:

- ``import``: `mem init DIR/a` and `mem import` of the input, embedding included;
- ``search``: ``--searches`` one-shot hybrid `mem search QUERY --json` on DIR/a;
- ``noembed``: `mem init DIR/b` and `mem import --no-embed` of the input;
- ``embed``: `mem embed --json` on DIR/b (the catch-up the previous step leaves);
- ``rebuild``: `mem rebuild --vectors --json` on DIR/a (re-embeds every record).

A step whose store is not there yet (``search`` or ``rebuild`` without ``import``, ``embed``
without ``noembed``) says so and is skipped. ``--nice N`` runs the steps at that niceness
(the store's ``[embedder] bulk_nice`` still applies to the embedding threads). Prints one table
row per step (store size, wall s, CPU s, peak RSS MB, exit) and the load average at the start
and the end of each. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from import_search import QUERIES, write_input  # noqa: E402

MEM = str(Path(sys.executable).parent / "mem")
STEPS = ("import", "search", "noembed", "embed", "rebuild")


def timed(args: list[str], env: dict[str, str], nice: int) -> dict[str, Any]:
    """`mem ARGS` under /usr/bin/time -v: wall and CPU seconds, peak RSS MB, exit, stdout."""
    started = time.strftime("%H:%M:%S", time.gmtime())
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        cmd = ["/usr/bin/time", "-v", "-o", tf.name, *(["nice", "-n", str(nice)] if nice else []), MEM, *args]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        fields = dict(line.strip().rsplit(": ", 1) for line in tf.read().splitlines() if ": " in line)
    wall = fields.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "nan")
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return {"rc": p.returncode, "wall": secs, "started": started,
            "cpu": float(fields.get("User time (seconds)", "nan")) + float(fields.get("System time (seconds)", "nan")),
            "rss_mb": int(fields.get("Maximum resident set size (kbytes)", "0")) / 1024,
            "out": p.stdout, "err": p.stderr}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS))
    ap.add_argument("--searches", type=int, default=3)
    ap.add_argument("--nice", type=int, default=0)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEM_EMBEDDER": a.embedder, "NO_COLOR": "1", "MEM_ACTOR": "bench@bench"}
    src = a.work / "input.jsonl"
    if not src.exists():
        write_input(src, a.n)
    stores = {"a": a.work / "a", "b": a.work / "b"}
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {a.n:,} memories; embedder {a.embedder}; "
          f"steps {' '.join(a.steps)}; nice {a.nice}", flush=True)
    print("| step | command | records | started (UTC) | wall s | CPU s | peak RSS MB | exit | load start -> end |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)

    def row(step: str, what: str, r: dict[str, Any], load0: float) -> None:
        print(f"| {step} | {what} | {a.n:,} | {r['started']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['rss_mb']:.0f} | "
              f"{r['rc']} | {load0:.1f} -> {os.getloadavg()[0]:.1f} |", flush=True)
        if r["rc"] != 0:
            print(f"#   {step}: exit {r['rc']}: {r['err'][-1000:]}", flush=True)

    for step in STEPS:
        if step not in a.steps:
            continue
        store = stores["b" if step in ("noembed", "embed") else "a"]
        load0 = os.getloadavg()[0]
        if step in ("import", "noembed"):
            if store.exists():
                print(f"# {step}: {store} exists; skipped (remove it to import again)", flush=True)
                continue
            init = timed(["init", str(store)], env, 0)
            assert init["rc"] == 0, init["err"]
            extra = ["--no-embed"] if step == "noembed" else []
            row(step, f"`mem import{' --no-embed' if extra else ''}`",
                timed(["--store", str(store), "import", str(src), *extra], env, a.nice), load0)
        elif not store.exists():
            print(f"# {step}: no store at {store}; skipped", flush=True)
        elif step == "search":
            for q in QUERIES[:a.searches]:
                load0 = os.getloadavg()[0]
                r = timed(["--store", str(store), "search", q, "--json"], env, 0)
                hits = len(json.loads(r["out"])["hits"]) if r["rc"] == 0 else None
                row(step, f"one-shot hybrid `mem search \"{q}\" --json` ({hits} hits)", r, load0)
        elif step == "embed":
            r = timed(["--store", str(store), "embed", "--json"], env, a.nice)
            emb = json.loads(r["out"]).get("embedded") if r["rc"] == 0 else None
            row(step, f"`mem embed` (embedded {emb})", r, load0)
        else:
            r = timed(["--store", str(store), "rebuild", "--vectors", "--json"], env, a.nice)
            emb = json.loads(r["out"]).get("vectors", {}).get("embedded") if r["rc"] == 0 else None
            row(step, f"`mem rebuild --vectors` (embedded {emb})", r, load0)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
