"""``mem add``: store a new memory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

from mem.cli.common import emit_json, info, open_store, split_csv


def _read_capped(f: BinaryIO, where: str) -> str:
    """At most a record's worth of bytes from ``f`` (``/dev/zero`` or an endless pipe would
    otherwise grow without bound), as UTF-8 text."""
    from mem.format.base.errors import InvalidInputError
    from mem.format.model.record import MAX_RECORD_BYTES

    raw = f.read(MAX_RECORD_BYTES + 1)
    if len(raw) > MAX_RECORD_BYTES:
        raise InvalidInputError(f"the content is larger than a record may be ({MAX_RECORD_BYTES} bytes)", path=where)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"not valid UTF-8 (byte {exc.start})", path=where) from None


def read_content(text: str | None, file: Path | None) -> str:
    """The content from the argument, --file, or stdin ('-' or a pipe), at most a record's size."""
    from mem.format.base.errors import InvalidInputError

    if text is not None and file is not None:
        raise InvalidInputError("give the content as an argument or with --file, not both")
    if file is not None:
        if str(file) == "-":
            return _read_capped(sys.stdin.buffer, "<stdin>")
        try:
            with open(file, "rb") as f:
                return _read_capped(f, str(file))
        except FileNotFoundError:
            from mem.format.base.errors import NotFoundError

            # a file that is not there is "not found" (3), as for `mem import /missing`
            raise NotFoundError("no such file or directory", path=file) from None
        except OSError as exc:
            raise InvalidInputError(f"cannot read: {exc.strerror}", path=file) from None
    if text == "-" or (text is None and not sys.stdin.isatty()):
        return _read_capped(sys.stdin.buffer, "<stdin>")
    if text is None:  # on a terminal, with nothing given: a missing argument (exit 2)
        from mem.format.base.errors import UsageError

        raise UsageError("missing argument TEXT: give the memory as an argument, with --file, or on stdin")
    return text


def register(app: typer.Typer) -> None:
    @app.command("add")
    def add(
        text: Annotated[str | None, typer.Argument(help="The memory ('-' or a pipe: stdin).")] = None,
        file: Annotated[Path | None, typer.Option("--file", "-f", help="Read the content from a file.")] = None,
        scope: Annotated[str, typer.Option("--scope", help="Scope (a user, an agent, a project).")] = "default",
        kind: Annotated[str, typer.Option("--kind", help="fact, preference, instruction, event, episode, summary, action_item, contact, note, ...")] = "note",
        tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="A tag (repeat, or comma-separated).")] = None,
        confidence: Annotated[float, typer.Option("--confidence", min=0.0, max=1.0)] = 1.0,
        status: Annotated[str, typer.Option("--status", help="active or candidate.")] = "active",
        derived_from: Annotated[list[str] | None, typer.Option("--derived-from", help="Id of a source record (repeat).")] = None,
        valid_from: Annotated[str | None, typer.Option("--valid-from", help="When it became true (RFC 3339 or date).")] = None,
        valid_to: Annotated[str | None, typer.Option("--valid-to", help="When it stopped being true.")] = None,
        allow_forgotten: Annotated[bool, typer.Option("--allow-forgotten", help="Store content that was forgotten before (logged).")] = False,
        reason: Annotated[str | None, typer.Option("--reason", help="Why (kept in the audit log with --allow-forgotten).")] = None,
        allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store text that looks like a secret (a key, token, password...); logged, without the text.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the new record as JSON.")] = False,
    ) -> None:
        """Add a memory. Prints its id."""
        from mem.format.base.errors import ValidationError

        if status not in ("active", "candidate"):
            raise ValidationError("a new record's status is active or candidate")
        content = read_content(text, file)
        store = open_store()
        with store.lock:  # the check and the write in one critical section: no twin slips in
            same = store.live_with_content(content, scope)
            if same is not None:  # idempotent: the memory is already there
                if json_out:
                    emit_json(same.to_dict())
                else:
                    sys.stdout.write(same.id + "\n")
                    info(f"already stored as {same.kind} {same.id} in scope {same.scope} "
                         f"({same.status}, the same content); nothing added")
                return
            rec = store.add(
                content,
                scope=scope,
                kind=kind,
                status=status,
                confidence=confidence,
                tags=split_csv(tag) or [],
                derived_from=split_csv(derived_from) or [],
                valid_from=valid_from,
                valid_to=valid_to,
                source={"type": "cli", "command": "add"},
                allow_tombstoned=allow_forgotten,
                override_reason=reason,
                allow_secret=allow_secret,
            )
        if json_out:
            emit_json(rec.to_dict())
        else:
            sys.stdout.write(rec.id + "\n")
            info(f"added {rec.kind} {rec.id} to scope {rec.scope}")

