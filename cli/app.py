"""Builds the typer application from the command modules.

Each command lives in its own module ``mem.cli.<name>`` exposing ``register(app)``. A module
imports only typer and the light core at import time; heavy libraries (tantivy, usearch,
numpy, onnxruntime, rich tables) are imported inside the command function.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated

import typer

from mem import __version__

from .common import OPTIONS

#: Command modules in the order ``mem --help`` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "init",
    "add",
    "show",
    "list",
    "edit",
    "update",
    "supersede",
    "accept",
    "reject",
    "forget",
    "search",
    "log",
    "stats",
    "capture",
    "context",
    "review",
    "import_",
    "export",
    "consolidate",
    "verify",
    "diff",
    "compact",
    "rebuild",
    "repair",
    "mcp",
    "completion",
)

HELP = """mem: long-term memory for personal AI agents, as a directory of Markdown records.

The store is found from the current directory upward (like git), or given by --store / MEM_STORE.
Exit codes: 0 ok, 1 check failed (verify/diff), 2 usage, 3 not found, 4 invalid input,
5 invalid store, 6 forgotten (tombstone), 7 store locked, 8 conflict, 9 index unavailable,
10 embedder unavailable, 11 I/O error. See spec/cli.md.
"""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mem {__version__}")
        raise typer.Exit()


_VALUE_OPTIONS = frozenset(("--store", "-s", "--lock-timeout"))


def command_module_for(args: list[str]) -> str | None:
    """The module of the command named in ``args`` (after global options), or None.

    Building the app with only that module saves importing and introspecting every other
    command (hundreds of ms per call); help and unknown names still get the full app.
    """
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _VALUE_OPTIONS:
            skip = True
            continue
        if a in ("--help", "-h"):
            return None
        if a.startswith("-"):
            continue
        name = "import_" if a == "import" else a
        return name if name in COMMAND_MODULES else None
    return None


def build_app(only: str | None = None) -> typer.Typer:
    app = typer.Typer(
        name="mem",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    )

    @app.callback()
    def _global(
        store: Annotated[
            Path | None,
            typer.Option("--store", "-s", envvar="MEM_STORE", help="The store directory."),
        ] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print no messages.")] = False,
        no_color: Annotated[bool, typer.Option("--no-color", help="No colours (also NO_COLOR).")] = False,
        lock_timeout: Annotated[
            float | None,
            typer.Option("--lock-timeout", help="Seconds to wait for the writer lock (default 10)."),
        ] = None,
        json_errors: Annotated[
            bool, typer.Option("--json-errors", help="Report errors as JSON on stderr.")
        ] = False,
        version: Annotated[
            bool,
            typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version."),
        ] = False,
    ) -> None:
        OPTIONS.store = store
        OPTIONS.quiet = quiet
        OPTIONS.no_color = no_color
        OPTIONS.lock_timeout = lock_timeout
        OPTIONS.json_errors = json_errors

    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"mem.cli.{name}").register(app)
    return app
