"""One memory on many machines: the record merge driver, ``mem init --git`` in a clone, the
pre-commit hook, and ``mem sync`` between clones of a bare remote, through real git and the real
``mem`` executable (spec/format.md §21)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mem.format.model.record import make_record
from mem.format.model.recordmerge import merge_records
from mem.format.rules.timeutil import parse_time
from mem.format.store.store import Store

from ..conftest import run_mem

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BIN = str(Path(sys.executable).parent)
ENV = {"PATH": BIN + os.pathsep + os.environ.get("PATH", ""), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}  # fmt: skip


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, **ENV, **(env or {})}
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=e, check=False)
    if check:
        assert p.returncode == 0, (args, p.stderr)
    return p


def mem(cwd: Path, *args: str, code: int | None = 0) -> subprocess.CompletedProcess[str]:
    r = run_mem(*args, cwd=cwd, env=ENV)
    if code is not None:
        assert r.returncode == code, (args, r.stdout, r.stderr)
    return r  # type: ignore[return-value]


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote holding a store with one record, and a first clone ``a`` that made it."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    a = tmp_path / "a"
    mem(tmp_path, "init", str(a), "--git")
    git(a, "checkout", "-q", "-b", "main")
    git(a, "remote", "add", "origin", str(bare))
    mem(a, "add", "Alice likes tea", "--scope", "alice", "--tag", "drink")
    mem(a, "sync")
    return bare


def clone(remote: Path, name: str) -> Path:
    d = remote.parent / name
    git(remote.parent, "clone", "-q", str(remote), str(d))
    r = mem(d, "init", "--git")
    assert "Configured git for the existing mem store" in r.stderr
    return d


def only_id(d: Path, scope: str = "alice") -> str:
    return str(mem(d, "list", "--scope", scope, "--json").json()[0]["id"])  # type: ignore[attr-defined]


# -- the merge itself --------------------------------------------------------------------------


def _rec(content: str, tags: tuple[str, ...] = (), at: str = "2026-01-01T00:00:00Z", **kw: object):  # type: ignore[no-untyped-def]
    return make_record(id="01JD3Z8Q4T6W0000000000000A", scope="s", kind="fact", content=content,
                       tags=list(tags), recorded_at="2025-01-01T00:00:00Z", updated_at=at, **kw)  # type: ignore[arg-type]


def test_merge_by_field_is_symmetric() -> None:
    base = _rec("tea", ("a", "b"))
    ours = _rec("tea", ("a", "b", "c"), at="2026-01-02T00:00:00Z", confidence=0.5)  # adds c, lowers confidence
    theirs = _rec("tea", ("b",), at="2026-01-03T00:00:00Z", valid_from="2020-01-01T00:00:00Z")  # drops a
    m1, m2 = merge_records(base, ours, theirs), merge_records(base, theirs, ours)
    assert m1.record == m2.record and not m1.conflicts and not m1.kept_versions
    assert m1.record.tags == ("b", "c") and m1.record.confidence == 0.5
    assert m1.record.valid_from == parse_time("2020-01-01T00:00:00Z")
    assert m1.record.updated_at == parse_time("2026-01-03T00:00:00Z")


def test_merge_content_conflict_keeps_the_other_version() -> None:
    base = _rec("tea")
    early, late = _rec("green tea", at="2026-01-02T00:00:00Z"), _rec("black tea", at="2026-01-03T00:00:00Z")
    for a, b in ((early, late), (late, early)):
        m = merge_records(base, a, b)
        assert m.record.content == "black tea\n"  # the later version wins the field
        [kept] = m.kept_versions
        assert (kept.content, kept.status, kept.derived_from) == ("green tea\n", "candidate", (base.id,))
        assert kept.source["type"] == "merge"
    assert merge_records(base, early, late).kept_versions[0].id == merge_records(base, late, early).kept_versions[0].id


# -- set-up in a clone, drivers without mem, the hook -----------------------------------------


def test_fresh_clone_is_set_up_and_diff_works_without_mem(remote: Path) -> None:
    b = clone(remote, "b")
    cfg = git(b, "config", "--local", "--get", "merge.mem.driver").stdout
    assert "command -v mem" in cfg and "git merge-file" in cfg  # mem from PATH, text otherwise
    rid = only_id(b)
    path = next((b / "records" / "alice").glob(f"{rid}.md"))
    path.write_text(path.read_text("utf-8").replace("likes tea", "likes coffee"), "utf-8")
    with_mem = git(b, "diff").stdout
    assert "likes coffee" in with_mem
    gone = git(b, "config", "--local", "diff.mem.textconv").stdout.strip().replace(BIN, "/gone/venv/bin")
    git(b, "config", "--local", "diff.mem.textconv", gone)
    no_mem = git(b, "diff", env={"PATH": "/usr/bin:/bin"})  # the Python environment is gone
    assert no_mem.returncode == 0 and "+Alice likes coffee" in no_mem.stdout
    again = mem(b, "init", "--git", "--json").json()  # type: ignore[attr-defined]
    assert again["created"] is False and again["git"] == ["git config diff.mem.textconv"]  # set again


def test_hook_chains_and_checks_the_audit_chain(remote: Path) -> None:
    b = clone(remote, "b")
    hooks = b / ".git" / "hooks"
    (hooks / "pre-commit").write_text("#!/bin/sh\necho mine-ran >> \"$(git rev-parse --show-toplevel)/.mine\"\n")
    (hooks / "pre-commit").chmod(0o755)
    r = mem(b, "init", "--git", "--hook")
    assert "pre-commit.before-mem" in r.stderr
    mem(b, "add", "Bob owns a boat", "--scope", "bob")
    git(b, "add", "-A")
    git(b, "commit", "-q", "-m", "ok")
    assert (b / ".mine").read_text() == "mine-ran\n"  # the user's hook still runs, first
    log = next(p for p in (b / "log").glob("*.jsonl") if '"bob"' in p.read_text("utf-8"))
    log.write_text(log.read_text("utf-8").replace('"bob"', '"bub"'), "utf-8")  # history rewritten
    git(b, "add", "-A")
    bad = git(b, "commit", "-q", "-m", "edited log", check=False)
    assert bad.returncode != 0  # an edited audit-log line is not committed


# -- mem sync ----------------------------------------------------------------------------------


def test_sync_merges_tags_and_files_a_content_conflict(remote: Path) -> None:
    a, b = remote.parent / "a", clone(remote, "b")
    rid = only_id(a)
    mem(a, "update", rid, "--tag", "hot")
    mem(a, "sync")
    mem(b, "update", rid, "--tag", "green")
    out = mem(b, "sync", "--json").json()  # type: ignore[attr-defined]
    assert out["pushed"] and out["incoming"]["changed"] == [rid]
    assert set(mem(b, "show", rid, "--json").json()["tags"]) == {"drink", "hot", "green"}  # type: ignore[attr-defined]
    # the same record's text changed on both machines
    for d, text in ((a, "Alice likes green tea"), (b, "Alice likes black tea")):
        mem(d, "sync")
        st = Store.open(d)
        st.replace(st.get(rid).with_changes(content=text))
    mem(a, "sync")
    out = mem(b, "sync", "--json").json()  # type: ignore[attr-defined]
    assert len(out["kept_versions"]) == 1 and any("content" in c.get("fields", []) for c in out["conflicts"])
    mem(a, "sync")
    texts = {}
    for d in (a, b):
        recs = mem(d, "list", "--status", "all", "--json").json()  # type: ignore[attr-defined]
        texts[d.name] = sorted((r["content"], r["status"]) for r in recs)
        assert not any("<<<<<<<" in p.read_text("utf-8") for p in (d / "records").rglob("*.md"))
    assert texts["a"] == texts["b"]
    assert ("Alice likes black tea\n", "active") in texts["a"] and ("Alice likes green tea\n", "candidate") in texts["a"]
    logged = mem(b, "log", "--op", "merge", "--json")
    assert "not an operation" not in logged.stderr  # the op sync writes is one the log knows
    merges = logged.json()  # type: ignore[attr-defined]
    assert merges and all("tea" not in str(e) for e in merges)  # the log names fields, never content


def test_forget_wins_over_an_edit_elsewhere(remote: Path) -> None:
    a, b = remote.parent / "a", clone(remote, "b")
    mem(a, "add", "Bob owns a boat", "--scope", "bob")
    mem(a, "add", "Bob's boat is blue", "--scope", "bob", "--derived-from", only_id(a, "bob"))
    mem(a, "sync")
    mem(b, "sync")
    bob = [r["id"] for r in mem(a, "list", "--scope", "bob", "--json").json()]  # type: ignore[attr-defined]
    boat = next(i for i in bob if mem(a, "show", i, "--json").json()["content"].startswith("Bob owns"))  # type: ignore[attr-defined]
    mem(a, "forget", boat, "--yes")  # cascades to the derived record
    mem(a, "sync")
    st = Store.open(b)
    st.replace(st.get(boat).with_changes(content="Bob owns a big red boat"))
    mem(b, "add", "Bob owns a boat", "--scope", "alice")  # the same text in another scope stays
    out = mem(b, "sync", "--json").json()  # type: ignore[attr-defined]
    assert any(c["resolution"] == "forget wins over an edit" for c in out["conflicts"])
    for d in (a, b):
        mem(d, "sync")
        assert mem(d, "list", "--scope", "bob", "--json").json() == []  # type: ignore[attr-defined]
        files = "".join(p.read_text("utf-8") for p in (d / "records").rglob("*.md"))
        assert "big red boat" not in files and "is blue" not in files
        mem(d, "verify", "--full")
        mem(d, "log", "--verify")
    assert mem(b, "add", "Bob owns a big red boat", "--scope", "bob", code=None).returncode in (0, 6)


def test_sync_without_remote_and_outside_git(tmp_path: Path) -> None:
    solo = tmp_path / "solo"
    mem(tmp_path, "init", str(solo))
    r = mem(solo, "sync", code=3)
    assert "not in a git repository" in r.stderr and "mem init --git" in r.stderr
    mem(solo, "init", "--git")
    r = mem(solo, "sync", code=3)
    assert "no git remote" in r.stderr
    out = mem(solo, "sync", "--no-push", "--json").json()  # type: ignore[attr-defined]
    assert out["remote"] is None and out["committed"] is not None


@pytest.mark.slow
def test_three_clones_writing_at_once(remote: Path) -> None:
    clones = [remote.parent / "a", clone(remote, "b"), clone(remote, "c")]
    acked: dict[str, list[str]] = {c.name: [] for c in clones}
    forgotten: list[str] = []
    errors: list[str] = []
    shared = only_id(clones[0])

    def work(d: Path, seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for step in range(4):
                op = rnd.choice(["add", "add", "tag", "supersede", "forget"])
                if op == "add":
                    text = f"{d.name} note {step} {rnd.randrange(10**6)}"
                    r = run_mem("add", text, "--scope", rnd.choice(["alice", d.name]), "--json", cwd=d, env=ENV)
                    if r.returncode == 0:
                        acked[d.name].append(text)
                elif op == "tag":
                    run_mem("update", shared, "--tag", f"{d.name}{step}", cwd=d, env=ENV)
                elif op == "supersede":
                    mine = run_mem("list", "--scope", d.name, "--json", cwd=d, env=ENV).json()
                    if mine:
                        run_mem("supersede", mine[0]["id"], f"{d.name} replaced {step}", cwd=d, env=ENV)
                else:
                    text = f"{d.name} secret {step}"
                    r = run_mem("add", text, "--scope", d.name, "--json", cwd=d, env=ENV)
                    if r.returncode == 0 and run_mem("forget", r.json()["id"], "--yes", cwd=d, env=ENV).returncode == 0:
                        forgotten.append(text)
                s = run_mem("sync", cwd=d, env=ENV)
                if s.returncode != 0:
                    errors.append(f"{d.name}: {s.stderr}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(f"{d.name}: {exc!r}")

    threads = [threading.Thread(target=work, args=(d, i)) for i, d in enumerate(clones)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for _ in range(2):
        for d in clones:
            mem(d, "sync")
    heads = {git(d, "rev-parse", "HEAD").stdout for d in clones}
    assert len(heads) == 1  # every clone holds the same commit
    for d in clones:
        recs = mem(d, "list", "--status", "all", "--json").json()  # type: ignore[attr-defined]
        contents = {r["content"].rstrip("\n") for r in recs}
        for texts in acked.values():
            for t in texts:
                replaced = any(c.startswith(t.split(" note ")[0] + " replaced") for c in contents)
                assert t in contents or replaced, (d.name, t)
        tree = b"".join(p.read_bytes() for p in d.rglob("*") if p.is_file() and not {".git", ".mem"} & set(p.parts))
        for t in forgotten:
            assert t.encode() not in tree, (d.name, t)  # not in the records, logs or tombstones
            hits = mem(d, "search", t, "--mode", "lexical", "--status", "all", "--json").json()["hits"]  # type: ignore[attr-defined]
            assert all(t not in h["content"] for h in hits), (d.name, t)  # nor in the index
        mem(d, "verify", "--full")
        mem(d, "log", "--verify")
