"""Builds the typer application from the command modules.

Each command lives in its own module ``mem.cli.<name>`` exposing ``register(app)``. A module
imports only typer and the light core at import time; heavy libraries (tantivy, usearch,
numpy, onnxruntime, rich tables) are imported inside the command function.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Any

import typer

from mem import __version__
from mem.cli.common import OPTIONS

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
    "eval",
    "log",
    "why",
    "stats",
    "capture",
    "context",
    "review",
    "import_",
    "export",
    "consolidate",
    "verify",
    "diff",
    "sync",
    "merge_driver",
    "compact",
    "rebuild",
    "embed",
    "repair",
    "mcp",
    "hooks",
    "completion",
    "help_",
)

HELP = """mem: long-term memory for personal AI agents, as a directory of Markdown records.

The store is found from the current directory upward (like git), or given by --store / MEM_STORE.
Exit codes: 0 ok, 1 check failed (verify/diff), 2 usage, 3 not found, 4 invalid input,
5 invalid store, 6 forgotten (tombstone), 7 store locked, 8 conflict, 9 index unavailable,
10 embedder unavailable, 11 I/O error. Global options may also follow the command
(`mem list --no-color`). `mem help COMMAND` (or `mem COMMAND --help`) describes a command.
"""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mem {__version__}")
        raise typer.Exit()


_VALUE_OPTIONS = frozenset(("--store", "-s", "--lock-timeout"))
_FLAG_OPTIONS = frozenset(("--quiet", "-q", "--no-color", "--no-pager", "--json-errors"))


def command_index(args: list[str]) -> int | None:
    """Where the command's name is in ``args`` (after global options), or None."""
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in _VALUE_OPTIONS:
            skip = True
            continue
        if a == "--":
            return None
        if a.startswith("-"):
            continue
        return i
    return None


def click_module() -> Any:
    """The click that typer runs on (typer 0.2x vendors it as ``typer._click``)."""
    import typer.core

    return getattr(typer.core, "_click", None) or importlib.import_module("click")


def hoist_global_options(args: list[str], command: Any) -> list[str]:
    """``args`` with the global options that follow the command moved before it.

    `mem list --no-color` then means `mem --no-color list`, as people type it. An option the
    command defines itself (`mem mcp --store`) stays the command's; nothing after `--` moves;
    the value of one of the command's options (`--content --quiet`) is never taken for a
    global option.
    """
    at = command_index(args)
    if at is None or command is None:
        return args
    own: set[str] = set()
    takes_value: set[str] = set()
    for p in command.params:
        if getattr(p, "param_type_name", "") == "option":  # (by attribute: click is vendored)
            names = [*p.opts, *p.secondary_opts]
            own.update(names)
            if not p.is_flag and not p.count:
                takes_value.update(p.opts)
    lifted: list[str] = []
    rest: list[str] = []
    tail = args[at + 1 :]
    i = 0
    while i < len(tail):
        a = tail[i]
        key = a.split("=", 1)[0] if a.startswith("--") else a
        if a == "--":
            rest.extend(tail[i:])
            break
        if key in own:
            rest.append(a)
            if a in takes_value and i + 1 < len(tail):
                rest.append(tail[i + 1])
                i += 1
        elif a in _FLAG_OPTIONS or (key in _VALUE_OPTIONS and "=" in a):
            lifted.append(a)
        elif a in _VALUE_OPTIONS and i + 1 < len(tail):
            lifted.extend(tail[i : i + 2])
            i += 1
        else:
            rest.append(a)
        i += 1
    if not lifted:
        return args
    return [*args[:at], *lifted, args[at], *rest]


def command_module_for(args: list[str]) -> str | None:
    """The module of the command named in ``args`` (after global options), or None.

    Building the app with only that module saves importing and introspecting every other
    command (hundreds of ms per call); help and unknown names still get the full app.
    """
    at = command_index(args)
    if at is None or any(a in ("--help", "-h") for a in args[:at]):
        return None
    if args[at] == "help":
        return None  # `mem help COMMAND` describes any command: the full app
    name = "import_" if args[at] == "import" else args[at]
    return name if name in COMMAND_MODULES else None


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
        no_pager: Annotated[
            bool, typer.Option("--no-pager", help="Never page output (else: MEM_PAGER, PAGER or less -FRX on a terminal).")
        ] = False,
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
        OPTIONS.no_pager = no_pager

    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"mem.cli.commands.{name}").register(app)
    return app
