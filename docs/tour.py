#!/usr/bin/env python3
"""Regenerate the outputs in docs/tour.md from real runs of its commands.

    .venv/bin/python docs/tour.py          # run every command, write the outputs into docs/tour.md
    .venv/bin/python docs/tour.py --check  # exit 1 if docs/tour.md differs from a fresh run (CI)

In each ```console block of the tour, a line starting with `$ ` is a command and the lines after
it, up to the next command, are its output. The commands run in order, in one fresh home
directory (a temporary HOME; `cd` carries over to the next command), with the real `mem` next to
this Python, the bundled embedding model, stdout and stderr together as a person sees them, and
no terminal (so no colour, pager or progress bar). A block right after the comment
`<!-- tour: not run -->` is left as written (an interactive session, a server).

What differs from run to run is made stable: record ids become 01TUR…0001, 0002, … in the order
they first appear (and a command that names such an id gets the real one), the times of the run
become 2026-01-15T09:30:00Z, and the temporary home becomes `~`.
tests/cli/test_tour.py fails while docs/tour.md differs from what this produces, except in the
score column of search hits: the embedding model's int8 kernels differ by CPU (VNNI or not), so a
hybrid score moves in its second or third decimal from one machine to another while the hits and
their order stay; the check compares those lines without their score, and a run that differs
from the tour only there leaves the file as it is.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TOUR = Path(__file__).resolve().parent / "tour.md"
NOT_RUN = "<!-- tour: not run -->"
ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
PLACEHOLDER = re.compile(r"\b01TUR0000000000000000\d{5}\b")
#: A search hit's line: its score, then its record id (the plain output of `mem search`).
HIT_SCORE = re.compile(r"^-?\d+\.\d{4}(?=  01TUR0000000000000000\d{5}  )", re.MULTILINE)
RUN_TIME = "2026-01-15T09:30:00"


def _placeholder(n: int) -> str:
    return f"01TUR0000000000000000{n:05d}"


class Session:
    """One run of the tour: a temporary home, the working directory and the ids seen so far."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.cwd = home
        self.ids: dict[str, str] = {}  # real id -> placeholder
        self.today = ""
        exe_dir = Path(sys.executable).parent
        self.env = {
            "HOME": str(home),
            "PATH": f"{exe_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order they are written
            "MEM_ACTOR": "you@laptop",
            "GIT_AUTHOR_NAME": "You",
            "GIT_AUTHOR_EMAIL": "you@example.org",
            "GIT_COMMITTER_NAME": "You",
            "GIT_COMMITTER_EMAIL": "you@example.org",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        }

    def command(self, line: str) -> str:
        """``line`` with the placeholders it names replaced by the real ids."""
        real = {v: k for k, v in self.ids.items()}
        return PLACEHOLDER.sub(lambda m: real.get(m.group(0), m.group(0)), line)

    def stable(self, text: str) -> str:
        """Output with the run's ids, times and home made stable."""

        def ident(m: re.Match[str]) -> str:
            rid = m.group(0)
            if rid not in self.ids:
                self.ids[rid] = _placeholder(len(self.ids) + 1)
            return self.ids[rid]

        text = ULID.sub(ident, text)
        if self.today:
            text = re.sub(rf"{self.today}T\d\d:\d\d:\d\d(?:\.\d+)?Z", RUN_TIME + "Z", text)
            text = re.sub(rf"{self.today}T\d\d:\d\d:\d\d(?:\.\d+)?", RUN_TIME, text)
        home = str(self.home)
        text = text.replace(str(self.home.resolve()), "~").replace(home, "~")
        return text

    def run(self, line: str) -> str:
        import datetime as dt

        self.today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
        pwd_file = self.home / ".tour-pwd"
        script = f"{self.command(line)}\n__rc=$?\npwd > {pwd_file}\nexit $__rc\n"
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=self.cwd, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        if pwd_file.exists():
            self.cwd = Path(pwd_file.read_text("utf-8").strip())
            pwd_file.unlink()
        out = p.stdout
        if p.returncode != 0:
            out += f"(exit {p.returncode})\n"
        return self.stable(out)


def render(text: str) -> str:
    """The tour with every command's output as a fresh run prints it."""
    out: list[str] = []
    lines = text.split("\n")
    with tempfile.TemporaryDirectory(prefix="mem-tour-") as tmp:
        session = Session(Path(tmp))
        i = 0
        in_block = skip_block = False
        previous = ""
        while i < len(lines):
            line = lines[i]
            if not in_block:
                out.append(line)
                if line.startswith("```console"):
                    in_block, skip_block = True, previous.strip() == NOT_RUN
                if line.strip():
                    previous = line
                i += 1
                continue
            if line.startswith("```"):
                out.append(line)
                in_block = False
                previous = line
                i += 1
                continue
            if skip_block:
                out.append(line)
                i += 1
                continue
            if line.startswith("$ "):
                out.append(line)
                result = session.run(line[2:])
                out.extend(result.rstrip("\n").split("\n") if result.strip() else [])
                i += 1
                while i < len(lines) and not lines[i].startswith(("$ ", "```")):
                    i += 1  # the old output
                continue
            i += 1  # output without a command before it: dropped
    return "\n".join(out)


def comparable(text: str) -> str:
    """The tour with each search hit's score masked: what must match from machine to machine."""
    return HIT_SCORE.sub("S", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = ap.parse_args(argv)
    current = TOUR.read_text("utf-8")
    text = render(current)
    if comparable(current) == comparable(text):
        print("up to date", file=sys.stderr)
        return 0
    if args.check:
        import difflib

        sys.stderr.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                   "docs/tour.md", "a fresh run"))
        print("stale: docs/tour.md (run: python docs/tour.py)", file=sys.stderr)
        return 1
    TOUR.write_text(text, "utf-8")
    print("updated: docs/tour.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
