"""Scope isolation under attack (issue 19): a script bound to a scope, outside names that look
alike, and names no checkout can hold. Through the real `mem` executable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rel_harness import mem

from mem.format.store import Store

WIDENING = [
    {"query": "secret", "scope": "bob"},
    {"query": "secret", "scopes": ["alice", "bob"]},
    {"query": "secret", "status": ["rejected"]},
    {"query": "secret", "k": 500},
    {"query": "secret", "mode": "vector"},
]


def test_batch_lines_cannot_widen_the_command_line_scope(tmp_path: Path, tally: Callable[..., None]) -> None:
    root = tmp_path / "s"
    Store.init(root)
    assert mem("--store", str(root), "add", "--scope", "alice", "alice secret plan").returncode == 0
    bob = mem("--store", str(root), "add", "--scope", "bob", "bob secret plan").stdout.strip()
    stdin = "".join(json.dumps(q) + "\n" for q in [{"query": "secret"}, *WIDENING])
    r = mem("--store", str(root), "search", "--batch", "--scope", "alice", "--status", "active",
            "--mode", "lexical", "-k", "5", input=stdin)
    outs = [json.loads(x) for x in r.stdout.splitlines()]
    leaked = [o for o in outs if bob in json.dumps(o)]
    refused = [o for o in outs[1:] if "error" in o]
    tally("scopes: search --batch lines widening the command line's filters", trials=1,
          examples=len(WIDENING), inconsistent=len(leaked) + len(WIDENING) - len(refused))
    assert leaked == [] and len(refused) == len(WIDENING)
    assert r.returncode == 4 and outs[0]["hits"]


LOOKALIKES = ["alice", "аlice", "Alice", "ALICE", "alice@home", "Alice-Home", "alice.home",
              "алиса", "борис", "lice", "con", "nul.txt", "ａｌｉｃｅ"]


def test_capture_scope_from_never_merges_lookalike_users(tmp_path: Path, tally: Callable[..., None]) -> None:
    root = tmp_path / "s"
    Store.init(root)
    rows = [{"role": "user", "content": f"My name is Person{n}.", "conversation": f"c{n}", "user": u}
            for n, u in enumerate(LOOKALIKES)]
    t = tmp_path / "t.jsonl"
    t.write_text("".join(json.dumps(x) + "\n" for x in rows), "utf-8")
    r = mem("--store", str(root), "capture", str(t), "--scope-from", "user")
    assert r.returncode == 0, r.stderr
    scopes = {rec.scope for rec in Store.open(root).iter_records()}
    tally("scopes: capture --scope-from with look-alike user ids", trials=1, examples=len(LOOKALIKES),
          inconsistent=len(LOOKALIKES) - len(scopes))
    assert len(scopes) == len(LOOKALIKES)


def test_windows_device_names_are_never_scopes(tmp_path: Path, tally: Callable[..., None]) -> None:
    root = tmp_path / "s"
    Store.init(root)
    names = ["con", "prn", "aux", "nul", "com1", "com9", "lpt1", "lpt9", "nul.txt", "con.x.y", "aux.md"]
    accepted = [n for n in names if mem("--store", str(root), "add", "x", "--scope", n).returncode == 0]
    tally("scopes: Windows device names as scopes", trials=1, examples=len(names), inconsistent=len(accepted))
    assert accepted == []
    assert [p.name for p in (root / "records").iterdir() if p.is_dir()] == []
