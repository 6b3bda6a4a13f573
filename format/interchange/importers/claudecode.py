"""Claude Code's memory: ``CLAUDE.md`` files and the auto-memory folder.

- Instruction files: ``CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/CLAUDE.md`` and
  ``.claude/rules/*.md`` of a project, or ``~/.claude/CLAUDE.md``. Each bullet (with its
  indented continuation lines and a code block right under it) and each prose paragraph outside
  code blocks becomes one record: an ``instruction`` when it tells the agent what to do
  ("Always…", "Never…", "Use…", "must", "should"), a ``preference`` when it states a liking
  ("I prefer…"), else a ``fact``. The headings above it become tags. ``@path`` imports are
  followed (relative to the file, at most 5 levels deep, each file once).
- The auto-memory folder ``~/.claude/projects/<project>/memory/``: ``MEMORY.md`` is an index
  (``- [Title](file.md) — hook`` lines pointing to topic files, which are read instead; its
  other bullets are read like an instruction file's), and each topic file (YAML frontmatter
  ``name``, ``description``, ``type`` or ``metadata.type``: ``user`` -> ``fact``, ``feedback``
  -> ``instruction``, ``project`` -> ``fact``, ``reference`` -> ``note``) is one record.

PATH may be one such file, a project folder, ``~/.claude`` (its ``CLAUDE.md`` and every
``projects/*/memory/``) or a memory folder. Everything goes to the scope ``default`` unless
``--scope`` says otherwise. ``source`` holds the file and line; original ids are
``<file>#<digest of the text>``, so a re-import after the file changed adds only what is new.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mem.format.interchange.importers.base import (
    Entry,
    ImportItem,
    Problem,
    ReadOptions,
    Where,
    file_time,
    read_text_file,
    rel,
    short_hash,
    sorted_files,
    tag_for,
)
from mem.format.interchange.importers.markdown import (
    fm_text,
    read_note,
    split_frontmatter,
    text_lines,
)
from mem.format.rules import ids

SYSTEM = "claude-code"
INSTRUCTION_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")
TYPE_KINDS = {"user": "fact", "feedback": "instruction", "project": "fact", "reference": "note"}
#: A section heading that names a kind decides the kind of the items under it (as
#: ``mem export --format claude-md`` writes them).
SECTION_KINDS = {
    "instructions": "instruction", "preferences": "preference", "facts": "fact", "events": "event",
    "episodes": "episode", "summaries": "summary", "action items": "action_item",
    "contacts": "contact", "notes": "note",
}  # fmt: skip
MAX_IMPORT_DEPTH = 5

_INSTRUCTION = re.compile(
    r"^(always|never|do(n['’]t| not)?|use|avoid|prefer to|run|make sure|ensure|keep|write|follow|"
    r"put|add|check|call|read|test|commit|format|name|place|return|log|document|include|import|"
    r"remember|don['’]t|only|please|when|before|after|if|answer|respond|reply|explain|ask|show|tell|"
    r"give|be|let|stop|start|create|update|delete|remove|install|open|leave|limit|wrap|prefer)\b|\b(must|should|shouldn['’]t|never|always)\b",
    re.I,
)
_PREFERENCE = re.compile(r"^(i|we|user)\s+(prefer|like|love|enjoy|dislike|hate)s?\b|\bfavou?rite\b|\bprefers?\b", re.I)
_BULLET = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_IMPORT = re.compile(r"(?:^|\s)@((?:~/|\.{1,2}/|/)?[\w.\-/]+)")
_INDEX_LINE = re.compile(r"^\s*[-*+]\s+\[([^\]]+)\]\(([^)\s]+\.md)\)\s*(?:[—:-]+\s*(.*))?$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SCOPE_HEADING = re.compile(r"^Memory: (\S+)$")


def classify(text: str) -> str:
    t = text.strip().lstrip("*_").strip()
    if _PREFERENCE.search(t):
        return "preference"
    if _INSTRUCTION.search(t):
        return "instruction"
    return "fact"


def _instruction_files(path: Path) -> list[Path]:
    out = [path / n for n in INSTRUCTION_FILES if (path / n).is_file()]
    out += sorted_files(path / ".claude" / "rules", "*.md")
    return out


def _memory_dirs(path: Path) -> list[Path]:
    if (path / "MEMORY.md").is_file():
        return [path]
    dirs = []
    if (path / "memory" / "MEMORY.md").is_file():
        dirs.append(path / "memory")
    projects = path / "projects"
    if projects.is_dir():
        dirs += sorted(d / "memory" for d in projects.iterdir() if (d / "memory").is_dir())
    return dirs


def detect(path: Path) -> bool:
    if path.is_file():
        return path.name in ("CLAUDE.md", "CLAUDE.local.md", "MEMORY.md")
    return path.is_dir() and bool(_instruction_files(path) or _memory_dirs(path))


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    root = path if path.is_dir() else path.parent
    seen: set[Path] = set()
    if path.is_file():
        if path.name == "MEMORY.md":
            yield from _memory_dir(path.parent, root, seen)
        else:
            yield from _instructions(path, root, seen, 0)
        return
    for f in _instruction_files(path):
        yield from _instructions(f, root, seen, 0)
    for d in _memory_dirs(path):
        yield from _memory_dir(d, root, seen)


def _item(content: str, where: Where, kind: str, tags: list[str], when: Any, source: dict[str, Any]) -> ImportItem:
    return ImportItem(
        system=SYSTEM,
        content=content,
        where=where,
        original_id=f"{where.file}#{short_hash(' '.join(content.split()))[:12]}",
        kind=kind,
        tags=tuple(dict.fromkeys(t for t in tags if t)),
        recorded_at=when,
        source=source,
    )


def _block_item(block: str, name: str, line: int, heads: list[str], when: Any) -> ImportItem:
    """One bullet or paragraph: its kind from the section heading when that names a kind, else
    from its words (a code block alone is a ``note`` tagged ``code``); the headings become tags."""
    section = SECTION_KINDS.get(heads[-1].strip().lower()) if heads else None
    tags = [
        t for h in heads[-2:]
        if (t := tag_for(h)) and h.strip().lower() not in SECTION_KINDS and not _SCOPE_HEADING.match(h.strip())
    ]
    if section is not None:
        kind = section
    elif _FENCE.match(block):
        kind = "note"
        tags.append("code")
    else:
        kind = classify(block)
    src: dict[str, Any] = {"file": name, "line": line}
    if heads:
        src["section"] = " / ".join(heads)
    item = _item(block, Where(name, line), kind, tags, when, src)
    for h in heads:
        m = _SCOPE_HEADING.match(h.strip())
        if m is not None and ids.is_scope(m.group(1)):
            item.scope = m.group(1)  # a scope's section in ``mem export --format claude-md``
    return item


def _blocks(body: str, first: int) -> Iterator[tuple[int, str, list[str]]]:
    """(line, text, headings) of each bullet and paragraph; code blocks stay with the item above."""
    headings: list[tuple[int, str]] = []
    cur: list[str] = []
    cur_line = 0
    cur_heads: list[str] = []
    in_code = False
    fence = ""

    def flush() -> Iterator[tuple[int, str, list[str]]]:
        nonlocal cur
        text = "\n".join(cur).strip()
        if text:
            yield cur_line, text, cur_heads
        cur = []

    for n, line in enumerate(body.split("\n"), first):
        m = _FENCE.match(line)
        if in_code:
            cur.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                in_code = False
            continue
        if m:
            in_code, fence = True, m.group(1)
            if not cur:
                cur_line, cur_heads = n, [h for _, h in headings]
            cur.append(line)
            continue
        h = _HEADING.match(line)
        if h:
            yield from flush()
            level = len(h.group(1))
            headings = [x for x in headings if x[0] < level] + [(level, h.group(2))]
            continue
        b = _BULLET.match(line)
        if b:
            yield from flush()
            cur_line, cur_heads = n, [h for _, h in headings]
            cur = [b.group(3)]
            continue
        if not line.strip():
            yield from flush()
            continue
        if not cur:
            cur_line, cur_heads = n, [h for _, h in headings]
        cur.append(line.strip())
    yield from flush()


_CODE_SPAN = re.compile(r"`[^`]*`")


def _imports(body: str, first: int) -> list[str]:
    """``@path`` imports outside code blocks and code spans (a path: has a '/' or an extension)."""
    out = []
    for _, line in text_lines(body, first):
        for m in _IMPORT.finditer(_CODE_SPAN.sub(" ", line)):
            target = m.group(1).rstrip(".")
            if "/" in target or re.search(r"\.\w+$", target):
                out.append(target)
    return out


def _instructions(f: Path, root: Path, seen: set[Path], depth: int) -> Iterator[Entry]:
    real = f.resolve()
    if real in seen:
        return
    seen.add(real)
    name = rel(f, root)
    note, problems = read_note(f, root, name)
    yield from problems
    if note is None:
        return
    _, body, first = note
    when = file_time(f)
    for line, block, heads in _blocks(body, first):
        kept = [ln for ln in block.split("\n") if not _IMPORT.fullmatch(" " + ln.strip())]
        block = "\n".join(kept).strip()
        if not block or (block.startswith("<!--") and block.endswith("-->")):
            continue  # import lines only (followed below), or a comment
        yield _block_item(block, name, line, heads, when)
    if depth >= MAX_IMPORT_DEPTH:
        return
    for target in _imports(body, first):
        p = Path(target).expanduser()
        p = p if p.is_absolute() else f.parent / p
        if p.is_file():
            yield from _instructions(p, root, seen, depth + 1)
        else:
            yield Problem("warning", f"imports @{target}, which is not a file here; not read", Where(name))


def _memory_dir(d: Path, root: Path, seen: set[Path]) -> Iterator[Entry]:
    index = d / "MEMORY.md"
    pointed: set[str] = set()
    if index.is_file() and index.resolve() not in seen:
        seen.add(index.resolve())
        name = rel(index, root)
        text, problem = read_text_file(index, root)
        if problem is not None:
            yield problem
        elif text is not None:
            when = file_time(index)
            _, body, first, _p = split_frontmatter(text, Where(name))
            for line, block, heads in _blocks(body, first):
                m = _INDEX_LINE.match("- " + block) if "\n" not in block else None
                if m and (d / m.group(2)).is_file():
                    pointed.add(m.group(2))
                    continue  # a pointer to a topic file, read below
                yield _block_item(block, name, line, heads, when)
    for f in sorted_files(d, "*.md"):
        if f.name == "MEMORY.md" or f.resolve() in seen:
            continue
        seen.add(f.resolve())
        yield from _topic(f, root)


def _topic(f: Path, root: Path) -> Iterator[Entry]:
    name = rel(f, root)
    note, problems = read_note(f, root, name)
    yield from problems
    if note is None:
        return
    fm, body, _first = note
    content = body.strip()
    if not content:
        yield Problem("skipped_empty", "a topic file with no text", Where(name))
        return
    meta_v = fm.get("metadata")
    meta: dict[str, Any] = meta_v if isinstance(meta_v, dict) else {}
    typ = (fm_text(fm.get("type")) or fm_text(meta.get("type")) or "").lower()
    kind = TYPE_KINDS.get(typ) or classify(content)
    src: dict[str, Any] = {"file": name, "line": 1}
    for key in ("name", "description"):
        if (v := fm_text(fm.get(key))) is not None:
            src[key] = v
    if typ:
        src["memory_type"] = typ
    tags = [t for t in (tag_for(typ) if typ else None, tag_for("auto-memory")) if t]
    yield _item(content, Where(name, 1), kind, tags, file_time(f), src)
