"""``mem diff``: two stores, and git revisions of a store (read from git objects, no checkout)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mem.format.ops.diff import diff_dirs, diff_git, textconv
from mem.format.store.store import Store
from mem.format.verify.checks import verify_store
from tests.conftest import run_mem

SECRET = "My bank PIN is 4711"


def git(cwd: Path, *args: str) -> str:
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return p.stdout.strip()


def commit(repo: Path, msg: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", msg)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A repo whose store lives in a subdirectory, with add, update, supersede, forget commits."""
    repo = tmp_path_factory.mktemp("repo")
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "Tester")
    s = Store.init(repo / "memory", actor="tester@test")
    a = s.add("Alice lives in Lyon", scope="alice", kind="fact")
    b = s.add("Alice likes tea", scope="alice", kind="preference", tags=["drinks"])
    c = s.add(SECRET, scope="alice", kind="fact", allow_secret=True)  # a secret, as a user may store one
    c1 = commit(repo, "add")
    s.update(b.id, content="Alice likes green tea", add_tags=["green"], confidence=0.8)
    c2 = commit(repo, "update")
    new, _ = s.supersede(a.id, "Alice lives in Berlin")
    c3 = commit(repo, "supersede")
    s.forget([c.id], reason="user asked")
    c4 = commit(repo, "forget")
    return {"repo": repo, "store": s.root, "a": a, "b": b, "c": c, "new": new,
            "revs": [c1, c2, c3, c4]}


def test_history_field_by_field(history: dict) -> None:
    c1, _, _, c4 = history["revs"]
    a, b, c, new = history["a"], history["b"], history["c"], history["new"]
    d = diff_git(history["store"], c1, c4)
    assert [r["id"] for r in d.added] == [new.id]
    assert d.added[0]["supersedes"] == [a.id]
    (removed,) = d.removed
    assert removed["id"] == c.id and removed["forgotten"] is True
    assert removed["tombstone"]["reason"] == "user asked"
    assert "content" not in removed  # a diff never repeats forgotten content
    changes = {ch.id: {f: (o, n) for f, o, n in ch.changes} for ch in d.changed}
    assert set(changes) == {a.id, b.id}
    assert changes[a.id]["status"] == ("active", "superseded")
    assert changes[a.id]["superseded_by"] == (None, new.id)
    assert "content" not in changes[a.id]
    assert changes[b.id]["content"] == ("Alice likes tea\n", "Alice likes green tea\n")
    assert changes[b.id]["tags"] == (["drinks"], ["drinks", "green"])
    assert changes[b.id]["confidence"] == (1.0, 0.8)
    assert d.stat()["status_changes"] == {"active -> superseded": 1}


def test_cli_revisions_json_and_exit_codes(history: dict) -> None:
    store = history["store"]
    c1, c2, c3, c4 = history["revs"]
    r = run_mem("diff", c3, c4, "--json", cwd=store)
    assert r.returncode == 1
    data = r.json()
    assert data["from"] == c3 and data["to"] == c4
    assert data["stat"] == {
        "added": 0, "removed": 1, "forgotten": 1, "changed": 0, "tombstones": 0,
        "status_changes": {}, "by_scope": {"alice": {"added": 0, "removed": 1, "changed": 0}},
    }
    assert SECRET not in r.stdout
    text = run_mem("diff", f"{c1}..{c2}", cwd=store)
    assert text.returncode == 1
    assert f"~ {history['b'].id} [alice]" in text.stdout
    assert "      -Alice likes tea" in text.stdout and "      +Alice likes green tea" in text.stdout
    assert "    confidence: 1.0 -> 0.8" in text.stdout
    stat = run_mem("diff", c1, c4, "--stat", cwd=store)
    assert stat.stdout.splitlines()[-1] == (
        "1 added, 1 removed (1 forgotten), 2 changed; status: active -> superseded x1"
    )
    same = run_mem("diff", cwd=store)  # HEAD against the working files
    assert same.returncode == 0 and same.stdout == ""
    assert run_mem("diff", c4, "HEAD", cwd=store).returncode == 0
    head_before = git(history["repo"], "rev-parse", "HEAD")
    bad = run_mem("diff", "no-such-branch", cwd=store)
    assert bad.returncode == 3 and "unknown revision 'no-such-branch'" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert git(history["repo"], "rev-parse", "HEAD") == head_before
    assert git(history["repo"], "status", "--porcelain") == ""  # nothing checked out or written


def test_working_tree_changes_against_head(history: dict, tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    shutil.copytree(history["repo"], repo)
    s = Store.open(repo / "memory", actor="tester@test")
    added = s.add("Alice has a cat", scope="alice")
    s.update(history["b"].id, remove_tags=["green"])
    d = diff_git(s.root, "HEAD")
    assert [r["id"] for r in d.added] == [added.id]
    assert [(c.id, [f for f, _, _ in c.changes]) for c in d.changed] == [
        (history["b"].id, ["tags", "updated_at"])
    ]


def test_two_directories(tmp_path: Path) -> None:
    a = Store.init(tmp_path / "a", actor="t@t")
    r1 = a.add("The sky is blue", scope="s")
    r2 = a.add("Water is wet", scope="s")
    shutil.copytree(a.root, tmp_path / "b")
    b = Store.open(tmp_path / "b", actor="t@t")
    b.update(r1.id, scope="t")
    b.forget([r2.id], reason="")
    r3 = b.add("Grass is green", scope="s", status="candidate")
    d = diff_dirs(a.root, b.root)
    assert [x["id"] for x in d.added] == [r3.id] and d.added[0]["status"] == "candidate"
    assert [(x["id"], x["forgotten"]) for x in d.removed] == [(r2.id, True)]
    ((field0, old, new), *_) = d.changed[0].changes
    assert (field0, old, new) == ("scope", "s", "t")
    r = run_mem("diff", str(a.root), str(b.root), "--json")
    assert r.returncode == 1 and r.json()["stat"]["changed"] == 1
    same = run_mem("diff", str(a.root), str(a.root))
    assert same.returncode == 0 and same.stdout == ""
    # a removal without a tombstone is shown as such (and nothing stops it from coming back)
    shutil.copytree(b.root, tmp_path / "c")
    (b.root / "records" / "s" / f"{r3.id}.md").unlink()
    (gone,) = diff_dirs(tmp_path / "c", b.root).removed
    assert gone["tombstone"] is None and gone["content"] == "Grass is green\n"


def test_not_a_store_or_not_a_repo(tmp_path: Path) -> None:
    s = Store.init(tmp_path / "plain", actor="t@t")
    r = run_mem("diff", "HEAD", cwd=s.root)
    assert r.returncode == 3 and "not inside a git repository" in r.stderr
    (tmp_path / "empty").mkdir()
    r2 = run_mem("diff", str(tmp_path / "empty"), str(s.root))
    assert r2.returncode == 3 and "no mem store" in r2.stderr


def test_textconv_shows_frontmatter_facts_one_per_line(store: Store) -> None:
    rec = store.add("Line one\nLine two", scope="x", kind="fact", tags=["a", "b"])
    raw = store.record_path("x", rec.id).read_bytes()
    out = textconv(raw)
    assert "tags:\n  - a\n  - b\n" in out
    assert "digest:" not in out
    assert out.endswith("---\nLine one\nLine two\n")
    assert textconv(b"\xff not a record") == "\ufffd not a record"


def test_git_driver_union_merge_and_hook(tmp_path: Path) -> None:
    """`mem init --git --hook`: readable git diff, logs merge without conflict, hook refuses."""
    repo = tmp_path / "mem"
    r = run_mem("init", str(repo), "--git", "--hook", "--json")
    assert r.returncode == 0
    assert {".gitignore", ".gitattributes", "git init", "git config diff.mem.textconv",
            ".git/hooks/pre-commit"} <= set(r.json()["git"])
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "Tester")
    s = Store.open(repo, actor="t@t")
    rec = s.add("Alice likes tea", scope="alice", tags=["drinks"])
    commit(repo, "one")
    s.update(rec.id, add_tags=["hot"], content="Alice likes hot tea")
    out = git(repo, "diff", "--", f"records/alice/{rec.id}.md")
    assert "+  - hot" in out and "-Alice likes tea" in out and "+Alice likes hot tea" in out
    assert "digest:" not in out
    commit(repo, "two")
    # two clones append to the log and tombstones on two branches: the merge has no conflict
    git(repo, "checkout", "-q", "-b", "other")
    (repo / ".mem" / "clone-id").write_text("00000000000000bb\n")
    clone_b = Store.open(repo, actor="b@t")
    x = clone_b.add("Bob likes coffee", scope="bob")
    clone_b.forget([x.id], reason="b")
    commit(repo, "branch b")
    git(repo, "checkout", "-q", "-")
    (repo / ".mem" / "clone-id").write_text("00000000000000aa\n")
    clone_a = Store.open(repo, actor="a@t")
    y = clone_a.add("Carol likes juice", scope="bob")
    clone_a.forget([y.id], reason="a")
    commit(repo, "branch a")
    git(repo, "merge", "-q", "--no-edit", "other")
    tomb = (repo / "tombstones" / "bob.jsonl").read_text()
    assert x.id in tomb and y.id in tomb and "<<<<<<<" not in tomb
    assert verify_store(repo).valid
    # the pre-commit hook refuses a commit that breaks the store
    (repo / "records" / "alice" / f"{rec.id}.md").write_text("broken\n")
    git(repo, "add", "-A")
    p = subprocess.run(["git", "commit", "-q", "-m", "bad"], cwd=repo, capture_output=True, text=True)
    assert p.returncode != 0 and "[E102]" in p.stdout + p.stderr
