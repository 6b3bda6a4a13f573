"""Shared fixtures: temporary stores and a runner for the real ``mem`` executable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
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


#: How long, at most, a test's leftover background threads of long-lived searchers are given to
#: end after the test (a searcher's ``close`` waits for its thread: a closed one has ended).
LEFT_OPEN_JOIN_S = 0.5


def searchers_left_open(
    spared: frozenset[threading.Thread] = frozenset(), join_s: float = LEFT_OPEN_JOIN_S,
) -> list[str]:
    """The long-lived searchers whose background thread (``mem-follow``, format/index/follower.py)
    still runs, ``spared`` aside, after a join of at most ``join_s`` in all: one line each, naming
    its store. Each is stopped here, so that its rounds do not run into the tests after this one
    (they would call what those tests patch: a class's method is patched process-wide)."""
    from mem.format.index.follower import running

    left = [(t, f) for t, f in running() if t not in spared]
    if not left:
        return []
    deadline = time.monotonic() + join_s
    for thread, _fol in left:
        thread.join(max(0.0, deadline - time.monotonic()))
    still = [(t, f) for t, f in left if t.is_alive()]
    for _thread, fol in still:
        fol.stop()
    return [f"a long-lived searcher left open: thread {t.name} for store {f.root}" for t, f in still]


@pytest.fixture(autouse=True)
def _no_searcher_left_open() -> Iterator[None]:
    """Fails a test that leaves a long-lived searcher running (``open_searcher`` and any
    ``Searcher(long_lived=True)`` that has searched, the MCP server's, ``mem search --batch``'s
    in-process): torn down after the test's own fixtures, it finds their background threads
    still running (``searchers_left_open``). Threads already running when the test started
    (a fixture of a wider scope holds them) are not the test's."""
    from mem.format.index.follower import running

    spared = frozenset(t for t, _f in running())
    yield
    left = searchers_left_open(spared)
    if left:
        pytest.fail("; ".join(left) + " (close it: `with open_searcher(...) as s:`, or s.close())",
                    pytrace=False)


def searched(store: Store | Path, query: str, **kwargs: Any) -> Any:
    """One search (``Searcher.search``'s arguments) by a long-lived searcher (``open_searcher``)
    opened for it and closed after it: its first search brings the index up to date itself, as
    any long-lived searcher's does, and its background thread ends here."""
    from mem.format.search.engine import open_searcher

    with open_searcher(store) as s:
        return s.search(query, **kwargs)


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
