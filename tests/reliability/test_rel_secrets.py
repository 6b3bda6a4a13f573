"""The secrets policy on every write path, through the real ``mem`` executable (and the MCP SDK
client): refused with exit 4 and a hint, nothing written; ``--allow-secret`` stores it and the
audit log says so by rule name, never with the text."""

from __future__ import annotations

import asyncio
import csv
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from mem.format.base.errors import ExitCode
from mem.format.store.store import Store
from tests.conftest import MEM_EXE, Result, run_mem
from tests.importexport import builders as b
from tests.importexport import peers

#: The row of the reliability report this file's tests count in (conftest.py).
ATTACK = "attack: secret-bearing writes on every path (add, update, edit, supersede, import readers, MCP), via `mem`"

SECRET = "The wifi password for the house is sunnyday123"  # missed by capture before this policy
VALUE = "sunnyday123"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def mem(store_dir: Path, *args: str, **kw: Any) -> Result:
    return run_mem("--store", str(store_dir), *args, **kw)


def _everything(store_dir: Path) -> str:
    """Every byte mem wrote under the store (records, log, tombstones, state, drafts excluded)."""
    out = []
    for p in sorted(store_dir.rglob("*")):
        if p.is_file() and ".mem" not in p.parts:
            out.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def _events(store_dir: Path) -> list[dict[str, Any]]:
    r = mem(store_dir, "log", "--json")
    assert r.returncode == 0, r.stderr
    events: list[dict[str, Any]] = r.json()
    return events


def _refused(r: Result, rule: str = "password") -> None:
    assert r.returncode == ExitCode.INVALID_INPUT, (r.returncode, r.stderr)
    assert f"looks like it holds a secret (rule {rule})" in r.stderr
    assert "--allow-secret" in r.stderr  # the hint
    assert VALUE not in r.stdout + r.stderr and TOKEN not in r.stdout + r.stderr


def test_add_refuses_then_allows_with_a_logged_override(store_dir: Path) -> None:
    before = _events(store_dir)
    for args in (("add", SECRET), ("add", "-"), ("add", "--tag", f"wifi,{TOKEN}", "a note")):
        r = mem(store_dir, *args, input=SECRET if args[-1] == "-" else None)
        _refused(r, "github-token" if TOKEN in args[-2] else "password")
    assert _events(store_dir) == before  # nothing written, nothing logged
    assert VALUE not in _everything(store_dir)
    r = mem(store_dir, "add", SECRET, "--allow-secret", "--scope", "home")
    assert r.returncode == 0, r.stderr
    rid = r.stdout.strip()
    assert mem(store_dir, "show", rid, "--json").json()["content"] == SECRET + "\n"
    (ev,) = [e for e in _events(store_dir) if e["id"] == rid]
    assert (ev["op"], ev["detail"]["allow_secret"]) == ("add", "password")
    log_text = "".join(p.read_text() for p in (store_dir / "log").glob("*.jsonl"))
    assert VALUE not in log_text  # the override is logged, the text is not


def test_update_edit_supersede(store_dir: Path, tmp_path: Path) -> None:
    rid = mem(store_dir, "add", "The wifi network is called BlueHeron", "--scope", "home").stdout.strip()
    path = store_dir / "records" / "home" / f"{rid}.md"
    original = path.read_bytes()
    _refused(mem(store_dir, "update", rid, "--content", SECRET))
    _refused(mem(store_dir, "supersede", rid, SECRET))
    writer = tmp_path / "write.py"
    writer.write_text(
        "import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
        f"p.write_text(p.read_text().replace('The wifi network is called BlueHeron', {SECRET!r}))\n"
    )
    r = mem(store_dir, "edit", rid, env={"EDITOR": f"{sys.executable} {writer}"})
    _refused(r)
    assert "nothing saved" in r.stderr
    assert path.read_bytes() == original
    assert len(list((store_dir / "records" / "home").iterdir())) == 1  # no successor written
    # the overrides
    r = mem(store_dir, "update", rid, "--content", SECRET, "--allow-secret", "--json")
    assert r.returncode == 0, r.stderr and r.json()["content"] == SECRET + "\n"
    # a record stored with the override is not refused again for an unrelated change
    assert mem(store_dir, "update", rid, "--tag", "home").returncode == 0
    r = mem(store_dir, "edit", rid, "--allow-secret", env={"EDITOR": f"{sys.executable} {writer}"})
    assert r.returncode == 0, r.stderr  # nothing to replace any more: "no changes"
    r = mem(store_dir, "supersede", rid, SECRET.replace("123", "456"), "--allow-secret")
    assert r.returncode == 0, r.stderr
    ops = [(e["op"], e["detail"].get("allow_secret")) for e in _events(store_dir) if e["id"] in (rid, r.stdout.strip())]
    assert ("update", "password") in ops and ("supersede", "password") in ops
    assert ("update", None) in ops  # the tag change: no override needed, none logged


def test_edit_with_allow_secret_saves(store_dir: Path, tmp_path: Path) -> None:
    rid = mem(store_dir, "add", "The wifi network is called BlueHeron").stdout.strip()
    writer = tmp_path / "write.py"
    writer.write_text(
        "import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
        f"p.write_text(p.read_text().replace('The wifi network is called BlueHeron', {SECRET!r}))\n"
    )
    r = mem(store_dir, "edit", rid, "--allow-secret", "--json", env={"EDITOR": f"{sys.executable} {writer}"})
    assert r.returncode == 0, r.stderr
    assert r.json()["content"] == SECRET + "\n"
    (ev,) = [e for e in _events(store_dir) if e["id"] == rid and e["op"] == "update"]
    assert ev["detail"] == {"via": "edit", "allow_secret": "password"}


# -- import: every reader ------------------------------------------------------------------------


def _jsonl(root: Path) -> Path:
    p = root / "in.jsonl"
    p.write_text(json.dumps({"content": "I like green tea"}) + "\n" + json.dumps({"content": SECRET}) + "\n")
    return p


def _csv(root: Path) -> Path:
    p = root / "in.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["content", "kind"])
        w.writerow(["I like green tea", "preference"])
        w.writerow([SECRET, "fact"])
    return p


def _windieos(root: Path) -> Path:
    d = root / "memory"
    b.build_windieos(d)
    con = sqlite3.connect(d / "episodic.db")
    con.execute("UPDATE memories SET content = ? WHERE id = ?", (SECRET, b.W_IDS["tool"]))
    con.commit()
    con.close()
    return d


def _matrixos(root: Path) -> Path:
    home = root / "matrix"
    b.build_matrixos(home)
    con = sqlite3.connect(home / "system" / "matrix.db")
    con.execute(
        "INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?)",
        ("mem-secret00-001", SECRET, None, "fact", "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
    )
    con.commit()
    con.close()
    return home


def _skales(root: Path) -> Path:
    d = root / ".skales-data"
    b.build_skales(d)
    item = {"id": "1700000900000_sec01", "category": "fact", "content": SECRET,
            "source_conversation_id": None, "extracted_at": 1700000900000, "relevance_keywords": []}  # fmt: skip
    (d / "memories" / "1700000900000_sec01.json").write_text(json.dumps(item))
    return d


def _soulofwaifu(root: Path) -> Path:
    soul = b.build_soulofwaifu(root)
    user = soul / "Aiko" / "chats" / "Main chat" / "memory" / "USER.md"
    user.write_text(user.read_text() + f"\n- {SECRET}\n")
    return soul


def _mem0(root: Path) -> Path:
    d = peers.build_mem0(root / "mem0")
    data = json.loads((d / "export.json").read_text("utf-8"))
    data["results"].append(peers._m0("5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e99", SECRET, "2025-06-04T10:00:00-07:00",
                                     user_id="alice"))  # fmt: skip
    (d / "export.json").write_text(json.dumps(data), "utf-8")
    return d


def _basic_memory(root: Path) -> Path:
    d = peers.build_basic_memory(root / "bm")
    (d / "house.md").write_text(f"---\ntitle: House\ntype: note\n---\n\n- [fact] {SECRET}\n", "utf-8")
    return d


def _claude_code(root: Path) -> Path:
    project, _ = peers.build_claude_code(root / "cc")
    claude = project / "CLAUDE.md"
    claude.write_text(claude.read_text("utf-8") + f"\n- {SECRET}\n", "utf-8")
    return project


def _letta(root: Path) -> Path:
    path = peers.build_letta(root / "sam.af")
    af = json.loads(path.read_text("utf-8"))
    af["agents"][0]["passages"].append({"id": "passage-9", "text": SECRET, "created_at": "2025-07-02T11:00:00Z"})
    path.write_text(json.dumps(af), "utf-8")
    return path


def _chatgpt(root: Path) -> Path:
    path = peers.build_chatgpt(root / "memories.txt")
    path.write_text(path.read_text("utf-8") + SECRET + "\n", "utf-8")
    return path


READERS = {"jsonl": _jsonl, "csv": _csv, "windieos": _windieos, "matrixos": _matrixos,
           "skales": _skales, "soulofwaifu": _soulofwaifu, "mem0": _mem0, "basic-memory": _basic_memory,
           "claude-code": _claude_code, "letta": _letta, "chatgpt-memories": _chatgpt}  # fmt: skip


def test_every_reader_is_covered() -> None:
    from mem.format.interchange.importers import SYSTEMS

    assert set(READERS) == set(SYSTEMS)


@pytest.mark.parametrize("system", sorted(READERS))
def test_import_refuses_secrets_from_every_reader(system: str, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    src = READERS[system](tmp_path / "src")
    store = Store.init(tmp_path / "store", actor="tester@test")
    dry = mem(store.root, "import", str(src), "--from", system, "--dry-run", "--json")
    r = mem(store.root, "import", str(src), "--from", system, "--json")
    assert r.returncode == ExitCode.INVALID_INPUT, r.stderr
    out = r.json()
    assert out["counts"]["refused_secret"] == 1 == dry.json()["counts"]["refused_secret"]
    assert out["counts"]["created"] >= 1  # the rest is imported
    (problem,) = [p for p in out["problems"] if p["outcome"] == "refused_secret"]
    assert "rule password" in problem["message"]
    assert all(i["content"] is None for i in dry.json()["items"] if i["outcome"] == "refused_secret")
    assert VALUE not in r.stdout + r.stderr + dry.stdout + dry.stderr
    assert VALUE not in _everything(store.root)
    human = mem(store.root, "import", str(src), "--from", system)
    assert "refused secret 1" in human.stdout and human.returncode == ExitCode.INVALID_INPUT
    # the override: stored, and its import event says so
    r = mem(store.root, "import", str(src), "--from", system, "--allow-secret", "--json")
    assert r.json()["counts"]["refused_secret"] == 0 and r.json()["counts"]["created"] == 1, r.stdout
    (ev,) = [e for e in _events(store.root) if e["detail"].get("allow_secret")]
    assert (ev["op"], ev["detail"]["allow_secret"]) == ("import", "password")
    assert store.get(ev["id"]).content == SECRET + "\n"


# -- capture and consolidate ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",  # each was captured and stored before this policy
    ["Remember that my wifi password for the house is sunnyday123", "remember my pw is hunter2",
     "Remember that my bank login is sam / Hunter2!",
     "Remember that my 2FA backup codes are 4821-9932 1187-2290"],
)
def test_capture_refuses_what_it_used_to_store(store_dir: Path, tmp_path: Path, sentence: str) -> None:
    p = tmp_path / "t.jsonl"
    p.write_text(json.dumps({"role": "user", "content": f"{sentence}. I love jazz."}) + "\n")
    r = mem(store_dir, "capture", str(p), "--scope", "sam", "--json")
    assert r.returncode == 0, r.stderr
    counts = r.json()["counts"]
    assert counts["refused-secret"] >= 1 and counts["captured"] == 1
    assert sentence.split()[-1] not in r.stdout + r.stderr + _everything(store_dir)


def test_consolidate_drops_a_secret_the_summarizer_repeats(store: Store) -> None:
    from tests.consolidate.conftest import fake_cmd

    store.add("FACT: Nora lives in Kyoto", scope="alice", kind="episode", source={"conversation": "c1"})
    store.add(f"FACT: {SECRET}", scope="alice", kind="episode", source={"conversation": "c1"},
              allow_secret=True)  # fmt: skip
    r = mem(store.root, "consolidate", "--summarizer", fake_cmd("ok"), "--json")
    assert r.returncode == 0, r.stderr
    (res,) = r.json()["results"]
    reasons = sorted((d["item"], d["reason"], d.get("rule")) for d in res["dropped"])
    assert ("fact:1", "secret", "password") in reasons
    written = [store.get(i) for i in res["facts"]] + ([store.get(res["summary"])] if res["summary"] else [])
    assert written and all(VALUE not in rec.content for rec in written)
    assert [rec.content for rec in written if "Kyoto" in rec.content]


# -- MCP, through the SDK client -----------------------------------------------------------------


async def _mcp(store_dir: Path, rid: str) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    assert MEM_EXE
    params = StdioServerParameters(
        command=MEM_EXE,
        args=["mcp", "--store", str(store_dir), "--scope", "alice", "--lazy"],
        env={"MEM_EMBEDDER": "hashing", "MEM_ACTOR": "agent@test", "NO_COLOR": "1"},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        # no override argument: an agent (or a prompt injected into it) cannot store a secret
        assert not any("secret" in name for name in tools["remember"].input_schema["properties"])
        for call, args in (
            ("remember", {"content": SECRET}),
            ("remember", {"content": "a note", "tags": [TOKEN]}),
            ("supersede", {"id": rid, "content": SECRET}),
        ):
            res = await session.call_tool(call, args)
            assert res.is_error
            text = res.content[0].text
            assert text.startswith(f"Error executing tool {call}: error [secret]: "), text
            assert "looks like it holds a secret" in text
            assert "mem add --allow-secret" in text and VALUE not in text and TOKEN not in text
        ok = await session.call_tool("remember", {"content": "Alice likes green tea"})
        assert not ok.is_error


def test_mcp_remember_and_supersede_refuse_secrets(store: Store) -> None:
    rec = store.add("Alice's wifi network is BlueHeron", scope="alice")
    asyncio.run(_mcp(store.root, rec.id))
    assert store.get(rec.id).status == "active"
    assert VALUE not in _everything(store.root)
    contents = [r.content for r in store.list()]
    assert "Alice likes green tea\n" in contents and len(contents) == 2
