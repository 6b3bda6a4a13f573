"""Index robustness: concurrent swaps and first builds, damaged derived files, file modes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.index import lexical as lexmod
from mem.format.index.common import LEXICAL_POINTER
from mem.format.index.derived import build_if_absent, rebuild
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store
from tests.conftest import MEM_EXE

WORD = "quillmarrow"


def _fill(store: Store, n: int = 6) -> None:
    with store.batch():
        for i in range(n):
            store.add(f"{WORD} note {i} about the lighthouse", scope="default" if i % 2 else "work")


def _generation(store: Store) -> str:
    return str(json.loads((store.index_dir / LEXICAL_POINTER).read_text("utf-8"))["generation"])


def _index_dirs(store: Store) -> list[str]:
    return sorted(p.name for p in store.index_dir.iterdir() if p.is_dir())


# -- 1. concurrent swaps and first builds ----------------------------------------------------


def test_search_reopens_after_a_swap_between_open_and_query(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A generation swapped in (and the old one deleted) while a search holds the old one."""
    _fill(store)
    rebuild(store, lexical=True, vectors=False)
    real_search = lexmod.LexicalIndex.search
    swaps: list[str] = []

    def search_after_swap(self: lexmod.LexicalIndex, *a: object, **kw: object) -> object:
        if not swaps:  # another process rebuilds right now: this generation's files vanish
            swaps.append(self.generation)
            rebuild(Store.open(store.root), lexical=True, vectors=False)
            self.close()  # what a reader sees: its generation directory is gone
        return real_search(self, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(lexmod.LexicalIndex, "search", search_after_swap)
    with open_searcher(store.root) as s:
        for mode in ("lexical", "hybrid"):
            res = s.search(WORD, mode=mode, k=20)
            assert len(res.hits) == 6, mode
    assert swaps and swaps[0] != _generation(store)


def test_damage_with_unchanged_pointer_is_not_retried_forever(store: Store) -> None:
    """A real error (the pointer did not change) is raised at once, exit 9, not retried."""
    from mem.format.base.errors import IndexUnavailableError

    _fill(store)
    rebuild(store, lexical=True, vectors=False)
    gen = store.index_dir / _generation(store)
    (gen / "meta.json").unlink()
    with open_searcher(store.root) as s, pytest.raises(IndexUnavailableError) as ei:
        s.search(WORD, mode="lexical")
    assert "mem rebuild" in str(ei.value) and str(gen) in str(ei.value)


def test_first_build_rechecks_the_pointer_under_the_lock(store: Store) -> None:
    """A process that saw no index waits for the lock; meanwhile another built one: it is kept."""
    _fill(store)
    assert build_if_absent(store) is True
    gen = _generation(store)
    assert build_if_absent(store) is False  # what the second of two first searches now does
    assert _generation(store) == gen
    assert _index_dirs(store) == [gen]


def test_first_searches_at_once_all_answer(store: Store) -> None:
    """Four `mem search` processes on a store with no index: one builds, all answer in full."""
    _fill(store)
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env.update(MEM_EMBEDDER="hashing", NO_COLOR="1", MEM_LOCK_TIMEOUT="120")
    procs = [
        subprocess.Popen([MEM_EXE, "--store", str(store.root), "search", "--json", "-k", "20", WORD],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         stdin=subprocess.DEVNULL)
        for _ in range(4)
    ]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert len(json.loads(out)["hits"]) == 6
    dirs = _index_dirs(store)
    assert [d for d in dirs if d.startswith("lexical-")] == [_generation(store)]
    assert not [d for d in dirs if d.startswith("build-")]


# -- 3. a damaged tantivy segment ------------------------------------------------------------


def _mem(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env.update(MEM_EMBEDDER="hashing", NO_COLOR="1")
    return subprocess.run([MEM_EXE, *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("suffix", [".pos", ".idx", ".store"])
def test_deleted_segment_file_is_exit_9_naming_the_folder_and_fix(store: Store, suffix: str) -> None:
    _fill(store)
    rebuild(store, lexical=True, vectors=False)
    gen = store.index_dir / _generation(store)
    victims = sorted(p for p in gen.iterdir() if p.name.endswith(suffix))
    assert victims
    for p in victims:
        p.unlink()
    for mode in ("lexical", "hybrid"):
        r = _mem("--store", str(store.root), "search", "--mode", mode, WORD)
        assert "Traceback" not in r.stderr
        assert r.returncode == 9, r.stderr
        assert str(gen) in r.stderr and "mem rebuild --lexical" in r.stderr, r.stderr
    assert r.stdout == ""
    assert _mem("--store", str(store.root), "rebuild", "--lexical").returncode == 0
    r = _mem("--store", str(store.root), "search", "--json", "-k", "20", "--mode", "lexical", WORD)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["hits"]) == 6


# -- 2. rebuild and compact never trust a damaged derived file -------------------------------


def _vec_gen(store: Store) -> Path:
    m = json.loads((store.index_dir / "vectors.json").read_text("utf-8"))
    return store.index_dir / str(m["generation"])


def _damage(store: Store, what: str) -> None:
    if what == "vectors.json garbage":
        (store.index_dir / "vectors.json").write_bytes(b"\x00garbage{")
    elif what == "vectors.json wrong kind":
        (store.index_dir / "vectors.json").write_text('{"kind": "something else"}', "utf-8")
    elif what == "lexical.json garbage":
        (store.index_dir / LEXICAL_POINTER).write_bytes(b"\xff\xfe")
    elif what == ".rows zeroed":
        for p in _vec_gen(store).glob("*.rows"):
            p.write_bytes(b"\0" * 32)
    elif what == ".npy truncated":
        for p in _vec_gen(store).glob("*.npy"):
            p.write_bytes(p.read_bytes()[:40])
    elif what == "vectors.db zeroed":
        p = _vec_gen(store) / "vectors.db"
        p.write_bytes(b"\0" * p.stat().st_size)
    elif what == ".npy rows not unit length":
        import numpy as np

        for p in _vec_gen(store).glob("*.npy"):
            m = np.load(p)
            np.save(p, m * 3.0)
    else:
        raise AssertionError(what)


DAMAGES = ["vectors.json garbage", "vectors.json wrong kind", "lexical.json garbage", ".rows zeroed",
           ".npy truncated", "vectors.db zeroed"]


@pytest.mark.parametrize("what", DAMAGES)
def test_rebuild_repairs_any_damaged_derived_file(store: Store, what: str) -> None:
    _fill(store)
    rebuild(store)
    _damage(store, what)
    r = _mem("--store", str(store.root), "rebuild", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["records"] == 6 and out["vectors"]["embedded"] == 6
    live = {json.loads((store.index_dir / n).read_text("utf-8"))["generation"]
            for n in ("lexical.json", "vectors.json")}
    assert set(_index_dirs(store)) == live  # the damaged generations were deleted
    for mode in ("lexical", "vector", "hybrid"):
        r = _mem("--store", str(store.root), "search", "--json", "-k", "20", "--mode", mode, WORD)
        assert r.returncode == 0, (mode, r.stderr)
        res = json.loads(r.stdout)
        assert len(res["hits"]) == 6 and res["warnings"] == [], (mode, res)


def test_vectors_only_rebuild_with_damaged_lexical_pointer(store: Store) -> None:
    _fill(store)
    rebuild(store)
    _damage(store, "lexical.json garbage")
    built = rebuild(Store.open(store.root), lexical=False, vectors=True)
    assert built.embedded == 6


@pytest.mark.parametrize("what", [".rows zeroed", "vectors.db zeroed", ".npy rows not unit length"])
def test_compact_reuses_no_vector_from_a_damaged_index(store: Store, what: str) -> None:
    from mem.format.index.common import remove_tree
    from mem.format.index.derived import build_indexes, new_build_dir

    _fill(store)
    rebuild(store)
    _damage(store, what)
    dest = new_build_dir(store.index_dir)
    try:
        built = build_indexes(store, dest, lexical=False, vectors=True, reuse_vectors=True)
    finally:
        remove_tree(dest)
    assert built.reused == 0 and built.embedded == 6


# -- 4. index files get the store's modes ----------------------------------------------------


def _modes(root: Path) -> dict[str, int]:
    import stat

    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            out[str(p.relative_to(root.parent))] = stat.S_IMODE(p.lstat().st_mode)
    out[root.name] = stat.S_IMODE(root.lstat().st_mode)
    return out


@pytest.mark.parametrize(("config", "file_mode", "dir_mode"),
                         [(None, 0o600, 0o700), (("0640", "0750"), 0o640, 0o750)],
                         ids=["default-owner-only", "configured-0640"])
def test_every_index_file_has_the_store_modes(store: Store, config: tuple[str, str] | None,
                                              file_mode: int, dir_mode: int) -> None:
    """Under a permissive umask, after a cold-start search, rebuild, add, forget, search and
    compact, every file under .mem/index has file_mode and every folder dir_mode."""
    if config is not None:
        with open(store.root / "config.toml", "a", encoding="utf-8") as f:
            f.write(f'\n[permissions]\nfile_mode = "{config[0]}"\ndir_mode = "{config[1]}"\n')
    root = str(store.root)
    old = os.umask(0o022)
    seen: list[str] = []
    try:
        _fill(store)
        steps = [("search", WORD), ("rebuild",), ("add", f"{WORD} added later"), ("search", WORD),
                 ("forget", "--yes", "__ID__"), ("search", "--mode", "lexical", WORD), ("compact",),
                 ("add", f"{WORD} after compact"), ("search", WORD)]
        rid = ""
        for step in steps:
            args = [rid if a == "__ID__" else a for a in step]
            r = _mem("--store", root, *args)
            assert r.returncode == 0, (step, r.stderr)
            if step[0] == "add":
                rid = r.stdout.strip()
            modes = _modes(store.index_dir)
            seen += list(modes)
            bad = {p: oct(m) for p, m in modes.items()
                   if m != (dir_mode if (store.index_dir.parent / p).is_dir() else file_mode)}
            assert bad == {}, (step, bad)
    finally:
        os.umask(old)
    assert any(p.endswith(".pos") for p in seen) and any(p.endswith(".npy") for p in seen)
    assert any(p.endswith("state.db") for p in seen) and any(p.endswith("vectors.db") for p in seen)


# -- the rows files: read by offset when written as build_vectors writes them ---------------------

_ID = st.text(st.sampled_from("0123456789ABCDEFGHJKMNPQRSTVWXYZ"), min_size=26, max_size=26)
_DIGEST = st.text(st.sampled_from("0123456789abcdef"), min_size=64, max_size=64).map(lambda h: "sha256:" + h)


def _as_json(data: bytes) -> object:
    got = json.loads(data.decode("utf-8"))
    assert isinstance(got, list) and all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)
                                         for r in got)
    return [tuple(r) for r in got]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_ID, _DIGEST), max_size=40))
def test_rows_read_by_offset_are_the_json_rows(rows: list[tuple[str, str]]) -> None:
    from mem.format.index import vecmain
    from mem.format.index.vectors import FixedRows, read_rows

    data = json.dumps([[i, d] for i, d in rows]).encode()  # as build_vectors writes them
    with mock.patch.object(vecmain, "_FIXED_ROWS_MIN", 1):  # read by offset, however few
        got = read_rows(data)
    assert isinstance(got, FixedRows) == bool(rows)
    small = read_rows(data)  # fewer rows than _FIXED_ROWS_MIN: parsed as JSON, the same rows
    assert not isinstance(small, FixedRows) and list(small) == rows
    assert list(got) == rows and len(got) == len(rows) and [got[i] for i in range(len(rows))] == rows
    if rows:
        assert got.ids() == [i for i, _d in rows] and got[-1] == rows[-1]  # type: ignore[union-attr]
        with pytest.raises(IndexError):
            got[len(rows)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_ID, _DIGEST), min_size=1, max_size=6), st.data())
def test_rows_damaged_anywhere_read_as_json_reads_them_or_fail(rows: list[tuple[str, str]], data: st.DataObject) -> None:
    """A byte changed (or cut out) anywhere: the fast reading gives what json gives, or the
    file is refused as json would refuse it; never other rows."""
    from mem.format.index import vecmain
    from mem.format.index.vectors import read_rows

    raw = bytearray(json.dumps([[i, d] for i, d in rows]).encode())
    at = data.draw(st.integers(0, len(raw) - 1))
    if data.draw(st.booleans()):
        raw[at] = data.draw(st.sampled_from([*b'"\\[],: \x00\x1f\x7fAz0', 0xC3, 0xA9]))
    else:
        del raw[at]
    try:
        want = _as_json(bytes(raw))
    except (ValueError, TypeError, AssertionError, UnicodeDecodeError):
        with pytest.raises((ValueError, TypeError)), mock.patch.object(vecmain, "_FIXED_ROWS_MIN", 1):
            read_rows(bytes(raw))
        return
    with mock.patch.object(vecmain, "_FIXED_ROWS_MIN", 1):  # read by offset, however few
        assert list(read_rows(bytes(raw))) == want


def test_a_rows_file_of_another_layout_is_parsed() -> None:
    from mem.format.index.vectors import FixedRows, read_rows

    pretty = json.dumps([["01JD3Z8Q4T6W0000000000000A", "sha256:" + "a" * 64]], indent=1).encode()
    other_digest = json.dumps([["01JD3Z8Q4T6W0000000000000A", "md5:" + "a" * 32]]).encode()
    for data in (pretty, other_digest):
        got = read_rows(data)
        assert not isinstance(got, FixedRows) and list(got) == [tuple(r) for r in json.loads(data)]
    for bad in (b'{"a": 1}', b'[["x"]]', b'[[1, "x"]]', b'["ab"]'):
        with pytest.raises((ValueError, TypeError)):
            read_rows(bad)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_ID, _DIGEST), min_size=1, max_size=30), st.booleans(), st.lists(_ID, max_size=5))
def test_row_lookup_by_id_is_the_maps(rows: list[tuple[str, str]], in_order: bool, others: list[str]) -> None:
    """A scope's lookup by id (binary search over sorted rows read by offset, then the id ->
    row map) gives what the map gives: the last row of an id, None for an id without one."""
    import tempfile

    from mem.format.index import vecmain

    if in_order:
        rows = sorted(rows)
    want = {rid: i for i, (rid, _d) in enumerate(rows)}
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(vecmain, "_FIXED_ROWS_MIN", 1):
        Path(tmp, "s.rows").write_text(json.dumps([[i, d] for i, d in rows]), "utf-8")
        m = vecmain.ScopeMain(Path(tmp), "s")  # rows read by offset, however few
        asked = [rid for rid, _d in rows] + others + ["", "x" * 26, "é" * 13, rows[0][0].lower()]
        assert [m.find(rid) for rid in asked] == [want.get(rid) for rid in asked]


def test_row_lookup_builds_the_map_after_many_searches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mem.format.index import vecmain

    monkeypatch.setattr(vecmain, "_FIND_BEFORE_POS", 3)
    monkeypatch.setattr(vecmain, "_FIXED_ROWS_MIN", 1)  # rows read by offset, however few
    ids = [f"01JD3Z8Q4T6W00000000000{i:03d}" for i in range(5)]
    (tmp_path / "s.rows").write_text(json.dumps([[i, "sha256:" + "a" * 64] for i in ids]), "utf-8")
    m = vecmain.ScopeMain(tmp_path, "s")
    assert [m.find(i) for i in ids[:3]] == [0, 1, 2] and m._pos is None  # binary searches
    assert m.find(ids[4]) == 4 and m._pos is not None and m.find("nope") is None  # then the map


def test_pointer_cache_gives_what_the_file_says(tmp_path: Path) -> None:
    """A long-lived searcher's pointer reads (``PointerCache``): the manifest of the bytes on disk
    at every read, a replaced file seen at once (even of the same size, within the same clock
    tick), a copy each time, and a damaged file an error as ``read_pointer`` gives."""
    from mem.format.base.errors import IndexUnavailableError
    from mem.format.index.common import PointerCache, read_pointer, write_pointer

    (tmp_path / "gen-aaaa").mkdir()
    (tmp_path / "gen-bbbb").mkdir()
    cache = PointerCache()
    assert cache.read(tmp_path, "p.json", "k") is None and cache.generation(tmp_path, "p.json") is None
    for gen in ("gen-aaaa", "gen-bbbb", "gen-aaaa"):  # same size each time, written back to back
        write_pointer(tmp_path, "p.json", {"kind": "k", "version": 1, "generation": gen, "scopes": {"a": 1}})
        got = cache.read(tmp_path, "p.json", "k")
        assert got == read_pointer(tmp_path, "p.json", "k") and got is not None and got["generation"] == gen
        assert cache.generation(tmp_path, "p.json") == gen
        got["generation"] = "changed by a caller"
        again = cache.read(tmp_path, "p.json", "k")
        assert again is not None and again["generation"] == gen
    (tmp_path / "p.json").write_text("{not json")
    with pytest.raises(IndexUnavailableError):
        cache.read(tmp_path, "p.json", "k")
    assert cache.generation(tmp_path, "p.json") is None
    write_pointer(tmp_path, "p.json", {"kind": "k", "version": 1, "generation": "gen-cccc"})
    with pytest.raises(IndexUnavailableError, match="missing"):  # a generation folder that is gone
        cache.read(tmp_path, "p.json", "k")
