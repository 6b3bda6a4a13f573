"""The token count ``mem context --budget`` uses: ``mem-estimate-1`` (``spec/cli/context.md``).

mem ships no model vocabulary (nothing may be downloaded at run time), so it counts with a
documented estimate shaped after byte-pair encodings such as OpenAI's ``cl100k``/``o200k`` and
Anthropic's, which make one token of a common English word with its leading space. The text is
cut into pieces, each costing:

- a run of ASCII letters: one token per 4 letters, rounded up ("memory" 2, "a" 1);
- a run of digits: one token per 3 digits, rounded up (those encodings group at most 3);
- a non-ASCII character: its UTF-8 length less one, at least 1 ("é" 1, "東" 2, an emoji 3);
- a single space or tab: nothing (it joins the next word); a newline: 1; any other run of
  spaces or tabs: one token per 4, rounded up;
- any other ASCII character (punctuation, symbols): 1.

It is meant to err high for English prose (a word of up to 4 letters is one token, as in those
encodings; longer words and punctuation count at least as many as they usually take), so that a
block within its budget by this count fits the models' own counts in practice; it is not exact
for any model. The count is a pure function of the text: the same text always
costs the same.
"""

from __future__ import annotations

import re

TOKENIZER = "mem-estimate-1"

_PIECE = re.compile(r"[A-Za-z]+|[0-9]+|[ \t]+|\n|[^\x00-\x7f]|.", re.S)


def count_tokens(text: str) -> int:
    """The ``mem-estimate-1`` token count of ``text``."""
    n = 0
    for m in _PIECE.finditer(text):
        p = m.group(0)
        c = p[0]
        if c.isascii() and c.isalpha():
            n += (len(p) + 3) // 4
        elif c.isascii() and c.isdigit():
            n += (len(p) + 2) // 3
        elif c == "\n":
            n += 1
        elif c in " \t":
            n += 0 if len(p) == 1 else (len(p) + 3) // 4
        elif not c.isascii():
            n += max(1, len(c.encode("utf-8")) - 1)
        else:
            n += 1
    return n
