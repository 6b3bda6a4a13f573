"""Git integration files for a store: ignore derived data, readable diffs, mergeable logs."""

from __future__ import annotations

from pathlib import Path

from .fsutil import atomic_write

GITIGNORE = """\
# mem: derived and local data (indexes, lock, clone id) is rebuilt from the records
.mem/
"""

GITATTRIBUTES = """\
# mem: records diff as text; each clone appends to its own log file, and tombstones
# and logs are append-only JSON Lines, so a union merge keeps both sides' lines.
records/**/*.md text eol=lf diff=mem
log/*.jsonl text eol=lf merge=union
tombstones/*.jsonl text eol=lf merge=union
"""


def setup_git(root: Path) -> list[str]:
    """Write .gitignore and .gitattributes at the store root; returns the files written."""
    written: list[str] = []
    for name, text in ((".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)):
        p = root / name
        if p.exists():
            current = p.read_text("utf-8")
            if text.strip() in current:
                continue
            text = current.rstrip("\n") + "\n\n" + text
        atomic_write(p, text, 0o644)
        written.append(name)
    return written
