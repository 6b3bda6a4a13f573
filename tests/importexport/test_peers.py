"""Migrations from the memory tools people leave (mem0, basic-memory, Claude Code, Letta, ChatGPT's
saved memories) and back (``mem export --format mem0|basic-memory|claude-md``), through the real
executable, on fixtures shaped as those tools write their stores (``peers.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mem.format.model.record import Record
from mem.format.rules.ids import scope_for
from mem.format.rules.timeutil import format_time
from mem.format.store.store import Store

from ..conftest import run_mem
from . import builders as b
from . import peers as p


def records(store_dir: Path) -> dict[str, Record]:
    """Records by ``source.original_id``."""
    return {str(r.source.get("original_id")): r for r in Store.open(store_dir).iter_records()}


def imported(store_dir: Path, path: Path, *extra: str, code: int = 0) -> dict[str, Any]:
    r = run_mem("import", str(path), "--json", *extra, cwd=store_dir)
    assert r.returncode == code, r.stderr
    return r.json()  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# mem0


def test_mem0_export_and_history(store_dir: Path, tmp_path: Path) -> None:
    src = p.build_mem0(tmp_path / "dot-mem0")
    before = b.snapshot(src)
    out = imported(store_dir, src, code=4)  # two invalid entries: exit 4, the rest imported
    assert b.snapshot(src) == before  # history.db opened read-only, nothing written beside it
    c = out["counts"]
    assert (c["created"], c["invalid"], c["duplicate"]) == (7, 2, 1)
    assert out["tombstones"]["added"] == 2
    where = sorted((q["outcome"], q["file"], q["line"]) for q in out["problems"])
    assert where == [
        ("duplicate", "export.json", 4),
        ("invalid", "export.json", 5),
        ("invalid", "history.db#history", 8),
        ("warning", "export.json", 7),
    ]
    recs = records(store_dir)
    m = p.M0
    cricket = recs[m["cricket"]]
    assert (cricket.scope, cricket.kind, cricket.status) == ("alice", "preference", "active")
    assert format_time(cricket.recorded_at) == "2025-06-01T16:15:22.123Z"  # -07:00 read as such
    assert cricket.source["system"] == "mem0" and cricket.source["user_id"] == "alice"
    assert cricket.source["hash"] == p.md5("Likes to play cricket on weekends")
    # UPDATE in the history: the old text is a superseded record, the new one supersedes it
    old, new = recs[f"{m['diet']}@v1"], recs[m["diet"]]
    assert (old.content, old.status, old.superseded_by) == ("Eats fish\n", "superseded", new.id)
    assert (new.content, new.status, new.supersedes) == ("Is vegetarian\n", "active", (old.id,))
    assert format_time(new.recorded_at) == "2025-06-04T01:00:00.000Z"  # the update's time
    assert old.superseded_at == new.recorded_at and old.valid_to == new.recorded_at
    assert new.source["metadata"] == {"source": "chat"}
    # non-ASCII user ids fold to distinct scopes; agents get their own
    assert recs[m["russian"]].scope == scope_for(p.M0_BORIS) != "default"
    assert recs[m["russian"]].content == "Прекрасно говорит по-русски 🇷🇺\n"
    assert recs[m["agent"]].scope == "agent-support-bot"
    assert recs[m["cat"]].scope == "default"  # only in the history: no user id there
    # DELETE: no record of any version, a tombstone for each
    assert f"{m['moved']}@v1" not in recs and m["moved"] not in recs
    for text in ("Lives in Berlin", "Lives in Paris"):
        r = run_mem("add", text, "--scope", "default", cwd=store_dir)
        assert r.returncode == 6, (text, r.stderr)  # forgotten content cannot come back
    again = imported(store_dir, src, code=4)
    assert again["counts"]["created"] == 0 and again["counts"]["unchanged"] == 7
    assert again["tombstones"] == {"added": 0, "unchanged": 2, "conflict": 0, "invalid": 0, "refused": 0}


def test_mem0_forgotten_in_mem_stays_forgotten(store_dir: Path, tmp_path: Path) -> None:
    src = p.build_mem0(tmp_path / "dot-mem0")
    imported(store_dir, src, code=4)
    rid = records(store_dir)[p.M0["cricket"]].id
    assert run_mem("forget", rid, "--yes", cwd=store_dir).returncode == 0
    again = imported(store_dir, src, code=4)
    assert again["counts"]["refused_forgotten"] == 1 and again["counts"]["created"] == 0
    assert p.M0["cricket"] not in records(store_dir)


def test_mem0_history_alone_and_old_schema(store_dir: Path, tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "history.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, prev_value TEXT, new_value TEXT,"
        " event TEXT, timestamp DATETIME, is_deleted INTEGER)"
    )
    con.executemany(
        "INSERT INTO history VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            ("1", "m-1", None, "Works at Initech", "ADD", "2024-01-01T10:00:00", 0),
            ("2", "m-1", "Works at Initech", "Works at Globex", "UPDATE", "2024-03-01T10:00:00", 0),
        ],
    )
    con.commit()
    con.close()
    out = imported(store_dir, db)
    assert out["system"] == "mem0" and out["counts"]["created"] == 2
    recs = records(store_dir)
    assert recs["m-1"].content == "Works at Globex\n" and recs["m-1@v1"].status == "superseded"


# ---------------------------------------------------------------------------------------------
# basic-memory


def test_basic_memory_project(store_dir: Path, tmp_path: Path) -> None:
    src = p.build_basic_memory(tmp_path / "basic-memory")
    out = imported(store_dir, src)
    assert out["system"] == "basic-memory"
    assert out["counts"]["created"] == 9 and out["counts"]["skipped_empty"] == 1
    assert [q["file"] for q in out["problems"] if q["outcome"] == "warning"] == ["office.md"]
    by_text = {r.content: r for r in Store.open(store_dir).iter_records()}
    pour = by_text["Pour over provides more flavor clarity than French press\n"]
    assert (pour.kind, pour.tags) == ("note", ("brewing", "coffee", "method"))  # category as tag
    beans = by_text["Ethiopian beans with lighter roasts\n"]  # trailing #tag and (context) taken out
    assert beans.kind == "preference" and "beans" in beans.tags
    assert beans.source["context"] == "personal experience" and beans.source["line"] == 16
    assert format_time(beans.recorded_at) == "2025-03-01T10:00:00.000Z"
    assert by_text["Water at 96 °C extracts best\n"].kind == "fact"
    # the note's own text keeps what is not an observation, relations structured in source
    note = next(r for r in by_text.values() if r.source.get("original_id") == "coffee-brewing-methods#note")
    assert note.content.startswith("Notes from the barista course.")
    assert "- [ ] buy a new grinder" in note.content and "this is code" in note.content
    assert note.source["relations"] == [
        {"type": "relates_to", "target": "Coffee Bean Origins"},
        {"type": "pairs well with", "target": "Breakfast"},
    ]
    zoe = by_text["zoe@example.org\n"]
    assert zoe.kind == "contact" and zoe.source["title"] == "Zoë Müller"
    person = next(r for r in by_text.values() if r.source.get("original_id") == "people-zoe-muller#note")
    assert person.kind == "contact" and person.source["relations"][0]["context"] == "since 2023"
    # negative: no checkbox, link or code line became an observation
    assert not any(t.startswith(("buy a new grinder", "link", "this is code")) for t in by_text)
    again = imported(store_dir, src)
    assert again["counts"]["created"] == 0 and again["counts"]["unchanged"] == 9


# ---------------------------------------------------------------------------------------------
# Claude Code


def test_claude_md_and_imports(store_dir: Path, tmp_path: Path) -> None:
    project, _ = p.build_claude_code(tmp_path / "cc")
    out = imported(store_dir, project / "CLAUDE.md")
    assert out["system"] == "claude-code" and out["counts"]["created"] == 7
    recs = {r.content.rstrip("\n"): r for r in Store.open(store_dir).iter_records()}
    assert recs["Run `make test` before every commit."].kind == "instruction"
    assert recs["Never push to main directly."].tags == ("build", "project-conventions")
    assert recs["I prefer small functions with docstrings."].kind == "preference"
    assert recs["The API server listens on port 8080."].kind == "fact"
    rebase = recs["Always rebase feature branches onto main."]  # from the @import
    assert rebase.source["file"] == "docs/git-workflow.md" and rebase.kind == "instruction"
    assert recs["See @docs/git-workflow.md for the branch rules."].source["line"] == 11
    code = next(r for t, r in recs.items() if t.startswith("```sh"))
    assert code.kind == "note" and "code" in code.tags
    assert not any(t.startswith("- this bullet") for t in recs)  # code is not a bullet
    assert imported(store_dir, project)["counts"]["unchanged"] == 7  # the folder: same items


def test_claude_auto_memory(store_dir: Path, tmp_path: Path) -> None:
    _, home = p.build_claude_code(tmp_path / "cc")
    out = imported(store_dir, home, "--from", "claude-code")
    assert out["counts"]["created"] == 5
    recs = {r.content.rstrip("\n"): r for r in Store.open(store_dir).iter_records()}
    user = recs["The user is a data scientist who works mostly in Python and SQL."]
    assert user.kind == "fact" and user.source["memory_type"] == "user"
    assert user.source["description"] == "the user is a data scientist"
    assert recs["Run the integration tests with a real database, never with mocks."].kind == "instruction"
    assert recs["The staging database is read-only on Fridays."].source["line"] == 5
    assert "[Missing](gone.md) — a pointer to a file that is not there" in recs  # kept: no file
    assert not any("User role" in t for t in recs)  # index pointers are not memories
    assert recs["Answer in British English."].kind == "instruction"


# ---------------------------------------------------------------------------------------------
# Letta and ChatGPT


def test_letta_agent_file(store_dir: Path, tmp_path: Path) -> None:
    af = p.build_letta(tmp_path / "sam.af")
    out = imported(store_dir, af)
    assert out["system"] == "letta"
    assert (out["counts"]["created"], out["counts"]["skipped_not_memory"], out["counts"]["skipped_empty"]) == (6, 2, 1)
    assert any("block-9" in q["message"] for q in out["problems"])
    recs = {r.content.rstrip("\n"): r for r in Store.open(store_dir).iter_records()}
    assert {r.scope for r in recs.values()} == {scope_for("Sam the Bot")} == {"sam-the-bot-1ac7834d"}
    assert recs["I keep answers short."].kind == "instruction"
    assert recs["Allergic to penicillin"].kind == "fact" and recs["Allergic to penicillin"].source["block"] == "human"
    band = recs["Chad's favourite band is Radiohead."]
    assert band.tags == ("archival",) and format_time(band.recorded_at) == "2025-07-02T10:00:00.000Z"
    assert "hi" not in recs  # messages are the conversation, not memory
    assert imported(store_dir, af)["counts"]["unchanged"] == 6


def test_letta_corrupt_file(store_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "broken.af"
    bad.write_text('{"agents": [', encoding="utf-8")
    out = imported(store_dir, bad, code=4)
    assert out["counts"]["invalid"] == 1 and out["problems"][0]["file"] == "broken.af"


def test_chatgpt_saved_memories(store_dir: Path, tmp_path: Path) -> None:
    txt = p.build_chatgpt(tmp_path / "memories.txt")
    out = imported(store_dir, txt)
    assert out["system"] == "chatgpt-memories"
    assert out["counts"]["created"] == 5 and out["counts"]["unchanged"] == 1  # the repeated line
    recs = {r.content.rstrip("\n"): r for r in Store.open(store_dir).iter_records()}
    assert recs["Prefers concise answers with code examples."].kind == "preference"
    assert recs["Wants responses in metric units."].kind == "instruction"  # "2." dropped
    assert recs["Is training for a marathon in October."].source["line"] == 2  # "•" dropped
    assert "Живёт в Москве." in recs
    assert imported(store_dir, txt)["counts"]["created"] == 0


# ---------------------------------------------------------------------------------------------
# The way back, and round trips


@pytest.fixture
def mixed(store_dir: Path) -> Path:
    """A store with what the targets can and cannot hold."""
    adds = [
        ("Alice is allergic to peanuts", "alice", "fact", ["health"]),
        ("Alice prefers tea over coffee", "alice", "preference", []),
        ("Always answer Alice in French", "alice", "instruction", ["lang"]),
        ("Line one\nline two of a longer note", "alice", "note", []),
        ("Bob loves #python", "bob", "preference", ["code"]),
        ("Bob's cat is called Miso", "bob", "fact", []),
    ]
    for text, scope, kind, tags in adds:
        args = ["add", text, "--scope", scope, "--kind", kind]
        for t in tags:
            args += ["--tag", t]
        assert run_mem(*args, cwd=store_dir).returncode == 0
    gone = run_mem("add", "Bob's bank PIN hint is his birthday", "--scope", "bob", "--json", cwd=store_dir)
    assert run_mem("forget", gone.json()["id"], "--yes", cwd=store_dir).returncode == 0
    return store_dir


def _shape(store_dir: Path) -> set[tuple[str, str, str, tuple[str, ...]]]:
    return {(r.scope, r.kind, r.content, r.tags) for r in Store.open(store_dir).iter_records()}


def test_round_trip_mem0(mixed: Path, tmp_path: Path) -> None:
    out = tmp_path / "mem0.json"
    r = run_mem("export", "--format", "mem0", "-o", str(out), cwd=mixed)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert len(doc["results"]) == 6 and len(doc["mem_tombstones"]) == 1
    first = doc["results"][0]
    assert set(first) == {"id", "memory", "hash", "metadata", "created_at", "updated_at", "user_id"}
    assert first["hash"] == p.md5(first["memory"])
    fresh = Store.init(tmp_path / "fresh").root
    back = imported(fresh, out, "--from", "mem0")
    assert back["counts"]["created"] == 6 and back["tombstones"]["added"] == 1
    assert _shape(fresh) == _shape(mixed)  # scope, kind, text and tags all kept
    times = {r.content: r.recorded_at for r in Store.open(mixed).iter_records()}
    assert all(times[r.content] == r.recorded_at for r in Store.open(fresh).iter_records())
    assert run_mem("add", "Bob's bank PIN hint is his birthday", "--scope", "bob", cwd=fresh).returncode == 6


def test_round_trip_basic_memory(mixed: Path, tmp_path: Path) -> None:
    out = tmp_path / "bm"
    r = run_mem("export", "--format", "basic-memory", "-o", str(out), cwd=mixed)
    assert r.returncode == 0, r.stderr
    assert "no place for tombstones: 1 forgotten item(s) are not carried (bob/" in r.stderr
    facts = (out / "alice" / "fact.md").read_text(encoding="utf-8")
    assert "- [fact] Alice is allergic to peanuts #health (mem " in facts
    own = [f for f in (out / "alice").iterdir() if f.name[0].isdigit()]
    assert len(own) == 1 and own[0].read_text(encoding="utf-8").endswith("Line one\nline two of a longer note\n")
    assert len(list((out / "bob").iterdir())) == 2  # "#python" at the end: a note of its own
    fresh = Store.init(tmp_path / "fresh").root
    back = imported(fresh, out, "--from", "basic-memory")
    assert back["counts"]["created"] == 6
    assert _shape(fresh) == _shape(mixed)
    times = {r.content: r.recorded_at for r in Store.open(mixed).iter_records()}
    assert all(times[r.content] == r.recorded_at for r in Store.open(fresh).iter_records())


def test_round_trip_claude_md(mixed: Path, tmp_path: Path) -> None:
    r = run_mem("export", "--format", "claude-md", "--scope", "alice", cwd=mixed)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "# Memory: alice\n\n## Instructions\n\n- Always answer Alice in French\n\n"
        "## Preferences\n\n- Alice prefers tea over coffee\n\n## Facts\n\n- Alice is allergic to peanuts\n\n"
        "## Notes\n\n- Line one\n  line two of a longer note\n"
    )
    doc = tmp_path / "CLAUDE.md"
    doc.write_text(run_mem("export", "--format", "claude-md", cwd=mixed).stdout, encoding="utf-8")
    fresh = Store.init(tmp_path / "fresh").root
    assert imported(fresh, doc)["counts"]["created"] == 6
    # what a CLAUDE.md holds: scope (its heading), kind (its section) and text; not tags or times
    assert {(s, k, c) for s, k, c, _ in _shape(fresh)} == {(s, k, c) for s, k, c, _ in _shape(mixed)}


def test_peer_export_leaves_out_other_statuses(mixed: Path) -> None:
    cand = run_mem("add", "Maybe Alice likes jazz", "--scope", "alice", "--status", "candidate", cwd=mixed)
    assert cand.returncode == 0, cand.stderr
    r = run_mem("export", "--format", "mem0", cwd=mixed)
    assert "jazz" not in r.stdout and "1 candidate left out" in r.stderr
    r = run_mem("export", "--format", "mem0", "--status", "candidate", cwd=mixed)
    assert [m["memory"] for m in json.loads(r.stdout)["results"]] == ["Maybe Alice likes jazz"]


def test_unknown_format_names_them_all(store_dir: Path) -> None:
    r = run_mem("export", "--format", "obsidian", cwd=store_dir)
    assert r.returncode == 2 or r.returncode == 4
    assert "mem0, basic-memory, claude-md" in r.stderr


@pytest.mark.parametrize("system", ["basic-memory", "claude-code", "letta", "chatgpt-memories"])
def test_forgotten_item_is_not_brought_back(store_dir: Path, tmp_path: Path, system: str) -> None:
    build = {
        "basic-memory": lambda: p.build_basic_memory(tmp_path / "bm"),
        "claude-code": lambda: p.build_claude_code(tmp_path / "cc")[0],
        "letta": lambda: p.build_letta(tmp_path / "sam.af"),
        "chatgpt-memories": lambda: p.build_chatgpt(tmp_path / "memories.txt"),
    }[system]
    src = build()
    first = imported(store_dir, src, "--from", system)
    victim = next(r for r in Store.open(store_dir).iter_records() if r.source.get("system") == system)
    assert run_mem("forget", victim.id, "--yes", cwd=store_dir).returncode == 0
    again = imported(store_dir, src, "--from", system)
    assert again["counts"]["refused_forgotten"] == 1 and again["counts"]["created"] == 0
    assert again["counts"]["unchanged"] == first["counts"]["created"] - 1 + first["counts"]["unchanged"]
    assert victim.content not in {r.content for r in Store.open(store_dir).iter_records()}
