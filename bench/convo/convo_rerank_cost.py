"""What the reranker costs per query beside a query embedding (interleaved, medians).

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo/convo_rerank_cost.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from mem.format.embed import load_embedder
from mem.format.search.rerank import load_reranker

TURNS = [
    "I got a greyhound last week, she's called Mango and she is absolutely mad.",
    "Honestly, a bit of a blur. Work has been endless meetings.", "We finally got some sunshine!",
    "The results came back, it's shellfish. No more prawns for me.", "Pretty good, busy as usual.",
    "I started at the hospital radio on Tuesdays, it's so much fun.", "Haha, classic.",
    "My sister keeps sending me memes at 2am.", "I painted the fence on Saturday.", "Talk soon!",
]
LONG = ["The quarterly budget review covered migration costs, the chess club's grant and Friday's survey. " * 6] * 10
QUERY = "What kind of dog does Pablo have?"


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def main() -> None:
    t = time.perf_counter()
    rr = load_reranker()
    load = (time.perf_counter() - t) * 1000
    emb = load_embedder("minilm")
    e: list[float] = []
    r: list[float] = []
    rl: list[float] = []
    for _ in range(15):
        e.append(timed(lambda: emb.embed([QUERY])))
        r.append(timed(lambda: rr.scores(QUERY, TURNS)))
        rl.append(timed(lambda: rr.scores(QUERY, LONG)))
    me, mr, ml = statistics.median(e), statistics.median(r), statistics.median(rl)
    print(f"reranker load {load:.0f} ms; per query: embedding {me:.1f} ms, rerank 10 turns {mr:.1f} ms, "
          f"rerank 10 records of 128 tokens {ml:.1f} ms; rerank(turns) / embedding {mr / me:.1f}x, "
          f"rerank(long) / embedding {ml / me:.1f}x")


if __name__ == "__main__":
    main()
