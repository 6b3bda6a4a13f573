"""Forgetting is complete (issue 19): copies mem keeps outside the records go with the record,
and what mem cannot remove is named. Through the real `mem` executable."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import run_mem

SECRET = "Quillfeather"


@pytest.fixture
def sdir(tmp_path: Path) -> Path:
    assert run_mem("init", str(tmp_path / "s")).returncode == 0
    return tmp_path / "s"


def mem(sdir: Path, *args: str, **kw):  # type: ignore[no-untyped-def]
    return run_mem("--store", str(sdir), *args, **kw)


def test_forget_removes_the_draft_of_a_failed_edit(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", f"my codename is {SECRET}", "--scope", "a").stdout.strip()
    breaker = tmp_path / "break.py"
    breaker.write_text("import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
                       "p.write_text(p.read_text().replace('status: active', 'status: bogus'))\n")
    r = mem(sdir, "edit", rid, env={"EDITOR": f"{sys.executable} {breaker}"})
    assert r.returncode == 4 and "draft is kept" in r.stderr
    draft = sdir / ".mem" / "drafts" / f"{rid}.md"
    assert SECRET in draft.read_text("utf-8")
    r = mem(sdir, "forget", "--yes", rid)
    assert r.returncode == 0, r.stderr
    assert not draft.exists()
