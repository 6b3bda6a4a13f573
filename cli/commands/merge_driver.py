"""``mem merge-driver``: git's merge driver for record files (configured by `mem init --git`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("merge-driver", hidden=True)
    def merge_driver(
        base: Annotated[Path, typer.Argument(help="%O: the common ancestor's version.")],
        ours: Annotated[Path, typer.Argument(help="%A: our version; the result is written here.")],
        theirs: Annotated[Path, typer.Argument(help="%B: their version.")],
        name: Annotated[str, typer.Argument(help="%P: the file's path in the repository.")] = "",
    ) -> None:
        """Merge three versions of a record field by field (git runs this; see spec/format.md §21)."""
        from mem.format.ops.gitsync import merge_driver as run

        raise typer.Exit(run(base, ours, theirs, name))
