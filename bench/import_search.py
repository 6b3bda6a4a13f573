"""A user's first hour: `mem import` of N memories, then searches; whole processes (issue 21).

    python bench/import_search.py [--n 10000] [--embedder minilm] [--work DIR] [--probe 5]
                                  [--no-embed] [--rebuild] [--graph int8|float] [--bulk-nice N]
                                  [--after 5]

Writes N JSON Lines memories of 10-40 words (sentences of bench/corpus.py) and runs, each as
its own process under /usr/bin/time (wall seconds and peak RSS):

1. `mem init`, then `mem import FILE` (it embeds what it writes; `--no-embed`: it does not);
   meanwhile, every `--probe` seconds, a hybrid `mem search` (whole process: its wall time and
   the "unembedded" count it reports);
2. the first hybrid `mem search` after the import, then more (``--after`` in all: 5; after
   ``--no-embed`` of 10,000 the next ten catch the lexical index up, 1,000 records each);
3. `mem stats --json`-free check that every vector is there: `index_stats(store)` missing == 0;
4. with `--rebuild`: `mem rebuild` (both indexes), its wall time and peak RSS, and a search.

Each search's CPU seconds (user + system, from /usr/bin/time: what the load inflates least) are
printed beside its wall time. Each probe's start (seconds after the import started), wall time, exit status, hits and the
``unembedded`` and ``unindexed`` counts it reported are listed after the table, and printed as
a ``#`` line as soon as it is done (so is the import's end), with the load average then.
``--graph`` and ``--bulk-nice`` are written to the new store's config.toml (``[embedder] graph``,
``bulk_nice``; unset: mem's defaults). Prints a table: import + first search total, the slowest search during/after the import, and
each command's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import sentence  # noqa: E402

MEM = str(Path(sys.executable).parent / "mem")
QUERIES = ["who is behind schedule", "travel recommendations for food", "team lead contact",
           "what happened last week", "keep messages short"]


def write_input(path: Path, n: int, seed: int = 21) -> None:
    rng = random.Random(seed)
    t0 = 1_600_000_000_000
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            want = rng.randint(10, 40)
            words: list[str] = []
            kind = "note"
            while len(words) < want:
                kind, text = sentence(rng)
                words += text.split()
            obj = {"content": " ".join(words[:want]) + f" (#{i})", "scope": rng.choice(["ana", "bob", "team"]),
                   "kind": kind, "recorded_at": t0 + i * 60_000}
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")


def run(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One whole-process command under /usr/bin/time: wall s, peak RSS MB, CPU s, stdout, stderr."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name, MEM, *args], env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        fields = tf.read().split()
    rss = int(fields[-3]) / 1024 if len(fields) >= 4 else float("nan")
    cpu = float(fields[-2]) + float(fields[-1]) if len(fields) >= 4 else float("nan")
    return {"rc": p.returncode, "wall": wall, "rss_mb": rss, "cpu": cpu, "out": p.stdout, "err": p.stderr}


def search(store: Path, env: dict[str, str], q: str) -> dict[str, Any]:
    r = run(["--store", str(store), "search", q, "--json"], env)
    try:
        out = json.loads(r["out"])
        r["unembedded"], r["unindexed"], r["hits"] = out.get("unembedded", 0), out.get("unindexed", 0), len(out["hits"])
    except ValueError:
        r["unembedded"] = r["unindexed"] = r["hits"] = None
    return r


def show(what: str, p: dict[str, Any]) -> None:
    """One search's line as soon as it is done (a run cut short still prints what it measured)."""
    print(f"# {p['at']:.1f} s: {what}: wall {p['wall']:.2f} s, CPU {p['cpu']:.2f} s, exit {p['rc']}, hits {p['hits']}, "
          f"unembedded {p['unembedded']}, unindexed {p['unindexed']}, peak RSS {p['rss_mb']:.0f} MB, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--probe", type=float, default=5.0)
    ap.add_argument("--no-embed", action="store_true")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--graph", choices=["int8", "float"], default=None)
    ap.add_argument("--bulk-nice", type=int, default=None)
    ap.add_argument("--after", type=int, default=5, help="searches after the import (default 5)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mem-import-search-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEM_EMBEDDER": args.embedder, "NO_COLOR": "1", "MEM_ACTOR": "bench@bench"}
    src = work / "input.jsonl"
    write_input(src, args.n)
    store = work / "store"
    assert run(["init", str(store)], env)["rc"] == 0
    conf = [f'graph = "{args.graph}"'] if args.graph else []
    conf += [f"bulk_nice = {args.bulk_nice}"] if args.bulk_nice is not None else []
    if conf:
        (store / "config.toml").write_text("[embedder]\n" + "\n".join(conf) + "\n")
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {args.n} memories; embedder {args.embedder}; "
          f"config {conf or 'defaults'}", flush=True)
    probes: list[dict[str, Any]] = []
    done = threading.Event()

    def probe() -> None:
        i = 0
        while not done.wait(args.probe):
            at = time.perf_counter() - started
            p = {"at": at, **search(store, env, QUERIES[i % len(QUERIES)])}
            probes.append(p)
            show("probe during the import", p)
            i += 1

    started = time.perf_counter()
    th = threading.Thread(target=probe, daemon=True)
    th.start()
    imp = run(["--store", str(store), "import", str(src), *(["--no-embed"] if args.no_embed else [])], env)
    done.set()
    th.join()
    print(f"# {time.perf_counter() - started:.1f} s: `mem import` done: wall {imp['wall']:.1f} s, "
          f"CPU {imp['cpu']:.1f} s, exit {imp['rc']}, "
          f"peak RSS {imp['rss_mb']:.0f} MB, load {os.getloadavg()[0]:.1f}", flush=True)
    assert imp["rc"] == 0, imp["err"][-2000:]
    after = []
    for i in range(max(1, args.after)):
        after.append(search(store, env, QUERIES[i % len(QUERIES)]))
        show("search after the import", {"at": time.perf_counter() - started, **after[-1]})
    from mem.format.index.derived import index_stats
    from mem.format.store.store import Store

    os.environ["MEM_EMBEDDER"] = args.embedder
    missing = index_stats(Store.open(store)).to_dict()["vectors"]["missing"]
    print("| measure | value |\n|---|---|")
    print(f"| `mem import` of {args.n:,} (wall) | {imp['wall']:.1f} s |")
    print(f"| first hybrid search after it (whole process) | {after[0]['wall']:.2f} s |")
    print(f"| import + first search | **{imp['wall'] + after[0]['wall']:.1f} s** |")
    print(f"| records without a vector at the end | {missing} |")
    during = [p["wall"] for p in probes]
    if during:
        print(f"| hybrid searches during the import ({len(during)}): median / max | "
              f"{sorted(during)[len(during) // 2]:.2f} / {max(during):.2f} s "
              f"(unembedded reported: {', '.join(str(p['unembedded']) for p in probes)}) |")
    walls, cpus = sorted(a["wall"] for a in after), sorted(a["cpu"] for a in after)
    print(f"| hybrid searches after it ({len(after)}): median / max wall | {walls[len(walls) // 2]:.2f} / "
          f"{walls[-1]:.2f} s |")
    print(f"| the same: median / max CPU | {cpus[len(cpus) // 2]:.2f} / {cpus[-1]:.2f} s |")
    print(f"| peak RSS: import | {imp['rss_mb']:.0f} MB |")
    print(f"| peak RSS: one-shot hybrid search (max of those after) | {max(a['rss_mb'] for a in after):.0f} MB |")
    if args.rebuild:
        rb = run(["--store", str(store), "rebuild"], env)
        assert rb["rc"] == 0, rb["err"][-2000:]
        print(f"| `mem rebuild` (both indexes) wall / peak RSS | {rb['wall']:.1f} s / {rb['rss_mb']:.0f} MB |")
        s = search(store, env, QUERIES[0])
        print(f"| hybrid search after the rebuild: wall / peak RSS | {s['wall']:.2f} s / {s['rss_mb']:.0f} MB |")
    print("\n| probe during the import (started at) | wall | CPU | exit | hits | unembedded | unindexed |\n"
          "|---|---|---|---|---|---|---|")
    for p in probes:
        print(f"| {p['at']:.1f} s | {p['wall']:.2f} s | {p['cpu']:.2f} s | {p['rc']} | {p['hits']} | {p['unembedded']} "
              f"| {p['unindexed']} |")
    print("\n| search after the import | wall | CPU | unembedded | unindexed |\n|---|---|---|---|---|")
    for i, a in enumerate(after, 1):
        print(f"| {i} | {a['wall']:.2f} s | {a['cpu']:.2f} s | {a['unembedded']} | {a['unindexed']} |")
    print(f"load average at end: {os.getloadavg()[0]:.1f}; store {store}")


if __name__ == "__main__":
    main()
