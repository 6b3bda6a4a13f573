"""Long human-readable output through a pager on a terminal, as git does.

The pager is ``MEM_PAGER``, else ``PAGER``, else ``less -FRX`` (quit if one screen is enough,
keep colours, leave the text on the screen). An empty value or ``cat`` means no pager; so does
the global ``--no-pager``, and output that is not a terminal is never paged.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO

from mem.cli.common import OPTIONS

DEFAULT_PAGER = "less -FRX"


def pager_command() -> str | None:
    """The pager to run for stdout, or None when output is written directly."""
    if OPTIONS.no_pager or not sys.stdout.isatty():
        return None
    cmd = os.environ.get("MEM_PAGER")
    if cmd is None:
        cmd = os.environ.get("PAGER")
    if cmd is None:
        cmd = DEFAULT_PAGER
    cmd = cmd.strip()
    if not cmd or cmd == "cat":
        return None
    try:
        program = shlex.split(cmd)[0]
    except (ValueError, IndexError):
        return None
    if shutil.which(program) is None:
        return None  # no such pager here (e.g. no less installed): write directly
    return cmd


@contextmanager
def paged() -> Iterator[IO[str]]:
    """A stream for human-readable output: the pager's input on a terminal, else stdout.

    Lines written to it reach the pager as they are written, so the first screen shows before
    a long listing is complete. Quitting the pager early is not an error.
    """
    cmd = pager_command()
    if cmd is None:
        yield sys.stdout
        return
    sys.stdout.flush()
    proc = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, text=True, encoding="utf-8", errors="replace")
    assert proc.stdin is not None
    try:
        yield proc.stdin
    except BrokenPipeError:
        pass  # the pager was quit before the end
    finally:
        with suppress(BrokenPipeError):
            proc.stdin.close()
        while True:
            try:
                proc.wait()
                break
            except KeyboardInterrupt:
                continue  # Ctrl-C belongs to the pager (less), as under git
