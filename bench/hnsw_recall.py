"""usearch HNSW recall against exact search, on a scope's real vectors and the labelled queries.

    MEM_EMBEDDER=minilm python bench/hnsw_recall.py STORE [--scope ana] [--connectivity 16]
        [--expansion-add 128] [--dtype f32] [--eps 1e-3]

Builds a graph in memory over the scope's distinct vectors (duplicates removed, rows inserted in
a shuffled order, 2 threads), then for several ``expansion_search`` values reports, over three
query sets — the labelled queries of STORE/quality.json (short, unlike the records), ten generic
questions, and 200 rows of another scope — the share of the exact top 10 found (a hit counts
when its similarity is within ``--eps`` of the exact 10th: near-ties are not misses) and p50.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from mem.format.index.vectors import usearch_index_class
from mem.format.search.engine import open_searcher

GENERIC = ["what does my sister like", "meeting next week about budget", "favourite food", "doctor appointment",
           "book recommendation", "gift ideas for mom", "deadline for the report", "travel plans to japan",
           "the project launch date", "vacation days left"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--scope", default="ana")
    ap.add_argument("--connectivity", type=int, default=16)
    ap.add_argument("--expansion-add", type=int, default=128)
    ap.add_argument("--dtype", default="f32")
    ap.add_argument("--eps", type=float, default=1e-3)
    a = ap.parse_args()
    s = open_searcher(a.store)
    s.search("warm", mode="vector")
    vec = s._vec
    assert vec is not None
    mat = vec.main(a.scope).matrix(vec.space.dim, in_memory=True)
    uniq = np.unique(mat, axis=0)
    emb = s.embedder()
    sets: dict[str, np.ndarray] = {}
    qfile = a.store / "quality.json"
    if qfile.exists():
        sets["labelled"] = emb.embed([q["query"] for q in json.loads(qfile.read_text("utf-8"))])
    sets["generic"] = emb.embed(GENERIC)
    others = [sc for sc in vec.scopes() if sc != a.scope and vec.main(sc).rows]
    if others:
        om = vec.main(others[0]).matrix(vec.space.dim, in_memory=True)
        rng = np.random.default_rng(0)
        sets[f"rows of {others[0]}"] = om[rng.choice(len(om), min(200, len(om)), replace=False)]
    Index = usearch_index_class()
    t = time.perf_counter()
    g = Index(ndim=vec.space.dim, metric="cos", dtype=a.dtype, connectivity=a.connectivity,
              expansion_add=a.expansion_add)
    order = np.random.default_rng(1).permutation(len(uniq))
    g.add(order.astype(np.uint64), uniq[order], threads=2)
    print(f"scope {a.scope}: {len(mat):,} rows, {len(uniq):,} distinct; graph {a.dtype} connectivity "
          f"{a.connectivity} expansion_add {a.expansion_add}: built in {time.perf_counter() - t:.1f} s\n")
    print("| expansion_search | " + " | ".join(f"{k} ({len(v)}) recall@10 / p50 ms" for k, v in sets.items()) + " |")
    print("|---|" + "---|" * len(sets))
    tenth = {k: [float(np.partition(-(uniq @ q), 9)[9]) * -1 for q in v] for k, v in sets.items()}
    for ef in (64, 128, 256, 512, 1024):
        g.expansion_search = ef
        cells = []
        for k, qs in sets.items():
            rec, ts = [], []
            for q, th in zip(qs, tenth[k], strict=True):
                t = time.perf_counter()
                r = g.search(q, 10, threads=1)
                ts.append((time.perf_counter() - t) * 1000)
                keys = np.array([int(x) for x in r.keys], dtype=np.int64)
                rec.append(float(np.sum(uniq[keys] @ q >= th - a.eps)) / 10)
            cells.append(f"{statistics.mean(rec):.3f} / {statistics.median(ts):.2f}")
        print(f"| {ef} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
