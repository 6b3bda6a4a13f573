"""A search while another process writes (issue 21): it never waits on the writer, never reads
the records the writer is writing, and says how many records it cannot find yet; and a query
whose embedding fails answers from the lexical arm (hybrid) or fails with exit 10 (vector)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import mem.format.index.staleness as staleness_mod
from mem.format.base.errors import EmbedderUnavailableError, ExitCode
from mem.format.base.lock import Claim, WriterLock
from mem.format.embed.hashing import HashingEmbedder
from mem.format.index.common import LEXICAL_POINTER
from mem.format.index.derived import READ_BEFORE_LOCK, attach, build_if_absent, rebuild
from mem.format.model.record import dump_record, make_record
from mem.format.search.engine import Searcher, open_searcher
from mem.format.store.store import Store
from tests.conftest import run_mem

#: the environment of a `mem search` that would hang (past the test's timeout) on a lock wait
#: without the reader's bound
CLI_ENV = {"MEM_EMBEDDER": "hashing", "MEM_LOCK_TIMEOUT": "600"}


def other_writer(store: Store) -> WriterLock:
    """The writer lock as another process holds it (its own open file: flock conflicts)."""
    return WriterLock(store.root / ".mem" / "lock", timeout=1)


def write_around(store: Store, scope: str, texts: Sequence[str]) -> list[str]:
    """Record files as a writer in another process writes them (an import's batch: no journal
    entry until its end); their ids."""
    folder = store.root / "records" / scope
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for t in texts:
        rec = make_record(scope=scope, kind="note", content=t)
        (folder / f"{rec.id}.md").write_text(dump_record(rec))
        out.append(rec.id)
    return out


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The record files the index reads (staleness._read_fields: a refresh's plan, the journal)."""
    seen: list[str] = []
    real = staleness_mod._read_fields

    def counted(path: Path, scope: str, rid: str) -> Any:
        seen.append(rid)
        return real(path, scope, rid)

    monkeypatch.setattr(staleness_mod, "_read_fields", counted)
    import mem.format.index.session as session_mod

    monkeypatch.setattr(session_mod, "_read_fields", counted)
    return seen


TEXTS = [f"Imported note {i}: the parcel for order {i} waits at the depot" for i in range(150)]


def test_no_index_yet_and_a_writer_holds_the_lock(store: Store, reads: list[str]) -> None:
    """A new store whose first import is writing: no index, the lock held. The search builds
    nothing, reads no record, and says how many records it cannot search (every mode)."""
    attach(store)
    write_around(store, "inbox", TEXTS)
    assert not (store.index_dir / LEXICAL_POINTER).exists()
    with other_writer(store), Searcher(store, long_lived=False) as s:
        for mode in ("hybrid", "lexical", "vector"):
            res = s.search("parcel depot", mode=mode)
            assert res.hits == []
            assert res.unindexed == len(TEXTS), mode
            assert res.to_dict()["unindexed"] == len(TEXTS)
            assert any("no search index yet" in w and f"its {len(TEXTS)} records" in w for w in res.warnings)
    assert reads == []
    assert not (store.index_dir / LEXICAL_POINTER).exists()
    # the writer is done: the next search builds the index and finds them
    res = open_searcher(store, long_lived=False).search("parcel depot", mode="hybrid")
    assert res.unindexed == 0 and "unindexed" not in res.to_dict() and len(res.hits) == 10


def _first_build_claim(store: Store) -> Claim:
    """The claim another search holds while it builds the store's first index (its own open file)."""
    from mem.format.rules.layout import FIRST_BUILD_CLAIM

    return Claim(store.local_dir / FIRST_BUILD_CLAIM)


def test_a_first_search_waits_for_another_searchs_first_build(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another search holds the first-build claim and the writer lock, longer than a search waits
    for a writer (READER_LOCK_WAIT): this search waits for that build, then answers from its index
    in full (spec/index.md, "First build"; under load a build outlasted the 0.5 s and the other
    first searches answered with no hits: test_first_searches_at_once_all_answer)."""
    import threading

    from mem.format.base.lock import Claim as RealClaim

    attach(store)
    write_around(store, "inbox", TEXTS[:6])
    waiting = threading.Event()
    real_wait = RealClaim.wait_for_holder

    def wait_for_holder(self: RealClaim, seconds: float) -> bool:
        waiting.set()
        return real_wait(self, seconds)

    monkeypatch.setattr(RealClaim, "wait_for_holder", wait_for_holder)
    claim = _first_build_claim(store)
    assert claim.take()
    got: list[Any] = []
    with other_writer(store) as lock:
        t = threading.Thread(target=lambda: got.append(Searcher(Store.open(store.root), long_lived=False)
                                                       .search("parcel depot", mode="lexical", k=20)))
        t.start()
        assert waiting.wait(120)  # the search found the claim held and waits for it
        lock.release()  # the other search builds its index (the writer lock is this process's now)
        built = Store.open(store.root)
        assert build_if_absent(built) is True
        claim.release()
    t.join(120)
    (res,) = got
    assert len(res.hits) == 6 and res.unindexed == 0
    assert not any("no search index yet" in w for w in res.warnings), res.warnings


def test_a_claim_held_past_the_lock_timeout_is_waited_for_no_longer(store: Store) -> None:
    """A first build that does not end (a search stopped while it holds the claim): the waiting
    search gives up after the writer lock's timeout and answers as when a writer holds the lock."""
    write_around(store, "inbox", TEXTS[:6])
    claim = _first_build_claim(store)
    assert claim.take()
    try:
        with other_writer(store):
            res = Searcher(Store.open(store.root, lock_timeout=0.2), long_lived=False).search(
                "parcel depot", mode="lexical")
    finally:
        claim.release()
    assert res.hits == [] and res.unindexed == 6
    assert any("no search index yet" in w for w in res.warnings)


def test_the_first_build_claim_is_free_after_the_search_that_built(store: Store) -> None:
    """The search that built lets the claim go (another process can take it), on success and
    when a writer kept it out."""
    write_around(store, "inbox", TEXTS[:6])
    with other_writer(store):
        assert Searcher(Store.open(store.root), long_lived=False).search("parcel depot", mode="lexical").hits == []
    c = _first_build_claim(store)
    assert c.take()
    c.release()
    assert len(Searcher(Store.open(store.root), long_lived=False).search("parcel depot", mode="lexical", k=20).hits) == 6
    assert c.take()
    c.release()


def test_a_claim_that_cannot_be_made_is_not_taken_and_not_waited_for(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``take`` is True only when this process holds the claim: where none can be made (its
    folder missing or read-only, the file a link, no ``flock``) it is False with ``unclaimable``,
    and ``wait_for_holder`` returns at once (nothing can hold it); held elsewhere, it is False
    and waited for."""
    import errno
    import fcntl

    nowhere = Claim(tmp_path / "missing" / "first-build")
    assert nowhere.take() is False and nowhere.unclaimable and not nowhere.held
    nowhere.release()  # nothing to let go
    assert nowhere.wait_for_holder(600) is True  # at once: no process can hold it
    link = tmp_path / "first-build"
    link.symlink_to(tmp_path / "elsewhere")
    linked = Claim(link)
    assert linked.take() is False and linked.unclaimable and not (tmp_path / "elsewhere").exists()

    def no_flock(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    with monkeypatch.context() as m:
        m.setattr(fcntl, "flock", no_flock)
        nfs = Claim(tmp_path / "nfs-claim")
        assert nfs.take() is False and nfs.unclaimable and not nfs.held
        assert nfs.wait_for_holder(600) is True
    mine = Claim(tmp_path / "claim")
    assert mine.take() is True and mine.held and not mine.unclaimable
    theirs = Claim(tmp_path / "claim")  # another open file: as another process
    assert theirs.take() is False and not theirs.unclaimable and not theirs.held
    assert theirs.wait_for_holder(0.05) is False
    mine.release()
    assert not mine.held and theirs.wait_for_holder(600) is True and not theirs.held


def test_a_store_where_no_claim_can_be_made_builds_its_first_index_unclaimed(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first search where ``.mem/first-build`` cannot be claimed builds the index itself and
    waits for no one: where the file system has no ``flock`` for it (it waited the writer lock's
    timeout for a holder that could not exist), and where it is a link (through the API and the
    real ``mem``)."""
    import errno
    import fcntl

    from mem.format.rules.layout import FIRST_BUILD_CLAIM

    write_around(store, "inbox", TEXTS[:6])
    claim_path = str(store.local_dir / FIRST_BUILD_CLAIM)
    waited: list[float] = []
    real_wait, real_flock = Claim.wait_for_holder, fcntl.flock

    def wait_for_holder(self: Claim, seconds: float) -> bool:
        waited.append(seconds)
        return real_wait(self, seconds)

    def flock(fd: int, op: int) -> None:  # no flock for the claim's file (the writer lock has it)
        if os.readlink(f"/proc/self/fd/{fd}") == claim_path:
            raise OSError(errno.ENOLCK, "No locks available")
        real_flock(fd, op)

    def first_search() -> Any:
        with Searcher(Store.open(store.root, lock_timeout=2), long_lived=False) as s:
            return s.search("parcel depot", mode="lexical", k=20)

    monkeypatch.setattr(Claim, "wait_for_holder", wait_for_holder)
    with monkeypatch.context() as m:
        m.setattr(fcntl, "flock", flock)
        res = first_search()
    assert len(res.hits) == 6 and res.warnings == [] and waited == []
    (store.index_dir / LEXICAL_POINTER).unlink()  # no index again
    os.unlink(claim_path)
    os.symlink(store.root / "nowhere", claim_path)
    res = first_search()
    assert len(res.hits) == 6 and res.warnings == [] and waited == []
    assert (store.index_dir / LEXICAL_POINTER).exists() and not (store.root / "nowhere").exists()
    (store.index_dir / LEXICAL_POINTER).unlink()  # no index again: the real mem's first search
    out = run_mem("--store", str(store.root), "search", "parcel depot", "--mode", "lexical", "-k", "20", "--json",
                  env=CLI_ENV)
    assert out.returncode == 0, out.stderr
    assert len(out.json()["hits"]) == 6


def test_an_index_and_a_writer_writing_many_records(store: Store, reads: list[str]) -> None:
    """The index exists; another process holds the lock and has written 150 records (not yet
    journaled). The search answers from the index as it is, reads at most READ_BEFORE_LOCK of
    the new files (not all 150), and counts them."""
    attach(store)
    old = store.add("The old parcel was returned to the sender", scope="inbox")
    build_if_absent(store)
    with Searcher(store, long_lived=False) as s:
        assert [h.id for h in s.search("parcel", mode="hybrid").hits] == [old.id]
        reads.clear()
        with other_writer(store):
            new = write_around(store, "inbox", TEXTS)
            res = s.search("parcel", mode="hybrid")
            assert [h.id for h in res.hits] == [old.id]  # the index as it was
            assert res.unindexed == len(TEXTS)
            assert any("locked by a writer" in w and f"{len(TEXTS)} records not searchable yet" in w
                       for w in res.warnings)
            assert 0 < len(reads) <= READ_BEFORE_LOCK
            assert s.search("parcel", mode="hybrid", scopes=["elsewhere"]).unindexed == 0  # counted per scope
        res = s.search("parcel depot", mode="hybrid", k=200)
    assert res.unindexed == 0 and not any("locked" in w for w in res.warnings)
    assert set(new) <= {h.id for h in res.hits}  # (most found by their words only: a backlog of vectors)


def test_journaled_writes_are_counted_while_locked(store: Store) -> None:
    """Records mem wrote (journaled, not yet applied): counted when the lock keeps them out; a
    forgotten one is never returned, and is not counted."""
    attach(store)
    first = store.add("Tea with Ana on Sunday", scope="ana")
    build_if_absent(store)
    assert open_searcher(store, long_lived=False).search("tea").hits
    added = [store.add(f"Tea number {i} with Bob", scope="ana") for i in range(5)]
    store.forget([first.id], reason="test")
    with other_writer(store), Searcher(store, long_lived=False) as s:
        res = s.search("tea", mode="hybrid")
        assert first.id not in {h.id for h in res.hits}
        assert res.unindexed == len(added)
    res = open_searcher(store, long_lived=False).search("tea", mode="hybrid")
    assert res.unindexed == 0 and {h.id for h in res.hits} == {r.id for r in added}


def test_the_backfill_does_not_wait_for_the_lock(sstore: Store) -> None:
    """Records without a vector, the lock held elsewhere: the search stores no vector, answers,
    and counts the backlog."""
    with open_searcher(sstore, long_lived=False) as s:
        s.search("Lisbon", mode="hybrid")  # indexes and vectors up to date
    rec = sstore.add("Eve keeps bees on the roof", scope="ana")
    with open_searcher(sstore, long_lived=False) as s:
        s.search("bees", mode="lexical")  # indexed lexically, no vector yet
        with other_writer(sstore):
            res = s.search("bees roof", mode="hybrid")
        assert res.hits[0].id == rec.id and res.unembedded == 1
        res = s.search("bees roof", mode="hybrid")
        assert res.unembedded == 0 and res.hits[0].id == rec.id


def test_cli_search_while_a_writer_holds_the_lock(store: Store) -> None:
    """Through the `mem` executable (a lock wait of 600 s would hang it): no index yet, then an
    index with records written since; exit 0, the count in --json and the warning on stderr."""
    write_around(store, "inbox", TEXTS[:40])
    with other_writer(store) as lock:
        r = run_mem("--store", str(store.root), "search", "parcel depot", "--json", env=CLI_ENV, timeout=300)
        assert lock.held
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["hits"] == [] and out["unindexed"] == 40
    assert "no search index yet" in r.stderr and "no search index yet" in out["warnings"][0]
    assert run_mem("--store", str(store.root), "search", "parcel", env=CLI_ENV).returncode == 0  # builds it
    write_around(store, "inbox", TEXTS[40:100])
    with other_writer(store):
        r = run_mem("--store", str(store.root), "search", "parcel depot", "--json", env=CLI_ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["unindexed"] == 60 and len(out["hits"]) == 10
    assert "60 records not searchable yet" in r.stderr
    out = run_mem("--store", str(store.root), "search", "parcel depot", "--json", env=CLI_ENV).json()
    assert "unindexed" not in out and not any("lock" in w for w in out["warnings"])


class QueryFails(HashingEmbedder):
    """The hashing embedder whose model's runtime fails on queries (records embed as usual)."""

    def embed(self, texts: Sequence[str]) -> Any:
        if any("umbrella" in t for t in texts):
            raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : MatMul node failed")
        return super().embed(texts)


@pytest.fixture
def embedded(sstore: Store) -> Iterator[Store]:
    """sstore with every record embedded (no backlog)."""
    rebuild(sstore, vectors=True)
    yield sstore


def test_query_embedding_failure_falls_back_to_lexical(embedded: Store) -> None:
    with Searcher(embedded, embedder=QueryFails(), long_lived=False) as s:
        assert s.search("Lisbon", mode="hybrid").mode == "hybrid"  # the model works for this one
        rec = embedded.add("The umbrella is in the blue cupboard", scope="ana")
        s.search("cupboard", mode="hybrid")  # embeds the new record: no backlog
        res = s.search("umbrella", mode="hybrid")
        assert res.mode == "lexical" and [h.id for h in res.hits] == [rec.id]
        assert res.unembedded == 0
        assert res.warnings == ["vector search unavailable, lexical results only: the hashing embedder failed: "
                                "RuntimeError: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : MatMul node failed"]
        assert res.to_dict()["warnings"] == res.warnings
        with pytest.raises(EmbedderUnavailableError, match="RUNTIME_EXCEPTION") as ei:
            s.search("umbrella", mode="vector")
        assert ei.value.exit_code == ExitCode.EMBEDDER_UNAVAILABLE == 10
        assert s.search("umbrella", mode="lexical").warnings == []


def test_query_embedding_failure_long_lived(embedded: Store) -> None:
    """The same in a long-lived searcher (the query is embedded on its pool thread)."""
    with open_searcher(embedded, embedder=QueryFails()) as s:
        assert s.search("Lisbon", mode="hybrid").mode == "hybrid"
        res = s.search("umbrella Lisbon", mode="hybrid")
        assert res.mode == "lexical" and res.hits and "RUNTIME_EXCEPTION" in res.warnings[0]
        with pytest.raises(EmbedderUnavailableError):
            s.search("umbrella", mode="vector")
        assert s.search("Lisbon", mode="hybrid").mode == "hybrid"  # the searcher still works


FAKE_ORT = '''
class SessionOptions:
    pass


class RunOptions:
    terminate = False


class InferenceSession:
    """onnxruntime as a broken install: the session is made, every run fails."""

    def __init__(self, *args, **kwargs):
        pass

    def run(self, *args, **kwargs):
        raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned")
'''


def test_cli_query_embedding_failure(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through `mem search` with MiniLM whose onnxruntime fails at run time (a shadow package on
    PYTHONPATH) on a store whose records all have their MiniLM vector: hybrid answers from the
    lexical arm with the warning (exit 0, in --json too); --mode vector exits 10 naming it."""
    monkeypatch.setenv("MEM_EMBEDDER", "minilm")
    attach(store)
    rec = store.add("The umbrella is in the blue cupboard", scope="home")
    store.add("Ana walks the dog at seven", scope="home")
    rebuild(store, vectors=True)  # the real model: every record embedded
    shadow = tmp_path / "shadow" / "onnxruntime"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(FAKE_ORT, "utf-8")
    env = {"PYTHONPATH": str(tmp_path / "shadow"), "MEM_EMBEDDER": "minilm"}
    r = run_mem("--store", str(store.root), "search", "umbrella cupboard", "--json", env=env)
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["mode"] == "lexical" and [h["id"] for h in out["hits"]] == [rec.id]
    assert "RUNTIME_EXCEPTION" in out["warnings"][0] and "lexical results only" in out["warnings"][0]
    assert "warning: vector search unavailable" in r.stderr and "Traceback" not in r.stderr
    r = run_mem("--store", str(store.root), "search", "umbrella cupboard", "--mode", "vector", env=env)
    assert r.returncode == ExitCode.EMBEDDER_UNAVAILABLE == 10, r.stderr
    assert "RUNTIME_EXCEPTION" in r.stderr and "Traceback" not in r.stderr
    # the model runs again: hybrid as usual
    r = run_mem("--store", str(store.root), "search", "umbrella cupboard", "--json", env={"MEM_EMBEDDER": "minilm"})
    assert r.returncode == 0 and r.json()["mode"] == "hybrid" and r.json()["warnings"] == []


def write_jsonl(path: Path, n: int) -> Path:
    import json

    path.write_text("".join(json.dumps({"content": f"Imported note {i} about the depot parcel", "scope": "inbox"})
                            + "\n" for i in range(n)), "utf-8")
    return path


def test_an_import_indexes_what_it_wrote_before_it_lets_the_lock_go(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """import_path(index=True): the lexical index is built (a new store) and holds every record
    written while the import still holds the writer lock; without it, no index is made."""
    from mem.format.index.common import LEXICAL_KIND, read_pointer
    from mem.format.index.derived import PENDING_FILE
    from mem.format.index.lexical import LexicalIndex
    from mem.format.interchange.migrate import import_path

    src = write_jsonl(tmp_path / "in.jsonl", 30)
    attach(store)
    held_at_build: list[bool] = []
    import mem.format.index.build as build_mod

    real = build_mod.rebuild

    def watched(st: Store, **kw: Any) -> Any:
        held_at_build.append(st.lock.held)
        return real(st, **kw)

    monkeypatch.setattr(build_mod, "rebuild", watched)
    import mem.format.index.derived as derived_mod

    monkeypatch.setattr(derived_mod, "rebuild", watched)
    summary = import_path(store, src, "jsonl", index=True)
    assert summary.counts["created"] == 30
    assert held_at_build == [True] and not store.lock.held
    m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
    assert m is not None and not (store.index_dir / PENDING_FILE).exists()
    lex = LexicalIndex.open(store.index_dir)
    assert lex is not None
    try:
        assert len(lex.scope_state("inbox")) == 30
    finally:
        lex.close()
    # a second import into the indexed store: applied (journal empty) before the lock is let go
    summary = import_path(store, write_jsonl(tmp_path / "more.jsonl", 45), "jsonl", index=True)
    assert summary.counts["created"] == 15  # (the first 30 are unchanged)
    assert not (store.index_dir / PENDING_FILE).exists()


def test_mem_import_leaves_an_index_and_no_journal(tmp_path: Path) -> None:
    """Through `mem import`: with embedding, the index holds every record at the end; with
    --no-embed on a new store, no index is made (the next search builds it)."""
    from mem.format.index.derived import PENDING_FILE

    src = write_jsonl(tmp_path / "in.jsonl", 20)
    for no_embed in (False, True):
        root = tmp_path / f"s{int(no_embed)}"
        assert run_mem("init", str(root), env=CLI_ENV).returncode == 0
        r = run_mem("--store", str(root), "import", str(src), *(["--no-embed"] if no_embed else []), env=CLI_ENV)
        assert r.returncode == 0, r.stderr
        assert (root / ".mem" / "index" / LEXICAL_POINTER).exists() is (not no_embed)
        assert not (root / ".mem" / "index" / PENDING_FILE).exists()
        out = run_mem("--store", str(root), "search", "depot parcel", "--json", "-k", "50", env=CLI_ENV).json()
        assert len(out["hits"]) == 20 and "unindexed" not in out
