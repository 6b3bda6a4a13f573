"""What the time-drawn arm and stage 2's date term each bring to the questions that name a date
(the ``dated`` kind), on the development half only (analysis; nothing is fitted here).

Runs the default search (hybrid) over the dev questions three ways: as shipped (the arm and the
date term, ``relevance.S_DATE``), without the arm (the candidates of the words and the meaning
alone, the date term still weighing them), and without either (the search before dates were
weighed), and prints R@5 / R@10 / MRR for the dated questions and for all the others.

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo/convo_dates.py
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

    variants = [("as shipped: the time-drawn arm + the date term", False, shipped),
                ("without the arm (the date term weighs the other arms' candidates)", True, shipped),
                ("without either (before dates were weighed)", True, 0.0)]
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


if __name__ == "__main__":
    raise SystemExit(main())
