"""Shared fixtures: temporary stores and a runner for the real ``mem`` executable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mem.format.store.store import Store

MEM_EXE = shutil.which("mem", path=str(Path(sys.executable).parent)) or shutil.which("mem")


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_mem(
    *args: str,
    cwd: Path | None = None,
    input: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> Result:
    """Run the installed ``mem`` console script in a subprocess."""
    assert MEM_EXE, "the mem console script is not installed (pip install -e .)"
    full_env = {k: v for k, v in os.environ.items() if k not in ("MEM_STORE",)}
    full_env.setdefault("MEM_ACTOR", "tester@test")
    full_env["NO_COLOR"] = "1"
    if env:
        full_env.update(env)
    p = subprocess.run(
        [MEM_EXE, *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        stdin=None if input is not None else subprocess.DEVNULL,
    )
    return Result(p.returncode, p.stdout, p.stderr)


def sigint_default() -> None:
    """``preexec_fn`` of a test that interrupts its ``mem`` child with SIGINT: the child takes
    SIGINT's default action whatever the test runner ignores. A runner started in the
    background of a non-interactive shell (``make test > log &``) ignores SIGINT, its children
    inherit that, and such a child never sees the test's Ctrl-C (a watcher then runs on, a
    rebuild finishes and the test skips)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def mem_run():
    return run_mem


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.init(tmp_path / "store", actor="tester@test")
    yield s


@pytest.fixture
def store_dir(store: Store) -> Path:
    return store.root
