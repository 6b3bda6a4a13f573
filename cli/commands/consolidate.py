"""``mem consolidate``: roll episodes up into summaries and facts through a summarizer program."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from mem.cli.commands.embed import embed_written
from mem.cli.common import emit_json, info, open_store, progress, split_csv, warn
from mem.cli.render import one_line
from mem.cli.termtext import safe_line

if TYPE_CHECKING:
    from mem.format.ops.consolidate import Report, WindowResult


def _line(r: WindowResult) -> str:
    w = r.window
    conv = w.conversation if w.conversation is not None else "-"
    head = f"{r.outcome:<9} {w.scope}  {conv}  window {w.key[7:19]}  {len(w.episodes)} episodes"
    if w.overlap:
        head += f" ({w.overlap} overlap)"
    if r.refusal is not None:
        return f"{head}  {r.refusal.code}: {safe_line(r.refusal.message)}"
    parts: list[str] = []
    below: list[str] = []
    if r.outcome == "previewed":
        # nothing was written, so there are no ids: show what would be written, one per line
        a = r.answer
        if a is not None and not a.none:
            below.append(f"    summary: {one_line(a.summary, 200)}")
            below += [f"    {f.kind}: {one_line(f.content, 200)}" for f in a.facts]
            below += [f"    supersedes {s.id}: {one_line(s.content, 200)}" for s in a.supersedes]
        else:
            parts.append("nothing durable")
    else:
        if r.summary:
            parts.append(f"summary {r.summary}")
        if r.facts:
            parts.append("facts " + ", ".join(r.facts))
        for s in r.superseded:
            parts.append(f"{s['new'] or '(new)'} supersedes {s['old']}")
    if r.dropped:
        parts.append(
            f"{len(r.dropped)} dropped ("
            + ", ".join(f"{d['item']}: {d['reason']}" for d in r.dropped)
            + ")"
        )
    if r.resumed:
        parts.append("resumed from the journal")
    return head + ("  " + "; ".join(parts) if parts else "") + "".join("\n" + b for b in below)


def _tally(report: Report) -> str:
    d = report.to_dict()["windows"]
    text = (
        f"{d['processed']} window(s): {d['created']} created, {d['none']} nothing durable, "
        f"{d['done']} already done, {d['refused']} refused"
    )
    if report.mode == "plan":
        text = (
            f"{d['planned']} window(s) to consolidate ({d['done']} already done); nothing was run"
        )
    elif report.mode == "preview":
        text += f", {d['previewed']} previewed; nothing was written"
    if d["not_run"]:
        text += f"; {d['not_run']} not run"
    if d["deferred"]:
        text += f"; {d['deferred']} stream(s) wait for more episodes"
    return text


def register(app: typer.Typer) -> None:
    @app.command("consolidate")
    def consolidate(
        summarizer: Annotated[
            str | None,
            typer.Option(
                "--summarizer",
                envvar="MEM_SUMMARIZER",
                help="The program to run per window (split like a shell line, run without a "
                "shell): reads the window JSON on stdin, answers JSON or NONE on stdout.",
            ),
        ] = None,
        scope: Annotated[
            list[str] | None, typer.Option("--scope", help="Only these scopes (repeat).")
        ] = None,
        kind: Annotated[
            list[str] | None,
            typer.Option("--kind", help="Episode kinds (repeat; default: episode)."),
        ] = None,
        window: Annotated[
            int, typer.Option("--window", "-n", help="Records per window, overlap included.")
        ] = 20,
        overlap: Annotated[
            int,
            typer.Option("--overlap", help="Already consolidated episodes repeated as context."),
        ] = 2,
        min_new: Annotated[
            int, typer.Option("--min-new", help="Defer a window with fewer new episodes than this.")
        ] = 1,
        max_windows: Annotated[
            int | None,
            typer.Option("--max-windows", help="Call the summarizer at most this often."),
        ] = None,
        timeout: Annotated[
            float, typer.Option("--timeout", help="Seconds per summarizer call.")
        ] = 120.0,
        min_chars: Annotated[
            int, typer.Option("--min-chars", help="Length floor of a summary.")
        ] = 20,
        min_fact_chars: Annotated[
            int, typer.Option("--min-fact-chars", help="Length floor of a fact.")
        ] = 8,
        existing: Annotated[
            int, typer.Option("--existing", help="Newest memories of the scope sent as context.")
        ] = 50,
        confidence: Annotated[
            float, typer.Option("--confidence", min=0.0, max=1.0, help="Confidence of new records.")
        ] = 0.8,
        trust: Annotated[
            bool, typer.Option("--trust", help="Write records active instead of candidate.")
        ] = False,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Show the windows; run nothing, write nothing.")
        ] = False,
        preview: Annotated[
            bool,
            typer.Option("--preview", help="Run the summarizer and check answers; write nothing."),
        ] = False,
        no_embed: Annotated[
            bool, typer.Option("--no-embed", help="Write the records only; embed them later with `mem embed`.")
        ] = False,
        json_out: Annotated[
            bool, typer.Option("--json", help="Print the run report as JSON.")
        ] = False,
    ) -> None:
        """Roll episodes up into summary and fact records through a summarizer program.

        Windows of unconsolidated episodes (per scope and conversation, oldest first) go to the
        summarizer as JSON; its answers become candidate records derived from those episodes.
        A refused answer changes nothing. Exit status 4 when a window was refused.
        """
        import shlex

        from mem.format.base.errors import ExitCode
        from mem.format.ops.consolidate import Consolidation, Options

        if dry_run and preview:
            raise typer.BadParameter("give --dry-run or --preview, not both")
        argv: list[str] = []
        if summarizer:
            try:
                argv = shlex.split(summarizer)
            except ValueError as exc:
                raise typer.BadParameter(
                    f"cannot split the command: {exc}", param_hint="--summarizer"
                ) from None
        if not argv and not dry_run:
            raise typer.BadParameter("no summarizer: give --summarizer CMD or set MEM_SUMMARIZER")
        opts = Options(
            summarizer=argv,
            scopes=split_csv(scope),
            kinds=tuple(split_csv(kind) or ("episode",)),
            window=window,
            overlap=overlap,
            min_new=min_new,
            max_windows=max_windows,
            timeout=timeout,
            min_summary_chars=min_chars,
            min_fact_chars=min_fact_chars,
            existing=existing,
            confidence=confidence,
            trust=trust,
            mode="plan" if dry_run else "preview" if preview else "run",
        )
        store = open_store()
        with Consolidation(store, opts) as run:
            windows = run.plan()
            run.cleanup_journal(windows)
            for w in progress(windows, len(windows), "consolidating"):
                res = run.process(w)
                if res is not None and not json_out:
                    sys.stdout.write(_line(res) + "\n")
                    sys.stdout.flush()
            report = run.report
        info(_tally(report))
        wrote = 0 if dry_run or preview else len(report.to_dict()["created"])
        vectors = embed_written(store, no_embed=no_embed, wrote=wrote) if not (dry_run or preview) else None
        if json_out:
            emit_json({**report.to_dict(), "vectors": vectors})
        if report.budget_exhausted:
            warn(f"stopped at --max-windows {max_windows}; run again to continue")
        if report.refused:
            warn(
                f"{len(report.refused)} window(s) refused; nothing was written for them and their "
                "streams stop there until a run succeeds"
            )
            raise typer.Exit(int(ExitCode.INVALID_INPUT))
