"""``mem import``: bring memory in from a JSON Lines or CSV file, or another system's store."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mem.cli.commands.embed import embed_written
from mem.cli.common import emit_json, info, open_store, progress, warn

if TYPE_CHECKING:
    from mem.format.interchange.migrate import ImportSummary

MAX_PROBLEMS_SHOWN = 20


def _scope_map(values: list[str] | None) -> dict[str, str]:
    from mem.format.base.errors import ValidationError

    out: dict[str, str] = {}
    for v in values or []:
        src, sep, dst = v.partition("=")
        if not sep or not src or not dst:
            raise ValidationError(f"--scope-map {v!r} is not FROM=TO")
        out[src] = dst
    return out


def _print_summary(s: ImportSummary) -> None:
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in s.counts.items() if v)
    t = s.tombstones
    head = "would import" if s.dry_run else "imported"
    sys.stdout.write(f"{head} from {s.system}: {counts or 'nothing'}\n")
    if any(t.values()):
        sys.stdout.write(
            "tombstones: " + ", ".join(f"{k} {v}" for k, v in t.items() if v) + "\n"
        )
    shown = [p for p in s.problems if p.outcome not in ("skipped_not_memory", "skipped_empty")]
    # in the order of the input (problems are found in several passes: parsing, then importing)
    shown.sort(key=lambda p: (p.where.file or "", p.where.line if p.where.line is not None else -1))
    for p in shown[:MAX_PROBLEMS_SHOWN]:
        label = p.outcome.replace("_", " ")
        warn(f"{p.where}: {label}: {p.message}")
    if len(shown) > MAX_PROBLEMS_SHOWN:
        warn(f"... and {len(shown) - MAX_PROBLEMS_SHOWN} more (see --json)")


def _written(s: ImportSummary) -> int:
    """How many records the import wrote."""
    return int(s.counts.get("created", 0))


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        path: Annotated[str, typer.Argument(help="A .jsonl/.csv file ('-': stdin), or another system's store folder.")],
        from_: Annotated[
            str | None,
            typer.Option(
                "--from",
                help="jsonl, csv, windieos, matrixos, skales, soulofwaifu, mem0, basic-memory, claude-code, "
                "letta or chatgpt-memories (detected when omitted).",
            ),
        ] = None,
        scope: Annotated[str | None, typer.Option("--scope", help="Put everything into this scope.")] = None,
        scope_map: Annotated[
            list[str] | None,
            typer.Option("--scope-map", help="FROM=TO: a source scope, user id or character.chat to a scope (repeat)."),
        ] = None,
        timezone: Annotated[
            str | None,
            typer.Option("--timezone", help="Time zone of times without an offset in the source (default UTC)."),
        ] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Show what would happen; write nothing.")] = False,
        no_embed: Annotated[
            bool, typer.Option("--no-embed", help="Write the records only; embed them later with `mem embed`.")
        ] = False,
        allow_forgotten: Annotated[
            bool,
            typer.Option("--allow-forgotten", help="Import tombstone lifts that do not come with their record (logged)."),
        ] = False,
        allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Import items whose text looks like a secret (logged per record, without the text).")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    ) -> None:
        """Import memories. Idempotent: a re-import adds nothing; forgotten items stay forgotten.

        Exit status 4 (with the summary printed) when some lines or items were invalid,
        conflicted with existing records or held a secret; the rest is imported.
        """
        from mem.format.base.errors import ExitCode, InvalidInputError
        from mem.format.interchange.importers import detect
        from mem.format.interchange.migrate import ImportOptions, import_path

        tmp: str | None = None
        try:
            if path == "-":
                system = from_ or "jsonl"
                if system not in ("jsonl", "csv"):
                    raise InvalidInputError("stdin ('-') can only be read as jsonl or csv")
                fd, tmp = tempfile.mkstemp(prefix="mem-import-", suffix=f".{system}")
                with os.fdopen(fd, "wb") as f:
                    f.write(sys.stdin.buffer.read())
                src = Path(tmp)
            else:
                src = Path(path).expanduser()
                if from_ is None:
                    system = detect(src)
                    info(f"detected {system} at {src}")
                else:
                    system = from_
            store = open_store()
            opts = ImportOptions(
                scope=scope,
                scope_map=_scope_map(scope_map),
                dry_run=dry_run,
                keep_items=dry_run,
                allow_forgotten=allow_forgotten,
                allow_secret=allow_secret,
            )
            summary = import_path(
                store,
                src,
                system,
                options=opts,
                timezone=timezone,
                display="<stdin>" if path == "-" else None,
                progress=lambda items, n: progress(items, n, "importing"),
                # embedded next: the lexical index first, before the lock is let go (a search
                # meanwhile answers without waiting, and counts what it cannot find yet)
                index=not no_embed,
            )
        finally:
            if tmp is not None:
                os.unlink(tmp)
        if not json_out:
            _print_summary(summary)
        # the records written are embedded now, in large batches (or left to `mem embed`)
        vectors = None if dry_run else embed_written(store, no_embed=no_embed, wrote=_written(summary))
        if json_out:
            emit_json({**summary.to_dict(), "vectors": vectors})
        if summary.failed:
            raise typer.Exit(int(ExitCode.INVALID_INPUT))
