"""A rebuild reads and parses the record files in forked worker processes on a large store: the
index must be the one a single process builds (same documents, fields, state rows, bytes), a bad
file must be reported by name as before, small stores and platforms without fork stay serial,
and a killed rebuild leaves no worker behind holding the writer lock."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.base import workers
from mem.format.base.errors import RecordParseError
from mem.format.index import reading as idxmod
from mem.format.index.common import LEXICAL_POINTER, remove_tree
from mem.format.index.derived import build_indexes, new_build_dir, rebuild
from mem.format.index.lexical import DocFields, fast_fields
from mem.format.model.record import dump_record, make_record, parse_record
from mem.format.rules import recordtext
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store

needs_fork = pytest.mark.skipif(not workers.can_fork(), reason="no fork on this platform")
WORDS = ["harbour", "lantern", "copper", "meadow", "violet", "granite", "orchard", "falcon", "ember", "quartz"]


def _fill(store: Store, n: int = 300) -> None:
    """Records of every shape the index keeps: scopes, kinds, statuses, tags, validity times,
    confidences, non-ASCII text, a superseded record, a forgotten one."""
    with store.batch():
        for i in range(n):
            store.add(
                f"{WORDS[i % 10]} {WORDS[(i * 7) % 10]} note {i} — café {i % 13}",
                scope=("ana", "bob", "team.x")[i % 3],
                kind=("fact", "note", "preference")[i % 3],
                status="candidate" if i % 11 == 0 else "active",
                tags=[t for t, on in (("w", i % 2 == 0), ("x:y", i % 5 == 0)) if on],
                confidence=(1.0, 0.5, 0.25)[i % 3],
                valid_from="2024-02-03T04:05:06.007Z" if i % 4 == 0 else None,
                valid_to="2030-01-01T00:00:00.000Z" if i % 8 == 0 else None,
            )
    first = next(iter(store.iter_records(["ana"])))
    store.supersede(first.id, "the harbour lantern, restated")
    gone = next(iter(store.iter_records(["bob"])))
    store.forget([gone.id], reason="test")
    # a record the fast scanner does not read (CRLF line ends): the full parser indexes it
    crlf = make_record(scope="bob", kind="note", content="copper kettle by the window", tags=["crlf"])
    store.record_path("bob", crlf.id).write_bytes(dump_record(crlf).replace("\n", "\r\n").encode("utf-8"))


def _build(store: Store, workers_: int | None) -> tuple[dict[str, object], Path]:
    dest = new_build_dir(store.index_dir)
    built = build_indexes(store, dest, lexical=True, vectors=False, workers=workers_)
    assert built.lexical is not None
    return built.to_dict() | {"docs": built.lexical["docs"], "scopes": built.lexical["scopes"]}, \
        dest / str(built.lexical["generation"])


def _contents(gen: Path) -> dict[str, object]:
    """What a generation holds: its tantivy files by extension (bytes), its state rows."""
    import sqlite3

    out: dict[str, object] = {}
    for p in gen.iterdir():
        if "." in p.name and not p.name.startswith((".", "state.db", "meta.json")):
            out[p.name.rsplit(".", 1)[1]] = hashlib.sha256(p.read_bytes()).hexdigest()
    db = sqlite3.connect(gen / "state.db")
    try:
        out["rows"] = db.execute("SELECT id, scope, mtime_ns, size, digest, seq FROM records ORDER BY seq").fetchall()
    finally:
        db.close()
    return out


@needs_fork
def test_parallel_build_equals_serial_build(store: Store) -> None:
    _fill(store)
    one, gen1 = _build(store, 1)
    two, gen2 = _build(store, 2)
    strip = {"lexical"}  # generation names differ
    assert {k: v for k, v in two.items() if k not in strip} == {k: v for k, v in one.items() if k not in strip}
    assert one["records"] == one["docs"] == 300 - 1 + 1 + 1  # one forgotten, a successor, the CRLF file
    a, b = _contents(gen1), _contents(gen2)
    assert a == b and {"term", "idx", "pos", "store", "fast", "fieldnorm"} <= set(a)
    # and every document is the record as the full parser reads it
    rows = a["rows"]
    assert isinstance(rows, list) and len(rows) == one["docs"]
    by_key = {(r[1], r[0]): r for r in rows}
    for rec in store.iter_records():
        f = DocFields.from_record(rec)
        assert by_key[(rec.scope, rec.id)][4] == f.digest
    remove_tree(gen1.parent)
    remove_tree(gen2.parent)


@needs_fork
def test_parallel_rebuild_searches_like_serial(store: Store) -> None:
    _fill(store)
    results = []
    for n in (1, 2):
        rebuild(store, lexical=True, vectors=False, workers=n)
        with open_searcher(store.root) as s:
            got = []
            for q in (*WORDS, "café", "copper kettle"):
                for kw in ({}, {"tags": ["w"]}, {"kinds": ["note"]}, {"statuses": ["candidate"]},
                           {"scopes": ["team.x"]}, {"as_of": datetime(2025, 1, 1, tzinfo=UTC)}):
                    res = s.search(q, mode="lexical", k=50, **kw)  # type: ignore[arg-type]
                    got.append([(q, str(kw), h.id, h.score) for h in res.hits])
        results.append(got)
    for a, b in zip(results[0], results[1], strict=True):  # scores: a prior ages with the clock
        assert [h[:3] for h in a] == [h[:3] for h in b]
        assert [h[3] for h in a] == pytest.approx([h[3] for h in b], rel=1e-5)
    assert any(results[0])


def _damage(store: Store) -> list[Path]:
    recs = [r for r in store.iter_records(["ana"])][:2]
    bad = store.record_path("ana", recs[0].id)
    bad.write_bytes(b"---\nid: \xff\n---\nnot a record\n")
    moved = store.record_path("ana", recs[1].id)
    other = make_record(scope="bob", kind="note", content="a record in the wrong folder")
    moved.write_text(dump_record(other), "utf-8")
    return [bad, moved]


@needs_fork
def test_a_bad_record_is_reported_by_name_in_parallel(store: Store) -> None:
    _fill(store, 60)
    bad, moved = _damage(store)
    serial = rebuild(store, lexical=True, vectors=False, workers=1)
    parallel = rebuild(store, lexical=True, vectors=False, workers=2)
    assert parallel.skipped == serial.skipped and len(serial.skipped) == 2
    assert serial.records == parallel.records == 60 - 1 + 1 + 1 - 2
    first, second = serial.skipped
    assert first.startswith(f"{bad}:") and "not valid UTF-8" in first
    assert second.startswith(f"{moved}: ") and "file name and frontmatter disagree" in second


@needs_fork
def test_the_cli_reports_a_bad_record_by_name_with_the_pool(store: Store, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`mem rebuild --lexical` (in this process), the pool chosen automatically."""
    from mem.cli.main import main

    _fill(store, 40)
    bad, moved = _damage(store)
    monkeypatch.setattr(idxmod, "POOL_MIN_RECORDS", 10)
    used: list[int] = []
    real = workers.worker_pool

    def spy(job: object, n: int, **kw: object) -> object:
        used.append(n)
        return real(job, n, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(workers, "worker_pool", spy)
    assert main(["--store", str(store.root), "rebuild", "--lexical", "--json"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["records"] == 40 - 1 + 1 + 1 - 2 and len(out["skipped"]) == 2
    assert out["skipped"][0].startswith(f"{bad}:") and out["skipped"][1].startswith(f"{moved}:")
    assert f"skipped (unreadable): {bad}:" in cap.err
    assert used and (used[0] > 1 or workers.cpus() == 1 or workers.threads() > 1)


def test_small_stores_and_no_fork_stay_serial(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(store, 30)
    expected = _contents(_build(store, 1)[1])
    # a small store: no pool at all (a pool that started would fail here)
    import concurrent.futures

    def no_pool(*a: object, **k: object) -> object:
        raise AssertionError("a pool was started")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    assert workers.pool_size(30, None, idxmod.POOL_MIN_RECORDS) == 1
    assert _contents(_build(store, None)[1]) == expected  # None: choose (below POOL_MIN_RECORDS)
    # no fork on this platform: even a forced pool reads in this process
    monkeypatch.setattr(workers.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert workers.pool_size(10**6, 4, 1) == 1
    assert _contents(_build(store, 2)[1]) == expected


def test_the_automatic_choice() -> None:
    if workers.can_fork() and workers.threads() == 1:
        assert workers.pool_size(idxmod.POOL_MIN_RECORDS, None, idxmod.POOL_MIN_RECORDS) == workers.cpus()
    assert workers.pool_size(idxmod.POOL_MIN_RECORDS - 1, None, idxmod.POOL_MIN_RECORDS) == 1
    assert workers.pool_size(0, 4, 1) == 1
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:  # another thread may hold a lock a forked child would inherit: no fork
        assert workers.threads() > 1 and workers.pool_size(10**6, None, 1) == 1
        assert workers.pool_size(10**6, 2, 1) == 2  # unless asked for
    finally:
        stop.set()
        t.join()
    if sys.platform.startswith("linux"):  # threads Python does not know of count too
        # threads left by earlier tests (tantivy, onnxruntime) may end at any moment: compare
        # with a count that held still across the call
        for _ in range(100):
            before = len(os.listdir("/proc/self/task"))
            seen = workers.threads()
            if len(os.listdir("/proc/self/task")) == before:
                break
        assert seen == before


def _fd_is_open(fd: int, task: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@needs_fork
def test_workers_close_the_descriptors_they_are_told_to(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        with workers.worker_pool(fd, 2, close_fds=(fd,)) as pool:
            assert list(pool.map(_fd_is_open, range(4))) == [False] * 4
        with workers.worker_pool(fd, 2) as pool:
            assert list(pool.map(_fd_is_open, range(2))) == [True] * 2
    finally:
        os.close(fd)


_KILLED = """
import os, sys, time
from mem.format.index import derived as index
from mem.format.index import reading
from mem.format.store.store import Store

real = reading._read_task

def slow(job, task):
    os.write(1, f"worker {os.getpid()}\\n".encode())  # one write: two workers' lines never interleave
    time.sleep(0.3)
    return real(job, task)

reading._read_task = slow
reading.READ_CHUNK = 5
index.rebuild(Store.open(sys.argv[1]), lexical=True, vectors=False, workers=2)
"""


@needs_fork
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers die with their parent on Linux")
def test_a_killed_rebuild_leaves_no_worker_holding_the_lock(store: Store) -> None:
    _fill(store, 60)
    rebuild(store, lexical=True, vectors=False)
    before = json.loads((store.index_dir / LEXICAL_POINTER).read_text("utf-8"))["generation"]
    p = subprocess.Popen([sys.executable, "-c", _KILLED, str(store.root)], stdout=subprocess.PIPE, text=True,
                         stderr=subprocess.PIPE, env={**os.environ, "MEM_EMBEDDER": "hashing"})
    assert p.stdout is not None and p.stderr is not None
    lines = [p.stdout.readline() for _ in range(2)]
    if not all(line.startswith("worker ") for line in lines):
        p.kill()
        raise AssertionError(f"the rebuild did not start its workers: {lines!r}, stderr: {p.stderr.read()!r}")
    pids = {int(line.split()[1]) for line in lines}
    assert p.pid not in pids
    p.send_signal(signal.SIGKILL)
    p.wait(10)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{w}").exists() and "Z" not in _state(w) for w in pids):
        assert time.monotonic() < deadline, "a worker outlived its killed parent"
        time.sleep(0.05)
    s = Store.open(store.root, lock_timeout=2)
    with s.lock:  # not held by an orphan
        pass
    assert json.loads((store.index_dir / LEXICAL_POINTER).read_text("utf-8"))["generation"] == before
    with open_searcher(store.root) as srch:
        assert srch.search("harbour", mode="lexical", k=5).hits
    assert rebuild(s, lexical=True, vectors=False).records == 60 - 1 + 1 + 1


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


# -- fast_fields (the rules layer's canonical scan) reads every text as the full reader does ---

_ts = st.sampled_from([None, "2024-02-03T04:05:06.007Z", "2025-12-31T23:59:59.999Z"])


@st.composite
def _record_texts(draw: st.DrawFn) -> str:
    status = draw(st.sampled_from(["active", "candidate", "rejected", "superseded"]))
    ids = ["01JGZ00000000000000000000" + c for c in "ABCDEFGH"]
    rec = make_record(
        id=ids[0], scope=draw(st.sampled_from(["a", "alice", "x.y", "team_1"])),
        kind=draw(st.sampled_from(["fact", "note", "x_1"])),
        content=draw(st.text(min_size=1, max_size=60).filter(lambda t: recordtext.canonical_body(t).strip())),  # a BOM alone is empty
        status=status, confidence=draw(st.sampled_from([1.0, 0.5, 0.25])),
        tags=draw(st.lists(st.sampled_from(["a", "b:c", "d-e", "ü"]), max_size=2, unique=True)),
        valid_from=draw(st.sampled_from([None, "2024-02-03T04:05:06.007Z"])),
        valid_to=draw(st.sampled_from([None, "2025-12-31T23:59:59.999Z"])), updated_at=draw(_ts),
        superseded_by=ids[5] if status == "superseded" else None,
        derived_from=draw(st.lists(st.sampled_from(ids[4:8]), max_size=2, unique=True)),
        source=draw(st.one_of(st.none(), st.dictionaries(
            st.sampled_from(["system", "original_id", "id", "tags", "speaker", "author"]),
            st.one_of(st.text(max_size=12), st.integers()), max_size=3))),
        extra=draw(st.one_of(st.none(), st.just({"x_ext": "v"}), st.just({"tags_x": "1"}))),
    )
    return dump_record(rec)


_edits = st.lists(
    st.tuples(st.integers(0, 10_000), st.sampled_from(
        ["", "\n", " ", ": ", "---\n", "x", '"', "tags: []\n", "id: x\n", "valid_to\n", "kind", "\r"])),
    max_size=3,
)


def _by_the_reader(raw: bytes) -> object:
    """The index fields of the record the full reader reads from ``raw`` (None: it refuses it)."""
    try:
        return DocFields.from_record(parse_record(raw.decode("utf-8")))
    except (RecordParseError, UnicodeDecodeError):
        return None


@settings(max_examples=500, deadline=None)
@given(_record_texts(), _edits, st.integers(0, 3))
def test_canonical_scan_reads_like_the_full_reader(text: str, edits: list[tuple[int, str]], drop: int) -> None:
    raw = text.encode("utf-8")
    assert fast_fields(raw) == _by_the_reader(raw) is not None
    if "x_ext" not in text and "tags_x" not in text:
        assert recordtext.canonical_pattern().match(text)
    for at, ins in edits:
        at %= len(text) + 1
        text = text[:at] + ins + text[at + 1:]
    lines = text.split("\n")
    if drop and len(lines) > drop:
        del lines[drop]
    raw = "\n".join(lines).encode("utf-8")
    got = fast_fields(raw)
    assert got is None or got == _by_the_reader(raw)
