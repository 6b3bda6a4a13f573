"""``mem help [COMMAND]``: the installed help, like ``mem [COMMAND] --help``."""

from __future__ import annotations

from typing import Annotated, Any

import typer


def register(app: typer.Typer) -> None:
    @app.command("help")
    def help_(
        ctx: typer.Context,
        command: Annotated[str | None, typer.Argument(metavar="[COMMAND]", help="The command to describe.")] = None,
    ) -> None:
        """Describe mem, or one command (the same as `mem COMMAND --help`)."""
        from mem.format.base.errors import UsageError

        top = ctx.parent
        assert top is not None
        if command is None:
            typer.echo(top.get_help())
            return
        group: Any = top.command  # a click Group (typer vendors click: typed by attribute)
        cmd = group.get_command(top, command)
        if cmd is None:
            names = ", ".join(
                n for n in group.list_commands(top) if not getattr(group.get_command(top, n), "hidden", False)
            )
            raise UsageError(f"no command {command!r}", hint=f"the commands are: {names}")
        with type(top)(cmd, info_name=command, parent=top) as sub:
            typer.echo(cmd.get_help(sub))
