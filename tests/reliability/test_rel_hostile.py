"""Hostile paths and YAML: nothing names, follows or writes anything outside the store."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_harness import MEM_EXE, driver_env, has_command, mem

from mem.format.base.errors import MemError
from mem.format.model.record import dump_record, make_record, parse_record
from mem.format.store.store import Store

EVIL_NAMES = ["..", "../x", "../../etc", "/etc", "/tmp/x", "a/b", "a\\b", ".", ".hidden", "x\0y",
              "UPPER", "a..b", " ", "", "-rf", "x" * 65, "\u2025", "a/../b"]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.md").write_text("outside secret\n")
    return d


def _outside_untouched(outside: Path) -> bool:
    return sorted(p.name for p in outside.iterdir()) == ["secret.md"] and (outside / "secret.md").read_text() == "outside secret\n"


def test_hostile_scopes_and_ids_refused(store: Store, tmp_path: Path, tally: Callable[..., None]) -> None:
    tried = 0
    for name in EVIL_NAMES:
        tried += 1
        with pytest.raises(MemError):
            store.add("a memory with a hostile scope", scope=name)
        tried += 1
        with pytest.raises(MemError):
            store.get(name if name else "x")
        tried += 1
        r = mem("--store", str(store.root), "add", "--scope", name, "hostile scope via CLI") if "\0" not in name else None
        if r is not None:
            assert r.returncode == 4, (name, r.stderr)
            assert "Traceback" not in r.stderr
        tried += 1
        if "\0" not in name and name and not name.startswith("-"):
            r = mem("--store", str(store.root), "show", name)
            assert r.returncode in (3, 4), (name, r.returncode, r.stderr)
    # a record file whose frontmatter names a hostile scope or id is refused when parsed
    good = dump_record(make_record(scope="default", kind="note", content="x"))
    for name in EVIL_NAMES[:8]:
        tried += 2
        with pytest.raises(MemError):
            parse_record(good.replace("scope: default", f"scope: {name!r}"))
        with pytest.raises(MemError):
            parse_record(good.replace("id: ", f"id: {name!r}\nx_old_id: ", 1))
    assert sorted(p.name for p in store.records_dir.iterdir()) in ([], [".gitkeep"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
    tally("hostile input: ids and scopes (.., absolute, separators, NUL...)", trials=1, examples=tried)


def test_symlinks_out_of_the_store_refused(store: Store, outside: Path, tally: Callable[..., None]) -> None:
    s = store
    a = s.add("a normal memory", scope="default")
    tried = 0
    # records/<scope> as a symlink to a folder outside
    os.symlink(outside, s.records_dir / "evil")
    tried += 1
    with pytest.raises(MemError):
        s.add("must not land outside", scope="evil")
    assert _outside_untouched(outside)
    assert "evil" not in s.scopes()
    # a record file that is a symlink to a file outside: never read, never listed
    link = s.records_dir / "default" / "01JD3Z8Q4T6W0000000000000A.md"
    os.symlink(outside / "secret.md", link)
    tried += 1
    assert [r.id for r in s.iter_records()] == [a.id]
    with pytest.raises(MemError):
        s.get("01JD3Z8Q4T6W0000000000000A")
    r = mem("--store", str(s.root), "list", "--json")
    assert r.returncode == 0 and "outside secret" not in r.stdout
    # forget never unlinks through a symlinked scope; the log is not followed out either
    tried += 1
    s.forget([a.id], reason="t")
    assert _outside_untouched(outside)
    # records/ itself a symlink: the store refuses to open
    tried += 1
    shutil.move(str(s.records_dir), str(s.root / "records.real"))
    os.symlink(s.root / "records.real", s.records_dir)
    with pytest.raises(MemError):
        Store.open(s.root)
    r = mem("--store", str(s.root), "add", "x")
    assert r.returncode == 5 and "Traceback" not in r.stderr
    tally("hostile input: symlinks out of the store (scope dir, record file, records/)", trials=1, examples=tried)


def test_log_or_tombstone_symlink_not_followed(store: Store, outside: Path, tally: Callable[..., None]) -> None:
    """An append to a log or tombstone file that is a symlink must not write outside."""
    s = store
    rec = s.add("to be forgotten", scope="default")
    tomb = s.root / "tombstones" / "default.jsonl"
    os.symlink(outside / "secret.md", tomb)
    with pytest.raises(MemError):
        s.forget([rec.id], reason="t")
    assert _outside_untouched(outside)
    log = s.log.path
    log.rename(log.with_suffix(".bak"))
    os.symlink(outside / "secret.md", log)
    with pytest.raises(MemError):
        Store.open(s.root).add("another", scope="default")
    assert _outside_untouched(outside)
    tally("hostile input: symlinked log / tombstone file", trials=1, examples=2)


def test_fifo_as_record_file_never_opened(store: Store, tally: Callable[..., None]) -> None:
    """A FIFO named like a record is skipped (opening it would block every read path)."""
    store.add("x", scope="default")
    os.mkfifo(store.records_dir / "default" / "01JD3Z8Q4T6W0000000000000C.md")
    assert len(list(store.iter_records())) == 1
    r = mem("--store", str(store.root), "list", "--json", timeout=30)
    assert r.returncode == 0
    tally("hostile input: FIFOs and device files", trials=1, examples=1)


@pytest.mark.skipif(not has_command("import_"), reason="mem import not built yet")
def test_import_refuses_fifo_and_devices(store: Store, tmp_path: Path, tally: Callable[..., None]) -> None:
    import subprocess

    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    tally("hostile input: FIFOs and device files", examples=3)
    for dev in (str(fifo), "/dev/zero", "/dev/urandom"):
        try:
            r = mem("--store", str(store.root), "import", "--from", "jsonl", dev, timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail(f"mem import {dev} did not return")
        assert r.returncode in (3, 4), (dev, r.returncode, r.stderr)
        assert "Traceback" not in r.stderr


def test_import_hostile_file_names_and_members(store: Store, tmp_path: Path, outside: Path, tally: Callable[..., None]) -> None:
    if not has_command("import_"):
        pytest.skip("mem import not built yet")
    import json

    tried = 0
    # an import line that names a hostile scope or id: refused per line, nothing written outside
    lines = [
        {"type": "record", "id": "../../../outside/pwn", "scope": "default", "kind": "note", "content": "a", "recorded_at": "2024-01-01T00:00:00Z"},
        {"type": "record", "scope": "../outside", "kind": "note", "content": "b"},
        {"type": "record", "scope": "/tmp", "kind": "note", "content": "c"},
        {"type": "tombstone", "id": "../x", "scope": "..", "digest": "sha256:00"},
        {"type": "record", "scope": "default", "kind": "../note", "content": "d"},
    ]
    f = tmp_path / "hostile.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    tried += len(lines)
    r = mem("--store", str(store.root), "import", "--json", str(f))
    assert "Traceback" not in r.stderr
    assert r.returncode in (0, 4), r.stderr
    assert _outside_untouched(outside)
    assert list(store.iter_records()) == []
    # a file name that tries to escape is only a name: reading it never writes next to it
    odd = tmp_path / "..%2f..%2fetc.jsonl"
    odd.write_text(json.dumps({"type": "record", "scope": "default", "kind": "note", "content": "ok"}) + "\n")
    tried += 1
    r = mem("--store", str(store.root), "import", str(odd))
    assert r.returncode == 0, r.stderr
    # a source folder whose member is a symlink out of it is not followed
    src = tmp_path / "src.jsonl"
    os.symlink(outside / "secret.md", src)
    tried += 1
    r = mem("--store", str(store.root), "import", "--from", "jsonl", str(src))
    assert "outside secret" not in "".join(r.stdout) or r.returncode != 0
    tally("hostile input: import lines/files naming paths outside", trials=1, examples=tried)


YAML_BOMB = """---
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]
id: 01JD3Z8Q4T6W0000000000000A
scope: default
kind: note
status: active
recorded_at: 2024-01-01T00:00:00.000Z
digest: sha256:0
---
boom
"""

HOSTILE_YAML = [
    YAML_BOMB,
    "---\nid: !!python/object/apply:os.system ['touch /tmp/mem-pwned']\nscope: default\n---\nx\n",
    "---\nscope: !!python/name:os.system\n---\nx\n",
    "---\n!custom {id: 01JD3Z8Q4T6W0000000000000A}\n---\nx\n",
    "---\nid: 01JD3Z8Q4T6W0000000000000A\nscope: default\nkind: note\nstatus: active\nrecorded_at: 2024-01-01T00:00:00Z\ndigest: x\nsource: !!binary aGVsbG8=\n---\nx\n",
    "---\n" + "k: [" * 5000 + "]" * 5000 + "\n---\nx\n",
    "---\n" + "x" * (70 * 1024) + ": 1\n---\nx\n",
    "---\n<<: *undefined\n---\nx\n",
    "---\n%TAG ! tag:evil:\n---\nx\n",
]


def test_hostile_yaml_refused_or_bounded(tmp_path: Path, tally: Callable[..., None]) -> None:
    pwned = Path("/tmp/mem-pwned")
    pwned.unlink(missing_ok=True)
    for text in HOSTILE_YAML:
        with pytest.raises(MemError) as ei:
            parse_record(text, "hostile.md")
        assert ei.value.path == "hostile.md"
    assert not pwned.exists()
    # a huge body is bounded at read time with a clear error
    big = tmp_path / "01JD3Z8Q4T6W0000000000000A.md"
    big.write_bytes(dump_record(make_record(scope="default", kind="note", content="x")).encode() + b"y" * (5 * 1024 * 1024))
    from mem.format.model.record import read_record_file

    with pytest.raises(MemError, match="larger than"):
        read_record_file(big)
    tally("hostile input: YAML (custom tags, python objects, alias bomb, deep nesting, huge)", trials=1, examples=len(HOSTILE_YAML) + 1)


@pytest.mark.parametrize("folder", ["log", "tombstones", "state", ".mem"])
def test_symlinked_store_folders_refused_for_writes(folder: str, tmp_path: Path, tally: Callable[..., None]) -> None:
    """(issue 19) log/, tombstones/, state/ and .mem as symbolic links: no write goes through."""
    root = tmp_path / "s"
    assert mem("init", str(root)).returncode == 0
    rid = mem("--store", str(root), "add", "to be forgotten").stdout.strip()
    outside = tmp_path / "outside"
    shutil.copytree(root / folder, outside)
    shutil.rmtree(root / folder)
    os.symlink(outside, root / folder)
    before = sorted((p.relative_to(outside), p.read_bytes()) for p in outside.rglob("*") if p.is_file())
    problems = []
    for args in (["add", "written through a link"], ["forget", "--yes", rid]):
        r = mem("--store", str(root), *args)
        if r.returncode != 5 or "symbolic link" not in r.stderr or "Traceback" in r.stderr:
            problems.append(f"`mem {args[0]}` with {folder}/ a link: exit {r.returncode} {r.stderr[-200:]}")
    after = sorted((p.relative_to(outside), p.read_bytes()) for p in outside.rglob("*") if p.is_file())
    if after != before:
        problems.append(f"written outside the store through {folder}/")
    tally("hostile input: log/, tombstones/, state/, .mem as symlinks", trials=1, examples=2, inconsistent=len(problems))
    assert problems == [], problems


def test_lock_file_symlink_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "s"
    assert mem("init", str(root)).returncode == 0
    target = tmp_path / "victim"
    lock = root / ".mem" / "lock"
    lock.unlink(missing_ok=True)
    os.symlink(target, lock)
    r = mem("--store", str(root), "add", "x")
    assert r.returncode == 11 and "lock" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not target.exists()


def test_gitignore_matches_a_committed_mem_symlink(tmp_path: Path) -> None:
    if not shutil.which("git"):
        pytest.skip("no git")
    import subprocess

    root = tmp_path / "s"
    assert mem("init", "--git", str(root)).returncode == 0
    shutil.rmtree(root / ".mem")
    os.symlink(tmp_path, root / ".mem")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=root, capture_output=True, text=True).stdout
    assert ".mem" not in staged.split(), staged


def _export_store(tmp_path: Path) -> Path:
    root = tmp_path / "s"
    assert mem("init", str(root)).returncode == 0
    assert mem("--store", str(root), "add", "every memory is in an export").returncode == 0
    return root


def test_export_to_a_fifo_writes_through(tmp_path: Path) -> None:
    import subprocess
    import threading

    root = _export_store(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    t.start()
    p = subprocess.run([MEM_EXE, "--store", str(root), "export", "-o", str(fifo)], capture_output=True, text=True,
                       env=driver_env(), timeout=60, stdin=subprocess.DEVNULL)
    t.join(60)
    assert p.returncode == 0, p.stderr
    assert got and b"every memory is in an export" in got[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a pipe, not replaced by a file


def test_export_through_a_symlink_keeps_the_link_and_is_owner_only(tmp_path: Path) -> None:
    root = _export_store(tmp_path)
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    os.symlink(real, link)
    r = mem("--store", str(root), "export", "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and "every memory" in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    fresh = tmp_path / "new" / "e.jsonl"
    assert mem("--store", str(root), "export", "-o", str(fresh)).returncode == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600 and stat.S_IMODE(fresh.parent.stat().st_mode) == 0o700
    md = tmp_path / "md"
    assert mem("--store", str(root), "export", "-f", "markdown", "-o", str(md)).returncode == 0
    assert stat.S_IMODE(md.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in md.iterdir())


@pytest.mark.parametrize("dest", ["/proc/self/status", "/proc/version", "full-device"])
def test_export_to_proc_or_a_full_device_is_exit_11(dest: str, tmp_path: Path) -> None:
    if dest == "full-device":  # a /dev/full of our own: a bug here must not replace the real one
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        dest = str(tmp_path / "full")
        os.mknod(dest, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    if not os.path.exists(dest):
        pytest.skip(f"no {dest}")
    root = _export_store(tmp_path)
    st = os.stat(dest)
    r = mem("--store", str(root), "export", "-o", dest)
    assert r.returncode == 11 and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    assert os.stat(dest).st_mode == st.st_mode  # a device stays a device


@pytest.mark.parametrize("args", [["add", "--file", "/dev/zero"], ["capture", "--format", "jsonl", "/dev/zero"],
                                  ["capture", "--format", "text", "/dev/zero"]])
def test_endless_input_is_refused_with_a_clear_error(args: list[str], tmp_path: Path) -> None:
    """(issue 19) `mem add --file /dev/zero` and `mem capture /dev/zero` grew to gigabytes."""
    import resource
    import subprocess

    root = tmp_path / "s"
    assert mem("init", str(root)).returncode == 0

    def cap_memory() -> None:  # a regression fails here (MemoryError), not on the machine
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    p = subprocess.run([MEM_EXE, "--store", str(root), *args], capture_output=True, text=True, env=driver_env(),
                       timeout=120, stdin=subprocess.DEVNULL, preexec_fn=cap_memory)
    assert p.returncode == 4 and "/dev/zero" in p.stderr and "Traceback" not in p.stderr, (p.returncode, p.stderr[-300:])
    r = mem("--store", str(root), "add", "-", input="y" * (5 << 20))  # a pipe larger than a record
    assert r.returncode == 4 and "larger than" in r.stderr


@pytest.mark.parametrize("toml,code", [
    ('[permissions]\nfile_mode = "7777"\n', 5),
    ('[permissions]\nfile_mode = "abc"\n', 5),
    ('[permissions]\ndir_mode = "0000"\n', 5),
    ("[embedder]\nthreads = 1000000\n", 10),
    ("[embedder]\nthreads = 0\n", 10),
])
def test_config_values_are_validated(toml: str, code: int, tmp_path: Path) -> None:
    """(issue 19) every config value is checked: by `mem verify` (E007) and by the command that
    reads it (a clear refusal, never a traceback, never a setuid world-writable file)."""
    root = tmp_path / "s"
    assert mem("init", str(root)).returncode == 0
    (root / "config.toml").write_text(toml)
    v = mem("--store", str(root), "verify", "--json")
    assert v.returncode == 1 and [f["code"] for f in __import__("json").loads(v.stdout)["findings"]] == ["E007"], v.stdout
    if code == 5:
        r = mem("--store", str(root), "add", "a private memory")
    else:
        r = mem("--store", str(root), "rebuild", env={"MEM_EMBEDDER": ""})
    assert r.returncode == code and "config.toml" in r.stderr + "config.toml" and "Traceback" not in r.stderr, r.stderr
    for p in (root / "records").rglob("*.md"):
        assert stat.S_IMODE(p.stat().st_mode) & 0o7002 == 0
