"""``mem review``: non-interactive forms through the executable, interactive through a real pty."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pexpect
import pytest

from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem


@pytest.fixture
def cands(store: Store) -> list[str]:
    """Three candidates, confidences 0.9 > 0.8 > 0.7 (the review order)."""
    ids = []
    for text, conf in (("User prefers tea", 0.9), ("User lives in Oslo", 0.8), ("User's name is Sam", 0.7)):
        r = store.add(text, scope="default", kind="fact", status="candidate", confidence=conf,
                      source={"type": "capture", "transcript": "t.jsonl", "conversation": "c1",
                              "turn": len(ids), "pattern": "fact.x", "quote": f"said: {text}"})
        ids.append(r.id)
    return ids


def ops(store: Store) -> list[tuple[str, str | None]]:
    out = []
    for f in sorted((store.root / "log").glob("*.jsonl")):
        for line in f.read_text().splitlines():
            e = json.loads(line)
            out.append((e["op"], e["id"]))
    return out


def test_list_accept_reject_non_interactive(store: Store, cands: list[str]) -> None:
    s = str(store.root)
    r = run_mem("--store", s, "review", "--list", "--json")
    assert r.returncode == 0
    out = r.json()
    assert out["count"] == 3 and [c["id"] for c in out["candidates"]] == cands
    assert out["candidates"][0]["source"]["quote"] == "said: User prefers tea"
    r = run_mem("--store", s, "review", "--list", "--json", "--sort", "newest")
    assert [c["id"] for c in r.json()["candidates"]] == cands[::-1]
    r = run_mem("--store", s, "review", "--accept", cands[0], cands[1], "--json")
    assert r.returncode == 0 and r.json() == {"accepted": cands[:2], "failed": []}
    r = run_mem("--store", s, "review", "--reject", cands[2], "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert r.returncode == 3 and r.stdout.split() == [cands[2]]
    assert "01ARZ3NDEKTSV4RRFFQ69G5FAV" in r.stderr
    assert [store.get(i).status for i in cands] == ["active", "active", "rejected"]
    assert ("accept", cands[0]) in ops(store) and ("reject", cands[2]) in ops(store)
    assert run_mem("--store", s, "review", "--list", "--json").json() == {"count": 0, "candidates": []}
    assert run_mem("--store", s, "review", "--accept").returncode == 4
    assert run_mem("--store", s, "review", "--accept", "--reject", cands[0]).returncode == 4


def test_line_mode_from_a_pipe(store: Store, cands: list[str]) -> None:
    r = run_mem("--store", str(store.root), "review", input="a\ns\nr\n")
    assert r.returncode == 0, r.stderr
    assert "[1/3]" in r.stdout and "[3/3]" in r.stdout and 'said:  "said: User prefers tea"' in r.stdout
    assert [store.get(i).status for i in cands] == ["active", "candidate", "rejected"]


def _spawn(store: Store, editor: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env.update({"EDITOR": editor, "VISUAL": editor, "NO_COLOR": "1", "MEM_ACTOR": "tester@test", "TERM": "dumb"})
    assert MEM_EXE
    return pexpect.spawn(MEM_EXE, ["--store", str(store.root), "review"], env=env, encoding="utf-8", timeout=30)


def _script_editor(tmp_path: Path, new_text: str) -> str:
    p = tmp_path / "editor.py"
    p.write_text(f"import sys\nopen(sys.argv[1], 'w').write({new_text!r})\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return f"{sys.executable} {p}"


def test_interactive_accept_edit_reject_undo_quit(store: Store, cands: list[str], tmp_path: Path) -> None:
    child = _spawn(store, _script_editor(tmp_path, "User prefers green tea\n"))
    child.expect(r"\[1/3\]")
    child.expect("User prefers tea")
    child.expect(r"> ")
    child.send("e")  # single key, no Enter: edit, then accept
    child.expect("edited and accepted")
    child.expect(r"\[2/3\]")
    child.expect(r"> ")
    child.send("r")
    child.expect("rejected")
    child.expect(r"\[3/3\]")
    child.expect(r"> ")
    child.send("u")  # undo the reject: back to item 2
    child.expect("undone")
    child.expect(r"\[2/3\]")
    child.expect(r"> ")
    child.send("a")
    child.expect("accepted")
    child.expect(r"\[3/3\]")
    child.expect(r"> ")
    child.send("q")  # quit mid-way: decisions made are kept
    child.expect("1 accepted, 1 edited, 0 rejected")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    first, second, third = (store.get(i) for i in cands)
    assert (first.status, first.content) == ("active", "User prefers green tea\n")
    assert second.status == "active"
    assert third.status == "candidate"
    log = ops(store)
    assert [op for op, rid in log if rid == cands[1]] == ["add", "reject", "reopen", "accept"]
    assert [op for op, rid in log if rid == cands[0]] == ["add", "update", "accept"]


def test_interactive_empty_edit_keeps_record_and_undo_of_edit(store: Store, cands: list[str], tmp_path: Path) -> None:
    child = _spawn(store, _script_editor(tmp_path, "   \n"))
    child.expect(r"\[1/3\]")
    child.expect(r"> ")
    child.send("e")
    child.expect("empty; the record is unchanged")
    child.expect(r"\[1/3\]")  # same item again
    child.expect(r"> ")
    child.send("a")
    child.expect(r"\[2/3\]")
    child.expect(r"> ")
    child.send("u")
    child.expect("undone")
    child.expect(r"\[1/3\]")
    child.expect(r"> ")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert store.get(cands[0]).status == "candidate"
    assert store.get(cands[0]).content == "User prefers tea\n"


def test_keys_typed_ahead_are_kept(store: Store, cands: list[str]) -> None:
    """Three decisions typed at once: none is flushed away between prompts (issue 26)."""
    child = _spawn(store, "true")
    child.expect(r"\[1/3\]")
    child.expect(r"> ")
    child.send("arq")  # accept, reject, then quit: sent before the 2nd and 3rd prompts exist
    child.expect("1 accepted, 0 edited, 1 rejected")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert [store.get(i).status for i in cands] == ["active", "rejected", "candidate"]
