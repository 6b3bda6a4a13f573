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


def _tour_module():  # docs/tour.py is a script, not a package module
    import importlib.util

    spec = importlib.util.spec_from_file_location("tour_script", ROOT / "docs" / "tour.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_check_ignores_a_hit_s_score_and_nothing_else() -> None:
    """Scores move with the CPU's int8 kernels; the hits, their order and every other line must not."""
    tour = _tour_module()
    doc = ("$ mem search --scope me \"what do I drink\"\n"
           "0.1289  01TUR000000000000000000001  me/preference/active  [lexical+vector]  Drinks green tea\n"
           "0.0019  01TUR000000000000000000002  me/fact/active  [vector]  Moved to Lyon in 2021\n")
    other_cpu = doc.replace("0.1289", "0.1266").replace("0.0019", "0.0023")
    assert tour.comparable(doc) == tour.comparable(other_cpu)
    swapped = doc.replace("000001", "00000X").replace("000002", "000001").replace("00000X", "000002")
    assert tour.comparable(doc) != tour.comparable(swapped)  # another order is a real change
    assert tour.comparable(doc) != tour.comparable(doc.replace("[lexical+vector]", "[vector]"))
    assert tour.comparable(doc) != tour.comparable(doc.replace("Drinks green tea", "Drinks tea"))
    # a number that is not a hit's score is compared as it is
    stats = "records       7\n0.5000 of them active\n"
    assert tour.comparable(stats) != tour.comparable(stats.replace("0.5000", "0.6000"))
