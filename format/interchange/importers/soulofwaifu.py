"""Soul of Waifu: ``.soul/<character>/chats/<chat>/memory/`` folders.

Each chat's memory folder becomes one scope, ``<character>.<chat>`` (folder names folded to a
valid scope; the original character name is not recoverable from the folder, so the folder
name is what is kept, as provenance).

- ``MEMORY.md`` (the character's index) and ``USER.md`` (the user profile) are split by ``##``
  section: each bullet is one record (continuation lines included), except the
  ``INTERNAL STATE`` section, which is one record (a snapshot of the character's state). The
  section decides the kind and a tag (see ``SECTIONS``); a file without headings is split by
  bullets, or kept whole.
- ``topics/<name>.md``: one note per topic, tagged ``topic``.
- ``topics/Diary_YYYY-MM-DD.md`` (also ``diary_``): each ``**[HH:MM]**`` block is an episode at
  that date and time (naive local time: ``--timezone``).
- ``backups/``, ``agent_logs.txt`` and ``last_mem_update.txt`` are not memory (counted);
  ``.tmp`` leftovers are skipped; 0-byte files are counted as empty.

Original ids are ``<character>/<chat>/<file>#<section>/<digest of the text>`` (diary:
``.../diary/<date>T<HH:MM>/<digest>``), so a re-import adds nothing and an edited bullet
arrives as a new record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from mem.format.base.errors import ValidationError
from mem.format.interchange.importers.base import (
    Entry,
    ImportItem,
    Problem,
    ReadOptions,
    Where,
    file_time,
    foreign_time,
    is_temp_leftover,
    read_text_file,
    rel,
    short_hash,
    sorted_files,
    tag_for,
)
from mem.format.rules.timeutil import UTC

SYSTEM = "soulofwaifu"
#: section heading (upper case, as written) -> (kind, tag, whole section as one record)
SECTIONS: dict[str, tuple[str, str, bool]] = {
    "CORE IDENTITY & UNBREAKABLE BELIEFS": ("fact", "core-identity", False),
    "INTERNAL STATE & PSYCHOLOGICAL MOMENTUM": ("note", "internal-state", True),
    "COGNITIVE DRIVE & ACTIVE AGENDA": ("note", "agenda", False),
    "UNRESOLVED COGNITIVE DISSONANCE": ("note", "dissonance", False),
    "USER IDENTITY & STATUS": ("fact", "user-identity", False),
    "RELATIONSHIP METADATA": ("fact", "relationship", False),
    "PREFERENCES & HABITS": ("preference", "preference", False),
    "SHARED MILESTONES & PROMISES": ("event", "milestone", False),
}
NOT_MEMORY = {
    "agent_logs.txt": "the agent's log (not memory)",
    "last_mem_update.txt": "an update marker (not memory)",
}
_DIARY = re.compile(r"^diary_(\d{4}-\d{2}-\d{2})\.md$", re.IGNORECASE)
_DIARY_BLOCK = re.compile(r"^\*\*\[(\d{1,2}):(\d{2})\]\*\*\s*$")
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")


def memory_dirs(path: Path) -> list[Path]:
    """The chat memory folders under ``path`` (a ``.soul`` folder, a character, a chat, or one)."""
    if path.name == "memory" and path.parent.parent.name == "chats":
        return [path]
    if (path / "memory").is_dir() and path.parent.name == "chats":
        return [path / "memory"]
    out = [
        p
        for p in sorted(path.glob("**/chats/*/memory"))
        if p.is_dir() and not p.is_symlink()
    ]
    return out


def detect(path: Path) -> bool:
    return path.is_dir() and bool(memory_dirs(path))


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    dirs = memory_dirs(path)
    base = path
    for mdir in dirs:
        chat_dir = mdir.parent
        character, chat = chat_dir.parent.parent.name, chat_dir.name
        scope = f"{character}.{chat}"  # a foreign name: --scope-map, else folded by scope_for
        prefix = f"{character}/{chat}"
        prov = {"character": character, "chat": chat}
        for f in sorted_files(mdir):
            where = Where(rel(f, base))
            if is_temp_leftover(f.name):
                yield Problem("skipped_not_memory", "leftover temporary file of an interrupted write", where)
            elif f.name in NOT_MEMORY:
                yield Problem("skipped_not_memory", NOT_MEMORY[f.name], where)
            elif f.name in ("MEMORY.md", "USER.md"):
                yield from _profile(f, base, scope, prefix, prov)
        for f in sorted_files(mdir / "backups"):
            yield Problem("skipped_not_memory", "a backup copy (not imported)", Where(rel(f, base)))
        for f in sorted_files(mdir / "topics"):
            where = Where(rel(f, base))
            if is_temp_leftover(f.name):
                yield Problem("skipped_not_memory", "leftover temporary file of an interrupted write", where)
            elif f.suffix.lower() == ".md":
                m = _DIARY.match(f.name)
                if m:
                    yield from _diary(f, base, m.group(1), scope, prefix, prov, opts)
                else:
                    yield from _topic(f, base, scope, prefix, prov)


def _sections(text: str) -> Iterator[tuple[str | None, int, list[tuple[int, str]]]]:
    """(heading or None, line of the heading, [(line, text)] of the body) of a Markdown file."""
    heading: str | None = None
    hline = 1
    body: list[tuple[int, str]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if line.startswith("## "):
            yield heading, hline, body
            heading, hline, body = line[3:].strip(), n, []
        elif line.startswith("# ") and heading is None and not any(t.strip() for _, t in body):
            continue  # the file's title
        else:
            body.append((n, line))
    yield heading, hline, body


def _chunks(body: list[tuple[int, str]], whole: bool) -> Iterator[tuple[int, str]]:
    """Bullets (with continuation lines) or paragraphs of a section, as (line, text)."""
    lines = [(n, t.rstrip()) for n, t in body]
    if whole:
        text = "\n".join(t for _, t in lines).strip()
        first = next((n for n, t in lines if t.strip()), 0)
        if text:
            yield first, text
        return
    cur: list[str] = []
    start = 0
    for n, t in lines:
        m = _BULLET.match(t)
        if m or not t.strip():
            if cur:
                yield start, "\n".join(cur).strip()
            cur = [m.group(1)] if m else []
            start = n
        else:
            if not cur:
                start = n
            cur.append(t.strip())
    if cur:
        yield start, "\n".join(cur).strip()


def _profile(f: Path, base: Path, scope: str, prefix: str, prov: dict[str, str]) -> Iterator[Entry]:
    text, problem = read_text_file(f, base)
    if problem is not None:
        yield problem
        return
    assert text is not None
    when = file_time(f)
    name = f.name
    for heading, _hline, body in _sections(text):
        key = (heading or "").upper()
        kind, tag, whole = SECTIONS.get(key, ("note", tag_for(heading or "") or "", False))
        section_id = tag or "body"
        for line, chunk in _chunks(body, whole):
            if not chunk:
                continue
            tags = tuple(t for t in (tag, "character" if name == "MEMORY.md" else "user-profile") if t)
            src = dict(prov, file=name)
            if heading:
                src["section"] = heading
            yield ImportItem(
                system=SYSTEM,
                content=chunk,
                where=Where(rel(f, base), line),
                original_id=f"{prefix}/{name}#{section_id}/{short_hash(chunk)}",
                scope_hint=scope,
                kind=kind,
                tags=tags,
                recorded_at=when,
                source=src,
            )


def _topic(f: Path, base: Path, scope: str, prefix: str, prov: dict[str, str]) -> Iterator[Entry]:
    text, problem = read_text_file(f, base)
    if problem is not None:
        yield problem
        return
    assert text is not None
    title = f.stem
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("# "):
        title = first[2:].strip() or title
    yield ImportItem(
        system=SYSTEM,
        content=text,
        where=Where(rel(f, base)),
        original_id=f"{prefix}/topics/{f.name}/{short_hash(text)}",
        scope_hint=scope,
        kind="note",
        tags=("topic",),
        recorded_at=file_time(f),
        source=dict(prov, file=f"topics/{f.name}", title=title),
    )


def _diary(
    f: Path, base: Path, date: str, scope: str, prefix: str, prov: dict[str, str], opts: ReadOptions
) -> Iterator[Entry]:
    text, problem = read_text_file(f, base)
    if problem is not None:
        yield problem
        return
    assert text is not None
    blocks: list[tuple[int, str, list[str]]] = []  # (line, HH:MM, text lines)
    for n, raw in enumerate(text.split("\n"), start=1):
        m = _DIARY_BLOCK.match(raw.strip())
        if m:
            blocks.append((n, f"{int(m.group(1)):02d}:{m.group(2)}", []))
        elif blocks:
            blocks[-1][2].append(raw)
    if not blocks:
        yield Problem("skipped_empty", "a diary file without **[HH:MM]** entries", Where(rel(f, base)))
    for line, hhmm, body in blocks:
        content = "\n".join(body).strip()
        if not content:
            yield Problem("skipped_empty", f"diary entry {date} {hhmm} has no text", Where(rel(f, base), line))
            continue
        try:
            when = foreign_time(f"{date}T{hhmm}:00", opts.timezone, "diary time")
        except ValidationError as exc:
            yield Problem("invalid", f"bad diary date or time: {exc}", Where(rel(f, base), line))
            continue
        assert when is not None and when.tzinfo is not None and when.utcoffset() is not None
        yield ImportItem(
            system=SYSTEM,
            content=content,
            where=Where(rel(f, base), line),
            original_id=f"{prefix}/diary/{date}T{hhmm}/{short_hash(content)}",
            scope_hint=scope,
            kind="episode",
            tags=("diary",),
            recorded_at=when.astimezone(UTC),
            valid_from=when,
            source=dict(prov, file=f"topics/{f.name}"),
        )
