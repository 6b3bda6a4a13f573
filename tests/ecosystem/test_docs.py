"""Docs that cannot drift: the command reference is what --help says."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mem_docs_generate", ROOT / "docs" / "generate.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_command_reference_is_current() -> None:
    text = _generator().render()
    current = (ROOT / "docs" / "commands.md").read_text("utf-8")
    assert current == text, "docs/commands.md is stale: run `.venv/bin/python docs/generate.py`"


def test_command_reference_covers_every_command() -> None:
    from mem.cli.commands.completion import command_tree

    text = (ROOT / "docs" / "commands.md").read_text("utf-8")
    for cmd in command_tree().commands:
        assert f"\n## mem {cmd.name}\n" in text
        assert f"Usage: mem {cmd.name} " in text
    assert "__complete-values" not in text


def test_spec_pages_exist_for_my_commands() -> None:
    assert (ROOT / "spec" / "cli" / "mcp.md").is_file()
