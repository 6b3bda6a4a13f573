"""Run the second conversational benchmark (bench/convo2): turn recall@5/@10 and MRR per search
mode and question kind, plain BM25 beside them, and how many unanswerable questions get nothing.

**A test set only: never tune a search constant, weight, floor or threshold on it** (see
convo2_generate.py). It checks whether the ranking fitted on bench/convo's development half holds
on chats written independently of that generator. ``--ablate`` switches stage 2's terms off one at
a time to *read* what each contributes here; it is analysis, and its results must not be used to
set the terms.

The harness is bench/convo/convo_run.py's, imported, not copied: :func:`prepare` hands that
runner's ``prepare`` this generator's data (the same record layout: every turn one ``episode`` in
its conversation's scope, ``valid_from`` = its session's time, speaker, conversation, session and
turn id in ``source``; imported with mem's JSON Lines importer, vectors built with the embedder),
and the measuring, the BM25 reference, the floors and the tables are its ``_measure``, ``tables``
and ``_dump``. Modes: ``bm25`` (reference), ``lexical``, ``vector``, ``hybrid`` (the default
search) and ``reranked`` (hybrid with ``rerank=True``), each also under MCP ``recall``'s default
floor (``<mode>@floor``): the "no answer: empty" column counts the unanswerable questions that then
get no hit at all.

The store is built once under ``/tmp/mem-convo2-bench/`` (``MEM_CONVO2_CACHE``) and reused.

    MEM_EMBEDDER=minilm .venv/bin/python bench/convo2/convo2_run.py            # the tables
    .venv/bin/python bench/convo2/convo2_run.py --misses 4 --modes hybrid       # misses, with --explain
    .venv/bin/python bench/convo2/convo2_run.py --ablate                        # stage 2's terms, one by one
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "convo"))

import convo2_generate as gen  # noqa: E402
import convo_run  # noqa: E402

from mem.format.search.evaluate import DEFAULT_KS  # noqa: E402

CACHE = Path(os.environ.get("MEM_CONVO2_CACHE", "/tmp/mem-convo2-bench"))
SPLITS = (gen.SPLIT,)


#: The "Name: text" variant of a dataset (bench/convo's, shared).
speaker_in_text = convo_run.speaker_in_text


def prepare(provider: str = "minilm", *, fresh: bool = False, conversations: int = gen.CONVERSATIONS,
            cache: Path | None = None, log: Any = None, with_speaker: str | None = None) -> convo_run.Prepared:
    """The cached store of this benchmark, built by bench/convo's ``prepare`` from this data
    (``with_speaker``: each turn's text begins with its speaker's name, :func:`speaker_in_text`;
    ``"source"``: the speaker stays in the source too, ``"text"``: only in the text)."""
    # convo_run.prepare reads its data through its module's ``dataset``: hand it ours for the call
    # (the layout its import_lines expects: conversations with scope, sessions with index and
    # date, turns with id, speaker and text), then put its own back.
    own = convo_run.dataset

    def ours(seed: int, n: int) -> dict[str, Any]:
        return gen.dataset(seed, n)

    convo_run.dataset = ours  # type: ignore[attr-defined]
    try:
        return convo_run.prepare(provider, seed=gen.SEED, fresh=fresh, conversations=conversations,
                                 cache=cache or CACHE, log=log, with_speaker=with_speaker)
    finally:
        convo_run.dataset = own  # type: ignore[attr-defined]


def measure(prep: convo_run.Prepared, *, modes: list[str] | None = None, floor: float | None = None,
            keep_hits: bool = False, ks: tuple[int, ...] = DEFAULT_KS, sweep: tuple[float, ...] = (),
            before: bool = False) -> dict[str, Any]:
    """bench/convo's measuring over this set's one split (``sweep``: floors read off the scores;
    ``before``: hybrid and reranked with relevance's constants of before too, ``convo_run.with_before``)."""
    if before:
        return convo_run.with_before(prep, SPLITS, ks=ks, modes=modes, min_score=floor, search_kwargs=None,
                                     keep_hits=True, sweep=sweep)
    return convo_run._measure(prep, SPLITS, ks=ks, modes=modes, min_score=floor, search_kwargs=None,
                              keep_hits=keep_hits, sweep=sweep)


@contextlib.contextmanager
def ablated(term: str) -> Iterator[None]:
    """Stage 2 with one term switched off, for reading what it contributes (never for setting it):
    ``speaker`` (a hit's speaker named by the question), ``when`` (a hit that says when, for a
    "when" question) or ``stage2`` (both: stage 1's order)."""
    from mem.format.search import relevance

    saved = (relevance.name_match, relevance.time_match)
    if term in ("speaker", "stage2"):
        relevance.name_match = lambda reading, speaker: 0.0  # type: ignore[assignment]
    if term in ("when", "stage2"):
        relevance.time_match = lambda reading, text: 0.0  # type: ignore[assignment]
    try:
        yield
    finally:
        relevance.name_match, relevance.time_match = saved  # type: ignore[assignment]


def ablation(prep: convo_run.Prepared, work: Path) -> dict[str, Any]:
    """Hybrid (default) search with stage 2 as it is and with each of its terms off; each also
    with R@10 on the questions whose evidence the person named spoke and those the friend spoke."""
    out: dict[str, Any] = {}
    for term in ("none", "speaker", "when", "stage2"):
        with ablated(term) if term != "none" else contextlib.nullcontext():
            m = measure(prep, modes=["hybrid"], keep_hits=True)
        dump = work / f"ablate-{term}.jsonl"
        convo_run._dump(prep, m, dump)
        rows = slice_recalls(dump, prep.data)
        r = m[gen.SPLIT]["modes"]["hybrid"]
        r["slices"] = {sl: sum(rows[sl]["hybrid"]) / len(rows[sl]["hybrid"]) for sl in (BY_NAMED, BY_FRIEND)}
        out[term] = r
    return out


def ablation_table(ab: dict[str, Any]) -> str:
    kinds = [k for k in convo_run.KINDS if k != "unanswerable"]
    lines = ["| hybrid, stage 2 | R@5 | R@10 | MRR | " + " | ".join(f"{k} R@10 / MRR" for k in kinds)
             + " | R@10, evidence by the person named | R@10, evidence by the friend |",
             "|---|---|---|---|" + "---|" * (len(kinds) + 2)]
    label = {"none": "as shipped (speaker + when)", "speaker": "speaker term off", "when": "\"when\" term off",
             "stage2": "stage 2 off (stage 1 order)"}
    for term, r in ab.items():
        a = r["all"]
        row = [label[term], *(f"{a[x]:.3f}" for x in ("recall@5", "recall@10", "mrr"))]
        row += [f"{r['kinds'][k]['recall@10']:.3f} / {r['kinds'][k]['mrr']:.3f}" for k in kinds]
        row += [f"{r['slices'][BY_NAMED]:.3f}", f"{r['slices'][BY_FRIEND]:.3f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def k_prefix(prep: convo_run.Prepared, deeper: tuple[int, ...] = (50, 200)) -> str:
    """Whether a hybrid search's top 10 is the first 10 of a deeper one: per deeper k, how many
    questions get another top 10, and for how many the evidence enters or leaves it."""
    from mem.format.search.engine import Searcher
    from mem.format.store.store import Store

    qs = [(c["scope"], q) for c in prep.data["conversations"] for q in c["questions"]]
    rec = {t: i for i, t in prep.turn_of.items()}
    differ = dict.fromkeys(deeper, 0)
    gained = dict.fromkeys(deeper, 0)
    lost = dict.fromkeys(deeper, 0)
    with Searcher(Store.open(prep.store_dir), embedder=prep.provider) as s:
        for scope, q in qs:
            top = [h.id for h in s.search(q["question"], scopes=[scope], k=10).hits]
            ev = {rec[t] for t in q["evidence"]}
            for k in deeper:
                first = [h.id for h in s.search(q["question"], scopes=[scope], k=k).hits][:10]
                differ[k] += first != top
                gained[k] += len(ev & set(first)) > len(ev & set(top))
                lost[k] += len(ev & set(first)) < len(ev & set(top))
    lines = ["| hybrid, k asked | questions whose first 10 differ from k = 10's | evidence enters the top 10 | evidence leaves it |",
             "|---|---|---|---|"]
    lines += [f"| {k} | {differ[k]} of {len(qs)} | {gained[k]} | {lost[k]} |" for k in deeper]
    return "\n".join(lines)


def misses(prep: convo_run.Prepared, per_kind: int, mode: str = "hybrid", depth: int = 50) -> str:
    """A sample of questions whose evidence is not in the top 10 of ``mode``, per kind: the
    evidence turns, where they rank in the top ``depth`` and why (``explain``), and what outranked
    them."""
    import random

    from mem.format.search.engine import Searcher
    from mem.format.store.store import Store

    turn = {t["id"]: (t["speaker"], t["text"], s["date"][:10]) for c in prep.data["conversations"]
            for s in c["sessions"] for t in s["turns"]}
    rng = random.Random("convo2-misses")
    out: list[str] = []
    with Searcher(Store.open(prep.store_dir), embedder=prep.provider) as s:
        for kind in [k for k in convo_run.KINDS if k != "unanswerable"]:
            qs = [(c, q) for c in prep.data["conversations"] for q in c["questions"] if q["kind"] == kind]
            found: list[str] = []
            total = 0
            for c, q in qs:
                # a miss is judged on the search the benchmark runs (k = 10); the ranks and the
                # reasons come from a deeper one (whose top 10 can differ: stage 2 reads more hits)
                kw = {"scopes": [c["scope"]], "mode": "hybrid" if mode == "reranked" else mode,
                      "rerank": mode == "reranked"}
                first = [prep.turn_of.get(h.id, h.id) for h in s.search(q["question"], k=10, **kw).hits]
                ev = set(q["evidence"])
                if ev <= set(first):
                    continue
                res = s.search(q["question"], k=depth, explain=True, **kw)
                ids = [prep.turn_of.get(h.id, h.id) for h in res.hits]
                total += 1
                lines = [f"- **{q['id']}** \"{q['question']}\" (answer: {q['answer']}; ranks below: k = {depth})"]
                for tid in q["evidence"]:
                    rank = ids.index(tid) + 1 if tid in ids else None
                    sp, text, _day = turn[tid]
                    ex = res.hits[rank - 1].explain if rank else None
                    lines.append(f"  - evidence {tid} rank {rank or f'>{depth}'}: {sp}: \"{text}\" {_why(ex)}")
                for i, h in enumerate(res.hits[:3], 1):
                    sp, text, _day = turn.get(prep.turn_of.get(h.id, h.id), ("?", h.content, "?"))
                    lines.append(f"  - #{i} {prep.turn_of.get(h.id, h.id)}: {sp}: \"{text}\" {_why(h.explain)}")
                found.append("\n".join(lines))
            out.append(f"\n#### {kind}: {total} of {len(qs)} questions miss evidence in the top 10 ({mode})\n")
            out.extend(rng.sample(found, min(per_kind, len(found))))
    return "\n".join(out)


BY_NAMED = "evidence by the person named"
BY_FRIEND = "evidence by the friend (not the person named)"


def slice_recalls(dump: Path, data: dict[str, Any]) -> dict[str, dict[str, list[float]]]:
    """Each answerable question's R@10 per mode (read off a ``--dump`` file), by slice: evidence
    spoken by the person the question names or by the friend; sharing a content word with the
    evidence or none; per storyline."""
    import re

    from mem.format.search.relevance import STOP_WORDS, read_query

    speakers = {c["id"]: {n.lower() for n in c["speakers"]} for c in data["conversations"]}
    story = {q["id"]: q["story"] for c in data["conversations"] for q in c["questions"]}

    asking = {"what", "when", "where", "which", "who", "how", "did", "does", "do", "is", "was", "has"}

    def words(text: str) -> set[str]:
        return {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", text.lower())} - STOP_WORDS - asking

    rows: dict[str, dict[str, list[float]]] = {}  # slice -> mode -> recalls
    for line in dump.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if not r["evidence"]:
            continue
        ev = {e[0] for e in r["evidence"]}
        top = {h[0] for h in r["hits"][:10]}
        rec = len(ev & top) / len(ev)
        named = read_query(r["question"]).names & speakers[r["id"].split(":")[0]]
        by_friend = any(e[1].lower() not in named for e in r["evidence"])
        qw = words(r["question"]) - speakers[r["id"].split(":")[0]]
        shared = any(qw & words(e[2]) for e in r["evidence"])
        for sl in ("all answerable", BY_FRIEND if by_friend else BY_NAMED, "shares a content word with its evidence" if shared else
                   "shares no content word with its evidence", f"storyline: {story[r['id']]}"):
            rows.setdefault(sl, {}).setdefault(r["mode"], []).append(rec)
    return rows


def short_hits(dump: Path, data: dict[str, Any], words: int = 4) -> str:
    """How much of each mode's top 10 (answerable questions) is short turns of at most ``words``
    words, against their share of all turns and of the evidence turns."""
    turns = [t["text"] for c in data["conversations"] for s in c["sessions"] for t in s["turns"]]
    ev = [e for c in data["conversations"] for q in c["questions"] for e in q["evidence"]]
    text = {t["id"]: t["text"] for c in data["conversations"] for s in c["sessions"] for t in s["turns"]}

    def short(t: str) -> bool:
        return len(t.split()) <= words

    lines = [f"| turns of at most {words} words | share |", "|---|---|",
             f"| of all turns | {sum(map(short, turns)) / len(turns):.3f} |",
             f"| of the evidence turns | {sum(short(text[e]) for e in ev) / len(ev):.3f} |"]
    per: dict[str, list[bool]] = {}
    for line in dump.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["evidence"]:
            per.setdefault(r["mode"], []).extend(short(h[3]) for h in r["hits"][:10])
    for mode, flags in per.items():
        lines.append(f"| of {mode}'s top 10 | {sum(flags) / len(flags):.3f} |")
    return "\n".join(lines)


def miss_causes(dump: Path, data: dict[str, Any], mode: str = "hybrid") -> str:
    """``mode``'s misses (an evidence turn not in the top 10) per kind, by the first of: evidence
    spoken by the friend of the person named; no content word shared with the evidence (a wording
    gap: the fact said indirectly, by pronoun, or needing world knowledge); part of the evidence
    found (multi); the rest (the words are there, the ranking still misses)."""
    import re

    from mem.format.search.relevance import STOP_WORDS, read_query

    asking = {"what", "when", "where", "which", "who", "how", "did", "does", "do", "is", "was", "has"}
    speakers = {c["id"]: {n.lower() for n in c["speakers"]} for c in data["conversations"]}

    def words(text: str) -> set[str]:
        return {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", text.lower())} - STOP_WORDS - asking

    causes = ["evidence by the friend", "no shared content word", "part of the evidence found", "words shared, ranked out"]
    table: dict[str, dict[str, int]] = {}
    for line in dump.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["mode"] != mode or not r["evidence"]:
            continue
        ev = {e[0] for e in r["evidence"]}
        top = {h[0] for h in r["hits"][:10]}
        row = table.setdefault(r["kind"], {"questions": 0, "misses": 0})
        row["questions"] += 1
        if ev <= top:
            continue
        row["misses"] += 1
        sp = speakers[r["id"].split(":")[0]]
        named = read_query(r["question"]).names & sp
        qw = words(r["question"]) - sp
        if any(e[1].lower() not in named for e in r["evidence"]):
            cause = causes[0]
        elif not any(qw & words(e[2]) for e in r["evidence"]):
            cause = causes[1]
        elif ev & top:
            cause = causes[2]
        else:
            cause = causes[3]
        row[cause] = row.get(cause, 0) + 1
    lines = [f"| kind | questions | {mode} misses | " + " | ".join(causes) + " |", "|---|---|---|" + "---|" * len(causes)]
    for kind in [k for k in convo_run.KINDS if k in table]:
        row = table[kind]
        lines.append(f"| {kind} | {row['questions']} | {row['misses']} | " + " | ".join(str(row.get(c, 0)) for c in causes) + " |")
    return "\n".join(lines)


def best_score_auc(dump: Path, data: dict[str, Any]) -> str:
    """Per mode: how well the best hit's score tells a question with an answer from one without
    (AUC: the chance that an answerable question's best score beats an unanswerable one's; 0.5 is
    chance), per trap, and the median best score of each."""
    import statistics

    trap = {q["id"]: q.get("trap", "") for c in data["conversations"] for q in c["questions"]}
    best: dict[str, dict[str, list[float]]] = {}
    for line in dump.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        group = "answerable" if r["evidence"] else trap[r["id"]]
        best.setdefault(r["mode"], {}).setdefault(group, []).append(r["hits"][0][1] if r["hits"] else 0.0)

    def auc(pos: list[float], neg: list[float]) -> float:
        return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))

    traps = sorted({t for t in trap.values() if t})
    lines = ["| mode | AUC, all unanswerable | " + " | ".join(f"AUC vs {t}" for t in traps)
             + " | median best score: answerable / unanswerable |", "|---|---|" + "---|" * (len(traps) + 1)]
    for mode, g in best.items():
        neg = [x for t in traps for x in g.get(t, [])]
        row = [mode, f"{auc(g['answerable'], neg):.3f}", *(f"{auc(g['answerable'], g[t]):.3f}" for t in traps),
               f"{statistics.median(g['answerable']):.4f} / {statistics.median(neg):.4f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def subsets(dump: Path, data: dict[str, Any]) -> str:
    """R@10 per mode on slices of the answerable questions (:func:`slice_recalls`), as a table;
    then the share of short turns in each mode's top 10 (:func:`short_hits`)."""
    rows = slice_recalls(dump, data)
    order = ["lexical", "vector", "hybrid", "reranked"]
    modes = sorted({m for v in rows.values() for m in v}, key=lambda m: order.index(m) if m in order else 9)
    lines = ["| slice | n | " + " | ".join(f"{m} R@10" for m in modes) + " |", "|---|---|" + "---|" * len(modes)]
    for sl in sorted(rows, key=lambda x: (x.startswith("storyline"), x)):
        n = len(next(iter(rows[sl].values())))
        vals = [sum(rows[sl][m]) / len(rows[sl][m]) if rows[sl].get(m) else None for m in modes]
        lines.append(f"| {sl} | {n} | " + " | ".join("–" if v is None else f"{v:.3f}" for v in vals) + " |")
    return ("\n".join(lines) + "\n\n" + short_hits(dump, data) + "\n\n" + best_score_auc(dump, data)
            + "\n\n" + miss_causes(dump, data) + "\n\n" + miss_causes(dump, data, "reranked"))


def _why(ex: dict[str, Any] | None) -> str:
    """The parts of a hit's ``explain`` that say why it ranks where it does."""
    if not ex:
        return ""
    parts = []
    vec, lex = ex.get("vector"), ex.get("lexical")
    if isinstance(vec, dict) and isinstance(vec.get("cosine"), (int, float)):
        parts.append(f"cosine {vec['cosine']:.3f}")
    if isinstance(lex, dict):
        parts.append(f"bm25 rank {lex.get('rank')}")
    for key in ("coverage", "relevance"):
        if isinstance(ex.get(key), (int, float)):
            parts.append(f"{key} {ex[key]:.3f}")
    sp = ex.get("speaker")
    if isinstance(sp, dict):
        parts.append(f"stage 1 {sp.get('first_relevance')}, named {sp.get('named')}, says_when {sp.get('says_when')}")
    return "(" + ", ".join(parts) + ")" if parts else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The second conversational benchmark (a test set; see the docstring).")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--modes", help="comma-separated subset of lexical,vector,hybrid,reranked")
    ap.add_argument("--min-score", default="default",
                    help="the floor each mode is also run with: 'default' (MCP recall's), a number, or 'none'")
    ap.add_argument("--fresh", action="store_true", help="build the cached store again")
    ap.add_argument("--json", action="store_true", help="print the metrics as JSON")
    ap.add_argument("--dump", type=Path, help="write every question's hits per mode (JSON Lines)")
    ap.add_argument("--misses", type=int, metavar="N", help="print N misses per kind with --explain's evidence")
    ap.add_argument("--ablate", action="store_true", help="hybrid with each of stage 2's terms off (analysis only)")
    ap.add_argument("--subsets", type=Path, metavar="DUMP", help="R@10 per slice of the questions, read off a --dump file")
    ap.add_argument("--sweep", default="", help="comma-separated floors read off the scores (what each would leave)")
    ap.add_argument("--speaker-in-text", nargs="?", const="source", choices=("source", "text"),
                    help="a variant: each turn's text is 'Name: text' (its own store; BM25 reads the same "
                         "text); 'text': without the speaker in the source")
    ap.add_argument("--k-prefix", action="store_true", help="does the top 10 change when more hits are asked for?")
    ap.add_argument("--before", action="store_true", help="hybrid and reranked with relevance's constants of "
                    "main too (bench/convo's BEFORE), and R@k by who said the evidence")
    ap.add_argument("--ks", default="5,10", help="the k of recall@k (the largest is what each search asks for)")
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr)

    prep = prepare(args.embedder, fresh=args.fresh, log=log, with_speaker=args.speaker_in_text)
    st = gen.stats(prep.data)
    print(f"convo2 generator v{gen.VERSION} seed {gen.SEED} digest {st['digest']}: {st['conversations']} "
          f"conversations, {st['sessions']} sessions, {st['turns']} turns, {st['questions']} questions "
          f"{st['kinds']} {st['traps']}; embedder {args.embedder}; store {prep.store_dir}")
    if args.misses:
        mode = (args.modes or "hybrid").split(",")[0]
        print(misses(prep, args.misses, mode))
        return 0
    if args.k_prefix:
        print(k_prefix(prep))
        return 0
    if args.subsets:
        print(subsets(args.subsets, prep.data))
        return 0
    if args.ablate:
        work = CACHE / "ablation"
        work.mkdir(parents=True, exist_ok=True)
        ab = ablation(prep, work)
        print(json.dumps(ab, indent=1) if args.json else ablation_table(ab))
        return 0
    floor = (convo_run.default_floor() if args.min_score == "default" else
             None if args.min_score == "none" else float(args.min_score))
    m = measure(prep, modes=args.modes.split(",") if args.modes else None, floor=floor,
                keep_hits=args.dump is not None, ks=tuple(int(x) for x in args.ks.split(",")),
                sweep=tuple(float(x) for x in args.sweep.split(",") if x.strip()), before=args.before)
    if args.dump is not None:
        convo_run._dump(prep, m, args.dump)
    if args.json:
        print(json.dumps(m, indent=1))
        return 0
    s = m["setup"]
    part = m[gen.SPLIT]
    print(f"modes {','.join(s['modes'])}, floor {s['min_score']} ({s['floor']}); "
          f"{part['questions']} questions in {part['seconds']} s")
    print(convo_run.tables(m).replace(f"**{gen.SPLIT}**", "**convo2 (test set)**")
          .replace(f"Per kind ({gen.SPLIT})", "Per kind (convo2)"))
    if args.before:
        print("\nBy who said the evidence (convo2):\n")
        print(convo_run.slice_table(prep, m, gen.SPLIT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
