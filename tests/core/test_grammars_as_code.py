"""The grammars the lean search path checks in code (no ``import re``: see format/rules/ids.py) accept
exactly what their regular expressions accept. Each function is held to its pattern on random
strings drawn from the characters that matter, and the character classes (``\\w``, ``\\s``,
``\\d``) to the str methods that replace them over every code point."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mem.format.base import tomlplain
from mem.format.rules import ids, recordtext, timeutil
from mem.format.rules.lexicon import CJK_RANGES, query_words

ANY = st.characters(codec="utf-8")


def strings(alphabet: str, max_size: int = 70) -> st.SearchStrategy[str]:
    """Strings mostly of ``alphabet``, with any other character now and then."""
    return st.text(st.sampled_from(alphabet) | ANY, max_size=max_size) | st.text(st.sampled_from(alphabet),
                                                                                 max_size=max_size)


def examples(*xs: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def deco(f: Callable[..., None]) -> Callable[..., None]:
        for x in xs:
            f = example(x)(f)
        return f
    return deco


def strict(pattern: str) -> Callable[[str], bool]:
    """What the code used before: ``^...$`` compiled with ``\\Z`` (ids._strict)."""
    rx = re.compile(pattern[:-1] + r"\Z")
    return lambda s: rx.match(s) is not None


def test_character_classes_over_every_code_point() -> None:
    word, space, digit = re.compile(r"\w"), re.compile(r"\s"), re.compile(r"\d")
    for i in range(sys.maxunicode + 1):
        c = chr(i)
        assert (word.match(c) is not None) == (c.isalnum() or c == "_"), hex(i)
        assert (space.match(c) is not None) == c.isspace(), hex(i)
        assert (digit.match(c) is not None) == c.isdecimal(), hex(i)
        # is_tag's test for whitespace: split() cuts at exactly the characters isspace() names
        assert (("a" + c + "b").split() == ["a" + c + "b"]) == (not c.isspace()), hex(i)


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZILOUabc"
SCOPE = "abcz0189._-A/ "
KIND = "abz09_-A"
TAG = "abZ9é.-_/:,\"'#[]{} \t\n\u00a0\u2003"


@settings(max_examples=500, deadline=None)
@given(strings(CROCKFORD, 28) | st.builds(lambda a, b: a + b, st.sampled_from("0178"),
                                          st.text(st.sampled_from(CROCKFORD), min_size=24, max_size=26)))
def test_is_id(s: str) -> None:
    assert ids.is_id(s) == strict(ids.ID_PATTERN)(s)


@settings(max_examples=800, deadline=None)
@given(strings(SCOPE))
@examples("a.b", "a..b", "a.", ".a", "a" * 64, "a" * 65, "-")
@examples("a-", "a_", "0")
def test_is_scope(s: str) -> None:
    assert ids.is_scope(s) == strict(ids.SCOPE_PATTERN)(s)


@settings(max_examples=500, deadline=None)
@given(strings(KIND, 34))
@examples("a" * 32, "a" * 33, "_a", "a_")
def test_is_kind(s: str) -> None:
    assert ids.is_kind(s) == strict(ids.KIND_PATTERN)(s)


@settings(max_examples=500, deadline=None)
@given(strings(TAG))
@examples("x" * 64, "x" * 65, "a\x1cb")
def test_is_tag(s: str) -> None:
    assert ids.is_tag(s) == strict(ids.TAG_PATTERN)(s)


def test_non_strings_are_never_names() -> None:
    for f in (ids.is_id, ids.is_scope, ids.is_kind, ids.is_tag):
        assert not f(None) and not f(12) and not f(["a"])


# the fast frontmatter path: values and keys (callers never pass a newline: lines are split)
PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_./@+-]*(?::[A-Za-z0-9_./@+-]+)*$")
TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
INT = re.compile(r"^-?(0|[1-9][0-9]*)$")
FLOAT = re.compile(r"^-?(0|[1-9][0-9]*)\.[0-9]+(e[-+][0-9]+)?$")
KEY = re.compile(r"^[a-z_][a-z0-9_-]*$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def no_newline(s: str) -> str:
    return s.replace("\n", " ")


@settings(max_examples=800, deadline=None)
@given(strings("aZ_09./@+-: é").map(no_newline))
@examples("a::b", "a:", "a:b", ":a", "_")
def test_is_plain(s: str) -> None:
    assert recordtext._is_plain(s) == (PLAIN.match(s) is not None)


@settings(max_examples=800, deadline=None)
@given(strings("-0123456789.e+E٣", 12).map(no_newline))
@examples("-0", "00", "-", "0.5e+1", "1.e5", "1.5e", "1.5e+")
@examples("-0.0", "1.5E+3", "٣")
def test_is_int_and_is_float(s: str) -> None:
    assert recordtext._is_int(s) == (INT.match(s) is not None)
    assert recordtext._is_float(s) == (FLOAT.match(s) is not None)


@settings(max_examples=500, deadline=None)
@given(strings("az09_-A ").map(no_newline))
def test_is_key(s: str) -> None:
    assert recordtext._is_key(s) == (KEY.match(s) is not None)


DIGITS_ANY = "0123456789٣۴०"  # Arabic-Indic, Extended Arabic-Indic and Devanagari digits: \d matches them


@settings(max_examples=800, deadline=None)
@given(st.text(st.sampled_from(DIGITS_ANY + "-T:.Zx"), min_size=20, max_size=26).map(no_newline)
       | st.builds(lambda d: "{}{}{}{}-{}{}-{}{}T{}{}:{}{}:{}{}.{}{}{}Z".format(*d),
                   st.lists(st.sampled_from(DIGITS_ANY), min_size=17, max_size=17)))
def test_canonical_time_form(s: str) -> None:
    assert timeutil.is_canonical_form(s) == (TIME.match(s) is not None)


@settings(max_examples=800, deadline=None)
@given(st.text(st.sampled_from(DIGITS_ANY + "-T:.Zx"), min_size=20, max_size=26).map(no_newline)
       | st.builds(lambda d: "{}{}{}{}-{}{}-{}{}T{}{}:{}{}:{}{}.{}{}{}Z".format(*d),
                   st.lists(st.sampled_from(DIGITS_ANY), min_size=17, max_size=17)))
@examples("2024-02-03T04:05:06.007Z", "2024-02-03T04:05:06.007Z\n", "2024-02-03T04:05:06.007")
def test_canonical_time_pattern(s: str) -> None:
    """The pattern the canonical layout's reader checks times with (ASCII digits) accepts what
    ``is_canonical_text`` accepts: ``format_time``'s form."""
    assert timeutil.is_canonical_text(s) == strict(timeutil.CANONICAL_PATTERN)(s)


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(DIGITS_ANY + "-x"), min_size=8, max_size=12).map(no_newline))
def test_date_form(s: str) -> None:
    assert timeutil._is_date_form(s) == (DATE.match(s) is not None)


TOML_LINE = re.compile(r"[ \t]*(?:\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\][ \t]*)?(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")


@settings(max_examples=800, deadline=None)
@given(strings("[]# \t\r\x00\x1f\x7faZ9_-=\"").map(no_newline))
@examples("[a]", " [ a ] # x", "[a b]", "[]", "[a]]", "# [a]")
@examples("[a] x", "#\t", "#\x01")
def test_toml_plain_line(s: str) -> None:
    m = TOML_LINE.fullmatch(s)
    assert tomlplain._line(s) == ((True, m.group(1)) if m else (False, None))


@settings(max_examples=500, deadline=None)
@given(strings("ab Z9_-.,'é٣\u00b2\u2003\tndotirNO東京たｶ・ー서울\U00020000"))
@examples("NOT", "in", "To aNd", "not x", "OR, and!", "x in y", "?!", "")
def test_query_words_are_regex_words(s: str) -> None:
    cjk = "".join(f"{chr(a)}-{chr(b)}" for a, b in CJK_RANGES)
    words = [p for w in re.findall(r"\w+", unicodedata.normalize("NFC", s)) for p in re.findall(f"[{cjk}]|[^{cjk}]+", w)]
    low = [m.lower() for m in words]  # each Chinese character or kana a word of its own
    want = [w for w in low if w not in {"and", "or", "not", "to", "in"}] or low  # operators alone: kept
    assert query_words(s) == want


@pytest.mark.parametrize("module", ["mem.format.rules.ids", "mem.format.rules.timeutil", "mem.format.rules.recordtext",
                                    "mem.format.base.tomlplain", "mem.format.search.lexfast", "mem.format.base.errors",
                                    "mem.format.rules.layout", "mem.format.rules.lexicon", "mem.format.rules.ranking",
                                    "mem.format.index.lexread", "mem.cli.searchfast"])
def test_lean_modules_import_no_re_json_or_enum(module: str) -> None:
    import subprocess

    code = f"import sys, {module}\nprint(sorted({{'re', 'json', 'enum'}} & set(sys.modules)))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
