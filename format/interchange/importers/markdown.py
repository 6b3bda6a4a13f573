"""Reading the Markdown notes of other tools (basic-memory, Claude Code memory): a YAML
frontmatter block, and the body's lines outside fenced code blocks.

Frontmatter is read with PyYAML's safe loader, bounded in size, and every failure (bad YAML,
a nesting bomb, a value that is not a mapping) is a :class:`Problem`, never an exception.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mem.format.interchange.importers.base import Problem, Where, read_text_file

MAX_FRONTMATTER = 64 * 1024
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def read_note(f: Path, root: Path, name: str) -> tuple[tuple[dict[str, Any], str, int] | None, list[Problem]]:
    """A Markdown file's (frontmatter, body, first body line), and the problems met reading it
    (None when the file cannot be read at all: unreadable, not UTF-8, empty)."""
    text, problem = read_text_file(f, root)
    if problem is not None:
        return None, [problem]
    assert text is not None
    fm, body, first, problem = split_frontmatter(text, Where(name))
    return (fm, body, first), [problem] if problem is not None else []


def split_frontmatter(text: str, where: Where) -> tuple[dict[str, Any], str, int, Problem | None]:
    """(frontmatter, body, line number of the body's first line, problem).

    A file without a ``---`` first line has no frontmatter (an empty mapping). A frontmatter
    that cannot be read is reported, and the whole text is then taken as the body."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1, None
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            raw = "\n".join(lines[1:i])
            body = "\n".join(lines[i + 1 :])
            fm, problem = _load(raw, where)
            if problem is not None:
                return {}, text, 1, problem
            return fm, body, i + 2, None
    return {}, text, 1, Problem("warning", "frontmatter is not closed by '---'; read as text", Where(where.file, 1))


def _load(raw: str, where: Where) -> tuple[dict[str, Any], Problem | None]:
    import yaml

    if len(raw) > MAX_FRONTMATTER:
        return {}, Problem("warning", f"frontmatter over {MAX_FRONTMATTER} bytes; ignored", Where(where.file, 1))
    try:
        data = yaml.safe_load(raw) if raw.strip() else {}
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return {}, Problem("warning", f"unreadable frontmatter ({first}); read as text", Where(where.file, 1))
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, Problem("warning", "frontmatter is not a mapping; ignored", Where(where.file, 1))
    return {str(k): v for k, v in data.items()}, None


def marked_lines(body: str, first_line: int) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, inside a fenced code block) of every line of the body."""
    fence: str | None = None
    for n, line in enumerate(body.split("\n"), first_line):
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            yield n, line, True
            continue
        if m:
            fence = m.group(1)
        yield n, line, fence is not None


def text_lines(body: str, first_line: int) -> Iterator[tuple[int, str]]:
    """(line number, line) of the body, skipping fenced code blocks (their content is code)."""
    for n, line, code in marked_lines(body, first_line):
        if not code:
            yield n, line


def fm_text(value: Any) -> str | None:
    """A frontmatter value as text (YAML may have read a date or a number)."""
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return str(value).strip() or None


def fm_list(value: Any) -> list[str]:
    """A list-valued frontmatter key (a YAML list, or a comma-separated string)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]
