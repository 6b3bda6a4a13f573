"""``mem export``: JSON Lines (lossless), CSV, or a Markdown bundle (one document per scope)."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from mem.cli.common import (
    SkipUnreadable,
    emit_json,
    info,
    open_store,
    parse_time_option,
    split_csv,
    warn,
)


def export_formats() -> tuple[str, ...]:
    """The values of ``--format`` (also what completion offers)."""
    from mem.format.interchange.exporters import PEER_FORMATS

    return ("jsonl", "csv", "markdown", *PEER_FORMATS)


def _write_stream(ex: Any, fmt: str, store: Any, out: IO[str], flt: Any, tombstones: bool) -> Any:
    """Write a one-file format (jsonl, csv, mem0, claude-md) to ``out``; returns the counts."""
    if fmt == "jsonl":
        return ex.write_jsonl(store, out, flt, tombstones=tombstones)
    if fmt == "csv":
        return ex.write_csv(store, out, flt)
    if fmt == "mem0":
        from mem.format.interchange.exporters import mem0

        return mem0.write(store, out, flt, tombstones=tombstones)
    from mem.format.interchange.exporters import claudemd

    return claudemd.write(store, out, flt)


def _write_file(output: Path, write: Callable[[IO[str]], Any]) -> Any:
    """Write an export to ``output`` and return what ``write`` returns.

    A regular file (or a symbolic link to one, which stays a link) is replaced atomically by a
    new owner-only (0600) file: an export holds every memory. Anything else that exists (a named
    pipe, ``-o >(gzip)``, a device) is written through, never replaced by a rename.
    """
    from mem.format.base.fsutil import TMP_MARKER, ensure_dir, fsync_dir

    try:
        st = os.stat(output)  # follows a link: what a write would reach
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(output, "w", encoding="utf-8", newline="") as f:
            return write(f)
    target = Path(os.path.realpath(output)) if output.is_symlink() else output
    ensure_dir(target.parent.resolve(), 0o700)
    tmp = target.parent / f".{target.name}{TMP_MARKER}{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as f:
            result = write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        fsync_dir(target.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return result


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        fmt: Annotated[
            str,
            typer.Option(
                "--format", "-f",
                help="jsonl (lossless), csv, markdown, or another tool's: mem0, basic-memory, claude-md.",
            ),
        ] = "jsonl",
        output: Annotated[
            Path | None,
            typer.Option("--output", "-o", help="File (jsonl, csv) or folder (markdown); default stdout."),
        ] = None,
        scope: Annotated[list[str] | None, typer.Option("--scope", help="Only these scopes (repeat or comma-separate).")] = None,
        kind: Annotated[list[str] | None, typer.Option("--kind", help="Only these kinds.")] = None,
        status: Annotated[list[str] | None, typer.Option("--status", help="Only these statuses (default: all).")] = None,
        since: Annotated[str | None, typer.Option("--since", help="Recorded at or after this time.")] = None,
        until: Annotated[str | None, typer.Option("--until", help="Recorded before this time.")] = None,
        no_tombstones: Annotated[bool, typer.Option("--no-tombstones", help="Leave tombstones out (jsonl).")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="With -o: print the counts as JSON.")] = False,
    ) -> None:
        """Export records (and tombstones) to JSON Lines, CSV or a Markdown bundle."""
        from mem.format.base.errors import InvalidInputError, ValidationError
        from mem.format.interchange import export as ex
        from mem.format.model.record import STATUSES
        from mem.format.rules.ids import check_kind, check_scope

        skipped = SkipUnreadable()  # an unreadable record: a warning, the rest exported, exit 4
        formats = export_formats()
        if fmt not in formats:
            raise ValidationError(f"--format {fmt!r} is not one of {', '.join(formats)}")
        statuses = split_csv(status)
        for st in statuses or []:
            if st not in STATUSES:
                raise ValidationError(f"status {st!r} is not one of {', '.join(STATUSES)}")
        flt = ex.ExportFilter(
            scopes=[check_scope(s) for s in split_csv(scope) or []] or None,
            kinds=[check_kind(k) for k in split_csv(kind) or []] or None,
            statuses=statuses,
            since=parse_time_option(since, "--since"),
            until=parse_time_option(until, "--until"),
            on_error=skipped,
        )
        store = open_store()
        if fmt in ("markdown", "basic-memory"):
            if output is None:
                raise InvalidInputError(f"--format {fmt} writes a folder: give it with -o DIR")
            if fmt == "markdown":
                counts = ex.write_markdown(store, output, flt)
            else:
                from mem.format.interchange.exporters import basicmemory

                counts = basicmemory.write(store, output, flt)
        elif output is None or str(output) == "-":
            counts = _write_stream(ex, fmt, store, sys.stdout, flt, not no_tombstones)
            sys.stdout.flush()
        else:
            if output.is_dir():
                raise InvalidInputError("is a folder; give a file name", path=output)
            try:
                counts = _write_file(output, lambda f: _write_stream(ex, fmt, store, f, flt, not no_tombstones))
            except OSError as exc:
                from mem.format.base.fsutil import io_error

                raise io_error(exc, output, "write the export to") from None
            counts.files.append(str(output))
        for w in counts.warnings:
            warn(w)
        if json_out and output is not None:
            emit_json(counts.to_dict())
        else:
            info(
                f"exported {counts.records} record(s)"
                + (f" and {counts.tombstones} tombstone(s)" if counts.tombstones else "")
                + (f" to {output}" if output is not None else "")
            )
        if skipped.skipped:
            raise InvalidInputError(
                f"{len(skipped.skipped)} record file(s) could not be read and were not exported "
                "(each named above); everything else was",
                hint="fix or remove them (`mem verify --full` lists them), then export again",
            )
