"""Entry point of the ``mem`` executable.

``mem --version`` answers before typer is imported; everything else builds the typer app from
the command modules listed in :mod:`mem.cli.app`. Library errors (:class:`MemError`) become a
message on stderr and their documented exit status; nothing prints a traceback. A Ctrl-C
(SIGINT) ends any command with exit 130 and the one line ``mem: interrupted``, whenever it comes
once :func:`run` has started: while the modules import, while the command runs, or as it ends.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import typer


def main(argv: list[str] | None = None) -> int:
    global _said_interrupted
    _said_interrupted = False
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):
        from mem import __version__

        sys.stdout.write(f"mem {__version__}\n")
        return 0
    if "search" in args:  # the common `mem search` calls skip typer (cli/searchfast.py)
        from mem.cli.searchfast import fast_main

        fast = fast_main(args)
        if fast is not None:
            return fast
    from mem.cli.app import build_app, command_module_for
    from mem.cli.common import report_error
    from mem.format.base.errors import MemError

    only = command_module_for(args)
    app = build_app(only)
    if only is not None and not app.registered_commands:
        app = build_app()  # the module is not built yet: let the full app report it
    try:
        return _run_click(app, args)
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        sys.stderr.write(f"{code}\n")
        return 1
    except MemError as exc:
        report_error(exc)
        return int(exc.exit_code)
    except (KeyboardInterrupt, _Interrupted):
        return _interrupted()
    except BrokenPipeError:
        # the reader went away (e.g. `mem list | head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        # the file system refused where no library call turned it into a MemError (a full disk
        # in a third-party writer): exit 11 naming the file, never a traceback
        from pathlib import Path

        from mem.format.base.fsutil import io_error

        where = exc.filename if isinstance(exc.filename, str) else "."
        err = io_error(exc, Path(where), "complete the command")
        report_error(err)
        return int(err.exit_code)
    return 0


class _Interrupted(BaseException):
    """A KeyboardInterrupt on its way out of the click group: typer turns a KeyboardInterrupt
    into a silent ``Exit(130)``, which :func:`main` could not tell from a command's own exit 130
    (``mem embed`` and ``mem rebuild`` report theirs), so it would end with no line."""


def _keep_interrupts(group: object) -> None:
    """Let a Ctrl-C while the group parses the arguments or runs the command reach :func:`main`
    (as :class:`_Interrupted`) instead of typer's silent exit."""
    for name in ("make_context", "invoke"):
        real = getattr(group, name)

        def passing(*a: object, _real: Any = real, **kw: object) -> Any:
            try:
                return _real(*a, **kw)
            except KeyboardInterrupt as exc:
                raise _Interrupted from exc

        setattr(group, name, passing)


def _run_click(app: typer.Typer, args: list[str]) -> int:
    """Run the click group of ``app``; usage errors reported as --json-errors asks."""
    import typer
    import typer.main

    from mem.cli.app import click_module, command_index, hoist_global_options
    from mem.cli.common import OPTIONS, report_usage_error

    group = typer.main.get_command(app)
    _keep_interrupts(group)
    at = command_index(args)
    if at is not None and hasattr(group, "commands"):
        args = hoist_global_options(args, group.commands.get(args[at]))
    click = click_module()
    try:
        rv = group.main(args=args, prog_name="mem", standalone_mode=False)
    except click.exceptions.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # `mem` alone: its help, even with --json-errors
            return int(exc.exit_code)
        # --json-errors may not have been parsed (a bad global option, an unknown command): it
        # counts wherever it is, up to `--`
        given = args[: args.index("--")] if "--" in args else args
        OPTIONS.json_errors = OPTIONS.json_errors or "--json-errors" in given
        report_usage_error(exc)
        return int(exc.exit_code)
    except click.exceptions.ClickException as exc:
        exc.show()
        return int(exc.exit_code)
    except typer.Abort:  # (typer.Abort is click's Abort in the typer versions that use click)
        sys.stderr.write("Aborted!\n")
        return 1
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


#: Set once this run of :func:`main` has written ``mem: interrupted``: a second Ctrl-C while the
#: first is reported ends the process the same way, without a second line.
_said_interrupted = False


def _interrupted() -> int:
    """Report a Ctrl-C (once) and return its exit status (``ExitCode.INTERRUPTED``, 130)."""
    global _said_interrupted
    if not _said_interrupted:
        _said_interrupted = True
        sys.stderr.write("mem: interrupted\n")
    from mem.format.base.errors import ExitCode

    return int(ExitCode.INTERRUPTED)


def _ignore_sigint() -> None:
    """From here on a Ctrl-C changes nothing: the command has ended (or has been interrupted) and
    the process only reports and exits; a KeyboardInterrupt now would print a traceback."""
    try:  # the C module: ``signal`` imports enum, and with contextlib that was a fifth of a lean
        import _signal as sig  # type: ignore[import-not-found]  # `mem search` (7 ms of 38, bench/README.md)
    except ImportError:  # an interpreter without it
        import signal as sig  # type: ignore[no-redef]
    try:  # noqa: SIM105 (contextlib.suppress: one more module, 4 ms, on every lean search)
        sig.signal(sig.SIGINT, sig.SIG_IGN)
    except (ValueError, OSError):  # not the main thread: nothing to change
        pass


def run() -> None:
    """The ``mem`` executable: :func:`main`, then the exit.

    A KeyboardInterrupt raised before :func:`main` handles it (while ``mem.cli.app``, typer or a
    command's modules import, before the command runs) ends the process here with exit 130 and
    one line, as one raised in the command does. Once :func:`main` has returned or raised,
    SIGINT is ignored: a Ctrl-C during the report or the interpreter's finalization would
    otherwise print a traceback (or ``Exception ignored in ...``) after the command ended.
    """
    try:
        try:
            code = main()
        finally:
            _ignore_sigint()
    except KeyboardInterrupt:
        _ignore_sigint()  # (a second Ctrl-C that came before the first ignore took effect)
        code = _interrupted()
    fast = sys.modules.get(f"{__package__}.searchfast")
    if fast is not None and getattr(fast, "answered_read_only", False) and sys.gettrace() is None:
        # The lean read path answered `mem search`: nothing was written, locked or left open.
        # Once tantivy is loaded the interpreter's finalization takes time (bench/README.md);
        # end the process after flushing instead (not under a tracer such as coverage).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            code = 0
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
