"""`mem mcp --read-only`, the context resource and the rules prompt, through the official SDK client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mem.format.base.errors import ValidationError
from mem.format.store.store import Store
from mem.mcpserver.server import RULES, ReadOnlyError, ScopedMemory, rules_text
from tests.conftest import MEM_EXE, run_mem

READ_TOOLS = {"recall", "get", "list_candidates", "list_memories"}


def _params(store_dir: Path, *extra: str) -> StdioServerParameters:
    assert MEM_EXE
    return StdioServerParameters(
        command=MEM_EXE,
        args=["mcp", "--store", str(store_dir), "--scope", "alice", *extra],
        env={"MEM_EMBEDDER": "hashing", "MEM_ACTOR": "agent@test", "NO_COLOR": "1"},
    )


def _seed(tmp_path: Path) -> tuple[Store, dict[str, str]]:
    store = Store.init(tmp_path / "store", actor="tester@test")
    ids = {
        "rule": store.add("Answer in British English.", scope="alice", kind="instruction").id,
        "tea": store.add("Alice drinks green tea every morning.", scope="alice", kind="preference").id,
        "lyon": store.add("Alice lives in Lyon.", scope="alice", kind="fact").id,
        "cand": store.add("Alice plays the cello.", scope="alice", kind="fact", status="candidate").id,
        "bob": store.add("Bob drinks green tea too.", scope="bob", kind="fact").id,
    }
    return store, ids


async def _read_only(store_dir: Path, ids: dict[str, str], context: str) -> None:
    async with stdio_client(_params(store_dir, "--read-only")) as (read, write), ClientSession(read, write) as s:
        init = await s.initialize()
        assert "read-only" in (init.instructions or "")
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == READ_TOOLS
        assert all(t.annotations.read_only_hint for t in tools.values())
        # a write tool is not there at all
        bad = await s.call_tool("remember", {"content": "Alice hates tea"})
        assert bad.is_error
        found = await s.call_tool("recall", {"query": "green tea", "mode": "lexical"})
        assert not found.is_error
        assert [r["id"] for r in found.structured_content["results"]] == [ids["tea"]]
        listed = (await s.call_tool("list_memories", {})).structured_content
        assert [m["id"] for m in listed["memories"]] == [ids["lyon"], ids["tea"], ids["rule"]]
        assert listed["more"] is False
        both = (await s.call_tool("list_memories", {"include_candidates": True, "limit": 1})).structured_content
        assert ([m["id"] for m in both["memories"]], both["more"]) == ([ids["cand"]], True)
        got = (await s.call_tool("get", {"id": ids["lyon"]})).structured_content
        assert got["record"]["content"].strip() == "Alice lives in Lyon."
        # the context block as a resource: exactly what `mem context --scope alice` prints
        resources = {str(r.uri): r for r in (await s.list_resources()).resources}
        assert set(resources) == {"mem://context", "mem://rules"}
        res = await s.read_resource("mem://context")
        assert res.contents[0].text == context
        rules = await s.read_resource("mem://rules")
        assert "this server is read-only" in rules.contents[0].text
        prompts = {p.name for p in (await s.list_prompts()).prompts}
        assert prompts == {"memory_rules"}
        prompt = await s.get_prompt("memory_rules")
        text = prompt.messages[0].content.text
        assert text == rules_text(True) and "candidate" in text


def test_read_only_server_context_resource_and_rules_prompt(tmp_path: Path) -> None:
    store, ids = _seed(tmp_path)
    ctx = run_mem("--store", str(store.root), "context", "--scope", "alice")
    assert ctx.returncode == 0, ctx.stderr
    assert "Bob" not in ctx.stdout and "cello" not in ctx.stdout
    asyncio.run(_read_only(store.root, ids, ctx.stdout))
    # nothing was written by the session
    assert sorted(r.id for r in store.iter_records()) == sorted(ids.values())


async def _writable(store_dir: Path) -> dict[str, Any]:
    async with stdio_client(_params(store_dir)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        tools = {t.name for t in (await s.list_tools()).tools}
        assert tools > READ_TOOLS and "remember" in tools
        prompt = await s.get_prompt("memory_rules")
        return {"rules": prompt.messages[0].content.text}


def test_writable_server_keeps_every_tool_and_its_rules_say_how_to_change(tmp_path: Path) -> None:
    store, _ = _seed(tmp_path)
    out = asyncio.run(_writable(store.root))
    assert out["rules"] == rules_text(False)
    assert "use `supersede` (it changed) or `forget` (it must go)" in out["rules"]
    assert out["rules"] != rules_text(True) and rules_text(True).startswith(RULES[:40])


def test_read_only_memory_refuses_every_write_through_the_api(tmp_path: Path) -> None:
    store, ids = _seed(tmp_path)
    mem = ScopedMemory(store, ["alice"], read_only=True)
    try:
        for call in (
            lambda: mem.remember("Alice hates tea"),
            lambda: mem.forget([ids["lyon"]], confirm=True),
            lambda: mem.review(accept=[ids["cand"]]),
            lambda: mem.supersede(ids["lyon"], "Alice lives in Paris."),
        ):
            with pytest.raises(ReadOnlyError) as exc:
                call()
            assert isinstance(exc.value, ValidationError) and exc.value.code == "read-only"
        assert json.loads(json.dumps(mem.get(ids["lyon"])))["record"]["id"] == ids["lyon"]
    finally:
        mem.close()
    assert store.get(ids["lyon"]).status == "active"
