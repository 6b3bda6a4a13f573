"""Private CPython modules the lean paths use, each with a fallback that is exercised here: the
builtin SHA-256 (``_sha256`` up to 3.11, ``_sha2`` from 3.12, else hashlib) in
``format/search/lexfast.py``, and the ``_json`` accelerator in ``format/base/jsonlite.py``. Each fallback is
run in a subprocess where the private module cannot be imported (``sys.modules[name] = None``)."""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mem.format.store.store import Store

SHA_BUILTINS = ("_sha256", "_sha2")


def _run(code: str) -> str:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_every_sha256_this_interpreter_has_agrees() -> None:
    data = "Alice drinks green tea ☕\n".encode()
    want = hashlib.sha256(data).hexdigest()
    found = 0
    for name in SHA_BUILTINS:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        found += 1
        assert mod.sha256(data).hexdigest() == want
    # CPython has one of the two (which one depends on its version); others may have neither
    assert found >= 1 or sys.implementation.name != "cpython"


def test_lean_digest_uses_a_builtin_and_never_hashlib() -> None:
    out = _run(
        "import sys\nfrom mem.format.search import lexfast\n"
        "assert lexfast._sha256(b'x').hexdigest().startswith('2d711642b726')\n"
        "print('hashlib' in sys.modules)"
    )
    assert out.strip() == "False"  # hashlib (and OpenSSL) stay unloaded, on 3.11 as on 3.12+


@pytest.mark.parametrize("blocked", [("_sha256",), ("_sha256", "_sha2")])
def test_lean_record_digest_with_fallbacks(tmp_path: Path, blocked: tuple[str, ...]) -> None:
    store = Store.init(tmp_path / "s", actor="tester@test")
    rec = store.add("Alice drinks green tea ☕ every morning", scope="alice", tags=["tea"])
    path = store.record_path(rec.scope, rec.id)
    code = (
        "import sys\n"
        f"for name in {blocked!r}:\n    sys.modules[name] = None  # import raises ImportError\n"
        "from mem.format.search import lexfast\n"
        f"r = lexfast.read_record({str(path)!r}, {rec.scope!r}, {rec.id!r})\n"
        "print(r.digest)\n"
        "print('hashlib' in sys.modules)\n"
    )
    digest, hashlib_loaded = _run(code).split()
    assert digest == rec.digest
    has_sha2 = importlib.util.find_spec("_sha2") is not None
    # hashlib is loaded only when no builtin is left to use
    assert hashlib_loaded == str("_sha2" in blocked or not has_sha2)


VALUES = [
    {"a": [1, 2.5, None, True, False, "é\x00\u202e"], "b": {"c": 1e300}},
    [],
    "plain",
    [{"k": [[], {}]}],
]


def _json_probe(prelude: str) -> dict[str, object]:
    code = (
        "import sys, json\n" + prelude + "from mem.format.base import jsonlite\n"
        f"values = {VALUES!r}\n"
        "same = all(jsonlite.dumps(v, indent=i) == json.dumps(v, ensure_ascii=False, indent=i)\n"
        "           for v in values for i in (None, 2))\n"
        "back = all(json.dumps(jsonlite.loads(json.dumps(v))) == json.dumps(v) for v in values)\n"
        "try:\n    jsonlite.loads('[1,')\n    err = None\n"
        "except json.JSONDecodeError as exc:\n    err = [exc.msg, exc.pos]\n"
        "print(json.dumps({'accelerated': jsonlite._scan is not None, 'same': same, 'back': back,"
        " 'err': err}))\n"
    )
    out: dict[str, object] = json.loads(_run(code))
    return out


@pytest.mark.parametrize(
    ("prelude", "accelerated"),
    [
        ("", True),
        ("sys.modules['_json'] = None\n", False),  # an interpreter without _json
        # an interpreter whose make_scanner reads other settings than json's today
        ("import _json\ndef _bad(ctx):\n    raise TypeError('other settings')\n_json.make_scanner = _bad\n", False),
    ],
)
def test_jsonlite_with_and_without_the_accelerator(prelude: str, accelerated: bool) -> None:
    got = _json_probe(prelude)
    assert got == {"accelerated": accelerated, "same": True, "back": True,
                   "err": ["Expecting value", 3]}  # fmt: skip


@pytest.mark.parametrize("blocked", [False, True])
def test_sigint_ignored_after_the_command_with_and_without_the_c_module(blocked: bool) -> None:
    """``cli.main._ignore_sigint`` sets SIGINT to SIG_IGN through ``_signal`` (``signal`` imports
    enum: 3 ms of a lean search), or through ``signal`` on an interpreter without ``_signal``."""
    code = (
        # (signal is built on _signal: loaded first, then _signal refused, as a Python without it)
        ("import sys, signal\nsys.modules['_signal'] = None\n" if blocked else "import sys\n")
        + "from mem.cli.main import _ignore_sigint\n_ignore_sigint()\n"
        "loaded = 'signal' in sys.modules\nimport signal\n"
        "print(loaded, signal.getsignal(signal.SIGINT) == signal.SIG_IGN)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(blocked), "True"]
