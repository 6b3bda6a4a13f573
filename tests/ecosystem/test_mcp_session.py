"""`mem mcp` driven by a real MCP client session over stdio (the SDK's client, `mem` subprocess)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem

TOOLS = {"remember", "recall", "get", "forget", "list_candidates", "list_memories", "review", "supersede"}


def _params(store_dir: Path, *scopes: str, extra: tuple[str, ...] = ()) -> StdioServerParameters:
    assert MEM_EXE
    args = ["mcp", "--store", str(store_dir)]
    for s in scopes:
        args += ["--scope", s]
    return StdioServerParameters(
        command=MEM_EXE,
        args=[*args, *extra],
        env={"MEM_EMBEDDER": "hashing", "MEM_ACTOR": "agent@test", "NO_COLOR": "1"},
    )


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert isinstance(data, dict)
    # the text content carries the same JSON, for clients that ignore structured content
    assert json.loads(result.content[0].text) == data
    return data


def _error(result: Any) -> str:
    assert result.is_error, result
    text = result.content[0].text
    assert isinstance(text, str)
    return text


async def _scenario(store_dir: Path, bob_id: str) -> None:
    async with (
        stdio_client(_params(store_dir, "alice")) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "mem"
        assert "alice" in (init.instructions or "")

        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        assert tools["recall"].annotations.read_only_hint is True
        assert tools["forget"].annotations.destructive_hint is True
        assert "query" in tools["recall"].input_schema["required"]

        # remember: stored in the bound scope, as a candidate, with MCP provenance
        tea = _data(await session.call_tool("remember", {"content": "Alice drinks green tea every morning", "kind": "preference"}))["record"]
        assert (tea["scope"], tea["status"], tea["kind"]) == ("alice", "candidate", "preference")
        assert tea["source"]["type"] == "mcp"
        lyon = _data(await session.call_tool("remember", {"content": "Alice moved to Lyon in 2021", "kind": "fact"}))["record"]
        france = _data(await session.call_tool("remember", {"content": "Alice lives in France", "derived_from": [lyon["id"]]}))["record"]

        # recall: the real search (lexical and hybrid), only alice's records
        for mode in ("lexical", "hybrid"):
            found = _data(await session.call_tool("recall", {"query": "green tea", "mode": mode}))
            assert found["results"], found
            assert found["results"][0]["id"] == tea["id"]
            assert {r["scope"] for r in found["results"]} == {"alice"}
        # Bob's record matches the words but is never returned
        plan_hits = _data(await session.call_tool("recall", {"query": "secret plan", "mode": "lexical"}))
        assert all(r["id"] != bob_id for r in plan_hits["results"])

        # get
        got = _data(await session.call_tool("get", {"id": lyon["id"]}))["record"]
        assert got["content"] == "Alice moved to Lyon in 2021\n"

        # review: accept one
        assert _data(await session.call_tool("list_candidates", {}))["count"] == 3
        assert _data(await session.call_tool("review", {"accept": [tea["id"]]})) == {"accepted": [tea["id"]], "rejected": []}

        # forget: the plan (with the cascade) first, nothing removed; then confirm
        plan = _data(await session.call_tool("forget", {"ids": [lyon["id"]]}))
        assert plan["done"] is False
        assert [c["id"] for c in plan["cascade"]] == [france["id"]]
        assert _data(await session.call_tool("get", {"id": france["id"]}))
        done = _data(await session.call_tool("forget", {"ids": [lyon["id"]], "confirm": True, "reason": "user asked"}))
        assert done["done"] is True and done["count"] == 2
        assert "forgotten" in _error(await session.call_tool("get", {"id": france["id"]}))
        gone = _data(await session.call_tool("recall", {"query": "Lyon France", "mode": "lexical"}))
        assert {r["id"] for r in gone["results"]}.isdisjoint({lyon["id"], france["id"]})
        assert "[tombstoned]" in _error(await session.call_tool("remember", {"content": "Alice moved to Lyon in 2021"}))

        # supersede
        sup = _data(await session.call_tool("supersede", {"id": tea["id"], "content": "Alice drinks coffee now"}))
        assert sup["old"]["status"] == "superseded" and sup["new"]["supersedes"] == [tea["id"]]

        # scope refusal: a client cannot widen the scopes
        assert "[scope-refused]" in _error(await session.call_tool("remember", {"content": "x", "scope": "bob"}))
        assert "[scope-refused]" in _error(await session.call_tool("recall", {"query": "plan", "scopes": ["bob"]}))
        assert "[not-found]" in _error(await session.call_tool("get", {"id": bob_id}))
        assert "[not-found]" in _error(await session.call_tool("forget", {"ids": [bob_id], "confirm": True}))

        # errors are errors, never an empty success
        assert "[invalid-value]" in _error(await session.call_tool("recall", {"query": "  "}))
        assert "[invalid-value]" in _error(await session.call_tool("get", {"id": "not-an-id"}))
        assert _error(await session.call_tool("recall", {"query": "tea", "k": 0}))  # schema check


def test_mcp_session_over_stdio(tmp_path: Path) -> None:
    store = Store.init(tmp_path / "store", actor="tester@test")
    bob = store.add("Bob's secret plan for the green tea party", scope="bob")
    asyncio.run(_scenario(store.root, bob.id))
    # Bob's record is untouched; every write of the agent is in the audit log, under its actor
    assert store.get(bob.id) == bob
    log = run_mem("--store", str(store.root), "log", "--json")
    assert log.returncode == 0, log.stderr
    ops = Counter(e["op"] for e in log.json() if e["actor"] == "agent@test")
    assert ops == Counter({"add": 3, "accept": 1, "forget": 2, "supersede": 1, "update": 1})


def test_mcp_a_client_that_leaves_at_once_gets_a_quiet_exit(tmp_path: Path) -> None:
    """The client closes stdin at once, before or while the server warms up: it exits 0 and says
    only that it served (no traceback from a warm-up the shutdown overtook, no 'search
    unavailable': it opens nothing after the shutdown)."""
    store = Store.init(tmp_path / "s", actor="tester@test")
    store.add("Alice drinks green tea", scope="alice")
    for _ in range(3):
        r = run_mem("mcp", "--store", str(store.root), "--scope", "alice", input="",
                    env={"MEM_EMBEDDER": "hashing"})
        assert r.returncode == 0, r.stderr
        assert r.stderr.splitlines() == [f"mem mcp: serving {store.root} (scopes: alice) on stdio"], r.stderr


def test_mcp_needs_a_scope_and_a_store(tmp_path: Path) -> None:
    r = run_mem("mcp", "--store", str(tmp_path))
    assert r.returncode == 2
    assert "--scope" in r.stderr
    r = run_mem("mcp", "--store", str(tmp_path / "nowhere"), "--scope", "alice")
    assert r.returncode == 3
    assert "nowhere" in r.stderr
    Store.init(tmp_path / "s")
    r = run_mem("mcp", "--store", str(tmp_path / "s"), "--scope", "a/b")
    assert r.returncode == 4
    r = run_mem("mcp", "--store", str(tmp_path / "s"), "--scope", "a", "--remember-as", "superseded")
    assert r.returncode == 4


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


def test_example_client_configuration_starts_mem_mcp() -> None:
    config = json.loads((EXAMPLES / "mcp-servers.json").read_text("utf-8"))
    server = config["mcpServers"]["memory"]
    assert server["command"] == "mem"
    assert server["args"][0] == "mcp" and "--scope" in server["args"]


@pytest.mark.model
def test_example_python_client_runs(tmp_path: Path) -> None:
    # the SDK's stdio client passes only a safe subset of the environment to the server, so
    # MEM_EMBEDDER does not reach it: this runs the real embedding model, end to end
    store = Store.init(tmp_path / "store", actor="tester@test")
    store.add("Drinks green tea, no sugar", scope="you", kind="preference")
    assert MEM_EXE
    p = subprocess.run(
        [sys.executable, str(EXAMPLES / "mcp_client.py"), "--store", str(store.root),
         "--scope", "you", "--mem", MEM_EXE, "green tea"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "MEM_EMBEDDER": "hashing", "NO_COLOR": "1"},
    )
    assert p.returncode == 0, p.stderr
    assert "tools: remember, recall, get, forget, list_candidates, review, supersede" in p.stdout
    assert "Drinks green tea, no sugar" in p.stdout


def test_example_python_client_without_mem_on_path(tmp_path: Path) -> None:
    """No traceback when `mem` is not on PATH: a message saying how to point at it (issue 26)."""
    env = {**os.environ, "PATH": str(tmp_path), "NO_COLOR": "1"}
    for extra in ([], ["--mem", str(tmp_path / "no-such-mem")]):
        p = subprocess.run(
            [sys.executable, str(EXAMPLES / "mcp_client.py"), "--store", str(tmp_path), "--scope", "you",
             *extra, "green tea"],
            capture_output=True, text=True, timeout=120, env=env,
        )
        assert p.returncode == 2, p.stderr
        assert "Traceback" not in p.stderr
        assert "was not found" in p.stderr and "--mem" in p.stderr


def test_mcp_sdk_range_is_the_tested_one() -> None:
    """pyproject's mcp range starts at a version whose API the server and the example use (2.x),
    and the installed (tested) SDK lies inside it."""
    import tomllib
    from importlib.metadata import version

    root = Path(__file__).resolve().parents[2]
    deps = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    (spec,) = [d for d in deps if d.split(">")[0].split("<")[0].split("=")[0].strip() == "mcp"]
    m = re.fullmatch(r"mcp>=(\d+)\.(\d+),<(\d+)", spec.replace(" ", ""))
    assert m, spec
    low = (int(m.group(1)), int(m.group(2)))
    installed = tuple(int(x) for x in version("mcp").split(".")[:2])
    assert low[0] >= 2 and low <= installed and installed[0] < int(m.group(3)), (spec, installed)


async def _remember_twice(store_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    async with (
        stdio_client(_params(store_dir, "a")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        first = _data(await session.call_tool("remember", {"content": "Ana drinks green tea"}))
        again = _data(await session.call_tool("remember", {"content": "ana drinks  GREEN tea."}))
        return first, again


def test_mcp_remember_is_idempotent(tmp_path: Path) -> None:
    store = Store.init(tmp_path / "store", actor="tester@test")
    first, again = asyncio.run(_remember_twice(store.root))
    assert "existing" not in first
    assert again["existing"] is True and again["record"]["id"] == first["record"]["id"]
    assert [r.id for r in store.iter_records()] == [first["record"]["id"]]


async def _recall_counts(store_dir: Path) -> tuple[int, int]:
    async with stdio_client(_params(store_dir, "alice")) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        unset = _data(await session.call_tool("recall", {"query": "umbrella", "mode": "lexical"}))
        given = _data(await session.call_tool("recall", {"query": "umbrella", "mode": "lexical", "k": 4}))
    return len(unset["results"]), len(given["results"])


async def _recall_refused(store_dir: Path) -> tuple[str, int]:
    async with stdio_client(_params(store_dir, "alice")) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        bad = _error(await session.call_tool("recall", {"query": "umbrella", "mode": "lexical"}))
        given = _data(await session.call_tool("recall", {"query": "umbrella", "mode": "lexical", "k": 2}))
    return bad, len(given["results"])


def test_mcp_recall_k_defaults_to_the_search_setting(tmp_path: Path) -> None:
    """`recall` without `k` returns `[search] default_k` hits, as `mem search` without `-k` does;
    a `k` given wins; a bad default_k is refused with the setting's words, naming the file."""
    store = Store.init(tmp_path / "s", actor="tester@test")
    for i in range(6):
        store.add(f"the umbrella number {i} is blue", scope="alice")
    (store.root / "config.toml").write_text("[search]\ndefault_k = 3\n", "utf-8")
    cli = run_mem("--store", str(store.root), "search", "umbrella", "--mode", "lexical", "--json",
                  env={"MEM_EMBEDDER": "hashing"})
    assert cli.returncode == 0, cli.stderr
    assert len(json.loads(cli.stdout)["hits"]) == 3
    assert asyncio.run(_recall_counts(store.root)) == (3, 4)
    (store.root / "config.toml").write_text("[search]\ndefault_k = 0\n", "utf-8")
    bad, given = asyncio.run(_recall_refused(store.root))
    assert "[search] default_k = 0 must be a whole number from 1 to 1000" in bad
    assert str(store.root / "config.toml") in bad
    assert given == 2  # a k given does not read the setting


def test_recall_k_default_is_capped_at_the_tools_most(tmp_path: Path) -> None:
    from mem.mcpserver.memory import MAX_K, ScopedMemory

    store = Store.init(tmp_path / "s", actor="tester@test")
    (store.root / "config.toml").write_text("[search]\ndefault_k = 500\n", "utf-8")
    assert ScopedMemory(Store.open(store.root), ["alice"]).default_k() == MAX_K
    (store.root / "config.toml").write_text("", "utf-8")
    assert ScopedMemory(Store.open(store.root), ["alice"]).default_k() == 10
