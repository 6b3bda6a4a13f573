"""What separates "nothing relevant" on the conversational benchmark's development half.

For every dev question (the dev-only store of convo_fit.py, built there when missing) the default
hybrid search (k = 40, ``explain``) is run, the reranker's MaxSim is read for the best 10 hits,
and each content word of the question (not a name, question word or little word) is looked up in
the question's scope. Per question it then computes the evidence a relevance floor could read:

- ``top_logit``: the log-odds of the best hit's calibrated score (what the floor reads today);
- ``top_coverage``: the lexical evidence of the best hit (share of the query's words it holds);
- ``words_in_scope``: the share of the question's content words found anywhere in its scope;
- ``max_cosine``, ``cosine_gap``: the best cosine, and how far it stands above the mean cosine
  of the 40 hits (the scope's background for this query);
- ``named_cosine``: the best cosine of a hit whose speaker the question names;
- ``maxsim_top``, ``maxsim_max``, ``maxsim_gap``: the reranker's MaxSim of the best hit, the best
  of the top 10, and the best above their mean;

and prints each one's AUC (questions with an answer against those without: all, ``absent-topic``,
``other-speaker``), then a logistic model of all of them, fitted leaving one conversation out at a
time, as a gate (a question whose predicted odds fall below a threshold gets nothing): the share of
unanswerable questions left empty against the recall@10 the answerable ones lose.

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo/convo_floor.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import convo_fit
import convo_generate
import convo_run

from mem.format.search import relevance as R


def collect() -> list[dict[str, Any]]:
    from mem.format.index.derived import attach
    from mem.format.index.terms import terms
    from mem.format.search.engine import Searcher
    from mem.format.search.rerank import load_reranker
    from mem.format.store.store import Store

    root = convo_fit.dev_store("minilm")
    store = Store.open(root / "store")
    attach(store)
    data = convo_generate.dataset()
    turn_of = {r.id: str(r.source["original_id"]) for r in store.iter_records()}
    prep = convo_run.Prepared(root / "store", "minilm", data, turn_of, None)
    rr = load_reranker()
    rows = []
    with Searcher(store, long_lived=True) as s:
        for q in prep.queries("dev"):
            hits = s.search(q.text, scopes=[q.scope], k=40, explain=True).hits
            reading = R.read_query(q.text)
            ms = rr.scores(q.text, [h.content for h in hits[:10]])
            words = []
            for w in R._words(q.text):
                lw = w.lower().removesuffix("'s")
                if lw not in R.QUESTION_WORDS and lw not in R.STOP_WORDS and lw not in reading.names:
                    words.extend(terms(w))
            found = [bool(s.search(t, scopes=[q.scope], k=1, mode="lexical").hits) for t in dict.fromkeys(words)]
            cos = np.array([((h.explain or {}).get("vector") or {}).get("cosine") or 0.0 for h in hits])
            named = [c for c, h in zip(cos, hits, strict=True)
                     if R.speaker_of(h.record.source, h.content) in reading.names]
            top = hits[0].score if hits else 0.0
            rows.append({
                "q": q,
                "r10": (sum(turn_of[h.id] in q.relevant for h in hits[:10]) / len(q.relevant)) if q.relevant else 0.0,
                "f": {
                    "top_logit": float(np.log(max(top, 1e-9) / max(1 - top, 1e-9))),
                    "top_coverage": float((hits[0].explain or {}).get("coverage") or 0.0) if hits else 0.0,
                    "words_in_scope": float(np.mean(found)) if found else 1.0,
                    "max_cosine": float(cos.max()) if len(cos) else 0.0,
                    "cosine_gap": float(cos.max() - cos.mean()) if len(cos) else 0.0,
                    "named_cosine": float(max(named)) if named else (float(cos.max()) if not reading.names else 0.0),
                    "maxsim_top": ms[0] if ms else 0.0,
                    "maxsim_max": max(ms) if ms else 0.0,
                    "maxsim_gap": (max(ms) - float(np.mean(ms))) if ms else 0.0,
                },
            })
    return rows


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    gt = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(gt / (len(pos) * len(neg)))


def report(rows: list[dict[str, Any]]) -> None:
    names = list(rows[0]["f"])
    x = np.array([[r["f"][n] for n in names] for r in rows])
    y = np.array([bool(r["q"].relevant) for r in rows])
    trap = np.array([r["q"].kind for r in rows])
    r10 = np.array([r["r10"] for r in rows])
    print(f"dev: {int(y.sum())} questions with an answer, {int((~y).sum())} without\n")
    print("| evidence | AUC, all | AUC vs absent-topic | AUC vs other-speaker |\n|---|---|---|---|")
    for i, n in enumerate(names):
        print(f"| {n} | {auc(x[y, i], x[~y, i]):.3f} | {auc(x[y, i], x[trap == 'unanswerable/absent-topic', i]):.3f} "
              f"| {auc(x[y, i], x[trap == 'unanswerable/other-speaker', i]):.3f} |")
    xs = (x - x.mean(0)) / (x.std(0) + 1e-9)
    conv = np.array([r["q"].scope for r in rows])
    pred = np.zeros(len(rows))
    for c in sorted(set(conv)):
        train = conv != c
        w = convo_fit.logfit(xs[train], y[train].astype(float), l2=1e-1)
        pred[~train] = xs[~train] @ w[:-1] + w[-1]
    print(f"\nall of them, one logistic model (leave one conversation out): AUC {auc(pred[y], pred[~y]):.3f}\n")
    print("| gate: share of questions gated | unanswerable left empty | answerable R@10 lost (points) |\n|---|---|---|")
    for share in (0.05, 0.1, 0.15, 0.2, 0.3, 0.4):
        t = np.quantile(pred, share)
        gated = pred < t
        print(f"| {share:.2f} | {gated[~y].mean():.2f} | {100 * r10[y & gated].sum() / y.sum():.1f} |")


def main() -> int:
    report(collect())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
