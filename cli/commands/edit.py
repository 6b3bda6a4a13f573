"""``mem edit``: edit a record in $EDITOR; validated on save, the old record kept on bad input."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store


def register(app: typer.Typer) -> None:
    @app.command("edit")
    def edit(
        record_id: Annotated[str, typer.Argument(metavar="ID", help="The record to edit.")],
        allow_forgotten: Annotated[bool, typer.Option("--allow-forgotten", help="Allow content that was forgotten (logged).")] = False,
        allow_secret: Annotated[bool, typer.Option("--allow-secret", help="Store text that looks like a secret (a key, token, password...); logged, without the text.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the saved record as JSON.")] = False,
    ) -> None:
        """Open a record (frontmatter and content) in $VISUAL/$EDITOR and save it if valid.

        The id cannot change; the digest is recomputed. If the edited text is not a valid
        record, nothing is saved, the store is unchanged, and your draft is kept in .mem/drafts/,
        unless it holds a secret (a key, token, password...) the record did not: a refused
        secret is never kept on disk, so that draft is deleted.
        """
        from mem.format.base.errors import InvalidInputError, MemError
        from mem.format.base.fsutil import atomic_write, ensure_dir
        from mem.format.model.record import dump_record, parse_record

        store = open_store()
        old = store.get(record_id)
        drafts = store.drafts_dir
        ensure_dir(drafts)
        draft = drafts / f"{old.id}.md"
        original = dump_record(old)
        atomic_write(draft, original)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            rc = subprocess.call([*shlex.split(editor), str(draft)])
        except OSError as exc:
            raise InvalidInputError(f"cannot run the editor {editor!r}: {exc.strerror}") from None
        if rc != 0:
            raise InvalidInputError(f"the editor exited with status {rc}; nothing saved", path=draft)
        try:
            text = draft.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"the edited record is not valid UTF-8 (byte {exc.start}); nothing saved", path=draft) from None
        if text == original:
            draft.unlink()
            info("no changes")
            if json_out:
                emit_json(old.to_dict())
            return
        try:
            new = parse_record(text, draft)
            if new.id != old.id:
                raise InvalidInputError(f"the id cannot change (was {old.id}, now {new.id})", path=draft)
            saved = store.replace(
                new, op="update", detail={"via": "edit"}, allow_tombstoned=allow_forgotten,
                allow_secret=allow_secret,
            )  # fmt: skip
        except MemError as exc:
            if not allow_secret and _new_secret(text, original):
                # a secret the write refused (or would refuse) never stays on disk in a draft
                draft.unlink()
                sys.stderr.write(f"error: {exc}\nnothing saved; your draft held a secret and was deleted "
                                 "(edit again, or add --allow-secret to store it)\n")
            else:
                sys.stderr.write(f"error: {exc}\nnothing saved; your draft is kept at {draft}\n")
            raise typer.Exit(int(exc.exit_code)) from None
        draft.unlink()
        if json_out:
            emit_json(saved.to_dict())
        else:
            info(f"saved {saved.id}")


def _new_secret(text: str, original: str) -> bool:
    """Whether the lines the edit added to the record's ``original`` text hold a secret (the
    secrets policy's own detector, ``format/rules/secretpolicy.py``): a secret stored before with
    ``--allow-secret`` is in the record already and does not count."""
    from mem.format.rules.secretpolicy import find_secret

    old = set(original.splitlines())
    added = "\n".join(ln for ln in text.splitlines() if ln not in old)
    return bool(added) and find_secret(added) is not None
