"""Scope isolation under attack (issue 19): a script bound to a scope, outside names that look
alike, and names no checkout can hold. Through the real `mem` executable."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

from mcp import ClientSession, stdio_client
from rel_harness import mem

from mem.format.store.store import Store
from tests.ecosystem.test_mcp_session import _data, _error, _params

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


# -- MCP: every answer holds only served scopes; the served scope's copy is the one acted on ----


async def _scope_attacks(store_dir: Path, succ: str, b_old: str, twin: str, src: str) -> None:
    # a server bound to `a`: the successor lives in `a`, the record it superseded in `b`
    async with (
        stdio_client(_params(store_dir, "a")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert "[not-found]" in _error(await session.call_tool("get", {"id": b_old}))
        for confirm in (False, True):
            text = _error(await session.call_tool("forget", {"ids": [succ], "confirm": confirm}))
            assert "[scope-refused]" in text
            assert "Bob's old plan" not in text and not re.search(r"\bb\b", text)
        # a cascade into `b`: refused without naming `b`
        text = _error(await session.call_tool("forget", {"ids": [src]}))
        assert "[scope-refused]" in text and not re.search(r"\bb\b", text)
    # a server bound to `z`: the id present in `b` and in `z` resolves to `z`'s copy
    async with (
        stdio_client(_params(store_dir, "z")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        done = _data(await session.call_tool("review", {"accept": [twin]}))
        assert done == {"accepted": [twin], "rejected": []}
        sup = _data(await session.call_tool("supersede", {"id": twin, "content": "zed's new text"}))
        assert sup["old"]["scope"] == "z" and sup["new"]["scope"] == "z"


def test_mcp_acts_only_on_served_scopes(tmp_path: Path, tally: Callable[..., None]) -> None:
    """Through the MCP SDK client: a forget whose plan reaches another scope (a superseded record,
    a cascade) is refused without its content or the scope's name; a server bound to `z` acts on
    `z`'s copy of an id that also exists in `b`."""
    store = Store.init(tmp_path / "store", actor="tester@test")
    old = store.add("Bob's old plan", scope="b")
    succ, _ = store.supersede(old.id, "Bob's new plan")
    store.update(succ.id, scope="a")  # the successor moved to scope a (verify accepts it)
    src = store.add("a source in a", scope="a")
    store.add("derived in b", scope="b", derived_from=[src.id])
    twin = store.add("the same id twice", scope="b", status="candidate")
    zdir = store.root / "records" / "z"
    zdir.mkdir()
    text = (store.root / "records" / "b" / f"{twin.id}.md").read_text("utf-8")
    (zdir / f"{twin.id}.md").write_text(text.replace("scope: b", "scope: z"), "utf-8")
    b_before = {p.name: p.read_bytes() for p in (store.root / "records" / "b").iterdir()}
    asyncio.run(_scope_attacks(store.root, succ.id, old.id, twin.id, src.id))
    # nothing in b changed: not the superseded record, not the twin
    assert {p.name: p.read_bytes() for p in (store.root / "records" / "b").iterdir()} == b_before
    assert store.get(succ.id, "a").status == "active"
    z = store.get(twin.id, "z")
    assert z.status == "superseded" and z.scope == "z"
    tally("scopes: MCP answers and actions confined to the served scopes (SDK client)", trials=1, examples=5)
