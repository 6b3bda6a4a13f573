"""README promises a newcomer relies on (issue 26): its Python snippet works on a new folder,
its make targets exist, it links the tour and the command reference."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, re.S)


def test_python_snippet_creates_a_store(tmp_path: Path) -> None:
    snippet = _python_blocks()[0]
    assert "Store.init(" in snippet
    env = {**os.environ, "HOME": str(tmp_path), "MEM_ACTOR": "tester@test"}
    p = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr  # on a new folder: ~/memory does not exist before
    assert (tmp_path / "memory" / "memstore.json").is_file()


def test_make_targets_the_readme_names_exist() -> None:
    makefile = (ROOT / "Makefile").read_text("utf-8")
    for target in re.findall(r"^make ([a-z-]+)", README, re.M):
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), target
    assert "make test-fast" in README
    assert re.search(r"`make test` takes about \d+ minutes", README)


def test_readme_links_the_tour_and_the_command_reference() -> None:
    for doc in ("docs/tour.md", "docs/commands.md"):
        assert f"]({doc})" in README, doc
        assert (ROOT / doc).is_file()
