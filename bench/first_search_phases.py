"""Where a whole-process `mem search` started during `mem import` spends its time (issue 21).

    python bench/first_search_phases.py [--n 10000] [--embedder minilm] [--work DIR]
                                        [--at 2 5 ...] [--mode hybrid]

Writes N JSON Lines memories of 10-40 words (bench/import_search.py's input), runs `mem init`
and `mem import FILE` as a process, and at each of the ``--at`` seconds after the import
started runs one `mem search QUERY --json` as its own process, instrumented from the outside
(nothing in mem is changed): the probe process wraps a list of mem's functions with
``time.perf_counter`` (the time spent in each, inclusive, and how many calls; a function that
calls another wrapped one counts that time too), counts the writer lock's waits, and samples the
main thread's stack every 10 ms (the innermost mem frames of the most frequent samples). For
each probe it prints the whole-process wall time, the ``unembedded`` count the search reported,
and those tables.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MEM = str(Path(sys.executable).parent / "mem")

#: The functions the probe times: "module:qualname".
WRAPPED = [
    "mem.format.store.store:Store.open",
    "mem.format.index.derived:attach",
    "mem.format.search.resources:SearcherResources._lexical",
    "mem.format.search.resources:SearcherResources._vectors",
    "mem.format.search.resources:SearcherResources.embedder",
    "mem.format.index.derived:refresh",
    "mem.format.index.derived:build_if_absent",
    "mem.format.index.derived:backfill",
    "mem.format.index.backlog:missing_vectors",
    "mem.format.index.backlog:_readable",
    "mem.format.index.backlog:_sync_meta",
    "mem.format.index.build:create_empty_vectors",
    "mem.format.index.session:_apply_pending_locked",
    "mem.format.index.session:_apply_pending",
    "mem.format.index.staleness:_plan",
    "mem.format.index.apply:_apply",
    "mem.format.index.lexical:LexicalIndex.open",
    "mem.format.index.lexical:LexicalIndex.search",
    "mem.format.index.vectors:VectorIndex.search",
    "mem.format.index.vectors:VectorIndex.add",
    "mem.format.search.engine:Searcher._search_once",
    "mem.format.search.fusion:Fusion._fuse",
    "mem.format.base.lock:WriterLock.acquire",
]

PROBE = r'''
import collections, importlib, sys, threading, time, traceback
T0 = time.perf_counter()
stats = collections.defaultdict(lambda: [0, 0.0])
def wrap(spec):
    mod, qual = spec.split(":")
    try:
        m = importlib.import_module(mod)
    except ImportError:
        return
    owner, name = m, qual
    parts = qual.split(".")
    for p in parts[:-1]:
        owner = getattr(owner, p, None)
        if owner is None:
            return
    name = parts[-1]
    fn = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if fn is None:
        return
    is_cm = isinstance(fn, classmethod)
    raw = fn.__func__ if is_cm else fn
    def w(*a, __raw=raw, __spec=spec, **k):
        t = time.perf_counter()
        try:
            return __raw(*a, **k)
        finally:
            s = stats[__spec]; s[0] += 1; s[1] += time.perf_counter() - t
    setattr(owner, name, classmethod(w) if is_cm else w)
    # modules that imported the name before the wrap keep the original: patch their copies too
    for other in list(sys.modules.values()):
        if other is not None and other is not m and getattr(other, name, None) is raw and len(parts) == 1:
            setattr(other, name, w)
for spec in WRAPPED:
    wrap(spec)
samples = collections.Counter()
main_id = threading.main_thread().ident
stop = threading.Event()
def sampler():
    while not stop.wait(0.01):
        f = sys._current_frames().get(main_id)
        if f is None:
            continue
        st = traceback.extract_stack(f)
        mem = [fr for fr in st if "/format/" in fr.filename or "/cli/" in fr.filename]
        key = " <- ".join(f"{fr.filename.rsplit('/', 2)[-2]}/{fr.filename.rsplit('/', 1)[-1]}:{fr.lineno} {fr.name}"
                          for fr in reversed(mem[-4:]))
        inner = st[-1]
        key = f"[{inner.filename.rsplit('/', 1)[-1]}:{inner.lineno} {inner.name}] " + key
        samples[key] += 1
th = threading.Thread(target=sampler, daemon=True); th.start()
from mem.cli.main import main
code = main(ARGS)
stop.set()
out = {"code": code, "wall_in_process": time.perf_counter() - T0,
       "stats": {k: v for k, v in stats.items()}, "samples": samples.most_common(12)}
sys.stderr.write("\nPHASES " + __import__("json").dumps(out) + "\n")
'''


def main() -> None:
    from import_search import write_input

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--at", type=float, nargs="+", default=[2.0])
    ap.add_argument("--mode", default="hybrid")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mem-first-search-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEM_EMBEDDER": args.embedder, "NO_COLOR": "1", "MEM_ACTOR": "bench@bench"}
    src = work / "input.jsonl"
    write_input(src, args.n)
    store = work / "store"
    subprocess.run([MEM, "init", str(store)], env=env, check=True, capture_output=True)
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {args.n} memories; embedder {args.embedder}",
          flush=True)
    t0 = time.perf_counter()
    imp = subprocess.Popen([MEM, "--store", str(store), "import", str(src)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    code = PROBE.replace("WRAPPED", repr(WRAPPED)).replace(
        "ARGS", repr(["--store", str(store), "search", "who is behind schedule", "--json", "--mode", args.mode]))
    for at in sorted(args.at):
        time.sleep(max(0.0, at - (time.perf_counter() - t0)))
        started = time.perf_counter() - t0
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0 - started
        try:
            unemb = json.loads(p.stdout).get("unembedded")
        except ValueError:
            unemb = None
        phases = json.loads(p.stderr.rsplit("PHASES ", 1)[1]) if "PHASES " in p.stderr else None
        warn = [ln for ln in p.stderr.splitlines() if ln.startswith(("warning", "error"))]
        print(f"\n## probe at {started:.1f} s: wall {wall:.2f} s, exit {p.returncode}, unembedded {unemb}, "
              f"import running: {imp.poll() is None}")
        for w in warn:
            print(f"  {w}")
        if phases is None:
            print(p.stderr[-2000:])
            continue
        print(f"in-process {phases['wall_in_process']:.2f} s\n\n| function | calls | s (inclusive) |\n|---|---|---|")
        for k, (n, s) in sorted(phases["stats"].items(), key=lambda kv: -kv[1][1]):
            print(f"| {k} | {n} | {s:.3f} |")
        print("\nmain thread samples (10 ms):")
        for key, n in phases["samples"]:
            print(f"  {n:4d}  {key}")
    rc = imp.wait()
    print(f"\nimport: exit {rc}, {time.perf_counter() - t0:.1f} s; load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
