"""Privacy: owner-only files unless configured; forgotten content appears nowhere afterwards."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_harness import has_command, mem

from mem.format.store.store import Store

PHRASE = "Zorblatt quintessa marmalade ninefold"  # unique, easy to grep in any form
TOKENS = [w.lower() for w in PHRASE.split()]


def _loose_modes(root: Path) -> list[str]:
    bad = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                continue
            if st.st_mode & 0o077:
                bad.append(f"{p.relative_to(root)} {oct(st.st_mode & 0o777)}")
    return bad


def _exercise(root: Path) -> None:
    """Touch every kind of file: records, log, tombstones, indexes, quarantine, state."""
    a = mem("--store", str(root), "add", "a memory to keep").stdout.strip()
    b = mem("--store", str(root), "add", "--scope", "work", "another one").stdout.strip()
    assert a and b
    assert mem("--store", str(root), "forget", "--yes", b).returncode == 0
    if has_command("rebuild"):
        assert mem("--store", str(root), "rebuild").returncode == 0
        assert mem("--store", str(root), "add", "after the index exists").returncode == 0
        assert mem("--store", str(root), "search", "memory").returncode == 0


def test_owner_only_by_default(tmp_path: Path, tally: Callable[..., None]) -> None:
    root = tmp_path / "s"
    old = os.umask(0o022)  # a usual, permissive umask: mem must not rely on it
    try:
        assert mem("init", str(root)).returncode == 0
        _exercise(root)
    finally:
        os.umask(old)
    bad = [b for b in _loose_modes(root) if not b.startswith(".mem/index/")]
    n = sum(1 for _ in root.rglob("*"))
    tally("privacy: owner-only modes (files 0600, folders 0700)", trials=1, examples=n, inconsistent=len(bad))
    assert bad == [], "\n".join(bad)


@pytest.mark.skipif(not has_command("rebuild"), reason="no indexes yet")
def test_index_files_owner_only(tmp_path: Path, tally: Callable[..., None]) -> None:
    root = tmp_path / "s"
    old = os.umask(0o022)
    try:
        assert mem("init", str(root)).returncode == 0
        _exercise(root)
    finally:
        os.umask(old)
    bad = [b for b in _loose_modes(root) if b.startswith(".mem/index/")]
    tally("privacy: owner-only modes (files 0600, folders 0700)", inconsistent=len(bad),
          examples=sum(1 for _ in (root / ".mem" / "index").rglob("*")),
          note="index files included (chmod after every index write)")
    assert bad == [], "\n".join(bad)


def test_configured_modes_are_used(tmp_path: Path) -> None:
    root = tmp_path / "s"
    Store.init(root)
    with open(root / "config.toml", "a") as f:
        f.write('\n[permissions]\nfile_mode = "0640"\ndir_mode = "0750"\n')
    rid = mem("--store", str(root), "add", "--scope", "shared", "group readable").stdout.strip()
    p = root / "records" / "shared" / f"{rid}.md"
    assert oct(p.stat().st_mode & 0o777) == "0o640"
    assert oct(p.parent.stat().st_mode & 0o777) == "0o750"


def _grep(root: Path) -> list[str]:
    """Every file (and file name) under root, .mem/ included, that holds the phrase or a token."""
    hits = []
    needles = [PHRASE.encode(), PHRASE.lower().encode(), *(t.encode() for t in TOKENS)]
    for dirpath, _dirs, files in os.walk(root):
        for n in files:
            p = Path(dirpath) / n
            if p.is_symlink() or not p.is_file():
                continue
            data = p.read_bytes().lower()
            found = [nd.decode() for nd in needles if nd.lower() in data]
            if found or any(t in n.lower() for t in TOKENS):
                hits.append(f"{p.relative_to(root)}: {found}")
    return hits


@pytest.fixture
def forgotten_store(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "s"
    Store.init(root)
    rid = mem("--store", str(root), "add", "--tag", "secret", f"My code phrase is {PHRASE}.").stdout.strip()
    d = mem("--store", str(root), "add", "--derived-from", rid, f"Summary: the user said {PHRASE}").stdout.strip()
    for i in range(5):
        mem("--store", str(root), "add", f"ordinary memory {i}")
    if has_command("rebuild"):
        assert mem("--store", str(root), "rebuild").returncode == 0
        r = mem("--store", str(root), "search", "--json", TOKENS[0])
        assert r.returncode == 0 and rid in r.stdout
    assert _grep(root)  # the phrase is there before
    r = mem("--store", str(root), "forget", "--yes", "--reason", "privacy test", rid)
    assert r.returncode == 0, r.stderr
    assert d not in mem("--store", str(root), "list", "--json").stdout
    return root, rid


def test_forgotten_content_gone_from_records_log_tombstones(forgotten_store: tuple[Path, str], tally: Callable[..., None]) -> None:
    root, _ = forgotten_store
    hits = [h for h in _grep(root) if not h.startswith(".mem/")]
    tally("privacy: forgotten phrase grepped in records/log/tombstones/state", trials=1, inconsistent=len(hits))
    assert hits == []


@pytest.mark.skipif(not has_command("rebuild"), reason="no indexes yet")
def test_forgotten_content_gone_from_indexes_and_temp_files(forgotten_store: tuple[Path, str], tally: Callable[..., None]) -> None:
    """Every byte of the store, .mem/ (indexes, quarantine, temp files) included, after forget."""
    root, _ = forgotten_store
    hits = _grep(root)
    tally("privacy: forgotten phrase grepped in every byte incl. .mem/ (after forget)", trials=1, inconsistent=len(hits))
    assert hits == []


@pytest.mark.skipif(not has_command("compact"), reason="mem compact not built yet")
def test_forgotten_content_gone_after_compact(forgotten_store: tuple[Path, str], tally: Callable[..., None]) -> None:
    root, _ = forgotten_store
    r = mem("--store", str(root), "compact")
    assert r.returncode == 0, r.stderr
    hits = _grep(root)
    tally("privacy: forgotten phrase grepped in every byte incl. .mem/ (after compact)", trials=1, inconsistent=len(hits))
    assert hits == []


def test_forget_drops_the_index_entries_before_it_returns(forgotten_store: tuple[Path, str], tally: Callable[..., None]) -> None:
    """Right after `mem forget` (no search in between: a backup of .mem/ taken then), the
    lexical index holds no live document of the forgotten records and no valid vector: the
    forget applied its deletions itself instead of leaving them to the next search."""
    from mem.format.index.derived import PENDING_FILE
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex

    root, rid = forgotten_store
    kept = {r.id for r in Store.open(root).iter_records()}
    assert len(kept) == 5 and rid not in kept
    index_dir = root / ".mem" / "index"
    assert not (index_dir / PENDING_FILE).exists()
    lex = LexicalIndex.open(index_dir)
    assert lex is not None
    try:
        hits = lex.search(TOKENS[0], scopes=None, kinds=None, statuses=None, tags=None, limit=50)
        rows = {r[0] for r in lex.db.execute("SELECT id FROM records").fetchall()}
    finally:
        lex.close()
    vec = VectorIndex.open(index_dir)
    assert vec is not None
    try:
        valid = set(vec.valid_digests("default"))
    finally:
        vec.close()
    left = [h.id for h in hits] + sorted(rows - kept) + sorted(set(valid) - kept)
    tally("privacy: forgotten record live in an index right after forget", trials=1, inconsistent=len(left))
    assert left == []
    assert rows == kept == set(valid)  # the five ordinary memories stay, with their vectors
