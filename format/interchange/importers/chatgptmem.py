"""ChatGPT's saved memories, pasted as text: one memory a line (from Settings, Personalization,
Manage memories, selected and copied; or typed).

Blank lines are skipped; a leading bullet or number (``-``, ``•``, ``1.``) is dropped. A line
that states a liking ("Prefers…", "Likes…", "Enjoys…", "favorite") is a ``preference``, one that
asks for a way of answering ("Wants responses…", "Asks to be…") an ``instruction``, any other
a ``fact``. Everything goes to the scope ``default`` unless ``--scope`` says otherwise; record
time is the file's modification time (ChatGPT shows no times). Original id: a digest of the
normalized text, so pasting the same list again adds only the new lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from mem.format.interchange.importers.base import (
    Entry,
    ImportItem,
    ReadOptions,
    Where,
    file_time,
    read_text_file,
    short_hash,
)
from mem.format.model.record import normalize_for_match

SYSTEM = "chatgpt-memories"
_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)])\s+")
_PREFERENCE = re.compile(r"^(user\s+|is\s+)?(prefers|likes|loves|enjoys|dislikes|hates)\b|\bfavou?rite\b", re.I)
_INSTRUCTION = re.compile(r"^(user\s+)?(wants|asks|would like)\s+(me|chatgpt|responses|answers|you|to)\b|\b(always|never)\s+(use|respond|answer|reply|write)\b", re.I)


def classify(text: str) -> str:
    if _INSTRUCTION.search(text):
        return "instruction"
    if _PREFERENCE.search(text):
        return "preference"
    return "fact"


def detect(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in (".txt", ".text")


def read(path: Path, opts: ReadOptions) -> Iterator[Entry]:
    name = opts.display or path.name
    text, problem = read_text_file(path, path.parent)
    if problem is not None:
        yield problem
        return
    assert text is not None
    when = file_time(path)
    for n, line in enumerate(text.splitlines(), 1):
        memory = _BULLET.sub("", line).strip()
        if not memory:
            continue
        yield ImportItem(
            system=SYSTEM,
            content=memory,
            where=Where(name, n),
            original_id=short_hash(normalize_for_match(memory))[:16],
            kind=classify(memory),
            recorded_at=when,
            source={"line": n},
        )
