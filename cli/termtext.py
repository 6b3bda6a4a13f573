"""Text from a store made safe to print: shown, never obeyed (spec/cli.md, "Untrusted text").

A record's content, tags and source values are data anyone may have written (an imported file, a
transcript, an agent). Printed raw, an escape sequence (``ESC ]0;title BEL``, ``ESC [2J``) would
drive the reader's terminal, and a bidi override (U+202E) would show text in another order than
it is stored. One rule for every human-readable output of mem (terminal or pipe):

- :func:`safe`: C0 control characters other than tab and newline, DEL and the C1 controls
  become ``\\xNN``; the bidi embeddings, overrides, isolates and marks become ``\\uNNNN``.
- :func:`json_safe`: for JSON output (lossless: a JSON reader decodes the escapes back), the
  characters JSON itself leaves raw (DEL, C1, bidi, U+2028/U+2029) become ``\\uNNNN``; json
  escapes the C0 controls already.

Standard library only and no imports at all: the one-shot ``mem search`` path uses it.
"""

from __future__ import annotations

_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_TEXT: dict[int, str] = {
    i: f"\\x{i:02x}" for i in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if i not in (0x09, 0x0A)
}
_TEXT.update({cp: f"\\u{cp:04x}" for cp in _BIDI})
_JSON: dict[int, str] = {cp: f"\\u{cp:04x}" for cp in (0x7F, *range(0x80, 0xA0), *_BIDI, 0x2028, 0x2029)}
_JSON_CHARS = tuple(chr(cp) for cp in _JSON)


def safe(text: str) -> str:
    """``text`` with every character that could drive a terminal or reorder a line escaped."""
    return text.translate(_TEXT)


def safe_line(text: str) -> str:
    """:func:`safe`, newlines and tabs escaped too (a field that must stay on one line)."""
    return safe(text).replace("\t", "\\t").replace("\n", "\\n")


def json_safe(doc: str) -> str:
    """A JSON document (the text json wrote) with DEL, C1 and bidi characters as ``\\uNNNN``.

    Those characters can only occur inside JSON strings, where the escape means the same
    character: the document decodes to the same value. A document without them is returned as
    it is: ``str.translate`` is fast only on ASCII text, and a search for each character is a
    memchr (0.43 s against a few ms for `mem verify --json`'s 3.9 MB at 10k records, whose
    fixes name a spec section with "§").
    """
    if doc.isascii() and "\x7f" not in doc:
        return doc
    for ch in _JSON_CHARS:
        if ch in doc:
            return doc.translate(_JSON)
    return doc
