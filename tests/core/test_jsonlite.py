"""mem.format.base.jsonlite gives exactly what json gives: the same values, text and errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base import jsonlite

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=25,
)


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to itself."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from([None, 0, 1, 2, 4]))
def test_dumps_is_json_dumps(v: Any, indent: int | None) -> None:
    assert jsonlite.dumps(v, indent=indent) == json.dumps(v, ensure_ascii=False, indent=indent)


@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from([None, 2]), st.sampled_from(["", " ", "\n\t \r"]))
def test_loads_reads_what_json_writes(v: Any, indent: int | None, ws: str) -> None:
    text = ws + json.dumps(v, indent=indent, ensure_ascii=bool(indent)) + ws
    assert _same(jsonlite.loads(text), json.loads(text))


def _outcome(f: Any, text: str) -> tuple[str, Any]:
    try:
        return "ok", json.dumps(f(text))
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfnrulasINaiy \t\n\r\\/bu\ufeff\x00é', max_size=30))
def test_loads_gives_json_errors_too(text: str) -> None:
    assert _outcome(jsonlite.loads, text) == _outcome(json.loads, text)


@pytest.mark.parametrize("text", ["", "  ", "[1,", "{\"a\" 1}", "1 2", "\ufeff[]", "[1]x", "nul", "'a'",
                                  "[\"\x01\"]", "01", "-", "1e", "[1,]", "{\"a\":1,}"])
def test_malformed_is_json_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as got:
        jsonlite.loads(text)
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text)
    assert (got.value.msg, got.value.pos) == (want.value.msg, want.value.pos)


def test_constants_and_numbers() -> None:
    got = jsonlite.loads('[NaN, Infinity, -Infinity, 1, 1.0, -0.0, 1e400, 12345678901234567890]')
    assert math.isnan(got[0]) and got[1:3] == [math.inf, -math.inf]
    assert [type(x) for x in got[3:]] == [int, float, float, float, int]
    assert jsonlite.dumps([math.nan, math.inf, -math.inf, -0.0, 1e16, True, 3]) == \
        "[NaN, Infinity, -Infinity, -0.0, 1e+16, true, 3]"


def test_what_json_would_refuse_or_convert_goes_to_json() -> None:
    odd_keys = {1: "a", None: 2, 2.5: 3, False: 4}
    assert jsonlite.dumps(odd_keys) == json.dumps(odd_keys, ensure_ascii=False)
    with pytest.raises(TypeError):
        jsonlite.dumps({"a": {1, 2}})
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        jsonlite.dumps(loop)
    deep: Any = "x"
    for _ in range(150):
        deep = [deep]
    assert jsonlite.dumps(deep, indent=1) == json.dumps(deep, indent=1)


def test_importing_it_imports_no_json_re_or_enum() -> None:
    code = ("import sys\nfrom mem.format.base import jsonlite\n"
            "jsonlite.dumps(jsonlite.loads('{\"a\": [1, 2.5, null]}'), indent=2)\n"
            "print(sorted({'json', 're', 'enum'} & set(sys.modules)))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
