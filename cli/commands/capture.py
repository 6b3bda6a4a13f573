"""``mem capture``: mine transcripts for candidate memories (zero-LLM, anchored patterns)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mem.cli.commands.embed import embed_written
from mem.cli.common import emit_json, info, open_store, warn
from mem.cli.termtext import safe_line

FORMAT_HELP = (
    "Transcript format: auto (default: detected from the content), claude-code, codex, chatgpt, "
    "json, jsonl, text, skales, windieos."
)
SCOPE_FROM_HELP = (
    "Take each turn's scope from this transcript field (e.g. user_id for WindieOS rows, or any "
    "key of a JSONL line), made into a valid scope name; --scope is the fallback."
)


def register(app: typer.Typer) -> None:
    @app.command("capture")
    def capture_(
        transcripts: Annotated[list[Path] | None, typer.Argument(help="Transcript files or folders.", show_default=False)] = None,
        scope: Annotated[str | None, typer.Option("--scope", help="Scope the captures go to (default: 'default').")] = None,
        scope_from: Annotated[str | None, typer.Option("--scope-from", help=SCOPE_FROM_HELP)] = None,
        fmt: Annotated[str, typer.Option("--format", "-F", help=FORMAT_HELP)] = "auto",
        source_name: Annotated[str | None, typer.Option("--source-name", help="Stable name for the transcript in provenance and watermark (one transcript only; default: its absolute path).")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Report what would be captured; write nothing.")] = False,
        rescan: Annotated[bool, typer.Option("--rescan", help="Ignore the watermark and read every turn again (nothing is captured twice).")] = False,
        no_embed: Annotated[bool, typer.Option("--no-embed", help="Write the captures only; embed them later with `mem embed`.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        watch_: Annotated[bool, typer.Option("--watch", help="Keep watching the given folders (or files) and capture what hosts append, until interrupted (Ctrl-C).")] = False,
        interval: Annotated[float, typer.Option("--interval", help="With --watch: seconds between passes.", min=0.05)] = 5.0,
        hook: Annotated[bool, typer.Option("--hook", help="Run as a host hook: read the event JSON on stdin (Claude Code Stop/PreCompact: transcript_path) and capture that transcript; failures exit 1, never 2.")] = False,
    ) -> None:
        """Capture candidate memories from transcripts (user turns only; review them with `mem review`).

        Reads Claude Code sessions, Codex CLI rollouts, a ChatGPT export (conversations.json), a
        JSON array of {role, content} messages, JSON Lines, plain text, Skales and WindieOS;
        a folder is read file by file. Only new turns are read again (the watermark).
        """
        from mem.format.base.errors import InvalidInputError
        from mem.format.capture.engine import capture
        from mem.format.capture.transcripts import FORMATS, read_transcripts

        if hook:
            _hook(scope or "default", scope_from, fmt)
            return
        transcripts = transcripts or []
        if not transcripts:
            raise InvalidInputError("name at least one transcript file or folder (or use --hook)")
        if fmt != "auto" and fmt not in FORMATS:
            raise InvalidInputError(f"--format {fmt!r} is not one of auto, {', '.join(FORMATS)}")
        if source_name is not None and len(transcripts) != 1:
            raise InvalidInputError("--source-name names one transcript; give exactly one")
        store = open_store()
        if watch_:
            if dry_run or rescan or source_name is not None:
                raise InvalidInputError("--watch cannot be combined with --dry-run, --rescan or --source-name")
            _watch(store, transcripts, fmt, scope or "default", scope_from, interval, json_out)
            return
        from mem.format.capture.engine import unchanged_since_capture

        def known(f: Path) -> bool:  # a folder's file that its last capture read as it is now
            return not rescan and unchanged_since_capture(store, f)

        read = []
        for p in transcripts:
            read.extend(read_transcripts(p, fmt, source_name, skip=known))
        report = capture(
            store, read, scope=scope or "default", scope_from=scope_from, dry_run=dry_run, rescan=rescan
        )
        if not json_out:
            _print_report(report)
        wrote = 0 if dry_run else report.counts()["captured"]
        vectors = None if dry_run else embed_written(store, no_embed=no_embed, wrote=wrote)
        if json_out:
            emit_json({**report.to_dict(), "vectors": vectors})

    _ = capture_


def _hook(scope: str, scope_from: str | None, fmt: str) -> None:
    """Capture the transcript a host hook names. A hook's exit 2 would block the host (Claude
    Code's Stop hook), so every failure here is reported on stderr with exit 1."""
    import json

    from mem.format.base.errors import MemError
    from mem.format.capture.engine import capture
    from mem.format.capture.transcripts import read_transcripts

    try:
        raw = sys.stdin.read()
        try:
            event = json.loads(raw)
        except ValueError:
            event = None
        path = event.get("transcript_path") if isinstance(event, dict) else None
        if not isinstance(path, str) or not path:
            sys.stderr.write("mem capture --hook: the event on stdin has no transcript_path\n")
            raise SystemExit(1)
        store = open_store()
        report = capture(store, read_transcripts(Path(path), fmt), scope=scope, scope_from=scope_from)
    except MemError as exc:
        sys.stderr.write(f"mem capture --hook: {exc}\n")
        raise SystemExit(1) from None
    c = report.counts()
    info(f"mem: {c['captured']} captured from {path}")


def _watch(store, folders: list[Path], fmt: str, scope: str, scope_from: str | None,  # type: ignore[no-untyped-def]
           interval: float, json_out: bool) -> None:
    import json
    import signal

    from mem.format.capture.watch import WatchState, watch

    for f in folders:
        if not f.exists():
            from mem.format.base.errors import NotFoundError

            raise NotFoundError("nothing to watch here", path=f)

    def on_report(path: Path, report) -> None:  # type: ignore[no-untyped-def]
        if not any(s.new_turns for s in report.sources):
            return  # an empty or unchanged file: nothing to say
        if json_out:
            sys.stdout.write(json.dumps({"file": str(path), **report.to_dict()}, ensure_ascii=False) + "\n")
        elif report.items:
            _print_report(report)
        sys.stdout.flush()

    def on_error(path: Path, exc) -> None:  # type: ignore[no-untyped-def]
        warn(f"skipped {path}: {exc}")

    def stop(signum, frame) -> None:  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    state = WatchState()
    try:  # (the start line inside: a Ctrl-C as soon as it is shown stops the watcher as it says)
        info(f"watching {', '.join(str(f) for f in folders)} every {interval:g}s ({_how_to_stop()})")
        watch(store, folders, interval=interval, fmt=fmt, scope=scope, scope_from=scope_from,
              on_report=on_report, on_error=on_error, state=state)
    except KeyboardInterrupt:
        info(f"stopped watching: {state.captured} captured from {state.files_read} file read(s) "
             f"in {state.passes} pass(es)")


def _how_to_stop() -> str:
    """How the person can stop the watcher: Ctrl-C, unless this process ignores SIGINT (a
    background job of a non-interactive shell inherits that): then SIGTERM, with the pid."""
    import os
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return f"Ctrl-C is ignored here; `kill {os.getpid()}` (SIGTERM) stops it"
    return "Ctrl-C stops"


#: The outcomes of a dry run's rows that name a write, as what a run would do.
DRY_RUN_LABELS = {"captured": "would-capture", "sighting": "would-log-sighting"}


def _print_report(report) -> None:  # type: ignore[no-untyped-def]
    verb = "would be " if report.dry_run else ""
    out = sys.stdout
    for it in report.items:
        where = f"{it.conversation or '-'}#{it.turn}"
        if it.outcome == "refused-secret":
            warn(f"refused: a sentence in turn {where} of {it.transcript} holds a secret ({it.secret}); not stored")
            continue
        ident = it.id or "-"
        # a dry run wrote nothing: its rows say what a run would do
        label = DRY_RUN_LABELS.get(it.outcome, it.outcome) if report.dry_run else it.outcome
        out.write(f"{label:<21} {ident:<26} {it.kind:<11} {it.confidence:.2f}  {safe_line(it.content or '')}\n")
    for s in report.sources:
        if s.rewritten:
            warn(f"{s.transcript} changed since it was last captured (not just appended to): read again")
    c = report.counts()
    info(
        f"{c['captured']} {verb}captured, {c['sighting']} sighting(s) of existing memories, "
        f"{c['duplicate']} duplicate(s), {c['suppressed-forgotten']} suppressed (forgotten), "
        f"{c['suppressed-rejected']} suppressed (rejected), {c['refused-secret']} refused (secret); "
        f"{c['user-turns']} new user turn(s) read, {c['skipped-non-user']} non-user turn(s) skipped, "
        f"{c['skipped-seen']} turn(s) already mined"
    )
    if c["captured"] and not report.dry_run:
        info("review them with: mem review")
