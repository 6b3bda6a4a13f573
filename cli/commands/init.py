"""``mem init``: create a store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mem.cli.common import OPTIONS, emit_json, info


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(
        path: Annotated[
            Path | None, typer.Argument(help="Directory for the new store (default: --store or .).")
        ] = None,
        git: Annotated[
            bool,
            typer.Option(
                "--git",
                help="Also set up git: .gitignore, .gitattributes, diff and merge drivers. On an existing "
                "store (a fresh clone), configures git for it.",
            ),
        ] = False,
        hook: Annotated[
            bool,
            typer.Option(
                "--hook",
                help="With --git: install a pre-commit hook that runs `mem verify` and `mem log --verify` "
                "(after a hook that was there).",
            ),
        ] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    ) -> None:
        """Create a new, empty memory store."""
        from mem.format.rules.config import DECLARATION_FILE
        from mem.format.store.store import Store

        target = path or OPTIONS.store or Path(".")
        existing = (git or hook) and (target / DECLARATION_FILE).is_file()
        store = Store.open(target) if existing else Store.init(target)
        git_files: list[str] = []
        if git or hook:
            from mem.format.ops.gitsetup import setup_git

            git_files = setup_git(store.root, hook=hook, init_repo=True)
        if json_out:
            emit_json({"store": str(store.root), "format": "mem-store", "version": 1, "git": git_files,
                       "created": not existing})
        else:
            info(
                f"Configured git for the existing mem store in {store.root}"
                if existing
                else f"Initialized an empty mem store in {store.root}"
            )
            for f in git_files:
                info(f"  {f}" if f.startswith(("git ", "not installed")) else f"  wrote {f}")
