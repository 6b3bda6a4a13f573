"""Failed writes leave nothing (issue 19): a write refused or cut off part-way changes nothing.

Two faults: (1) a torn last audit-log line (a power cut): every writing command refuses with
exit 5 before its first change, and after `mem repair` a retry makes no duplicate; (2) a full
disk at each write of a command (os.write patched to take part of a write and then raise
ENOSPC, in-process and through the CLI's entry point): the command either succeeds whole or
exits 11 with the store byte for byte as before (the steps already done are undone).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rel_harness import driver_env
from rel_harness import mem as run_mem

import mem.format.base.fsutil as fsutil
from mem.format.base.errors import StoreIOError
from mem.format.base.fsutil import iter_tmp_files
from mem.format.store.store import Store

TORN = b'{"v":1,"seq":99,"op":"add","id":"01J'


def _state(root: Path) -> dict[str, bytes]:
    """Every byte of the store outside ``.mem/`` (derived and local data)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mem" not in p.relative_to(root).parts
    }


def _tear_log(root: Path) -> Path:
    (log,) = (root / "log").glob("*.jsonl")
    with open(log, "ab") as f:
        f.write(TORN)
    return log


@pytest.fixture
def cli_store(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    root = tmp_path / "s"
    assert run_mem("init", str(root)).returncode == 0
    ids = {}
    for name, text in (("a", "the garage code is on the fridge"), ("b", "sam likes green tea")):
        r = run_mem("--store", str(root), "add", text)
        assert r.returncode == 0, r.stderr
        ids[name] = r.stdout.strip()
    yield root, ids


def _export_line(root: Path) -> Path:
    p = root.parent / "in.jsonl"
    p.write_text(json.dumps({"content": "imported while the log was torn", "kind": "note"}) + "\n")
    return p


WRITES: dict[str, Callable[[Path, dict[str, str]], list[str]]] = {
    "add": lambda root, ids: ["add", "written while the log is torn"],
    "update": lambda root, ids: ["update", ids["a"], "--content", "the garage code is in the drawer"],
    "tag": lambda root, ids: ["update", ids["b"], "--tag", "drinks"],
    "supersede": lambda root, ids: ["supersede", ids["b"], "sam likes black coffee now"],
    "forget": lambda root, ids: ["forget", "--yes", ids["a"]],
    "import": lambda root, ids: ["import", str(_export_line(root))],
}


@pytest.mark.parametrize("cmd", sorted(WRITES))
def test_torn_log_refuses_before_the_first_write(
    cmd: str, cli_store: tuple[Path, dict[str, str]], tally: Callable[..., None]
) -> None:
    root, ids = cli_store
    argv = WRITES[cmd](root, ids)
    _tear_log(root)
    before = _state(root)
    r = run_mem("--store", str(root), *argv)
    problems = []
    if r.returncode != 5 or "Traceback" in r.stderr:
        problems.append(f"exit {r.returncode}: {r.stderr[-300:]}")
    if "incomplete" not in r.stderr or "mem repair" not in r.stderr:
        problems.append(f"the refusal does not say why and what to do: {r.stderr[-300:]}")
    after = _state(root)
    problems += [f"changed {k}" for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
    problems += [f"temp file {p}" for p in iter_tmp_files(root)]
    # the way out: repair, then the same command once; no duplicate, a valid store
    assert run_mem("--store", str(root), "repair").returncode == 0
    r2 = run_mem("--store", str(root), *argv)
    if r2.returncode != 0:
        problems.append(f"retry after repair: exit {r2.returncode}: {r2.stderr[-300:]}")
    listing = json.loads(run_mem("--store", str(root), "list", "--json", "--status", "all").stdout or "[]")
    contents = [x["content"].strip() for x in listing]
    problems += [f"duplicate {c!r}" for c in set(contents) if contents.count(c) > 1]
    v = run_mem("--store", str(root), "verify", "--full")
    if v.returncode != 0:
        problems.append(f"verify after retry: {v.stdout[-400:]}")
    tally("failed writes: torn last log line, every writing command (via `mem`)", trials=1, inconsistent=len(problems))
    assert problems == [], problems


def _full_disk_after(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write
    calls = {"n": 0}

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] > n:
            if len(data) > 1 and calls["n"] == n + 1:
                return real(fd, bytes(data[: len(data) // 2]))  # a short write first
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(fsutil.os, "write", full_disk)


def _seed(store: Store) -> dict[str, str]:
    a = store.add("the garage code is on the fridge", scope="default")
    b = store.add("sam likes green tea", scope="default")
    c = store.add("a summary of a", scope="default", derived_from=[a.id])
    old = store.add("sam lives in leeds", scope="default")
    new, _ = store.supersede(old.id, "sam lives in york")
    return {"a": a.id, "b": b.id, "c": c.id, "new": new.id}


OPS: dict[str, Callable[[Store, dict[str, str]], object]] = {
    "add": lambda s, ids: s.add("written while the disk fills up", scope="default"),
    "update": lambda s, ids: s.update(ids["a"], content="the garage code is in the drawer"),
    "move": lambda s, ids: s.update(ids["b"], scope="other"),
    "supersede": lambda s, ids: s.supersede(ids["b"], "sam likes black coffee now"),
    "forget-cascade": lambda s, ids: s.forget([ids["a"]]),
    "forget-restores": lambda s, ids: s.forget([ids["new"]]),
    "accept": lambda s, ids: s.reject(ids["b"]),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("fail_at", range(8))
def test_full_disk_at_each_write_undoes_or_succeeds(
    op: str, fail_at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: Callable[..., None]
) -> None:
    store = Store.init(tmp_path / "s")
    ids = _seed(store)
    before = _state(store.root)
    _full_disk_after(fail_at, monkeypatch)
    s = Store.open(store.root)
    try:
        OPS[op](s, ids)
        outcome = "ok"
    except StoreIOError as exc:
        assert exc.exit_code == 11 and "disk is full" in (exc.hint or ""), exc
        assert "could not be fully undone" not in exc.message
        outcome = "refused"
    monkeypatch.undo()
    after = _state(store.root)
    problems = [f"temp file {p}" for p in iter_tmp_files(store.root)]
    if outcome == "refused":
        problems += [f"changed {k}" for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
    from mem.format.verify.checks import verify_store

    rep = verify_store(store.root, full=True)
    problems += [f"{f.returncode} {f.message}" for f in rep.findings if f.severity == "error"]
    # the retry succeeds and makes no second copy
    s2 = Store.open(store.root)
    if outcome == "refused":
        OPS[op](s2, ids)
    contents = [r.content for r in s2.iter_records()]
    problems += [f"duplicate {c!r}" for c in set(contents) if contents.count(c) > 1]
    tally("failed writes: ENOSPC at each write of add/update/supersede/forget (in-process)", trials=1, inconsistent=len(problems))
    assert problems == [], problems


CLI_DRIVER = r"""
import errno, os, sys
import mem.format.base.fsutil as fsutil
from mem.cli.main import run
real, n = os.write, int(os.environ["FAIL_AFTER_WRITES"])
calls = [0]
def full_disk(fd, data):
    calls[0] += 1
    if calls[0] > n and fd > 2:
        raise OSError(errno.ENOSPC, "No space left on device")
    return real(fd, data)
fsutil.os.write = full_disk
sys.argv[0] = "mem"
sys.exit(run())
"""


@pytest.mark.parametrize("fail_at", range(4))
def test_full_disk_through_the_cli_exits_11_and_a_retry_makes_no_duplicate(
    fail_at: int, cli_store: tuple[Path, dict[str, str]], tally: Callable[..., None]
) -> None:
    root, ids = cli_store
    before = _state(root)
    env = driver_env({"FAIL_AFTER_WRITES": str(fail_at)})
    p = subprocess.run(
        [sys.executable, "-c", CLI_DRIVER, "--store", str(root), "supersede", ids["b"], "sam drinks coffee"],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120,
    )
    problems = []
    if p.returncode not in (0, 11) or "Traceback" in p.stderr:
        problems.append(f"exit {p.returncode}: {p.stderr[-300:]}")
    if p.returncode == 11:
        after = _state(root)
        problems += [f"changed {k}" for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
        if "disk is full" not in p.stderr:
            problems.append(f"the error does not say the disk is full: {p.stderr[-300:]}")
        r = run_mem("--store", str(root), "supersede", ids["b"], "sam drinks coffee")
        if r.returncode != 0:
            problems.append(f"retry: exit {r.returncode} {r.stderr[-200:]}")
    listing = json.loads(run_mem("--store", str(root), "list", "--json").stdout)
    if [x["content"].strip() for x in listing].count("sam drinks coffee") != 1:
        problems.append(f"not exactly one successor: {listing}")
    tally("failed writes: ENOSPC at each write of `mem supersede` (via the CLI entry point)", trials=1, inconsistent=len(problems))
    assert problems == [], problems
