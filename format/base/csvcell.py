"""CSV cells that a spreadsheet never runs: formula neutralization, and its exact inverse.

A cell that a spreadsheet would read as a formula (its text starts with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return: OWASP's "CSV injection" list) is written with one apostrophe before
it, the spreadsheet convention for "this is text" (``=HYPERLINK(...)`` -> ``'=HYPERLINK(...)``).
So that the escape is reversible, a cell that already starts with apostrophes followed by one of
those characters gets one more. Reading (``mem import --from csv``) removes exactly one leading
apostrophe from a cell whose text after its leading apostrophes starts with one of them, so
``mem import`` of ``mem export --format csv`` gives back every cell as it was (spec/export.md,
"CSV").
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _looks_like_formula(cell: str) -> bool:
    return cell.lstrip("'").startswith(FORMULA_STARTS)


def neutralize(cell: str) -> str:
    """The cell as written to a CSV export."""
    return "'" + cell if _looks_like_formula(cell) else cell


def restore(cell: str) -> str:
    """The inverse of :func:`neutralize` (a cell read from CSV)."""
    return cell[1:] if cell.startswith("'") and _looks_like_formula(cell) else cell
