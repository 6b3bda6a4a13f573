"""What every command shares: global options, opening the store, output, errors, progress."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mem.cli.termtext import json_safe, safe
from mem.format.base.errors import MemError

if TYPE_CHECKING:
    from rich.console import Console

    from mem.format.store.store import Store

T = TypeVar("T")


@dataclass
class GlobalOptions:
    store: Path | None = None
    quiet: bool = False
    no_color: bool = False
    lock_timeout: float | None = None
    json_errors: bool = False
    no_pager: bool = False


OPTIONS = GlobalOptions()


def color_enabled() -> bool:
    return not OPTIONS.no_color and "NO_COLOR" not in os.environ


def err_console() -> Console:
    """A rich console on stderr (messages), imported only when something is printed."""
    from rich.console import Console

    # color_system=None: no escape codes at all without colour (no_color alone keeps bold)
    return Console(stderr=True, no_color=not color_enabled(), color_system="auto" if color_enabled() else None,
                   highlight=False, soft_wrap=True)


def out_console() -> Console:
    """A rich console on stdout (human-readable data)."""
    from rich.console import Console

    return Console(no_color=not color_enabled(), color_system="auto" if color_enabled() else None,
                   highlight=False, soft_wrap=True)


def open_store() -> Store:
    # index.session, not index.derived: a build's modules are not needed to attach the listener
    from mem.format.index.session import attach
    from mem.format.store.store import Store

    store = Store.open(OPTIONS.store, lock_timeout=OPTIONS.lock_timeout)
    attach(store)  # mem's own writes keep existing search indexes current (cheap; opens nothing)
    return store


def emit_json(obj: Any) -> None:
    """Write one JSON document to stdout (data only; messages go to stderr)."""
    sys.stdout.write(json_safe(json.dumps(obj, ensure_ascii=False, indent=2)) + "\n")
    sys.stdout.flush()


def emit_jsonl(obj: Any) -> None:
    sys.stdout.write(json_safe(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) + "\n")
    sys.stdout.flush()


def info(message: str) -> None:
    """A message for the person at the terminal (stderr; silenced by --quiet)."""
    if OPTIONS.quiet:
        return
    err_console().print(safe(message), markup=False)


def warn(message: str) -> None:
    """A warning (stderr; shown even with --quiet)."""
    if color_enabled() and sys.stderr.isatty():
        err_console().print(f"[yellow]warning:[/yellow] {escape(safe(message))}")
    else:
        sys.stderr.write(f"warning: {safe(message)}\n")


class SkipUnreadable:
    """An ``on_error`` for readers: a record file that cannot be read is left out with a warning
    naming the file, and counted (so that export can exit non-zero after writing the rest)."""

    def __init__(self) -> None:
        self.skipped: list[MemError] = []

    def __call__(self, exc: MemError) -> None:
        self.skipped.append(exc)
        warn(f"{exc}; left out (run `mem verify --full`)")


def escape(text: str) -> str:
    return text.replace("[", "\\[")


def report_error(exc: MemError) -> None:
    if OPTIONS.json_errors:
        sys.stderr.write(json_safe(json.dumps(exc.to_json(), ensure_ascii=False)) + "\n")
        return
    if color_enabled() and sys.stderr.isatty():
        err_console().print(f"[red]error:[/red] {escape(safe(str(exc)))}")
    else:
        sys.stderr.write(f"error: {safe(str(exc))}\n")


def report_usage_error(exc: Any) -> None:
    """A bad command line (a click ``UsageError``): click's usage text, or with --json-errors
    the JSON error object of spec/cli.md."""
    if not OPTIONS.json_errors:
        exc.show()
        return
    ctx = exc.ctx
    command = ctx.command_path if ctx is not None else "mem"
    obj = {
        "error": "usage",
        "message": exc.format_message(),
        "path": None,
        "line": None,
        "hint": f"see '{command} --help'",
        "exit_code": int(exc.exit_code),
    }
    sys.stderr.write(json.dumps(obj, ensure_ascii=False) + "\n")


def want_progress() -> bool:
    return sys.stderr.isatty() and not OPTIONS.quiet


def progress(items: Iterable[T], total: int | None, label: str) -> Iterator[T]:
    """Iterate with a progress bar on a terminal; plain iteration in a pipe or with --quiet."""
    if not want_progress():
        yield from items
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console(),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        for item in items:
            yield item
            bar.advance(task)


def confirm(question: str) -> bool:
    """Ask yes/no on a terminal; False when stdin is not a terminal."""
    if not sys.stdin.isatty():
        return False
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")


def parse_time_option(value: str | None, what: str) -> Any:
    if value is None:
        return None
    from mem.format.rules.timeutil import parse_time

    return parse_time(value, what)


def split_csv(values: list[str] | None) -> list[str] | None:
    """Options that repeat or take commas: ``--tag a --tag b,c`` -> [a, b, c]."""
    if not values:
        return None
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out
