"""examples/migrate/run.sh: export, transform with a short script, re-import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..conftest import MEM_EXE

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "migrate" / "run.sh"


def test_migrate_example_runs(tmp_path: Path) -> None:
    assert MEM_EXE
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env["PATH"] = f"{Path(MEM_EXE).parent}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["NO_COLOR"] = "1"
    p = subprocess.run(["bash", str(EXAMPLE), str(tmp_path)], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "imported from jsonl: created 3"
    assert lines[1] == "tombstones: added 1"
    assert lines[2] == "imported from jsonl: unchanged 3"
    assert lines[3] == "tombstones: unchanged 1"
    assert lines[4] == "imported from jsonl: refused forgotten 1"
    new = tmp_path / "new-store" / "records"
    assert sorted(p.name for p in new.iterdir() if p.is_dir()) == ["alice", "work"]
    texts = [f.read_text("utf-8") for f in new.rglob("*.md")]
    assert all("migrated" in t for t in texts) and len(texts) == 3
    assert not any("scratch note" in t for t in texts)
    assert "Allergic to peanuts" in p.stdout and "Standup is at 9:30" in p.stdout
    old_ids = {f.name for f in (tmp_path / "old-store" / "records").rglob("*.md")}
    assert {f.name for f in new.rglob("*.md")} < old_ids  # same ids, minus the dropped note
    assert (tmp_path / "new-store" / "tombstones" / "alice.jsonl").is_file()
