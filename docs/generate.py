#!/usr/bin/env python3
"""Regenerate docs/commands.md, the command reference, from each command's --help.

    .venv/bin/python docs/generate.py          # write docs/commands.md
    .venv/bin/python docs/generate.py --check  # exit 1 if it is stale (CI)

Help is rendered at a fixed width (100 columns) so the file does not depend on the terminal.
tests/ecosystem/test_docs.py fails while docs/commands.md differs from what this produces.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "commands.md"
WIDTH = 100

HEADER = """\
# `mem` command reference

<!-- Generated from each command's --help by `python docs/generate.py`; do not edit by hand.
     tests/ecosystem/test_docs.py fails when this file is stale. -->

Every command below is also documented in `spec/cli/<command>.md` (JSON shapes, exit codes),
where that page exists. Global options (`--store`, `--quiet`, `--no-color`, `--no-pager`,
`--json-errors`, `--lock-timeout`) go before or after the command: `mem --store ~/memory list`
or `mem list --store ~/memory`. `mem help COMMAND` prints a command's help.

"""


def _help(cmd: Any, ctx: Any) -> str:
    text: str = cmd.get_help(ctx)
    return text.rstrip() + "\n"


def render() -> str:
    import typer

    from mem.cli.app import build_app

    group: Any = typer.main.get_command(build_app())
    root = group.context_class(group, info_name="mem", terminal_width=WIDTH, max_content_width=WIDTH)
    sections: list[tuple[str, str, str]] = [("mem", "", _help(group, root))]
    for name in group.list_commands(root):
        cmd = group.get_command(root, name)
        if cmd is None or cmd.hidden:
            continue
        ctx = cmd.context_class(cmd, info_name=name, parent=root, terminal_width=WIDTH, max_content_width=WIDTH)
        summary = " ".join((cmd.help or "").strip().split("\n\n")[0].split())
        sections.append((f"mem {name}", summary, _help(cmd, ctx)))
    out = [HEADER, "| command | what it does |\n|---|---|\n"]
    for title, summary, _ in sections[1:]:
        anchor = title.replace(" ", "-")
        cell = summary.replace("|", "\\|")
        out.append(f"| [`{title}`](#{anchor}) | {cell} |\n")
    for title, _, text in sections:
        out.append(f"\n## {title}\n\n```text\n{text}```\n")
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = ap.parse_args(argv)
    text = render()
    current = OUT.read_text("utf-8") if OUT.exists() else None
    if current == text:
        print("up to date", file=sys.stderr)
        return 0
    if args.check:
        print("stale: docs/commands.md (run: python docs/generate.py)", file=sys.stderr)
        return 1
    OUT.write_text(text, "utf-8")
    print("updated: docs/commands.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
