"""The README's "Use with your agent" snippets are exact: each parses, and the server each
one describes starts and answers the official MCP SDK client."""

from __future__ import annotations

import asyncio
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mem.format.store.store import Store
from tests.conftest import MEM_EXE

ROOT = Path(__file__).resolve().parents[2]


def _section() -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    start = text.index("## Use with your agent\n")
    return text[start : text.index("\n## ", start + 5)]


def _servers() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for lang, body in re.findall(r"```(json|toml)\n(.*?)```", _section(), re.S):
        doc = json.loads(body) if lang == "json" else tomllib.loads(body)
        servers = doc["mcpServers"] if lang == "json" else doc["mcp_servers"]
        assert list(servers) == ["mem"]
        out.append((lang, servers["mem"]))
    return out


def test_the_section_has_a_snippet_per_host() -> None:
    section = _section()
    for host in ("Claude Code", "Codex CLI", "Cursor", "Claude Desktop"):
        assert host in section
    assert [lang for lang, _ in _servers()] == ["json", "toml", "json", "json"]


async def _start(entry: dict[str, Any], store: Path) -> set[str]:
    assert MEM_EXE
    args = [str(store) if a == "/home/you/memory" else a for a in entry["args"]]
    params = StdioServerParameters(command=MEM_EXE, args=args,
                                   env={**entry.get("env", {}), "MEM_EMBEDDER": "hashing"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        tools = {t.name for t in (await s.list_tools()).tools}
        res = await s.read_resource("mem://context")
        assert res.contents[0].text.startswith("# Memory\n")
        return tools


@pytest.mark.parametrize("n", range(4))
def test_each_snippet_starts_a_working_server(n: int, tmp_path: Path) -> None:
    store = Store.init(tmp_path / "memory", actor="tester@test")
    store.add("Drinks green tea.", scope="you", kind="preference")
    _, entry = _servers()[n]
    assert Path(entry["command"]).name == "mem" and entry["args"][0] == "mcp"
    tools = asyncio.run(_start(entry, store.root))
    if "--read-only" in entry["args"]:
        assert tools == {"recall", "get", "list_candidates", "list_memories"}
    else:
        assert {"remember", "recall", "forget"} <= tools
