"""A store versioned with git: two clones change it independently, merge, and it still verifies."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_mem

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Tester",
    "GIT_AUTHOR_EMAIL": "tester@test",
    "GIT_COMMITTER_NAME": "Tester",
    "GIT_COMMITTER_EMAIL": "tester@test",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    p = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **GIT_ENV}
    )
    assert p.returncode == 0, f"git {' '.join(args)}: {p.stderr}"
    return p.stdout


def mem(cwd: Path, *args: str, actor: str = "tester@test") -> str:
    r = run_mem(*args, cwd=cwd, env={"MEM_ACTOR": actor, "MEM_EMBEDDER": "hashing"})
    assert r.returncode == 0, f"mem {' '.join(args)} -> {r.returncode}: {r.stderr}"
    return r.stdout


def ids_in(cwd: Path) -> set[str]:
    return {r["id"] for r in run_mem("list", "--status", "all", "--json", cwd=cwd).json()}


def test_two_clones_merge_and_verify(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    out = run_mem("init", str(origin), "--git", "--hook", "--json")
    assert out.returncode == 0, out.stderr
    assert set(out.json()["git"]) >= {".gitignore", ".gitattributes"}
    assert (origin / ".git").is_dir()  # mem init --git made the repository
    assert "diff" in git(origin, "config", "--local", "diff.mem.textconv")
    shared = mem(origin, "add", "--scope", "alice", "Alice lives in Lyon").strip()
    cand = mem(origin, "add", "--scope", "alice", "--status", "candidate", "Alice likes jazz").strip()
    doomed = mem(origin, "add", "--scope", "alice", "Alice's old phone number is 0601").strip()
    doomed_b = mem(origin, "add", "--scope", "bob", "Bob's old address").strip()
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "initial memories")
    # derived data and local state never reach git
    tracked = git(origin, "ls-files").split()
    assert not [p for p in tracked if p.startswith(".mem/")]
    assert any(p.startswith("records/alice/") for p in tracked)

    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(a))
    git(tmp_path, "clone", "-q", str(origin), str(b))

    # clone A: adds, forgets one record, accepts the candidate
    a_new = mem(a, "add", "--scope", "alice", "--kind", "preference", "Alice drinks green tea", actor="a@test").strip()
    mem(a, "forget", doomed, "--yes", "--reason", "outdated", actor="a@test")
    mem(a, "accept", cand, actor="a@test")
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "a: tea, forget phone, accept jazz")

    # clone B, independently: adds in two scopes, forgets another record
    b_new = mem(b, "add", "--scope", "alice", "Alice works at Globex", actor="b@test").strip()
    b_bob = mem(b, "add", "--scope", "bob", "Bob plays chess", actor="b@test").strip()
    mem(b, "forget", doomed_b, "--yes", "--reason", "moved", actor="b@test")
    git(b, "add", "-A")
    git(b, "commit", "-q", "-m", "b: globex, chess, forget address")

    # B merges A's work: no conflict (records are one file each, logs are per clone,
    # tombstones merge by union)
    git(b, "pull", "-q", "--no-rebase", "--no-edit", str(a), "HEAD")
    assert "<<<<<<<" not in "".join(
        p.read_text("utf-8") for p in b.rglob("*.jsonl")
    )

    live = ids_in(b)
    assert {shared, cand, a_new, b_new, b_bob} <= live
    assert doomed not in live and doomed_b not in live  # both sides' forgets hold
    show = run_mem("show", cand, "--json", cwd=b)
    assert show.json()["status"] == "active"
    for forgotten in (doomed, doomed_b):
        r = run_mem("show", forgotten, cwd=b)
        assert r.returncode == 3 and "forgotten" in r.stderr
    # a forgotten memory cannot be brought back by re-adding it on the merged side
    r = run_mem("add", "--scope", "alice", "Alice's old phone number is 0601", cwd=b)
    assert r.returncode == 6
    # each clone kept its own audit log file
    assert len(list((b / "log").glob("*.jsonl"))) == 3

    v = run_mem("verify", "--json", cwd=b)
    assert v.returncode == 0, v.stdout + v.stderr
    report = v.json()
    assert report["valid"] is True and report["counts"]["errors"] == 0
    assert report["counts"]["records"] == len(live)
    assert report["counts"]["tombstones"] == 2
    v = run_mem("verify", "--full", cwd=b)
    assert v.returncode == 0, v.stdout + v.stderr


def test_pre_commit_hook_refuses_an_invalid_store(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    out = run_mem("init", str(origin), "--git", "--hook")
    assert out.returncode == 0, out.stderr
    assert (origin / ".git" / "hooks" / "pre-commit").is_file()
    rid = mem(origin, "add", "--scope", "alice", "Alice lives in Lyon").strip()
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "valid")  # the hook runs mem verify: passes
    path = origin / "records" / "alice" / f"{rid}.md"
    path.write_text(path.read_text("utf-8").replace("scope: alice", "scope: [broken"), "utf-8")
    git(origin, "add", "-A")
    p = subprocess.run(["git", "commit", "-q", "-m", "broken"], cwd=origin, capture_output=True,
                       text=True, env={**os.environ, **GIT_ENV})
    assert p.returncode != 0, "the pre-commit hook let an invalid record through"
    assert rid in p.stdout + p.stderr


def test_forget_in_a_git_store_names_the_history_and_verify_finds_it(tmp_path: Path) -> None:
    """A forget cannot reach git history: it says so, and `mem verify --forgotten --history`
    lists the commits that hold the forgotten record's file, with the purge recipe."""
    store = tmp_path / "st"
    mem(tmp_path, "init", str(store), "--git")
    rid = mem(store, "add", "my bank PIN hint is the cat's birthday", "--scope", "a").strip()
    keep = mem(store, "add", "an ordinary memory", "--scope", "a").strip()
    git(store, "add", "-A")
    git(store, "commit", "-q", "-m", "memories")
    r = run_mem("forget", "--yes", rid, cwd=store, env={"MEM_EMBEDDER": "hashing"})
    assert r.returncode == 0, r.stderr
    assert "git repository" in r.stderr and "mem verify --forgotten --history" in r.stderr
    git(store, "add", "-A")
    git(store, "commit", "-q", "-m", "forget")
    r = run_mem("verify", "--forgotten", "--history", "--json", cwd=store)
    assert r.returncode == 1, r.stderr
    out = r.json()
    assert out["copies"] == [] and out["git"] is True
    [hit] = out["history"]
    assert (hit["id"], hit["scope"], hit["path"]) == (rid, "a", f"records/a/{rid}.md")
    assert [c["subject"] for c in hit["commits"]] == ["memories"]
    assert f"--path records/a/{rid}.md" in out["purge"] and keep not in out["purge"]
    human = run_mem("verify", "--forgotten", "--history", cwd=store)
    assert human.returncode == 1 and f"records/a/{rid}.md" in human.stdout
    assert "git filter-repo --invert-paths" in human.stderr
