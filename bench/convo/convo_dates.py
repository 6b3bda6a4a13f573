"""What the time-drawn arm and stage 2's date term each bring to the questions that name a date
(the ``dated`` kind), on the development half only (analysis; nothing is fitted here).

Runs the default search (hybrid) over the dev questions three ways: as shipped (the arm and the
date term, ``relevance.S_DATE``), without the arm (the candidates of the words and the meaning
alone, the date term still weighing them), and without either, and prints R@5 / R@10 / MRR for
the dated questions and for all the others. ``--time``: what the arm costs instead: each dated
dev question searched with and without it, alternately (long-lived searcher, query embedding
included), medians and their ratio.

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo/convo_dates.py [--time]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import convo_run

from mem.format.index import lexical
from mem.format.search import relevance


def main() -> int:
    real_search = lexical.LexicalIndex.search
    shipped = relevance.S_DATE

    def no_arm(self: Any, text: str, **kw: Any) -> Any:
        return [] if kw.get("within") is not None else real_search(self, text, **kw)

    if "--time" in sys.argv:
        return timing(real_search, no_arm)

    variants = [("as shipped: the time-drawn arm + the date term", False, shipped),
                ("without the arm (the date term weighs the other arms' candidates)", True, shipped),
                ("without either (the \"says when\" evidence still read)", True, 0.0)]
    print("| dev, hybrid | dated R@5 | dated R@10 | dated MRR | other questions R@10 | other MRR |\n|---|---|---|---|---|---|")
    for label, drop_arm, s_date in variants:
        lexical.LexicalIndex.search = no_arm if drop_arm else real_search  # type: ignore[method-assign]
        relevance.S_DATE = s_date
        try:
            m = convo_run.tune("minilm", modes=["hybrid"])["modes"]["hybrid"]
        finally:
            lexical.LexicalIndex.search = real_search  # type: ignore[method-assign]
            relevance.S_DATE = shipped
        d = m["kinds"]["dated"]
        others = [k for k in m["kinds"] if k != "dated" and not k.startswith("unanswerable")]
        n = sum(m["kinds"][k]["queries"] for k in others)
        r10 = sum(m["kinds"][k]["recall@10"] * m["kinds"][k]["queries"] for k in others) / n
        mrr = sum(m["kinds"][k]["mrr"] * m["kinds"][k]["queries"] for k in others) / n
        print(f"| {label} | {d['recall@5']:.3f} | {d['recall@10']:.3f} | {d['mrr']:.3f} | {r10:.3f} | {mrr:.3f} |")
    return 0


def timing(real_search: Any, no_arm: Any, rounds: int = 5) -> int:
    import statistics
    import time

    from mem.format.search.engine import Searcher
    from mem.format.store.store import Store

    prep = convo_run.prepare("minilm")
    qs = [q for q in prep.queries("dev") if q.kind == "dated"]
    got: dict[str, list[float]] = {"with the arm": [], "without": []}
    with Searcher(Store.open(prep.store_dir), long_lived=True) as s:
        s.search(qs[0].text, scopes=[qs[0].scope], k=10)  # warm
        for i in range(rounds):
            for q in qs:
                order = ("with the arm", "without") if i % 2 == 0 else ("without", "with the arm")
                for name in order:
                    lexical.LexicalIndex.search = real_search if name == "with the arm" else no_arm  # type: ignore[method-assign]
                    t = time.perf_counter()
                    s.search(q.text, scopes=[q.scope], k=10)
                    got[name].append((time.perf_counter() - t) * 1000)
    lexical.LexicalIndex.search = real_search  # type: ignore[method-assign]
    a, b = statistics.median(got["with the arm"]), statistics.median(got["without"])
    print(f"{len(qs)} dated dev questions x {rounds} rounds, alternating: median {a:.1f} ms with the time-drawn "
          f"arm, {b:.1f} ms without, ratio {a / b:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
