"""``mem import`` / ``mem export`` through the real executable."""

from __future__ import annotations

import json
from pathlib import Path

from mem.format.store.store import Store

from ..conftest import run_mem
from . import builders as b

COUNT_KEYS = [
    "created", "unchanged", "duplicate", "conflict", "refused_forgotten", "refused_secret", "invalid",
    "skipped_not_memory", "skipped_empty",
]  # fmt: skip


def test_import_detects_and_reports_json(store_dir: Path, tmp_path: Path) -> None:
    b.build_skales(tmp_path / ".skales-data")
    r = run_mem("import", str(tmp_path / ".skales-data"), "--json", cwd=store_dir)
    assert r.returncode == 4, r.stderr  # the corrupt memory file is invalid input: exit 4 ...
    assert "detected skales at" in r.stderr
    out = r.json()  # ... and the summary is still printed
    assert list(out) == ["system", "path", "dry_run", "counts", "tombstones", "warnings", "problems", "vectors"]
    assert out["system"] == "skales" and out["dry_run"] is False
    assert list(out["counts"]) == COUNT_KEYS
    assert out["counts"]["created"] == 10 and out["counts"]["invalid"] == 1
    bad = [p for p in out["problems"] if p["outcome"] == "invalid"]
    assert bad == [
        {
            "outcome": "invalid",
            "file": "memories/1700000400000_zz99z.json",
            "line": 1,
            "original_id": None,
            "message": bad[0]["message"],
        }
    ]
    assert bad[0]["message"].startswith("corrupt JSON")
    r2 = run_mem("import", str(tmp_path / ".skales-data"), "--from", "skales", "--json", cwd=store_dir)
    assert r2.json()["counts"]["unchanged"] == 10 and r2.json()["counts"]["created"] == 0
    assert "detected" not in r2.stderr


def test_dry_run_writes_nothing_and_lists_items(store_dir: Path, tmp_path: Path) -> None:
    b.build_windieos(tmp_path / "memory")
    before = b.snapshot(store_dir)
    r = run_mem("import", str(tmp_path / "memory"), "--dry-run", "--json", cwd=store_dir)
    assert b.snapshot(store_dir) == before
    out = r.json()
    assert out["dry_run"] is True and out["counts"]["created"] == 5
    assert {i["kind"] for i in out["items"] if i["outcome"] == "created"} == {"episode", "note", "summary"}
    human = run_mem("import", str(tmp_path / "memory"), "-n", cwd=store_dir)
    assert human.stdout.startswith("would import from windieos: created 5")
    assert b.snapshot(store_dir) == before


def test_export_then_import_via_pipe_and_file(store_dir: Path, tmp_path: Path) -> None:
    for args in (["hello", "--scope", "alice"], ["world", "--kind", "fact"]):
        assert run_mem("add", *args, cwd=store_dir).returncode == 0
    exp = run_mem("export", cwd=store_dir)
    lines = [json.loads(x) for x in exp.stdout.splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["format"] == "mem-export"
    assert [x["type"] for x in lines[1:]] == ["record", "record"]
    other = Store.init(tmp_path / "other", actor="t@t").root
    r = run_mem("import", "-", input=exp.stdout, cwd=other)
    assert r.returncode == 0 and r.stdout.startswith("imported from jsonl: created 2")
    assert {p.name for p in (other / "records").rglob("*.md")} == {
        p.name for p in (store_dir / "records").rglob("*.md")
    }
    out = tmp_path / "e.csv"
    r = run_mem("export", "--format", "csv", "-o", str(out), "--scope", "alice", "--json", cwd=store_dir)
    assert r.json()["records"] == 1 and out.read_text().splitlines()[0].startswith("id,scope,kind")


def test_bad_line_exit_code_and_message(store_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_text('{"content": "fine"}\n{oops\n', "utf-8")
    r = run_mem("import", str(f), cwd=store_dir)
    assert r.returncode == 4
    assert r.stdout == "imported from jsonl: created 1, invalid 1\n"
    assert f"{f}:2: invalid: not JSON" in r.stderr


def test_markdown_bundle(store_dir: Path, tmp_path: Path) -> None:
    run_mem("add", "Allergic to peanuts", "--scope", "alice", "--kind", "fact", cwd=store_dir)
    run_mem("add", "## not a heading of ours\nsecond line", "--scope", "alice", cwd=store_dir)
    run_mem("add", "Team standup at 9", "--scope", "work", cwd=store_dir)
    out = tmp_path / "bundle"
    r = run_mem("export", "--format", "markdown", "-o", str(out), cwd=store_dir)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["_index.md", "alice.md", "work.md"]
    alice = (out / "alice.md").read_text("utf-8")
    assert alice.startswith("# Memory: alice\n")
    assert "## Facts (1)" in alice and "### Allergic to peanuts" in alice
    assert "> ## not a heading of ours\n> second line" in alice  # content quoted, cannot break structure
    assert "[work](work.md): 1 record(s)" in (out / "_index.md").read_text("utf-8")
    assert run_mem("export", "--format", "markdown", cwd=store_dir).returncode == 4


def test_scope_options_and_errors(store_dir: Path, tmp_path: Path) -> None:
    soul = b.build_soulofwaifu(tmp_path / "app")
    r = run_mem("import", str(soul), "--scope-map", "Aiko.Main chat=aiko", "--json", cwd=store_dir)
    assert r.returncode == 0, r.stderr
    scopes = {p.parent.name for p in (store_dir / "records").rglob("*.md")}
    assert scopes == {"aiko", "default-1e6f84c0"}
    assert run_mem("import", str(soul), "--scope-map", "nonsense", cwd=store_dir).returncode == 4
    assert run_mem("import", str(soul), "--scope", "Not Valid", cwd=store_dir).returncode == 4
    missing = run_mem("import", str(tmp_path / "nope"), cwd=store_dir)
    assert missing.returncode == 3 and "no such file or directory" in missing.stderr
    unknown = tmp_path / "empty-dir"
    unknown.mkdir()
    r = run_mem("import", str(unknown), cwd=store_dir)
    assert r.returncode == 4 and "cannot tell which system" in r.stderr
