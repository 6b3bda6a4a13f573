"""``mem diff``: what changed between two stores, or two git revisions of one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mem.cli.common import OPTIONS, emit_json, info


def _is_path(arg: str) -> bool:
    """An argument that means a directory, never a git revision: one that exists as a
    directory, or that is written as a path (absolute, ./, ../ or ~)."""
    return Path(arg).expanduser().is_dir() or arg.startswith(("/", "./", "../", "~", ".\\", "..\\"))


def register(app: typer.Typer) -> None:
    @app.command("diff")
    def diff(
        targets: Annotated[
            list[str] | None,
            typer.Argument(
                metavar="[DIR_A DIR_B | REV [REV2] | REV..REV2]",
                help="Two store directories, or git revisions of the store (default: HEAD "
                "against the working files).",
            ),
        ] = None,
        stat: Annotated[bool, typer.Option("--stat", help="Only a summary: counts per scope.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the diff as JSON.")] = False,
        textconv: Annotated[
            Path | None,
            typer.Option(
                "--textconv",
                metavar="FILE",
                help="Print a record file in the form git should diff it (for "
                "`git config diff.mem.textconv 'mem diff --textconv'`).",
            ),
        ] = None,
    ) -> None:
        """Show records added, removed (forgotten) and changed, field by field.

        Exit 0 when there is no difference, 1 when there are differences (like
        `git diff --exit-code`). Revisions are read from git objects; nothing is checked out.
        """
        from mem.format.base.errors import InvalidInputError
        from mem.format.ops.diff import diff_dirs, diff_git, render, render_stat
        from mem.format.ops.diff import textconv as conv

        if textconv is not None:
            try:
                raw = textconv.read_bytes()
            except OSError as exc:
                raise InvalidInputError(f"cannot read: {exc.strerror}", path=textconv) from None
            sys.stdout.write(conv(raw))
            return
        args = list(targets or [])
        if len(args) == 1 and ".." in args[0] and not Path(args[0]).exists():
            a, _, b = args[0].partition("..")
            args = [a or "HEAD", b or "HEAD"]
        if len(args) > 2:
            raise InvalidInputError("give at most two stores or two revisions")
        if len(args) == 2 and any(_is_path(x) for x in args):
            # two stores: one that is not there is named (not the store of the current folder)
            for x in args:
                if not Path(x).expanduser().is_dir():
                    from mem.format.base.errors import NotFoundError

                    raise NotFoundError("no such directory", path=x)
            result = diff_dirs(Path(args[0]).expanduser(), Path(args[1]).expanduser())
        else:
            from mem.format.store.store import find_store_root

            root = find_store_root(OPTIONS.store.expanduser() if OPTIONS.store else None)
            revs = args or ["HEAD"]
            result = diff_git(root, revs[0], revs[1] if len(revs) == 2 else None)
        if json_out:
            emit_json(result.to_dict())
        elif not result.identical:
            lines = render_stat(result) if stat else render(result)
            out = sys.stdout
            for line in lines:
                out.write(line + "\n")
            out.flush()
        if result.identical:
            info("no differences")
        else:
            raise typer.Exit(1)
