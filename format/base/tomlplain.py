"""``config.toml`` files that need no TOML parser: comments, blank lines and ``[table]`` headers.

The file ``mem init`` writes is of this shape; reading it with :mod:`tomllib` costs a few
milliseconds of imports on every command. :func:`plain_tables` recognizes the shape (a strict
subset of TOML, checked against tomllib in tests/search/test_lexfast.py) and gives what tomllib
would: each header an empty table. Anything else returns None and is parsed by tomllib.
"""

from __future__ import annotations

_BARE_KEY = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
#: What a comment may not hold: a control character other than tab.
_NOT_IN_COMMENT = frozenset(chr(c) for c in (*range(0x09), *range(0x0A, 0x20), 0x7F))


def _line(line: str) -> tuple[bool, str | None]:
    """Whether ``line`` is of the shape, and its header's name: the pattern
    ``[ \\t]*(?:\\[[ \\t]*([A-Za-z0-9_-]+)[ \\t]*\\][ \\t]*)?(?:#[^\\x00-\\x08\\x0a-\\x1f\\x7f]*)?``
    in code (``import re`` costs a third of a lean ``mem search``, see ids.py)."""
    rest = line.lstrip(" \t")
    name = None
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            return False, None
        name = rest[1:close].strip(" \t")
        if not name or name.strip(_BARE_KEY):
            return False, None
        rest = rest[close + 1 :].lstrip(" \t")
    if rest and (rest[0] != "#" or any(c in _NOT_IN_COMMENT for c in rest)):
        return False, None
    return True, name


def plain_tables(text: str) -> list[str] | None:
    """The table names of ``text`` in order when it is only comments, blank lines and distinct
    ``[name]`` headers (``tomllib.loads(text) == {name: {} ...}``), else None."""
    names: list[str] = []
    for line in text.split("\n"):
        ok, name = _line(line)
        if not ok:
            return None
        if name is not None:
            if name in names:
                return None
            names.append(name)
    return names
