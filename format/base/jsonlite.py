"""JSON for the lean search path, without importing :mod:`json`.

``import json`` imports ``re``, which imports ``enum``: about 10 ms of a process that otherwise
takes about 25 (a whole lexical ``mem search``, see bench/README.md). The C accelerator that
:mod:`json` itself runs on (``_json``: its scanner and its string encoder) needs neither, so
``loads`` and ``dumps`` here call it directly and give exactly what ``json.loads`` and
``json.dumps(obj, ensure_ascii=False, indent=...)`` give. Anything they were not written for (an
error to report, a type other than the JSON ones, an interpreter without ``_json``) is handed to
:mod:`json` itself, so the results and the errors are always its own.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # another interpreter: json does everything
    _json = None  # type: ignore[assignment]

_WS = " \t\n\r"  # what json skips around a document


class _Context:
    """What ``_json.make_scanner`` reads from ``json.JSONDecoder()``: its default settings."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


def _accelerators() -> tuple[Any, Any]:
    """``_json``'s scanner and string encoder, or (None, None): ``_json`` is private, and an
    interpreter whose ``make_scanner`` reads other settings (or has no ``_json``) gets json itself
    for everything (tests/core/test_pyversions.py runs this module without ``_json``)."""
    if _json is None:
        return None, None
    try:
        return _json.make_scanner(_Context()), _json.encode_basestring  # type: ignore[arg-type]
    except (AttributeError, TypeError):
        return None, None


_scan, _encode_str = _accelerators()


def loads(text: str) -> Any:
    """``json.loads(text)`` for a ``str``: the same value, or the same error."""
    if _scan is not None and type(text) is str:
        begin = len(text) - len(text.lstrip(_WS))
        try:
            value, end = _scan(text, begin)
        except (StopIteration, ValueError, RecursionError):
            pass  # json raises its own error below
        else:
            if end == len(text) or not text[end:].strip(_WS):
                return value
    import json

    return json.loads(text)


class _Unsupported(Exception):
    """A value ``_encode`` leaves to json (its type, or a structure too deep to be plain data)."""


_FLOAT_CONSTANTS = {float("inf"): "Infinity", float("-inf"): "-Infinity"}


def _float(x: float) -> str:
    if x != x:
        return "NaN"
    return _FLOAT_CONSTANTS.get(x) or float.__repr__(x)


def dumps(obj: Any, indent: int | None = None) -> str:
    """``json.dumps(obj, ensure_ascii=False, indent=indent)``."""
    if _encode_str is not None:
        out: list[str] = []
        try:
            _encode(obj, out, indent, 0)
        except _Unsupported:
            pass
        else:
            return "".join(out)
    import json

    return json.dumps(obj, ensure_ascii=False, indent=indent)


def _encode(o: Any, out: list[str], indent: int | None, level: int) -> None:
    assert _encode_str is not None
    if isinstance(o, str):
        out.append(_encode_str(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif isinstance(o, (list, tuple, dict)):
        brackets = "{}" if isinstance(o, dict) else "[]"
        if not o:
            out.append(brackets)
            return
        if level > 100:
            raise _Unsupported  # json says whether it is a cycle
        if indent is None:
            sep, close = ", ", brackets[1]
            out.append(brackets[0])
        else:
            pad = "\n" + " " * (indent * (level + 1))
            sep, close = "," + pad, "\n" + " " * (indent * level) + brackets[1]
            out.append(brackets[0] + pad)
        if isinstance(o, dict):
            for i, (k, v) in enumerate(o.items()):
                if type(k) is not str:
                    raise _Unsupported  # json converts numbers, booleans and None to keys its way
                if i:
                    out.append(sep)
                out.append(_encode_str(k))
                out.append(": ")
                _encode(v, out, indent, level + 1)
        else:
            for i, v in enumerate(o):
                if i:
                    out.append(sep)
                _encode(v, out, indent, level + 1)
        out.append(close)
    else:
        raise _Unsupported
