"""The read log ([audit] reads) and `mem why`: through the real executable and the MCP SDK client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem

ENV = {"MEM_EMBEDDER": "hashing"}


def _store(tmp_path: Path, reads: bool) -> tuple[Store, dict[str, str]]:
    store = Store.init(tmp_path / "store", actor="tester@test")
    if reads:
        cfg = store.root / "config.toml"
        cfg.write_text(cfg.read_text("utf-8") + "\n[audit]\nreads = true\n", "utf-8")
        store = Store.open(store.root)
    ids = {
        "tea": store.add("Sam drinks green tea.", scope="sam", kind="preference").id,
        "city": store.add("Sam lives in Lisbon.", scope="sam", kind="fact", status="candidate",
                          source={"type": "capture", "host": "claude-code", "session": "s1", "conversation": "s1",
                                  "turn": 4, "transcript": "/t/s1.jsonl", "pattern": "fact.lives",
                                  "quote": "I live in Lisbon.", "ts": "2026-11-30T09:00:00.000Z"}).id,
    }
    return store, ids


async def _mcp(store_dir: Path) -> None:
    assert MEM_EXE
    params = StdioServerParameters(command=MEM_EXE, args=["mcp", "--store", str(store_dir), "--scope", "sam", "--read-only"],
                                   env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        r = await s.call_tool("recall", {"query": "green tea", "mode": "lexical", "session": "chat-7"})
        assert not r.is_error
        await s.read_resource("mem://context")


def test_read_log_is_off_by_default(tmp_path: Path) -> None:
    store, ids = _store(tmp_path, reads=False)
    assert run_mem("--store", str(store.root), "context").returncode == 0
    asyncio.run(_mcp(store.root))
    assert not (store.root / ".mem" / "reads.jsonl").exists()
    why = run_mem("--store", str(store.root), "why", ids["tea"], "--json")
    assert why.json()["served"] is None and why.json()["read_log"] is False


def test_reads_are_logged_content_free_and_why_tells_the_story(tmp_path: Path) -> None:
    store, ids = _store(tmp_path, reads=True)
    root = str(store.root)
    assert run_mem("--store", root, "context", "--scope", "sam", "--session", "hook-1").returncode == 0
    batch = run_mem("--store", root, "search", "--batch", input='{"query": "green tea", "mode": "lexical"}\n', env=ENV)
    assert batch.returncode == 0, batch.stderr
    asyncio.run(_mcp(store.root))
    log = (store.root / ".mem" / "reads.jsonl").read_text("utf-8")
    events = [json.loads(x) for x in log.splitlines()]
    assert [(e["via"], e["session"]) for e in events] == [
        ("context", "hook-1"), ("search-batch", None), ("mcp-recall", "chat-7"), ("mcp-context", None)]
    assert events[2]["ids"] == [ids["tea"]] and isinstance(events[2]["scores"][0], float)
    assert events[2]["query"].startswith("sha256:") and events[0]["query"] is None
    for word in ("green", "tea", "Lisbon", "Sam"):
        assert word not in log  # content-free: neither memories nor queries
    # the story: where it came from, who reviewed it, what replaced it, when it was served
    assert run_mem("--store", root, "accept", ids["city"], "--reason", "Sam confirmed").returncode == 0
    sup = run_mem("--store", root, "supersede", ids["city"], "Sam lives in Porto.", "--json")
    new_id = sup.json()["new"]["id"]
    why = run_mem("--store", root, "why", ids["city"], "--json").json()
    assert why["record"]["status"] == "superseded" and why["superseded_by"] == new_id
    assert [e["op"] for e in why["events"]] == ["add", "accept", "update"]
    assert why["events"][1]["detail"]["reason"] == "Sam confirmed"
    assert why["served"] == []  # a candidate: context and recall did not serve it
    tea = run_mem("--store", root, "why", ids["tea"]).stdout
    assert "served 4 time(s):" in tea and "mcp-recall   rank 1" in tea and "session chat-7" in tea
    text = run_mem("--store", root, "why", ids["city"]).stdout
    assert "captured from claude-code session s1, turn 4, said 2026-11-30T09:00:00.000Z" in text
    assert "quote: I live in Lisbon." in text and f"superseded by: {new_id}" in text


def test_why_of_a_forgotten_record_shows_no_content(tmp_path: Path) -> None:
    store, ids = _store(tmp_path, reads=True)
    root = str(store.root)
    assert run_mem("--store", root, "forget", ids["city"], "--yes", "--reason", "asked to").returncode == 0
    r = run_mem("--store", root, "why", ids["city"])
    assert r.returncode == 0, r.stderr
    assert "forgotten on" in r.stdout and "(asked to)" in r.stdout and "Lisbon" not in r.stdout
    missing = run_mem("--store", root, "why", "01M8T549QS6HAVZFZVHC4C38QG")
    assert missing.returncode == 3 and "01M8T549QS6HAVZFZVHC4C38QG" in missing.stderr


def test_a_bad_audit_setting_is_named(tmp_path: Path) -> None:
    store, _ = _store(tmp_path, reads=False)
    cfg = store.root / "config.toml"
    cfg.write_text(cfg.read_text("utf-8") + "\n[audit]\nreads = \"yes\"\n", "utf-8")
    r = run_mem("--store", str(store.root), "context")
    assert r.returncode == 5 and "[audit] reads = 'yes' must be true or false" in r.stderr
    assert r.stdout == ""  # refused before anything is served
