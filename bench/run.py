"""Search benchmarks: prints a Markdown table, baselines side by side, medians.

    python bench/run.py STORE [--runs 15] [--skip-whole] [--skip-quality] [--skip-add]

STORE is a store made by bench/corpus.py with indexes built (`mem --store STORE rebuild`).
Measures, in one run:
  - whole process: `mem search --mode lexical`, `mem search` (hybrid), the floor
    (`python -c "import tantivy"` + open the index + one query) and `grep -ril WORD records/`;
  - in process (Python API, warm): lexical / vector / hybrid p50 and p95, query embedding alone;
  - HNSW recall@10 against exact search on the store's real vectors (largest scope), when it has a graph;
  - the vector arm's exact top 40 over all rows: plain product vs pruned with the int8 rows (q8),
    one thread and with a 2-thread pool, results compared (`measure_pruning`), and its floor: the
    same rows' packed int8 product alone on the two threads (what any exact search of them reads;
    on the project machine it is bound by memory bandwidth and moves with the machine's phases);
  - one `mem add` into the store, whole process;
  - `mem list -n 10` and `mem stats`: from the index against reading every record;
  - retrieval quality on the labelled set (quality.json): recall@5/10 and MRR per mode.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quality import GENERIC_QUERIES
from whole_lexical import floor_code

VENV_BIN = Path(sys.executable).parent
MEM = str(VENV_BIN / "mem")
WORDS = ["budget", "Lisbon", "ramen", "migration", "chess", "Kubernetes", "survey", "Friday"]


def whole(cmd: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    times = []
    for i in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, env=env, text=True)
        times.append((time.perf_counter() - t) * 1000)
        if p.returncode not in (0, 1):
            raise SystemExit(f"{cmd} failed: {p.stderr}")
        if i == 0:
            continue
    return statistics.median(times[1:] if len(times) > 2 else times)


def pct(xs: Sequence[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, round(q * (len(ys) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--skip-whole", action="store_true")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-add", action="store_true")
    ap.add_argument("--skip-list", action="store_true")
    ap.add_argument("--lexical-only", action="store_true", help="no vector/hybrid/quality measures")
    a = ap.parse_args()
    root = a.store.resolve()
    env = dict(os.environ, MEM_STORE=str(root))
    rows: list[tuple[str, str]] = []
    n = sum(1 for _ in (root / "records").rglob("*.md"))
    rows.append(("records", f"{n:,}"))

    if not a.skip_whole:
        lexdir = json.loads((root / ".mem/index/lexical.json").read_text())["generation"]
        fl = whole([sys.executable, "-c", floor_code(root / ".mem/index" / lexdir), "budget"], a.runs)
        lx = whole([MEM, "search", "budget", "--mode", "lexical"], a.runs, env)
        gp = whole(["grep", "-ril", "budget", str(root / "records")], max(3, a.runs // 3))
        hy = whole([MEM, "search", "budget"], max(3, a.runs // 3), env)
        hr = whole([MEM, "search", "budget", "--rerank"], max(3, a.runs // 3), env)
        ver = whole([MEM, "--version"], a.runs, env)
        rows += [
            ("whole-process floor: python + import tantivy + open + 1 query (ms, median)", f"{fl:.0f}"),
            ("whole-process `mem search --mode lexical` (ms, median)", f"{lx:.0f} ({lx / fl:.2f}x floor)"),
            ("whole-process `grep -ril` over records/ (ms, median)", f"{gp:.0f} ({gp / lx:.1f}x mem lexical)"),
            ("whole-process `mem search` hybrid, exact vectors + model load (ms, median)", f"{hy:.0f}"),
            ("whole-process `mem search --rerank` (the reranker's model loaded too; ms, median)",
             f"{hr:.0f} (+{hr - hy:.0f})"),
            ("whole-process `mem --version` (ms, median)", f"{ver:.0f}"),
        ]

    from mem.format.search.engine import open_searcher
    from mem.format.store.store import Store

    store = Store.open(root)
    s = open_searcher(store)
    if a.lexical_only:
        ts = []
        for q in ["where does Ana live", "favourite food", "database migration", "chess", "Friday"] * 6:
            t = time.perf_counter()
            s.search(q, mode="lexical", k=10)
            ts.append((time.perf_counter() - t) * 1000)
        rows.append(("in-process lexical p50 / p95 (ms)", f"{pct(ts, .5):.1f} / {pct(ts, .95):.1f}"))
        s.close()
        a.skip_quality = True
    else:
        measure_vectors(s, rows, a)
    if not a.skip_add:
        measure_add(root, env, rows)
    if not a.skip_list:
        measure_list(store, env, rows, a.runs)
    print(f"\n| measure ({root.name}) | value |\n|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


def measure_vectors(s: Any, rows: list[tuple[str, str]], a: argparse.Namespace) -> None:
    root = s.store.root
    queries = GENERIC_QUERIES
    for q in queries:  # warm (and backfill, if any)
        s.search(q, mode="hybrid")
    emb = s.embedder()
    t_emb = []
    for q in queries * 3:
        t = time.perf_counter()
        emb.embed([q])
        t_emb.append((time.perf_counter() - t) * 1000)
    res: dict[str, list[float]] = {}
    after: list[float] = []
    s.search(queries[0], mode="hybrid", rerank=True)  # loads the reranker's model
    for mode in ("lexical", "vector", "hybrid", "reranked"):
        ts = []
        for q in queries * 3:
            t = time.perf_counter()
            s.search(q, mode="hybrid" if mode == "reranked" else mode, k=10, rerank=mode == "reranked")
            ts.append((time.perf_counter() - t) * 1000)
            if mode == "hybrid":
                after.append(s.last_timings["after_embedding_ms"])
        res[mode] = ts
    rows.append(("in-process query embedding alone, p50 / p95 (ms)", f"{pct(t_emb, .5):.1f} / {pct(t_emb, .95):.1f}"))
    for mode, ts in res.items():
        extra = " (incl. query embedding)" if mode != "lexical" else ""
        name = "hybrid --rerank" if mode == "reranked" else mode
        rows.append((f"in-process {name} p50 / p95 (ms){extra}", f"{pct(ts, .5):.1f} / {pct(ts, .95):.1f}"))
    rows.append(("in-process hybrid p50 minus embedding p50 (ms)", f"{pct(res['hybrid'], .5) - pct(t_emb, .5):.1f}"))
    rows.append(("in-process hybrid after the embedding, p50 / p95 (ms; timed inside the search from the "
                 "moment the query vector is ready: Searcher.last_timings)", f"{pct(after, .5):.1f} / {pct(after, .95):.1f}"))
    if (root / "quality.json").exists():  # queries this searcher has not seen: nothing of theirs cached
        first, first_after = [], []
        for q in json.loads((root / "quality.json").read_text()):
            s.search(q["query"], mode="hybrid", k=10)
            first.append(s.last_timings["total_ms"])
            first_after.append(s.last_timings["after_embedding_ms"])
        rows.append((f"in-process hybrid, {len(first)} labelled queries asked for the first time: p50 / p95 (ms), "
                     "and after the embedding", f"{pct(first, .5):.1f} / {pct(first, .95):.1f}; "
                     f"{pct(first_after, .5):.1f} / {pct(first_after, .95):.1f}"))

    # HNSW recall against exact, on the real vectors of the largest scope
    vec = s._vec
    if vec is not None:
        import numpy as np

        big = max(vec.scopes(), key=lambda sc: len(vec.main(sc).rows))
        m = vec.main(big)
        g = m.graph()
        if g is not None:
            mat = m.matrix(vec.space.dim)
            rng = np.random.default_rng(1)
            qs = emb.embed(queries)
            qs = np.concatenate([qs, mat[rng.choice(len(m.rows), 90, replace=False)] + 0.0])
            from mem.format.index.vectors import HNSW_PARAMS

            for ef in (64, HNSW_PARAMS["expansion_search"], 256):
                rec, tt = [], []
                for qv in qs:
                    exact = set(np.argpartition(-(mat @ qv), 10)[:10].tolist())
                    g.expansion_search = ef
                    t = time.perf_counter()
                    r = g.search(qv, 10, threads=1)
                    tt.append((time.perf_counter() - t) * 1000)
                    rec.append(len(exact & {int(x) for x in r.keys}) / 10)
                rows.append((f"HNSW recall@10 vs exact, scope {big} ({len(m.rows):,} rows), ef={ef}; p50 ms",
                             f"{statistics.mean(rec):.3f}; {pct(tt, .5):.2f}"))
            tt = []
            for qv in qs[:30]:
                t = time.perf_counter()
                sims = mat @ qv
                np.argpartition(-sims, 10)[:10]
                tt.append((time.perf_counter() - t) * 1000)
            rows.append((f"exact numpy top-10 over {len(m.rows):,} rows p50 (ms)", f"{pct(tt, .5):.2f}"))
        measure_pruning(vec, emb, queries, rows)

    if not a.skip_quality and (root / "quality.json").exists():
        qset = json.loads((root / "quality.json").read_text())
        for mode in ("lexical", "vector", "hybrid"):
            for kind in ("keyword", "paraphrase", "exact", "buried", "all"):
                sel = [q for q in qset if kind == "all" or q["kind"] == kind]
                r5 = r10 = mrr = 0.0
                for q in sel:
                    try:
                        got = [h.id for h in s.search(q["query"], mode=mode, k=10).hits]
                    except Exception:
                        got = []
                    rel = set(q["relevant"])
                    r5 += len(rel & set(got[:5])) / len(rel)
                    r10 += len(rel & set(got[:10])) / len(rel)
                    mrr += next((1 / (i + 1) for i, x in enumerate(got) if x in rel), 0.0)
                k = len(sel)
                if not k:
                    continue
                rows.append((f"quality {mode} {kind} ({k} queries): recall@5 / recall@10 / MRR",
                             f"{r5 / k:.3f} / {r10 / k:.3f} / {mrr / k:.3f}"))
    s.close()


def measure_pruning(vec: Any, emb: Any, queries: list[str], rows: list[tuple[str, str]]) -> None:
    """The vector arm's exact top 40 over every scope: plain product vs pruned with the int8 rows
    (q8; their int8 product row by row, numkong ``inner``, or over packed rows, ``dots_packed``),
    each on one thread and with a 2-thread pool (as ``VectorIndex.search`` runs them: one ``Scan``,
    all the scopes' parts shared by the two threads), interleaved query by query; every result is
    compared with the plain one-thread product's, and the rows computed in float32 are counted."""
    import dataclasses
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from mem.format.index.vectors import exact_tops, pack_rows, q8_candidates

    root = vec.index_dir.parent.parent
    qtexts = list(queries)
    if (root / "quality.json").exists():
        qtexts += [q["query"] for q in json.loads((root / "quality.json").read_text())]
    qs = emb.embed(qtexts)
    plain_jobs, q8_jobs, packed_jobs = [], [], []
    chosen = []
    for sc in vec.scopes():
        m = vec.main(sc)
        if not m.rows:
            continue
        mat = m.matrix(vec.space.dim, in_memory=True)
        plain_jobs.append((mat, None, 40))
        qz = vec.quantized(sc, in_memory=True)  # as a long-lived searcher holds it
        if qz is not None:
            chosen.append(f"{sc} {'packed' if qz.packed else 'inner'}")
            inner = dataclasses.replace(qz, z=np.array(qz.z), packed=None)
            q8_jobs.append((mat, inner, 40))
            packed_jobs.append((mat, dataclasses.replace(inner, packed=pack_rows(inner.z)), 40))
        else:
            q8_jobs.append((mat, None, 40))
            packed_jobs.append((mat, None, 40))
    if not chosen:
        rows.append(("pruned exact vector search", "no scope has int8 rows (q8)"))
        return
    n_rows = sum(len(mat) for mat, _q, _w in plain_jobs)
    variants = [("plain", plain_jobs, False), ("plain, pool", plain_jobs, True),
                ("q8", q8_jobs, False), ("q8, pool", q8_jobs, True),
                ("q8 packed", packed_jobs, False), ("q8 packed, pool", packed_jobs, True)]
    times: dict[str, list[float]] = {label: [] for label, _j, _p in variants}
    same = dict.fromkeys(times, 0)
    cands: list[int] = []
    # the floor of any exact search of these rows: their int8 product alone (numkong's packed
    # product, both threads taking the next part), no bound, threshold or top
    parts = [part for _m, qz, _w in packed_jobs if qz is not None for _lo, _hi, part in qz.packed]
    floor: list[float] = []

    def product(w: Any, queue: Any) -> None:
        import numkong

        for part in iter(lambda: next(queue, None), None):
            numkong.dots_packed(w, part)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for qv in qs:
            w = np.rint(qv * (127 / max(float(np.abs(qv).max()), 1e-12))).astype(np.int8).reshape(1, -1)
            t = time.perf_counter()
            queue = iter(parts)
            other = pool.submit(product, w, queue)
            product(w, queue)
            other.result()
            floor.append((time.perf_counter() - t) * 1000)
            ref = None
            for label, jobs, use_pool in variants:
                t = time.perf_counter()
                got = exact_tops(jobs, qv, pool if use_pool else None)
                times[label].append((time.perf_counter() - t) * 1000)
                ref = got if ref is None else ref
                same[label] += all(np.allclose(np.sort(a[1]), np.sort(b[1]), rtol=0, atol=1e-6)
                                   for a, b in zip(ref, got, strict=True))
            cands.append(sum(len(mat) if qz is None else len(q8_candidates(qz, qv, w))
                             for mat, qz, w in q8_jobs))
    p = {label: pct(ts, .5) for label, ts in times.items()}
    rows.append((f"vector arm top 40 over all {n_rows:,} rows, {len(qs)} queries, p50 ms: plain / plain with the "
                 "2-thread pool / q8 (inner) / q8 with the pool / q8 packed / q8 packed with the pool",
                 " / ".join(f"{p[label]:.2f}" for label in times)
                 + f" (q8 {p['plain'] / max(p['q8'], 1e-9):.2f}x one thread, "
                 f"{p['plain, pool'] / max(p['q8, pool'], 1e-9):.2f}x with the pool; packed "
                 f"{p['plain'] / max(p['q8 packed'], 1e-9):.2f}x / {p['plain, pool'] / max(p['q8 packed, pool'], 1e-9):.2f}x)"))
    rows.append(("… its floor: the int8 product alone, packed, 2 threads, same rows (memory-bound here), p50 ms; "
                 "q8 packed with the pool / the floor",
                 f"{pct(floor, .5):.2f}; {p['q8 packed, pool'] / max(pct(floor, .5), 1e-9):.2f}x"))
    rows.append(("… int8 product a long-lived searcher chose here (MEM_Q8_KERNEL=auto)", ", ".join(chosen)))
    rows.append(("… rows computed in float32 after the int8 bound: median / p90 / max (all scopes)",
                 f"{pct(cands, .5):,} / {pct(cands, .9):,} / {max(cands):,} of {n_rows:,}"))
    rows.append(("… same top 40 as the plain product (sorted scores within 1e-6)",
                 ", ".join(f"{label} {same[label]}/{len(qs)}" for label in times)))


def measure_list(store: Any, env: dict[str, str], rows: list[tuple[str, str]], runs: int) -> None:
    """``mem list -n 10``: the newest records chosen from the index (``listing.newest``) against
    reading every record (``Store.list``, the baseline), and ``mem stats`` (``listing.stats``
    against ``Store.stats``), in process and interleaved, then ``mem list`` whole
    process (``mem list -n 10`` against ``mem list --known-at <future> -n 10``, which the index
    cannot answer: every record is read, as before)."""
    from mem.format.search.listing import newest
    from mem.format.store.store import RecordFilter

    fast: list[float] = []
    full: list[float] = []
    same = True
    for _ in range(3):
        t = time.perf_counter()
        got = newest(store, RecordFilter(), 10)
        fast.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        want = store.list(RecordFilter(), limit=10)
        full.append((time.perf_counter() - t) * 1000)
        same = same and [r.id for r in got] == [r.id for r in want]
    rows.append(("in-process 10 newest records: from the index (full stat scan included) / reading every record "
                 "(ms, median of 3); same records", f"{pct(fast, .5):.0f} / {pct(full, .5):.0f} "
                 f"({pct(full, .5) / max(pct(fast, .5), 1e-9):.1f}x); {'yes' if same else 'NO'}"))
    from mem.format.search.listing import stats

    fast, full = [], []
    same_stats = True
    for _ in range(3):
        t = time.perf_counter()
        got_stats = stats(store)
        fast.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        want_stats = store.stats()
        full.append((time.perf_counter() - t) * 1000)
        same_stats = same_stats and got_stats == want_stats
    rows.append(("in-process `mem stats`: from the index (full stat scan included) / reading every record "
                 "(ms, median of 3); same counts", f"{pct(fast, .5):.0f} / {pct(full, .5):.0f} "
                 f"({pct(full, .5) / max(pct(fast, .5), 1e-9):.1f}x); {'yes' if same_stats else 'NO'}"))
    wl = whole([MEM, "list", "-n", "10"], max(3, runs // 3), env)
    wf = whole([MEM, "list", "-n", "10", "--known-at", "2999-01-01"], 3, env)
    rows.append(("whole-process `mem list -n 10` / with `--known-at` (every record read) (ms, median)",
                 f"{wl:.0f} / {wf:.0f} ({wf / max(wl, 1e-9):.1f}x)"))


def measure_add(root: Path, env: dict[str, str], rows: list[tuple[str, str]]) -> None:
    from mem.format.index.derived import attach, refresh
    from mem.format.store.store import Store

    if True:
        ts = []
        for i in range(5):
            t = time.perf_counter()
            p = subprocess.run([MEM, "add", f"benchmark add number {i} {time.time()}", "--scope", "ana"],
                               capture_output=True, text=True, env=env)
            ts.append((time.perf_counter() - t) * 1000)
            assert p.returncode == 0, p.stderr
            rid = p.stdout.strip()
            st2 = Store.open(root)  # keep the store as it was
            attach(st2)
            st2.forget([rid], reason="bench cleanup")
        rows.append(("one `mem add` whole-process, index updated incrementally (ms, median of 5)",
                     f"{statistics.median(ts):.0f}"))
        # in process: Store.add without and with the index listener (journal), then the
        # refresh that applies one journaled add (what the next search pays)
        for label, attached in (("without index listener", False), ("with index listener", True)):
            st3 = Store.open(root)
            if attached:
                attach(st3)
            ts = []
            added = []
            for i in range(7):
                t = time.perf_counter()
                added.append(st3.add(f"in-process add {label} {i} {time.time()}", scope="bench-tmp").id)
                ts.append((time.perf_counter() - t) * 1000)
            rows.append((f"in-process Store.add {label} (ms, median of 7)", f"{statistics.median(ts):.1f}"))
            st3.forget(added, reason="bench cleanup")
            refresh(st3)
        st4 = Store.open(root)
        attach(st4)
        refresh(st4)
        rid = st4.add(f"one more {time.time()}", scope="ana").id
        t = time.perf_counter()
        refresh(st4)
        rows.append(("refresh applying one journaled add (tantivy commit) (ms)", f"{(time.perf_counter() - t) * 1000:.0f}"))
        st4.forget([rid], reason="bench cleanup")
        refresh(st4)


if __name__ == "__main__":
    main()
