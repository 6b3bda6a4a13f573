"""``mem eval``: recall@k and MRR of the store's search modes on the owner's labelled queries."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mem.cli.common import emit_json, open_store, warn


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}"


def _table(modes: dict[str, Any], part: str, ks: list[int], kind: str | None = None) -> list[str]:
    head = ["mode"] + [f"recall@{k}" for k in ks] + ["MRR", "no answer: empty"]
    rows = [head]
    notes = []
    for mode, m in modes.items():
        if not m["available"]:
            notes.append(f"{mode}: unavailable: {m['reason']}")
            continue
        r = m["all"] if kind is None else m["kinds"].get(kind)
        if r is None:
            continue
        empty = f"{r['empty']}/{r['unanswerable']}" if r.get("unanswerable") else "-"
        rows.append([mode] + [_fmt(r[f"recall@{k}"]) for k in ks] + [_fmt(r["mrr"]), empty])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    out = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return out + notes


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_(
        file: Annotated[str, typer.Argument(help="Labelled queries, JSON Lines ('-': stdin): query, scope, answers or answer_contents.")],
        k: Annotated[
            list[int] | None,
            typer.Option("-k", "--k", min=1, max=1000, help="A cut-off for recall@k (repeat; default 5 and 10)."),
        ] = None,
        mode: Annotated[
            list[str] | None,
            typer.Option("--mode", "-m", help="Only these modes: lexical, vector, hybrid, reranked (repeat; BM25 is always shown)."),
        ] = None,
        fail_under: Annotated[
            float | None,
            typer.Option("--fail-under", min=0.0, max=1.0, help="Exit 1 when hybrid recall at the largest k is below this."),
        ] = None,
        min_score: Annotated[
            float | None,
            typer.Option("--min-score", help="A relevance floor for every search (as mem search --min-score)."),
        ] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Measure search quality on your labelled queries: recall@k and MRR per mode, plain BM25 beside.

        Each line of FILE is {"query", "scope" (or "scopes"), "answers": [record ids] and/or
        "answer_contents": [record texts], "kind"?, "id"?}; empty answers mean the store holds no
        answer (counted as empty when a mode returns nothing). Exit 1 with --fail-under when
        recall is below it.
        """
        from mem.format.base.errors import ExitCode
        from mem.format.search.evaluate import (
            EVAL_MODES,
            decode_lines,
            evaluate_store,
            parse_labelled,
            read_labelled,
        )

        modes = list(EVAL_MODES) if not mode else []
        for m in mode or ():
            for name in m.split(","):
                if name not in EVAL_MODES:
                    raise typer.BadParameter(f"{name!r} is not one of {', '.join(EVAL_MODES)}", param_hint="--mode")
                if name not in modes:
                    modes.append(name)
        if file == "-":
            display = "<stdin>"
            labelled = parse_labelled(decode_lines(sys.stdin.buffer.read(), display), display)
        else:
            display = file
            labelled = read_labelled(Path(file).expanduser(), display)
        store = open_store()
        report = evaluate_store(store, labelled, display, ks=k or (5, 10), modes=modes, min_score=min_score)
        report = {"file": display, **report}
        for w in report["warnings"]:
            warn(w)
        ks: list[int] = report["ks"]
        failed = None
        if fail_under is not None:
            hy = report["modes"].get("hybrid")
            if hy is None or not hy["available"]:
                failed = "hybrid search is not available to check --fail-under"
            else:
                got = hy["all"][f"recall@{ks[-1]}"]
                if got is not None and got < fail_under:
                    failed = f"hybrid recall@{ks[-1]} {got:.3f} is below --fail-under {fail_under}"
            report["fail_under"] = {"threshold": fail_under, "failed": failed is not None}
        if json_out:
            emit_json(report)
        else:
            un = report["queries"] - report["answerable"]
            floor = "" if min_score is None else f", floor {min_score:g}"
            print(f"{display}: {report['queries']} queries ({report['answerable']} with answers"
                  + (f", {un} without" if un else "") + f"), {report['records']} searchable records{floor}")
            print("\n".join(_table(report["modes"], "all", ks)))
            kinds = sorted({lq.kind for lq in labelled if lq.kind is not None})
            for kind in kinds:
                print(f"\nkind {kind}:")
                print("\n".join(line for line in _table(report["modes"], "kind", ks, kind) if ": unavailable" not in line))
        if failed is not None:
            warn(failed)
            raise typer.Exit(int(ExitCode.CHECK_FAILED))
