"""Compare hybrid fusion functions on the labelled set, from the same candidate lists.

    MEM_EMBEDDER=minilm python bench/fusion_compare.py STORE [--depth 40]

For each query of STORE/quality.json both arms are searched once (top ``--depth`` each, the
live records re-read as the searcher does); every fusion function then ranks the same
candidates, with the same priors, so the table isolates the fusion function:

- ``max-norm w``: w * cosine + (1 - w) * BM25 / (max BM25 of the query) (mem before 2026-11-30);
- ``coverage w`` / ``coverage^2 w``: w * cosine + (1 - w) * coverage [** 2], coverage = the
  idf-weighted fraction of the query's terms the record contains (mem.format.index.terms);
- ``rrf``: sum over arms of 1 / (60 + rank).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mem.format.index.terms import coverage, query_weights, terms
from mem.format.rules.timeutil import now
from mem.format.search.engine import open_searcher, prior

Cand = dict[str, Any]


def collect(root: Path, depth: int) -> list[tuple[dict[str, Any], list[Cand]]]:
    s = open_searcher(root)
    lex = s._lexical([])
    vec = s._vectors(lex)
    emb = s.embedder()
    at = now()
    scopes = s.store.scopes()
    out = []
    for q in json.loads((root / "quality.json").read_text("utf-8")):
        lh = lex.search(q["query"], scopes=scopes, kinds=None, statuses=["active", "candidate"], tags=None,
                        limit=depth)
        qv = emb.embed([q["query"]])[0]
        vh = vec.search(qv, scopes, depth)
        weights = query_weights(lex.searcher(), q["query"])
        cands: dict[tuple[str, str], Cand] = {}
        for rank, h in enumerate(lh, 1):
            cands.setdefault((h.scope, h.id), {"id": h.id})["lex"] = (rank, h.score)
        for rank, h in enumerate(vh, 1):
            cands.setdefault((h.scope, h.id), {"id": h.id})["vec"] = (rank, h.similarity)
        rows = []
        for (scope, rid), c in cands.items():
            rec = s._record(scope, rid)
            if rec is None or rec.status not in ("active", "candidate"):
                continue
            v = vec.vector_of(scope, rid)
            c["cos"] = c["vec"][1] if "vec" in c else (float(v @ qv) if v is not None else 0.0)
            c["cov"] = coverage(weights, terms(rec.content))
            c["prior"] = prior(rec, at)[0]
            rows.append(c)
        out.append((q, rows))
    s.close()
    return out


def evaluate(data: list[tuple[dict[str, Any], list[Cand]]], name: str,
             score: Callable[[Cand, float], float]) -> str:
    r10 = mrr = 0.0
    per: dict[str, list[bool]] = {}
    for q, rows in data:
        max_bm = max((c["lex"][1] for c in rows if "lex" in c), default=1.0) or 1.0
        ranked = sorted(rows, key=lambda c: -score(c, max_bm) * c["prior"])
        rank = next((i + 1 for i, c in enumerate(ranked) if c["id"] in q["relevant"]), None)
        ok = rank is not None and rank <= 10
        r10 += ok
        mrr += 1.0 / rank if ok and rank else 0.0
        per.setdefault(q["kind"], []).append(ok)
    n = len(data)
    kinds = " | ".join(f"{sum(v)}/{len(v)}" for v in per.values())
    return f"| {name} | {r10 / n:.3f} | {mrr / n:.3f} | {kinds} |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--depth", type=int, default=40)
    a = ap.parse_args()
    data = collect(a.store, a.depth)
    kinds = sorted({q["kind"] for q, _ in data}, key=[q["kind"] for q, _ in data].index)
    print(f"| fusion (depth {a.depth}) | R@10 | MRR | " + " | ".join(kinds) + " |")
    print("|---|---|---|" + "---|" * len(kinds))
    print(evaluate(data, "lexical (BM25)", lambda c, m: c["lex"][1] if "lex" in c else -1e9))
    print(evaluate(data, "vector (cosine)", lambda c, m: c["vec"][1] if "vec" in c else -1e9))
    for w in (0.8, 0.6):
        print(evaluate(data, f"max-norm w={w}",
                       lambda c, m, w=w: w * c["cos"] + (1 - w) * (c["lex"][1] / m if "lex" in c else 0.0)))
    for w in (0.5, 0.6, 0.7):
        print(evaluate(data, f"coverage w={w}", lambda c, m, w=w: w * c["cos"] + (1 - w) * c["cov"]))
    for w in (0.5, 0.6, 0.7):
        print(evaluate(data, f"coverage^2 w={w}", lambda c, m, w=w: w * c["cos"] + (1 - w) * c["cov"] ** 2))
    print(evaluate(data, "rrf k=60", lambda c, m: sum(1.0 / (60 + c[a][0]) for a in ("lex", "vec") if a in c)))


if __name__ == "__main__":
    main()
