"""``mem verify`` through the real executable: output contract, exit codes, overrides, read-only."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from mem.format.verify.checks import RULES, verify_store
from tests.conftest import run_mem

FIXTURES = Path(__file__).resolve().parents[2] / "spec" / "fixtures"
R1 = "01JGZ00000000000000000000A"
R6 = "01JGZ00000000000000000000F"


def _tree_digest(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            if p.is_symlink():
                out[str(p.relative_to(root))] = "link:" + os.readlink(p)
            else:
                out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _copy(code: str, tmp_path: Path) -> Path:
    dest = tmp_path / code
    shutil.copytree(FIXTURES / code, dest, symlinks=True)
    return dest


def test_json_shape_for_an_error(tmp_path: Path) -> None:
    store = _copy("E105", tmp_path)
    before = _tree_digest(store)
    r = run_mem("verify", str(store), "--json")
    assert r.returncode == 1
    data = r.json()
    assert data == {
        "valid": False,
        "level": "fast",
        "store": str(store.resolve()),
        "findings": [
            {
                "code": "E105",
                "severity": "error",
                "path": f"records/alice/{R1}.md",
                "message": f"file is named {R1} but its frontmatter id is {R6}",
                "fix": RULES["E105"].fix,
            }
        ],
        "counts": {
            "errors": 1,
            "warnings": 0,
            "ignored": 0,
            "by_code": {"E105": 1},
            "records": 4,
            "tombstones": 1,
            "events": 8,
        },
        "overrides": {},
    }
    assert _tree_digest(store) == before  # verify never writes, not even .mem/


def test_text_line_format_and_exit_codes(tmp_path: Path) -> None:
    store = _copy("E108", tmp_path)
    fast = run_mem("verify", str(store))
    assert fast.returncode == 0 and fast.stdout == ""
    assert "valid: 4 records" in fast.stderr
    full = run_mem("verify", "--full", cwd=store)
    assert full.returncode == 1
    (line,) = full.stdout.splitlines()
    assert line.startswith(f"[E108] records/alice/{R1}.md: stored digest sha256:")
    assert line.endswith(f"(fix: {RULES['E108'].fix})")


def test_warnings_only_is_valid_and_missing_store_is_not_found(tmp_path: Path) -> None:
    r = run_mem("verify", str(_copy("W301", tmp_path)), "--json")
    assert r.returncode == 0 and r.json()["valid"] is True
    assert r.json()["counts"]["warnings"] == 1
    missing = run_mem("verify", str(tmp_path / "nope"))
    assert missing.returncode == 3 and "no such directory" in missing.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    r2 = run_mem("verify", cwd=empty)
    assert r2.returncode == 3 and "Traceback" not in r2.stderr


def test_missing_declaration_is_reported_not_crashed(tmp_path: Path) -> None:
    r = run_mem("verify", "--json", cwd=_copy("E001", tmp_path))
    assert r.returncode == 1
    assert [f["code"] for f in r.json()["findings"]] == ["E001"]


def test_severity_overrides_are_applied_and_reported(tmp_path: Path) -> None:
    store = _copy("W301", tmp_path)
    cfg = store / "config.toml"
    cfg.write_text('[verify]\nseverity = { W301 = "error" }\n', "utf-8")
    r = run_mem("verify", str(store), "--json")
    assert r.returncode == 1
    data = r.json()
    assert data["overrides"] == {"W301": "error"}
    assert [(f["code"], f["severity"]) for f in data["findings"]] == [("W301", "error")]
    assert "note: config.toml [verify] severity sets W301 = error" in r.stderr

    cfg.write_text('[verify]\nseverity = { W301 = "ignore", E001 = "ignore" }\n', "utf-8")
    r = run_mem("verify", str(store), "--json")
    data = r.json()
    # E001 cannot be changed: that refusal is itself a finding (W001)
    assert [f["code"] for f in data["findings"]] == ["W001"]
    assert data["counts"]["ignored"] == 1 and data["overrides"] == {"W301": "ignore"}
    assert "W301 = ignore (1 finding hidden)" in r.stderr


def test_real_store_written_by_mem_is_valid(store, tmp_path: Path) -> None:
    a = store.add("I like green tea", scope="alice", kind="preference")
    b = store.add("Alice likes tea", scope="alice", kind="summary", derived_from=[a.id])
    store.supersede(a.id, "I like black coffee now")
    store.update(b.id, add_tags=["drinks"])
    store.accept(store.add("maybe a cat", scope="alice", status="candidate").id)
    store.forget([b.id], reason="test")
    report = verify_store(store.root, full=True)
    assert report.findings == [] and report.valid
    # a hand edit (without mem) is caught at the full level, and by the log at the fast level
    p = store.record_path("alice", a.id)
    p.write_text(p.read_text("utf-8").replace("green tea", "oolong tea"), "utf-8")
    assert {f.code for f in verify_store(store.root).findings} == set()
    assert {f.code for f in verify_store(store.root, full=True).findings} == {"E108"}


def test_interrupted_forget_is_e201_and_repair_hint(store) -> None:
    rec = store.add("temporary note", scope="bob")
    text = store.record_path("bob", rec.id).read_text("utf-8")
    store.forget([rec.id], reason="x")
    store.record_path("bob", rec.id).write_text(text, "utf-8")  # as if the removal never ran
    (f,) = verify_store(store.root).findings
    assert f.code == "E201" and "mem repair" in f.fix
    assert store.complete_interrupted_forgets() == [rec.id]
    assert verify_store(store.root).findings == []
