"""Scope names that Windows reserves are refused on every path that takes a scope (one
validator, ids.check_scope), through the real executable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_mem

RESERVED = ["con", "aux", "nul", "prn", "nul.txt", "com1", "lpt9", "con.notes", "COM1"]


@pytest.mark.parametrize("name", RESERVED)
def test_add_refuses_a_reserved_scope(tmp_path: Path, name: str) -> None:
    assert run_mem("init", str(tmp_path / "s")).returncode == 0
    r = run_mem("--store", str(tmp_path / "s"), "add", "hello", "--scope", name)
    assert r.returncode == 4, r.stderr
    assert "scope" in r.stderr
    assert not (tmp_path / "s" / "records" / name).exists()
    assert not (tmp_path / "s" / "records" / name.lower()).exists()


def test_every_path_refuses_reserved_scopes(tmp_path: Path) -> None:
    s = tmp_path / "s"
    assert run_mem("init", str(s)).returncode == 0
    r = run_mem("--store", str(s), "add", "hello", "--scope", "con")
    assert r.returncode == 4 and "Windows reserves" in r.stderr
    rid = run_mem("--store", str(s), "add", "hello", "--scope", "ok").stdout.strip()
    r = run_mem("--store", str(s), "update", rid, "--scope", "nul.txt")
    assert r.returncode == 4, r.stderr
    r = run_mem("--store", str(s), "mcp", "--scope", "aux")
    assert r.returncode == 4, r.stderr
    jl = tmp_path / "in.jsonl"
    jl.write_text(json.dumps({"type": "record", "scope": "com1", "kind": "fact", "content": "x y z"}) + "\n", "utf-8")
    r = run_mem("--store", str(s), "import", str(jl), "--format", "jsonl")
    assert r.returncode != 0 or "com1" not in {p.name for p in (s / "records").iterdir()}
    assert not (s / "records" / "com1").exists()
    r = run_mem("--store", str(s), "search", "hello", "--scope", "lpt1", "--mode", "lexical")
    assert r.returncode == 4, r.stderr
    assert {p.name for p in (s / "records").iterdir() if p.is_dir()} == {"ok"}
