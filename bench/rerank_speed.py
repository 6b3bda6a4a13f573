"""What reranking costs, side by side with the same search without it (interleaved, medians).

    MEM_EMBEDDER=minilm .venv/bin/python bench/rerank_speed.py STORE [--rounds 5] [--batch 60]

Three measures, each run both ways (reranked and not) in alternation, so that the machine's
phases fall on both alike:

- in-process hybrid search through one long-lived searcher (both models loaded first): the
  generic queries and the store's labelled ones (``quality.json`` of bench/corpus.py) when there,
  p50 / p95 per query in total (the query's embedding included), and the reranker's share;
- one-shot ``mem search QUERY`` against ``mem search QUERY --rerank`` (whole process, model
  loads included), medians;
- ``mem search --batch`` over BATCH queries (one process), with and without ``--rerank``:
  queries per second, start-up included.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quality import GENERIC_QUERIES

MEM = shutil.which("mem", path=str(Path(sys.executable).parent)) or "mem"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def wall(cmd: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, input=stdin, capture_output=True, text=True, check=True)
    return (time.perf_counter() - t) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--rounds", type=int, default=5, help="one-shot pairs and batch pairs")
    ap.add_argument("--batch", type=int, default=60, help="queries per --batch run")
    a = ap.parse_args()
    root = a.store.resolve()
    env = dict(os.environ, MEM_STORE=str(root))
    queries = list(GENERIC_QUERIES)
    if (root / "quality.json").exists():
        queries += [q["query"] for q in json.loads((root / "quality.json").read_text())]
    n = sum(1 for _ in (root / "records").rglob("*.md"))
    rows: list[tuple[str, str, str, str]] = []

    from mem.format.search.engine import open_searcher
    from mem.format.search.relevance import RERANK_TOP
    from mem.format.store.store import Store

    s = open_searcher(Store.open(root))
    s.search(queries[0], rerank=True)  # loads both models
    plain: list[float] = []
    reranked: list[float] = []
    for i, q in enumerate(queries * 2):
        for rr in ((False, True) if i % 2 == 0 else (True, False)):
            t = time.perf_counter()
            s.search(q, k=10, rerank=rr)
            (reranked if rr else plain).append((time.perf_counter() - t) * 1000)
    s.close()
    rows.append((f"in-process hybrid p50 / p95, ms ({len(plain)} searches each, query embedding included; "
                 f"reranking reads the best {RERANK_TOP})",
                 f"{pct(plain, .5):.1f} / {pct(plain, .95):.1f}", f"{pct(reranked, .5):.1f} / {pct(reranked, .95):.1f}",
                 f"{pct(reranked, .5) / pct(plain, .5):.2f}x"))

    one_p: list[float] = []
    one_r: list[float] = []
    for i in range(a.rounds):
        q = GENERIC_QUERIES[i % len(GENERIC_QUERIES)]
        for rr in ((False, True) if i % 2 == 0 else (True, False)):
            (one_r if rr else one_p).append(wall([MEM, "search", q, *(["--rerank"] if rr else [])], env))
    mp, mr = statistics.median(one_p), statistics.median(one_r)
    rows.append((f"one-shot `mem search` (whole process, ms, median of {a.rounds})", f"{mp:.0f}", f"{mr:.0f}",
                 f"{mr / mp:.2f}x (+{mr - mp:.0f} ms)"))

    lines = "".join(json.dumps({"query": queries[i % len(queries)]}) + "\n" for i in range(a.batch))
    bp: list[float] = []
    br: list[float] = []
    for i in range(a.rounds):
        for rr in ((False, True) if i % 2 == 0 else (True, False)):
            (br if rr else bp).append(wall([MEM, "search", "--batch", *(["--rerank"] if rr else [])], env, lines))
    qp, qr = a.batch / (statistics.median(bp) / 1000), a.batch / (statistics.median(br) / 1000)
    rows.append((f"`mem search --batch`, {a.batch} queries (queries/s, start-up included, median of {a.rounds})",
                 f"{qp:.1f}", f"{qr:.1f}", f"{qr / qp:.2f}x"))

    print(f"\n{root.name}: {n:,} records\n")
    print("| measure | hybrid | hybrid --rerank | reranked / plain |\n|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
