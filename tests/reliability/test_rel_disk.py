"""Disk full and read-only store: writes fail cleanly (exit 11) with nothing half-written.

Two ways: (1) in-process, os.write patched to take part of a write and then raise ENOSPC (the
way a full disk behaves) at every write of an add; (2) when the machine allows it (root, mount
namespaces), a real 1 MiB tmpfs filled to the brim, and a read-only bind mount of a store,
driven through the real `mem` executable inside ``unshare -m``.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_harness import MEM_EXE, driver_env

import mem.format.base.fsutil as fsutil
from mem.format.base.errors import StoreIOError
from mem.format.base.fsutil import iter_tmp_files
from mem.format.base.jsonl import has_torn_tail
from mem.format.model.audit import verify_chain
from mem.format.store.store import Store


def _state(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".mem" not in p.parts
    }


@pytest.mark.parametrize("fail_at", range(6))
def test_enospc_at_each_write_of_an_add(fail_at: int, store: Store, monkeypatch: pytest.MonkeyPatch, tally: Callable[..., None]) -> None:
    store.add("already there", scope="default")
    before = _state(store.root)
    real = os.write
    calls = {"n": 0}

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] > fail_at:
            if len(data) > 1 and calls["n"] == fail_at + 1:
                return real(fd, bytes(data[: len(data) // 2]))  # a short write first
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(fsutil.os, "write", full_disk)
    s = Store.open(store.root)
    try:
        s.add("written while the disk fills up", scope="default")
        outcome = "ok"
    except StoreIOError as exc:
        assert exc.exit_code == 11 and "disk is full" in (exc.hint or "")
        outcome = "refused"
    monkeypatch.setattr(fsutil.os, "write", real)
    problems = [f"torn {p}" for p in (store.root / "log").glob("*.jsonl") if has_torn_tail(p)]
    problems += [f"temp file {p}" for p in iter_tmp_files(store.root)]
    for p in (store.root / "log").glob("*.jsonl"):
        problems += [c.message for c in verify_chain(p)]
    after = _state(store.root)
    if outcome == "refused":
        # nothing half-written: either nothing changed, or the record is whole and only its
        # log event is missing (the record write succeeded, the log append did not)
        changed = {k for k in after if after.get(k) != before.get(k)}
        recs = [k for k in changed if k.startswith("records/")]
        problems += [f"unexpected change {k}" for k in changed - set(recs)]
        for k in recs:
            from mem.format.model.record import parse_record

            parse_record(after[k].decode())
    assert Store.open(store.root).add("after space is freed", scope="default")
    tally("disk full (ENOSPC at each write of an add, in-process)", trials=1, inconsistent=len(problems))
    assert problems == [], problems


def _can_unshare() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    p = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return p.returncode == 0


SCRIPT = textwrap.dedent(
    r"""
    import json, os, subprocess, sys
    mnt, mem = sys.argv[1], sys.argv[2]
    out = {}
    def run(*a, input=None):
        p = subprocess.run([mem, *a], capture_output=True, text=True, input=input,
                           stdin=None if input else subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr
    # --- disk full: a 1 MiB tmpfs
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mnt], check=True)
    s = os.path.join(mnt, "s")
    assert run("init", s)[0] == 0
    ids = [run("--store", s, "add", f"kept {i}")[1].strip() for i in range(3)]
    fd = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError:
        pass
    os.close(fd)
    codes = []
    for size in (200, 5000, 100000):
        rc, o, e = run("--store", s, "add", "-", input="x" * size + "\n")
        codes.append([rc, "Traceback" in e, e.strip()[-200:]])
    out["full_codes"] = codes
    os.unlink(os.path.join(mnt, "filler"))
    rc, o, e = run("--store", s, "repair", "--json")
    out["repair"] = [rc, e[-200:]]
    out["after_free"] = run("--store", s, "add", "after space is freed")[0]
    out["list"] = json.loads(run("--store", s, "list", "--json")[1] or "[]")
    out["ids"] = ids
    out["tmp"] = [f for r, d, fs in os.walk(s) for f in fs if ".mem-tmp-" in f]
    # --- read-only: the same store bind-mounted read-only
    subprocess.run(["mount", "--bind", s, s], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", s], check=True)
    before = sorted(os.path.join(r, f) for r, d, fs in os.walk(s) for f in fs)
    ro = {}
    for args in (["add", "on a read-only store"], ["forget", "--yes", ids[0]], ["repair"]):
        rc, o, e = run("--store", s, *args)
        ro[args[0]] = [rc, "Traceback" in e, e.strip()[-200:]]
    rc, o, e = run("--store", s, "list", "--json")
    ro["list"] = [rc, "Traceback" in e, len(json.loads(o)) if rc == 0 else e[-200:]]
    rc, o, e = run("--store", s, "show", ids[1])
    ro["show"] = [rc, "Traceback" in e, e[-200:]]
    out["ro"] = ro
    out["ro_unchanged"] = before == sorted(os.path.join(r, f) for r, d, fs in os.walk(s) for f in fs)
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(not _can_unshare(), reason="needs root and mount namespaces (unshare -m)")
def test_real_full_disk_and_read_only_mount(tmp_path: Path, tally: Callable[..., None]) -> None:
    import json

    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = tmp_path / "inside.py"
    script.write_text(SCRIPT)
    p = subprocess.run(
        ["unshare", "-m", "--propagation", "private", sys.executable, str(script), str(mnt), MEM_EXE],
        capture_output=True, text=True, env=driver_env(), timeout=300,
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    problems = []
    for rc, tb, err in out["full_codes"]:
        if tb or rc not in (0, 11):
            problems.append(f"disk full: exit {rc}: {err}")
    if not any(rc == 11 for rc, _, _ in out["full_codes"]):
        problems.append("disk full: no add was refused with exit 11")
    if out["repair"][0] != 0:
        problems.append(f"repair after freeing space: {out['repair']}")
    if out["after_free"] != 0:
        problems.append("add after freeing space failed")
    live = {r["id"] for r in out["list"]}
    lost = sum(1 for i in out["ids"] if i not in live)
    problems += [f"temp file left {t}" for t in out["tmp"]]
    for cmd in ("add", "forget", "repair"):
        rc, tb, err = out["ro"][cmd]
        if rc != 11 or tb:
            problems.append(f"read-only: `mem {cmd}` exit {rc} (want 11): {err}")
    for cmd in ("list", "show"):
        rc, tb, err = out["ro"][cmd]
        if rc != 0 or tb:
            problems.append(f"read-only: `mem {cmd}` (a read) failed: exit {rc} {err}")
    if not out["ro_unchanged"]:
        problems.append("read-only store changed")
    tally("disk full (real 1 MiB tmpfs) and read-only bind mount, via `mem`", trials=2, lost=lost, inconsistent=len(problems))
    assert lost == 0 and problems == [], problems


READERS_SCRIPT = textwrap.dedent(
    r"""
    import json, os, shutil, subprocess, sys
    mnt, mem = sys.argv[1], sys.argv[2]
    out = {}
    def run(*a):
        p = subprocess.run([mem, *a], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        return [p.returncode, p.stdout, p.stderr]
    # --- a full disk: a store whose index is one write behind, on a 8 MiB tmpfs filled up
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", mnt], check=True)
    s = os.path.join(mnt, "s")
    run("init", s)
    for i in range(12):
        run("--store", s, "add", f"kept note number {i} about apples")
    out["built"] = run("--store", s, "search", "apples", "-k", "1")[0]
    run("--store", s, "add", "a late note about pears")
    fd = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError:
        pass
    os.close(fd)
    full = {}
    for args in (["search", "pears", "--mode", "lexical"], ["search", "pears"], ["verify"], ["verify", "--full"],
                 ["rebuild"], ["compact"], ["export", "-o", os.path.join(mnt, "out.jsonl")],
                 ["export", "--format", "markdown", "-o", os.path.join(mnt, "md")],
                 ["export", "--format", "basic-memory", "-o", os.path.join(mnt, "bm")]):
        full[" ".join(args[:2] if args[0] != "search" else args[:1] + args[2:])] = run("--store", s, *args)
    out["full"] = full
    os.unlink(os.path.join(mnt, "filler"))
    out["after"] = run("--store", s, "search", "pears", "-k", "1")
    # --- a read-only store: a bind mount, read-only, of a store with an index (the lock file and
    # the WAL files removed: a fresh checkout of another user has none)
    r = os.path.join(mnt, "r")
    run("init", r)
    for i in range(5):
        run("--store", r, "add", f"kept note number {i} about apples")
    run("--store", r, "search", "apples", "-k", "1")
    run("--store", r, "add", "a late note about pears")  # after the index: not found, said so
    os.unlink(os.path.join(r, ".mem", "lock"))
    subprocess.run(["mount", "--bind", r, r], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", r], check=True)
    before = sorted(os.path.join(d, f) for d, _, fs in os.walk(r) for f in fs)
    ro = {}
    for args in (["search", "apples", "--mode", "lexical", "-k", "2"], ["search", "apples", "-k", "2"],
                 ["search", "apples", "--mode", "vector", "-k", "2"], ["search", "pears", "--mode", "lexical"],
                 ["search", "apples", "--json", "-k", "1"], ["verify"]):
        ro[" ".join(args)] = run("--store", r, *args)
    out["ro"] = ro
    out["ro_unchanged"] = before == sorted(os.path.join(d, f) for d, _, fs in os.walk(r) for f in fs)
    out["tmp_left"] = [n for n in os.listdir(os.environ.get("TMPDIR", "/tmp")) if n.startswith("mem-read-only-index-")]
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(not _can_unshare(), reason="needs root and mount namespaces (unshare -m)")
def test_full_disk_and_read_only_store_for_readers_and_index_commands(tmp_path: Path, tally: Callable[..., None]) -> None:
    """Issue 19: on a full disk, search, verify, rebuild, compact and export exit 11 naming the
    file and the reason, never "corrupt" (exit 9 / E401), never a traceback; a read-only store
    (no lock file, nothing writable) is searched from its index as it is, in every mode, and
    says that it could not refresh it."""
    import json

    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = tmp_path / "readers.py"
    script.write_text(READERS_SCRIPT)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.run(
        ["unshare", "-m", "--propagation", "private", sys.executable, str(script), str(mnt), MEM_EXE],
        capture_output=True, text=True, env=driver_env({"TMPDIR": str(tmp)}), timeout=600,
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["built"] == 0
    problems = []
    for what, (rc, _o, err) in out["full"].items():
        if rc != 11 or "Traceback" in err or "corrupt" in err or "No space left on device" not in err \
                or str(mnt) not in err:
            problems.append(f"full disk: `mem {what}` exit {rc}: {err.strip()[-300:]}")
    rc, o, err = out["after"]
    if rc != 0 or "pears" not in o:
        problems.append(f"search after space was freed: exit {rc} {err[-200:]}")
    warning = "the store is read-only here: the index was not refreshed"
    for what, (rc, o, err) in out["ro"].items():
        if rc != 0 or "Traceback" in err:
            problems.append(f"read-only: `mem {what}` exit {rc}: {err.strip()[-300:]}")
        elif what.startswith("search apples") and "apples" not in o:
            problems.append(f"read-only: `mem {what}` found nothing: {o!r}")
        elif what.startswith("search") and warning not in err:
            problems.append(f"read-only: `mem {what}` did not say the index was not refreshed: {err!r}")
    rc, o, _err = out["ro"]["search apples --json -k 1"]
    if rc == 0 and not any(warning in w for w in json.loads(o)["warnings"]):
        problems.append("read-only: --json has no warning")
    if "pears" in out["ro"]["search pears --mode lexical"][1]:
        problems.append("read-only: a record added after the index was found (the index was written?)")
    if not out["ro_unchanged"]:
        problems.append("read-only store changed")
    if out["tmp_left"]:
        problems.append(f"index copies left in the temp folder: {out['tmp_left']}")
    tally("disk full (real tmpfs) and read-only bind mount: readers and index commands, via `mem`",
          trials=2, inconsistent=len(problems))
    assert problems == [], problems


def test_a_full_index_table_is_exit_11_naming_the_index(tmp_path: Path, tally: Callable[..., None]) -> None:
    """SQLite reports a write it cannot make room for as SQLITE_FULL (the disk, or here its page
    limit): the vector delta's and the lexical state's writes are then exit 11 naming the
    generation folder, never a raw sqlite3 exception (a traceback through `mem`)."""
    from mem.format.embed import load_embedder
    from mem.format.index.derived import rebuild
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.staleness import _read_fields
    from mem.format.index.vectors import VectorIndex

    s = Store.init(tmp_path / "s", actor="reliability@test")
    rec = s.add("a memory about the harbor", scope="default")
    emb = load_embedder("hashing")
    rebuild(s, lexical=True, vectors=True, embedder=emb)
    from mem.format.rules.ids import new_id

    f = _read_fields(s.record_path("default", rec.id), "default", rec.id)
    vec = VectorIndex.open(s.index_dir)
    lex = LexicalIndex.open(s.index_dir)
    assert vec is not None and lex is not None
    problems = []
    for what, db, write in (
        ("vector delta", vec.db, lambda: vec.add([("default", "X" * 26, "sha256:0", emb.embed(["x"])[0])] * 200)),
        ("lexical state", lex.db, lambda: lex.apply([(f._replace(id=new_id()), 1, 1) for _ in range(300)], [])),
    ):
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        try:
            write()
            problems.append(f"{what}: no error")
        except StoreIOError as exc:
            if exc.exit_code != 11 or "disk is full" not in (exc.hint or ""):
                problems.append(f"{what}: {exc}")
        except Exception as exc:  # the defect: a raw sqlite3 error
            problems.append(f"{what}: {type(exc).__module__}.{type(exc).__name__}: {exc}")
    vec.close()
    lex.close()
    tally("disk full: index table writes (SQLITE_FULL), in-process", trials=2, inconsistent=len(problems))
    assert problems == [], problems
