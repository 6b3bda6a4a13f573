"""An interrupted forget cascade never leaves a record alive whose source is already forgotten.

The crash is simulated deterministically at every step of the forget (after the n-th file
removal); the SIGKILL harness in ``test_rel_crash.py`` hits the same windows at random. A crash
cannot undo, so the simulation turns the undo journal off; an error (the same exception with the
journal on) undoes the whole forget.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import mem.format.store.forgetting as forgetting_mod
import mem.format.store.writes as writes_mod
from mem.format.store.store import Store
from tests.conftest import MEM_EXE


class _Crash(BaseException):
    pass


def _lineage(root: Path) -> tuple[Store, str, int]:
    s = Store.init(root, actor="t@t")
    a = s.add("root fact", scope="default")
    b = s.add("summary of root", scope="default", derived_from=[a.id])
    c = s.add("summary of summary", scope="default", derived_from=[b.id, a.id])
    s.add("second child of root", scope="default", derived_from=[a.id])
    s.add("grandchild via c", scope="default", derived_from=[c.id])
    return s, a.id, 5


@pytest.mark.parametrize("crash_after", range(5))
def test_forget_cut_short_keeps_lineage_closed(
    crash_after: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: object
) -> None:
    s, root_id, n = _lineage(tmp_path / "s")
    real = forgetting_mod.remove_file
    calls = {"n": 0}

    def remove_then_crash(path: Path, *, sync: bool = True) -> bool:
        if calls["n"] == crash_after:
            raise _Crash
        calls["n"] += 1
        return real(path, sync=sync)

    @contextlib.contextmanager
    def no_undo() -> Iterator[None]:  # a crash: nothing runs after it
        yield

    monkeypatch.setattr(writes_mod, "undoable", no_undo)
    monkeypatch.setattr(forgetting_mod, "remove_file", remove_then_crash)
    with pytest.raises(_Crash):
        s.forget([root_id], reason="cut short")
    monkeypatch.setattr(forgetting_mod, "remove_file", real)
    s2 = Store.open(s.root)
    live = {r.id: r for r in s2.iter_records()}
    dangling = [
        (r.id, src) for r in live.values() for src in r.derived_from if s2.tombstones.find_id(src)
    ]
    assert dangling == []
    # the requested record goes last: until its own tombstone is written it is still there
    assert (root_id in live) == (crash_after < n - 1)
    # re-running the forget completes it
    s2.complete_interrupted_forgets()
    if crash_after < n - 1:
        s2.forget([root_id], reason="again")
    assert list(s2.iter_records()) == []
    assert len(list(s2.tombstones)) == n


def _holds_open(pid: int, target: Path) -> bool:
    """Whether process ``pid`` has ``target`` open (Linux /proc)."""
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        for fd in fd_dir.iterdir():
            with contextlib.suppress(OSError):
                if Path(os.readlink(fd)) == target:
                    return True
    except OSError:
        return False
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_add_derived_from_checks_its_source_under_the_lock(tmp_path: Path, tally: Callable[..., None]) -> None:
    # `mem add --derived-from X` waits for the writer lock, which this test holds; while it
    # waits, X is forgotten. The add must then refuse (the check is made under the lock), not
    # write a live child of forgotten content.
    s = Store.init(tmp_path / "s", actor="t@t")
    x = s.add("the source that will be forgotten", scope="default")
    lock_path = (s.local_dir / "lock").resolve()
    assert MEM_EXE
    env = {**os.environ, "MEM_LOCK_TIMEOUT": "120", "MEM_ACTOR": "t@t", "NO_COLOR": "1"}
    env.pop("MEM_STORE", None)
    with s.lock:
        p = subprocess.Popen(
            [MEM_EXE, "--store", str(s.root), "add", "child of the source", "--derived-from", x.id],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        # the add has opened the lock file: it is waiting for the lock (the old code had
        # checked its source before it opened it)
        while not _holds_open(p.pid, lock_path):
            assert p.poll() is None, p.communicate()
            time.sleep(0.01)
        s.forget([x.id], reason="while the add waits")
    out, err = p.communicate(timeout=120)
    live = [r for r in Store.open(s.root).iter_records() if x.id in r.derived_from]
    tally("forget vs add --derived-from (the check under the lock)", trials=1, inconsistent=len(live))
    assert live == []
    assert p.returncode == 3, (out, err)
    assert x.id in err and "not a live record" in err
@pytest.mark.parametrize("fail_after", range(5))
def test_forget_failing_part_way_changes_nothing(
    fail_after: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s, root_id, n = _lineage(tmp_path / "s")
    before = {p: p.read_bytes() for p in sorted(s.root.rglob("*")) if p.is_file() and ".mem" not in p.parts}
    real = forgetting_mod.remove_file
    calls = {"n": 0}

    def remove_then_fail(path: Path, *, sync: bool = True) -> bool:
        if calls["n"] == fail_after:
            raise _Crash
        calls["n"] += 1
        return real(path, sync=sync)

    monkeypatch.setattr(forgetting_mod, "remove_file", remove_then_fail)
    with pytest.raises(_Crash):
        s.forget([root_id], reason="cut short")
    after = {p: p.read_bytes() for p in sorted(s.root.rglob("*")) if p.is_file() and ".mem" not in p.parts}
    assert after == before
    monkeypatch.setattr(forgetting_mod, "remove_file", real)
    assert len(Store.open(s.root).forget([root_id]).records) == n
