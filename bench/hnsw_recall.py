"""HNSW recall on the labelled queries (answers that are outliers), vs exact search.

    python bench/hnsw_recall.py STORE [SCOPE]

Needs a vector index whose SCOPE (default: ana) has a ``<scope>.usearch`` graph, i.e. built while
``HNSW_MIN_ROWS`` was at most the scope's size (the table in README.md used 20,000).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from mem.format.search import open_searcher


def main() -> None:
    root = Path(sys.argv[1])
    scope = sys.argv[2] if len(sys.argv) > 2 else "ana"
    s = open_searcher(root)
    s.search("warm", mode="vector")
    v = s._vec
    assert v is not None
    m = v.main(scope)
    g = m.graph()
    if g is None:
        raise SystemExit(f"scope {scope} has no HNSW graph")
    mat = m.matrix(v.space.dim, in_memory=True)
    emb = s.embedder()
    quality = json.loads((root / "quality.json").read_text())
    qs = [(m.pos[q["relevant"][0]], emb.embed([q["query"]])[0]) for q in quality if q["relevant"][0] in m.pos]
    print("| expansion_search | planted answer in top 10 | recall@10 vs exact | p50 ms |\n|---|---|---|---|")
    for ef in (160, 512, 1024, 2048, 4096):
        g.expansion_search = ef
        found, ts, rec = 0, [], []
        for row, qv in qs:
            t = time.perf_counter()
            r = g.search(qv, 10, threads=1)
            ts.append((time.perf_counter() - t) * 1000)
            keys = {int(k) for k in r.keys}
            exact = set(np.argpartition(-(mat @ qv), 10)[:10].tolist())
            rec.append(len(keys & exact) / 10)
            found += row in keys
        print(f"| {ef} | {found} / {len(qs)} | {np.mean(rec):.3f} | {sorted(ts)[len(ts) // 2]:.2f} |")


if __name__ == "__main__":
    main()
