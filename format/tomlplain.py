"""``config.toml`` files that need no TOML parser: comments, blank lines and ``[table]`` headers.

The file ``mem init`` writes is of this shape; reading it with :mod:`tomllib` costs a few
milliseconds of imports on every command. :func:`plain_tables` recognizes the shape (a strict
subset of TOML, checked against tomllib in tests/search/test_lexfast.py) and gives what tomllib
would: each header an empty table. Anything else returns None and is parsed by tomllib.
"""

from __future__ import annotations

import re

#: One line: optional ``[bare-key]`` header, optional comment (no control character but tab).
_LINE = re.compile(r"[ \t]*(?:\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\][ \t]*)?(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")


def plain_tables(text: str) -> list[str] | None:
    """The table names of ``text`` in order when it is only comments, blank lines and distinct
    ``[name]`` headers (``tomllib.loads(text) == {name: {} ...}``), else None."""
    names: list[str] = []
    for line in text.split("\n"):
        m = _LINE.fullmatch(line)
        if m is None:
            return None
        name = m.group(1)
        if name is not None:
            if name in names:
                return None
            names.append(name)
    return names
