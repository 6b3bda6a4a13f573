"""docs/tour.md shows what mem prints: its outputs come from real runs (docs/tour.py) and this
test fails when they drift from a fresh run, as test_docs does for docs/commands.md (issue 26)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.model
def test_tour_outputs_are_current() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "docs" / "tour.py"), "--check"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr


def test_every_tour_command_block_runs_or_says_why() -> None:
    """A console block is either regenerated or marked as not run (interactive, a server)."""
    text = (ROOT / "docs" / "tour.md").read_text("utf-8")
    blocks = text.split("```console")[1:]
    assert len(blocks) >= 6
    for before, block in zip(text.split("```console")[:-1], blocks, strict=True):
        commands = [ln for ln in block.split("```")[0].splitlines() if ln.startswith("$ ")]
        assert commands, block
        if before.rstrip().endswith("<!-- tour: not run -->"):
            assert all(c.split()[1:2] in (["mem"],) for c in commands)
