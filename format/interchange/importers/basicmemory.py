"""basic-memory: a project folder of Markdown notes (``~/basic-memory`` by default).

A note is a Markdown file with optional YAML frontmatter (``title``, ``type``, ``permalink``,
``tags``, ``created``, ``modified``, any other key). Its body holds, anywhere outside code
blocks:

- observations, ``- [category] text #tag1 #tag2 (context)``: each becomes one record; the
  category becomes the kind where it names one (``fact``, ``preference``, ``instruction``,
  ``event``, ``contact``, ``task``/``todo`` -> ``action_item``...), else the record is a ``note``
  tagged with the category. Trailing ``#tags`` become tags (and leave the text); a trailing
  ``(context)`` is kept in ``source.context``. Checkboxes (``- [ ]``, ``- [x]``) and links
  (``- [text](url)``) are not observations.
- relations, ``- relation_type [[Target]] (context)`` (quoted types too), and wiki links in prose:
  kept in ``source.relations`` of the note's own record.

The rest of the body (prose, headings other than the empty ``Observations``/``Relations``
sections, relation lines) is the note's own record (kind from ``type`` where it names one, else
``note``), so that nothing of the note is lost. Times: ``created``/``modified`` from the
frontmatter, else the file's modification time (observations carry no time of their own).
Everything goes to the scope ``default`` unless ``--scope`` says otherwise (one project a run).
Original ids: ``<permalink>#note`` and ``<permalink>#obs-<digest of category and text>``, so a
re-import after the file changed adds only what is new.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
    rel,
    short_hash,
    tag_for,
)
from mem.format.interchange.importers.markdown import fm_list, fm_text, marked_lines, read_note
from mem.format.rules import ids

SYSTEM = "basic-memory"
CATEGORY_KINDS: dict[str, str] = {
    "fact": "fact", "facts": "fact", "preference": "preference", "preferences": "preference",
    "instruction": "instruction", "rule": "instruction", "event": "event", "contact": "contact",
    "person": "contact", "task": "action_item", "todo": "action_item", "action": "action_item",
    "action_item": "action_item", "summary": "summary", "note": "note",
}  # fmt: skip
TYPE_KINDS: dict[str, str] = {"person": "contact", "event": "event", "summary": "summary", "task": "action_item"}

_OBS = re.compile(r"^\s*[-*+]\s+\[([^\[\]()]+)\]\s+(.+?)\s*$")
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[[ xX\-]\]\s")
_LINK_ITEM = re.compile(r"^\s*[-*+]\s+\[[^\]]*\]\(")
_REL = re.compile(r"""^\s*[-*+]\s+("[^"]+"|'[^']+'|[^\s\[\]"']+)\s+\[\[([^\]]+)\]\](?:\s*\(([^()]*)\))?\s*$""")
_WIKI = re.compile(r"\[\[([^\]]+)\]\]")
_CONTEXT = re.compile(r"\s*\(([^()]*)\)\s*$")
_TRAILING_TAGS = re.compile(r"(?:\s+#[^\s#()\[\]]+)+\s*$")
_TAG = re.compile(r"(?:^|\s)#([^\s#()\[\]]+)")
_EMPTY_SECTIONS = {"## observations", "## relations"}
#: The context ``mem export --format basic-memory`` writes: the record's id and time.
_MEM_CONTEXT = re.compile(r"^mem ([0-9A-HJKMNP-TV-Z]{26}), recorded (\S+)$")


def detect(path: Path) -> bool:
    """A folder of Markdown notes with observation or relation lines (or a .basic-memory folder)."""
    if not path.is_dir():
        return False
    if (path / ".basic-memory").is_dir():
        return True
    seen = 0
    for f in _notes(path):
        seen += 1
        if seen > 50:
            break
        try:
            head = f.read_text(encoding="utf-8", errors="replace")[:8192]
        except OSError:
            continue
        if any((_OBS.match(ln) and not _CHECKBOX.match(ln)) or _REL.match(ln) for ln in head.splitlines()):
            return True
    return False


def _notes(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith("."):
                p = Path(dirpath) / name
                if p.is_file() and not p.is_symlink():
                    yield p


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "note"


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    for f in _notes(path):
        name = rel(f, path)
        if is_temp_leftover(f.name):
            yield Problem("skipped_not_memory", "leftover temporary file", Where(name))
            continue
        yield from _note(f, name, path, opts)


def parse_observation(line: str) -> tuple[str, str, list[str], str | None] | None:
    """(category, text, tags, context) of an observation line, or None."""
    if _CHECKBOX.match(line) or _LINK_ITEM.match(line):
        return None
    m = _OBS.match(line)
    if m is None:
        return None
    category, rest = m.group(1).strip(), m.group(2)
    context = None
    c = _CONTEXT.search(rest)
    if c is not None and c.start() > 0:
        context, rest = c.group(1).strip() or None, rest[: c.start()]
    tags = _TAG.findall(rest)
    t = _TRAILING_TAGS.search(rest)
    if t is not None and t.start() > 0:
        rest = rest[: t.start()]
    text = rest.strip()
    return (category, text, tags, context) if text else None


def _note(f: Path, name: str, root: Path, opts: ReadOptions) -> Iterator[Entry]:
    note, problems = read_note(f, root, name)
    yield from problems
    if note is None:
        return
    fm, body, first = note
    title = fm_text(fm.get("title")) or f.stem
    permalink = fm_text(fm.get("permalink")) or slug(rel(f.with_suffix(""), root))
    note_tags = [t for v in fm_list(fm.get("tags")) if (t := tag_for(v))]
    try:
        created = foreign_time(fm_text(fm.get("created")), opts.timezone, "created")
        modified = foreign_time(fm_text(fm.get("modified")), opts.timezone, "modified")
    except ValidationError as exc:
        yield Problem("warning", f"unreadable created/modified ({exc}); used the file time", Where(name, 1))
        created = modified = None
    when = created or modified or file_time(f)
    scope = fm_text(fm.get("mem_scope"))
    scope = scope if scope is not None and ids.is_scope(scope) else None
    base: dict[str, Any] = {"file": name, "permalink": permalink, "title": title}
    rest: list[str] = []
    relations: list[dict[str, Any]] = []
    for n, line, code in marked_lines(body, first):
        if code:
            rest.append(line)  # code stays in the note's own text, never an observation
            continue
        obs = parse_observation(line)
        if obs is not None:
            category, otext, otags, context = obs
            cat = category.lower()
            kind = CATEGORY_KINDS.get(cat, "note")
            tags = [*note_tags, *(t for v in otags if (t := tag_for(v)))]
            if kind == "note" and cat != "note" and (ct := tag_for(category)):
                tags.append(ct)
            src = dict(base, line=n, category=category)
            at = when
            mc = _MEM_CONTEXT.match(context or "")
            if mc is not None:
                src["mem_id"] = mc.group(1)
                try:
                    at = foreign_time(mc.group(2), opts.timezone, "recorded") or when
                except ValidationError:
                    at = when
            elif context:
                src["context"] = context
            yield ImportItem(
                system=SYSTEM,
                content=otext,
                where=Where(name, n),
                original_id=f"{permalink}#obs-{short_hash(category + chr(0) + otext)[:12]}",
                scope=scope,
                kind=kind if mc is None or not ids.is_kind(cat) else cat,
                tags=tuple(dict.fromkeys(tags)),
                recorded_at=at,
                updated_at=modified if modified and modified > when else None,
                source=src,
            )
            continue
        r = _REL.match(line)
        if r is not None:
            relations.append(
                {"type": r.group(1).strip("\"'"), "target": r.group(2), **({"context": r.group(3)} if r.group(3) else {})}
            )
        else:
            relations += [{"type": "links_to", "target": t} for t in _WIKI.findall(line)]
        rest.append(line)
    own = _own_text(rest, title)
    if not own and not relations:
        return
    extra = {k: v for k, v in fm.items() if k not in ("title", "type", "permalink", "tags", "created", "modified", "mem_scope")}
    src = dict(base)
    if relations:
        src["relations"] = relations
    if extra:
        src["frontmatter"] = {k: fm_text(v) if not isinstance(v, (list, dict)) else v for k, v in extra.items()}
    typ = (fm_text(fm.get("type")) or "note").lower()
    kind = TYPE_KINDS.get(typ) or (typ if typ in ids.KNOWN_KINDS or (scope and ids.is_kind(typ)) else "note")
    tags = list(note_tags)
    if kind == "note" and typ != "note" and (tt := tag_for(typ)):
        tags.append(tt)
    yield ImportItem(
        system=SYSTEM,
        content=own or title,
        where=Where(name, 1),
        original_id=f"{permalink}#note",
        scope=scope,
        kind=kind,
        tags=tuple(dict.fromkeys(tags)),
        recorded_at=when,
        updated_at=modified if modified and modified > when else None,
        source=src,
    )


def _own_text(lines: list[str], title: str) -> str:
    """The note's text without its observations: drop a leading ``# Title`` equal to the title
    and section headings left empty, trim blank lines."""
    out = list(lines)
    while out and not out[0].strip():
        out.pop(0)
    if out and out[0].strip().lstrip("#").strip() == title.strip() and out[0].lstrip().startswith("# "):
        out.pop(0)
    kept: list[str] = []
    for i, ln in enumerate(out):
        if ln.strip().lower() in _EMPTY_SECTIONS:
            nxt = next((x for x in out[i + 1 :] if x.strip()), "")
            if not nxt or nxt.lstrip().startswith("#"):
                continue
        kept.append(ln)
    return "\n".join(kept).strip()
