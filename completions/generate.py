#!/usr/bin/env python3
"""Regenerate the shell completion scripts in this directory from the `mem` CLI.

    .venv/bin/python completions/generate.py          # write mem.bash, _mem (zsh), mem.fish
    .venv/bin/python completions/generate.py --check  # exit 1 if any is stale (CI)

Run it after adding or changing a command or an option; tests/ecosystem/test_completion.py fails
while the checked-in scripts differ from what the CLI generates.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES: dict[str, str] = {"bash": "mem.bash", "zsh": "_mem", "fish": "mem.fish"}


def generated() -> dict[Path, str]:
    from mem.cli.commands.completion import command_tree, render

    tree = command_tree()
    return {HERE / name: render(shell, tree) for shell, name in FILES.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = ap.parse_args(argv)
    stale = []
    for path, text in generated().items():
        current = path.read_text("utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path.name)
        if not args.check:
            path.write_text(text, "utf-8")
    if args.check and stale:
        print(f"stale: {', '.join(stale)} (run: python completions/generate.py)", file=sys.stderr)
        return 1
    print(("updated: " + ", ".join(stale)) if stale else "up to date", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
