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

and, per content token of the question (the wordpieces of its words that are not a name, a
question word or a little word), its *support*: the best cosine of its contextual token embedding
(the reranker's MiniLM) with any token of the top N hits. An absent-topic question should have one
topic word that nothing in the pool supports, while an answerable one has all its words supported
somewhere, even in paraphrase:

- ``tok_min@N``, ``tok_q25@N``, ``tok_mean@N`` (N = 5, 10, 20): the lowest, lower quartile and mean
  support over the question's content tokens, the pool being the top N;
- ``tok_min_scope``: the same over every turn of the scope (what an index of every record's token
  embeddings could read; no search can afford it today);
- ``tok_min_named``, ``tok_mean_named``: the support from the hits (top 20) whose speaker the
  question names (an other-speaker question asks a fact of the person who never said it);
- ``hit_min@20``, ``hit_mean@20``, ``named_hit_mean@20``: the best single hit's lowest / mean
  support (one turn that supports every word), of any speaker / of the named one;
- ``word_min@20``, ``word_mean@20``, ``word_min_named``: each content word embedded alone by the
  embedder, its best cosine with the top 20 hits' vectors (lowest, mean; the named speaker's hits);

It prints each one's AUC (questions with an answer against those without: all, ``absent-topic``,
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
    from mem.format.embed import load_embedder
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
    emb = load_embedder("minilm")
    recs = {r.id: r for r in store.iter_records()}
    by_scope: dict[str, list[str]] = {}
    for rid, rec in recs.items():
        by_scope.setdefault(rec.scope, []).append(rid)
    toks = _token_embeddings(rr, {rid: rec.content for rid, rec in recs.items()})
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
                     if R.speaker_of(h.record.source, h.content, h.record.kind) in reading.names]
            top = hits[0].score if hits else 0.0
            qm = _query_tokens(rr, q.text, reading)
            ids = [h.id for h in hits]
            named_ids = [h.id for h in hits[:20] if R.speaker_of(h.record.source, h.content, h.record.kind) in reading.names]
            tok: dict[str, float] = {}
            for n in (5, 10, 20):
                sup = _support(qm, [toks[i] for i in ids[:n]])
                tok.update({f"tok_min@{n}": float(sup.min()), f"tok_q25@{n}": float(np.quantile(sup, 0.25)),
                            f"tok_mean@{n}": float(sup.mean())})
            tok["tok_min_scope"] = float(_support(qm, [toks[i] for i in by_scope[q.scope]]).min())
            pool = named_ids if reading.names else ids[:20]  # no name: every hit is "the person's"
            sup = _support(qm, [toks[i] for i in pool])
            tok["tok_min_named"], tok["tok_mean_named"] = float(sup.min()), float(sup.mean())
            per_hit = [_support(qm, [toks[i]]) for i in ids[:20]]
            per_named = [_support(qm, [toks[i]]) for i in pool]
            tok["hit_min@20"] = max((float(x.min()) for x in per_hit), default=0.0)
            tok["hit_mean@20"] = max((float(x.mean()) for x in per_hit), default=0.0)
            tok["named_hit_mean@20"] = max((float(x.mean()) for x in per_named), default=0.0)
            words_v = np.asarray(emb.embed(list(dict.fromkeys(_content_words(q.text, reading))) or [q.text]),
                                 dtype=np.float32)
            hit_v = np.asarray(emb.embed([h.content for h in hits[:20]]), dtype=np.float32)
            wsup = (words_v @ hit_v.T).max(axis=1)
            named_v = hit_v[[j for j, h in enumerate(hits[:20]) if h.id in set(pool)]]
            tok["word_min@20"], tok["word_mean@20"] = float(wsup.min()), float(wsup.mean())
            tok["word_min_named"] = float((words_v @ named_v.T).max(axis=1).min()) if len(named_v) else 0.0
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
                    **tok,
                },
            })
    return rows


def _content_words(text: str, reading: R.QueryReading) -> list[str]:
    """The question's words that are not a name, a question word or a little word."""
    out = []
    for w in R._words(text):
        lw = w.lower()
        if lw in R.QUESTION_WORDS or lw in R.STOP_WORDS or lw.removesuffix("'s") in reading.names:
            continue
        out.append(lw)
    return out


def _encode(rr: Any, texts: list[str], limit: int) -> list[tuple[np.ndarray, Any]]:
    """Each text's L2-normalized contextual token embeddings (the reranker's model; special
    tokens left out) with the tokenizer's encoding (its offsets)."""
    rr._tok.enable_truncation(max_length=limit)
    encs = rr._tok.encode_batch(texts)
    width = max(1, max(len(e.ids) for e in encs))
    ids = np.zeros((len(encs), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, e in enumerate(encs):
        ids[i, :len(e.ids)] = e.ids
        mask[i, :len(e.ids)] = 1
    out = rr._session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                  "token_type_ids": np.zeros_like(ids)})[0]
    got = []
    for i, e in enumerate(encs):
        keep = [j for j, t in enumerate(e.ids) if t not in rr._special]
        m = out[i, keep] if keep else out[i, :1]
        m = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        got.append((m.astype(np.float32), [e.offsets[j] for j in keep]))
    return got


def _token_embeddings(rr: Any, texts: dict[str, str]) -> dict[str, np.ndarray]:
    """Every record's token embeddings (records cut at the reranker's MAX_TOKENS)."""
    from mem.format.search.rerank import MAX_TOKENS

    ids = sorted(texts, key=lambda i: len(texts[i]))
    out = {}
    for a in range(0, len(ids), 32):
        chunk = ids[a:a + 32]
        for rid, (m, _offs) in zip(chunk, _encode(rr, [texts[i] for i in chunk], MAX_TOKENS), strict=True):
            out[rid] = m
    return out


def _query_tokens(rr: Any, text: str, reading: R.QueryReading) -> np.ndarray:
    """The token embeddings of the question's content words (all its tokens when it has none)."""
    from mem.format.search.rerank import QUERY_TOKENS

    m, offs = _encode(rr, [text], QUERY_TOKENS)[0]
    content = set(_content_words(text, reading))
    keep = []
    for j, (a, b) in enumerate(offs):
        s, e = a, b
        while s > 0 and (text[s - 1].isalnum() or text[s - 1] in "'-"):
            s -= 1
        while e < len(text) and (text[e].isalnum() or text[e] in "'-"):
            e += 1
        if any(c.isalnum() for c in text[a:b]) and text[s:e].lower().strip("'-") in content:
            keep.append(j)
    return m[keep] if keep else m


def _support(qm: np.ndarray, pool: list[np.ndarray]) -> np.ndarray:
    """Per query token, its best cosine with any token of the pool (0 for an empty pool)."""
    if not pool:
        return np.zeros(len(qm), dtype=np.float32)
    return np.asarray((qm @ np.vstack(pool).T).max(axis=1))


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
    conv = np.array([r["q"].scope for r in rows])

    def loco(cols: list[str]) -> np.ndarray:
        """A logistic model of ``cols``, fitted leaving one conversation out at a time."""
        sel = x[:, [names.index(c) for c in cols]]
        xs = (sel - sel.mean(0)) / (sel.std(0) + 1e-9)
        pred = np.zeros(len(rows))
        for c in sorted(set(conv)):
            train = conv != c
            w = convo_fit.logfit(xs[train], y[train].astype(float), l2=1e-1)
            pred[~train] = xs[~train] @ w[:-1] + w[-1]
        return pred

    models = {
        "the best hit's score alone": ["top_logit"],
        "+ the top 5's token support (lower quartile)": ["top_logit", "tok_q25@5"],
        "+ the named speaker's best hit's token support": ["top_logit", "tok_q25@5", "named_hit_mean@20"],
        "the first nine (the earlier pass)": names[:9],
        "all of them": names,
    }
    print("\nLogistic models (leave one conversation out) as a gate: a question whose predicted odds fall "
          "below a threshold gets nothing; unanswerable questions left empty / answerable R@10 lost "
          "(points), by the share of all questions gated:\n")
    shares = (0.03, 0.05, 0.1, 0.2, 0.3, 0.4)
    print("| model | AUC | " + " | ".join(f"gate {int(100 * s)}%" for s in shares) + " |")
    print("|---|---|" + "---|" * len(shares))
    for label, cols in models.items():
        pred = loco(cols)
        cells = []
        for share in shares:
            gated = pred < np.quantile(pred, share)
            cells.append(f"{100 * gated[~y].mean():.0f}% / {100 * r10[y & gated].sum() / y.sum():.1f}")
        print(f"| {label} | {auc(pred[y], pred[~y]):.3f} | " + " | ".join(cells) + " |")


def main() -> int:
    report(collect())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
