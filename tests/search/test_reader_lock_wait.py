"""A search never waits on another process's writer (issue 21): with the lock held elsewhere and
an outside change for it to index, it answers from the index as it is and says so."""

from __future__ import annotations

from pathlib import Path

from mem.format.base.lock import WriterLock
from mem.format.index.derived import build_if_absent
from mem.format.model.record import dump_record, make_record
from mem.format.store.store import Store
from tests.conftest import run_mem


def test_a_search_answers_while_a_writer_holds_the_lock(store: Store) -> None:
    env = {"MEM_EMBEDDER": "hashing", "MEM_LOCK_TIMEOUT": "600"}
    store.add("The umbrella is in the blue cupboard.", scope="home")
    build_if_absent(store)
    assert run_mem("--store", str(store.root), "search", "umbrella", "--json", env=env).returncode == 0
    # an outside change the search would index if it could take the lock
    rec = make_record(scope="home", kind="note", content="A second umbrella hangs by the door.")
    (store.root / "records" / "home" / f"{rec.id}.md").write_text(dump_record(rec))
    other = WriterLock(store.root / ".mem" / "lock", timeout=1)  # another process's, in effect
    with other:
        r = run_mem("--store", str(store.root), "search", "umbrella", "--json", env=env, timeout=300)
        assert other.held  # it answered while the writer still held the lock: it did not wait for it
    assert r.returncode == 0, r.stderr
    assert "locked by a writer" in r.stderr
    assert "umbrella" in r.stdout


def test_the_reader_limit_is_this_threads_and_never_longer(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "lock", timeout=7)
    with lock.waiting_at_most(0.5):
        assert lock._limit.seconds == 0.5
        with lock.waiting_at_most(3):
            assert lock._limit.seconds == 0.5  # a nested, longer wait does not lengthen it
        assert lock._limit.seconds == 0.5
    assert lock._limit.seconds is None
