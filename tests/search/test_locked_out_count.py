"""A long-lived searcher (`mem search --batch`, the MCP server's `recall`) whose background thread
is locked out by a writer says how many records it cannot find yet, as a one-shot search does
(issue 21): its round counts them (``staleness.unindexed_by_scope``) and each search adds up
those of its scopes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mem.format.base.lock import WriterLock
from mem.format.index.follower import Follower
from mem.format.model.record import dump_record, make_record
from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem

#: the background thread gives up on the lock after 1 s (the default is 10 s)
ENV = {"MEM_EMBEDDER": "hashing", "MEM_LOCK_TIMEOUT": "1", "MEM_ACTOR": "tester@test", "NO_COLOR": "1"}
DEADLINE_S = 90


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "s"
    assert run_mem("init", str(root), env=ENV).returncode == 0
    for scope, text in (("ana", "The kayak is stored under the porch"), ("bob", "Bob's kayak paddle is broken")):
        assert run_mem("--store", str(root), "add", text, "--scope", scope, env=ENV).returncode == 0
    return root


def _write_around(root: Path, scope: str, n: int) -> None:
    """Record files another program writes (a git pull): no journal entry, found by a refresh."""
    folder = root / "records" / scope
    for i in range(n):
        rec = make_record(scope=scope, kind="note", content=f"Pulled kayak note {i}")
        (folder / f"{rec.id}.md").write_text(dump_record(rec))


def _until(ask: Callable[[], Any], done: Callable[[Any], bool]) -> Any:
    """Ask again until ``done`` holds (the background thread's rounds are not timed here)."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        got = ask()
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_batch_locked_out_says_how_many_records_it_cannot_find(tmp_path: Path) -> None:
    root = _store(tmp_path)
    assert MEM_EXE
    p = subprocess.Popen([MEM_EXE, "--store", str(root), "search", "--batch"], env={**os.environ, **ENV},
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdin is not None and p.stdout is not None

    def ask(scope: str | None = None) -> dict[str, Any]:
        q: dict[str, Any] = {"query": "kayak", "mode": "lexical", "k": 50}
        if scope:
            q["scope"] = scope
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(json.dumps(q) + "\n")
        p.stdin.flush()
        out: dict[str, Any] = json.loads(p.stdout.readline())
        return out

    try:
        assert len(ask()["hits"]) == 2  # the first search: the index is up to date
        writer = WriterLock(root / ".mem" / "lock", timeout=1)  # another process's lock, in effect
        with writer:
            _write_around(root, "ana", 7)
            out = _until(ask, lambda o: "locked by a writer" in " ".join(o["warnings"]))
            assert out["unindexed"] == 7, out
            assert any("(7 records not searchable yet)" in w for w in out["warnings"])
            assert len(out["hits"]) == 2  # from the index as it is
            bob = ask("bob")  # of bob's scope: none missing, none of ana's found
            assert "unindexed" not in bob and {h["scope"] for h in bob["hits"]} == {"bob"}
        out = _until(ask, lambda o: not o["warnings"] and len(o["hits"]) == 9)
        assert "unindexed" not in out and len(out["hits"]) == 9, out
    finally:
        p.stdin.close()
        p.wait(timeout=60)
        p.stdout.close()
        assert p.stderr is not None
        p.stderr.close()


async def _recall_while_locked(root: Path) -> None:
    assert MEM_EXE
    params = StdioServerParameters(command=MEM_EXE, args=["mcp", "--store", str(root), "--scope", "ana"], env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def recall() -> dict[str, Any]:
            res = await session.call_tool("recall", {"query": "kayak", "mode": "lexical", "k": 50})
            assert not res.is_error, res.content
            data = res.structured_content
            assert isinstance(data, dict)
            return data

        assert len((await recall())["results"]) == 1
        writer = WriterLock(root / ".mem" / "lock", timeout=1)
        with writer:
            _write_around(root, "ana", 4)
            _write_around(root, "bob", 3)  # not a served scope: not counted
            deadline = time.monotonic() + DEADLINE_S
            data = await recall()
            while not any("locked by a writer" in w for w in data["warnings"]) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
                data = await recall()
            assert any("(4 records not searchable yet)" in w for w in data["warnings"]), data
            assert len(data["results"]) == 1
        deadline = time.monotonic() + DEADLINE_S
        while (data["warnings"] or len(data["results"]) != 5) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            data = await recall()
        assert not data["warnings"] and len(data["results"]) == 5, data


def test_mcp_recall_locked_out_says_how_many_records_it_cannot_find(tmp_path: Path) -> None:
    asyncio.run(_recall_while_locked(_store(tmp_path)))


def test_a_round_that_is_not_refused_counts_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add("The kayak is stored under the porch", scope="ana")
    from mem.format.index.derived import build_if_absent

    build_if_absent(store)
    fol = Follower(store.root, 60.0)
    try:
        _write_around(store.root, "ana", 3)
        monkeypatch.setenv("MEM_LOCK_TIMEOUT", "0.2")
        with WriterLock(store.root / ".mem" / "lock", timeout=1):
            fol.round()
        assert fol.refused is not None and fol.unindexed == {"ana": 3}
        assert fol.unindexed_in(["ana", "bob"]) == 3 and fol.unindexed_in(["bob"]) == 0
        fol.round()
        assert fol.refused is None and fol.unindexed == {} and fol.unindexed_in(None) == 0
    finally:
        fol.stop()
