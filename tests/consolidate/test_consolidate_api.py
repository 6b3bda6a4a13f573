"""mem consolidate through the library: lineage, watermark, dedup keys, crash safety, refusals."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from mem.format.base.errors import LockTimeoutError, NotFoundError, StoreInvalidError
from mem.format.model.record import Record
from mem.format.ops.consolidate import (
    Consolidation,
    Options,
    Refusal,
    consolidate,
    load_watermark,
    state_path,
    window_key,
)
from mem.format.store.store import RecordFilter, Store
from tests.consolidate.conftest import Episodes, fake_argv, load_schema

Calls = Callable[[], list[str]]


def opts(fake: str = "ok", **kw: object) -> Options:
    base: dict[str, object] = {"summarizer": fake_argv(fake), "window": 4, "overlap": 1}
    base.update(kw)
    return Options(**base)  # type: ignore[arg-type]


def derived(store: Store) -> list[Record]:
    """Records written by consolidate, oldest first."""
    out = [r for r in store.iter_records() if r.source.get("type") == "consolidate"]
    return sorted(out, key=lambda r: (r.recorded_at, r.id))


def log_events(store: Store, op: str) -> list[dict[str, object]]:
    return [e for e in store.log.iter_events() if e["op"] == op]


# -- the happy path: lineage, status, provenance, watermark ---------------------------------------


def test_window_becomes_candidate_summary_and_facts_derived_from_its_episodes(
    store: Store, episodes: Episodes
) -> None:
    eps = episodes(
        "hello there", "FACT: Alice is allergic to peanuts", "we talked about the weather"
    )
    report = consolidate(store, opts())
    assert [r.outcome for r in report.results] == ["created"]
    recs = derived(store)
    assert [(r.kind, r.content) for r in recs] == [
        ("fact", "Alice is allergic to peanuts\n"),
        (
            "summary",
            "Summary of 3 episode(s) in c1: hello there; FACT: Alice is allergic to peanuts; we talked about the weather\n",
        ),
    ]
    key = window_key(eps)
    for r in recs:
        assert r.status == "candidate"
        assert r.confidence == 0.8
        assert r.scope == "alice"
        assert list(r.derived_from) == [e.id for e in eps]
        assert r.source["type"] == "consolidate"
        assert r.source["summarizer"] == f"{Path(sys.executable).name} fake.py"  # names only
        assert r.source["window"] == key
        assert r.source["conversation"] == "c1"
    assert [r.source["item"] for r in recs] == ["fact:0", "summary"]
    assert recs[0].tags == ("consolidated",)
    # the watermark names the last episode of the window
    doc = json.loads(state_path(store).read_text("utf-8"))
    assert doc == {
        "format": "mem-consolidate-watermark",
        "version": 1,
        "streams": {
            "alice": {
                "c1": {
                    "recorded_at": "2025-03-01T09:02:00.000Z",
                    "id": eps[-1].id,
                    "window": key,
                    "windows": 1,
                }
            }
        },
    }
    # the audit log names the window for every record, and never holds content
    created = log_events(store, "consolidate")
    assert [e["detail"] for e in created] == [
        {"outcome": "created", "window": key, "item": "fact:0"},
        {"outcome": "created", "window": key, "item": "summary"},
    ]


def test_trust_writes_active_records(store: Store, episodes: Episodes) -> None:
    episodes("FACT: Bob prefers green tea in the morning")
    consolidate(store, opts(trust=True, confidence=0.6))
    assert {(r.status, r.confidence) for r in derived(store)} == {("active", 0.6)}


def test_windows_are_bounded_oldest_first_with_overlap(
    store: Store, episodes: Episodes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    monkeypatch.setenv("FAKE_SUMMARIZER_DUMP", str(dump))
    eps = episodes(*(f"episode number {i}" for i in range(7)))
    report = consolidate(store, opts(window=4, overlap=1))
    windows = [r.window for r in report.results]
    assert [w.episode_ids for w in windows] == [
        [e.id for e in eps[0:4]],
        [e.id for e in eps[3:7]],
    ]
    assert [w.overlap for w in windows] == [0, 1]
    # the documents the summarizer read follow the window schema, overlap flagged
    docs = [json.loads(p.read_text("utf-8")) for p in sorted(dump.iterdir())]
    schema = load_schema("consolidate-window.schema.json")
    for d in docs:
        jsonschema.validate(d, schema)
    assert [e["overlap"] for e in docs[1]["episodes"]] == [True, False, False, False]
    assert docs[1]["episodes"][0]["content"] == "episode number 3\n"
    # lineage covers the overlap episode too: the summarizer read it
    second = [r for r in derived(store) if r.source["window"] == windows[1].key]
    assert all(eps[3].id in r.derived_from for r in second)


def test_streams_are_per_scope_and_conversation(store: Store, episodes: Episodes) -> None:
    episodes("alice talks in conversation one", conversation="c1")
    episodes("bob talks in conversation one", scope="bob", conversation="c1")
    episodes("alice talks in conversation two", conversation="c2")
    episodes("alice talks without a conversation", conversation=None)
    report = consolidate(store, opts())
    got = [(r.window.scope, r.window.conversation, len(r.window.episodes)) for r in report.results]
    assert got == [("alice", None, 1), ("alice", "c1", 1), ("alice", "c2", 1), ("bob", "c1", 1)]
    marks = load_watermark(store)
    assert set(marks) == {("alice", None), ("alice", "c1"), ("alice", "c2"), ("bob", "c1")}


def test_existing_memories_are_sent_as_context(
    store: Store, episodes: Episodes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    monkeypatch.setenv("FAKE_SUMMARIZER_DUMP", str(dump))
    fact = store.add("Alice lives in Berlin", scope="alice", kind="fact")
    store.add("Bob lives in Oslo", scope="bob", kind="fact")  # another scope: never sent
    episodes("just chatting")
    consolidate(store, opts())
    (doc,) = [json.loads(p.read_text("utf-8")) for p in dump.iterdir()]
    assert [(e["id"], e["content"]) for e in doc["existing"]] == [
        (fact.id, "Alice lives in Berlin\n")
    ]


# -- re-runs, the watermark and the window key --------------------------------------------------


def test_rerun_does_nothing_and_calls_nothing(
    store: Store, episodes: Episodes, calls: Calls
) -> None:
    episodes("FACT: Carol's birthday is on 12 May", "small talk")
    consolidate(store, opts())
    before = sorted(p.name for p in (store.records_dir / "alice").iterdir())
    n_calls = len(calls())
    report = consolidate(store, opts())
    assert report.results == []
    assert len(calls()) == n_calls == 1
    assert sorted(p.name for p in (store.records_dir / "alice").iterdir()) == before


def test_new_episodes_continue_after_the_watermark_with_overlap(
    store: Store, episodes: Episodes
) -> None:
    first = episodes("one", "two", "three")
    consolidate(store, opts())
    later = episodes("four", "five")
    report = consolidate(store, opts())
    (res,) = report.results
    assert res.window.episode_ids == [first[-1].id, *(e.id for e in later)]
    assert res.window.overlap == 1
    assert load_watermark(store)[("alice", "c1")].windows == 2


def test_lost_watermark_never_yields_a_second_summary(
    store: Store, episodes: Episodes, calls: Calls
) -> None:
    episodes(*(f"FACT: item {i} is stored in the attic" for i in range(6)))
    consolidate(store, opts())
    recs = {r.id for r in derived(store)}
    n_calls = len(calls())
    state_path(store).unlink()  # the watermark write was lost
    report = consolidate(store, opts())
    assert [r.outcome for r in report.results] == ["done", "done"]
    assert len(calls()) == n_calls  # no summarizer call
    assert {r.id for r in derived(store)} == recs
    assert ("alice", "c1") in load_watermark(store)


def test_crash_between_records_and_watermark_resumes_without_repeating(
    store: Store, episodes: Episodes, calls: Calls
) -> None:
    episodes("FACT: Dan drives a blue car", "we planned a trip")
    run = Consolidation(store, opts()).open()
    (w,) = run.plan()
    answer, resumed = run.summarize(w)
    assert not resumed
    run.apply(w, answer)  # records written ... and the process dies before run.advance(w)
    run.close()
    assert not state_path(store).exists()
    recs = {r.id for r in derived(store)}
    assert len(recs) == 2
    report = consolidate(store, opts("crash"))  # a summarizer call would be refused
    assert [r.outcome for r in report.results] == ["done"]
    assert {r.id for r in derived(store)} == recs
    assert len(calls()) == 1
    assert load_watermark(store)[("alice", "c1")].id == w.last.id


def test_crash_in_the_middle_of_a_window_finishes_from_the_journal(
    store: Store, episodes: Episodes, calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes("FACT: Erin speaks Portuguese", "FACT: Erin works as a nurse", "hello")
    real_put = store.put
    writes = []

    def dying_put(rec: Record, **kw: object) -> Record:
        if writes:
            raise KeyboardInterrupt  # the process is killed after the first record
        writes.append(rec.id)
        return real_put(rec, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "put", dying_put)
    with pytest.raises(KeyboardInterrupt):
        consolidate(store, opts())
    monkeypatch.setattr(store, "put", real_put)
    assert [r.content for r in derived(store)] == ["Erin speaks Portuguese\n"]
    assert not state_path(store).exists()
    # the next run finishes the window from the journal: the summarizer is not asked again
    report = consolidate(store, opts("crash"))
    (res,) = report.results
    assert res.outcome == "created" and res.resumed
    assert [(r.kind, r.source["item"]) for r in derived(store)] == [
        ("fact", "fact:0"), ("fact", "fact:1"), ("summary", "summary"),
    ]  # fmt: skip
    assert len(calls()) == 1
    assert not any((store.local_dir / "consolidate-pending").iterdir())


def test_window_changed_during_summarization_is_refused(store: Store, episodes: Episodes) -> None:
    eps = episodes("FACT: Finn owns a cat named Tiger", "more words")
    with Consolidation(store, opts()) as run:
        (w,) = run.plan()
        answer, _ = run.summarize(w)
        store.update(eps[0].id, content="FACT: Finn owns a dog named Rex")
        with pytest.raises(Refusal) as exc:
            run.apply(w, answer)
    assert exc.value.code == "window-changed"
    assert derived(store) == []


# -- NONE -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["none", "nonejson"])
def test_none_writes_nothing_but_advances_the_watermark(
    store: Store, episodes: Episodes, calls: Calls, mode: str
) -> None:
    eps = episodes("hi", "bye")
    report = consolidate(store, opts(mode))
    assert [r.outcome for r in report.results] == ["none"]
    assert derived(store) == []
    assert load_watermark(store)[("alice", "c1")].id == eps[-1].id
    (ev,) = log_events(store, "consolidate")
    assert ev["detail"]["outcome"] == "none"  # type: ignore[index]
    consolidate(store, opts(mode))
    assert len(calls()) == 1


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("empty", "empty"),
        ("junk", "malformed"),
        ("crash", "exit-status"),
        ("timeout", "timeout"),
        ("short", "too-short"),
        ("extra", "schema"),
        ("badfact", "schema"),
        ("big", "too-large"),
    ],
)
def test_a_bad_answer_is_refused_and_changes_nothing(
    store: Store, episodes: Episodes, mode: str, code: str
) -> None:
    episodes("FACT: Gina's password hint is secret-ish", "second", "third", "fourth", "fifth")
    files_before = sorted(p.name for p in (store.records_dir / "alice").iterdir())
    report = consolidate(store, opts(mode, timeout=0.5))
    first, *rest = report.results
    assert first.outcome == "refused"
    assert first.refusal is not None and first.refusal.code == code
    assert rest == []
    assert [w.key for w in report.not_run] != []  # the stream stops at the refusal
    assert sorted(p.name for p in (store.records_dir / "alice").iterdir()) == files_before
    assert not state_path(store).exists()
    (ev,) = log_events(store, "consolidate")
    detail = ev["detail"]
    assert isinstance(detail, dict)
    assert (detail["outcome"], detail["code"], detail["window"]) == (
        "refused",
        code,
        first.window.key,
    )
    log_text = "".join(p.read_text("utf-8") for p in (store.root / "log").glob("*.jsonl"))
    assert "Gina" not in log_text and "Chat." not in log_text  # never content
    if mode == "crash":
        assert first.refusal.stderr and "backend unreachable" in first.refusal.stderr
    # a later good run picks the stream up where it stopped
    report = consolidate(store, opts())
    assert [r.outcome for r in report.results] == ["created", "created"]


def test_a_refusal_blocks_only_its_own_stream(store: Store, episodes: Episodes) -> None:
    episodes("in c1", conversation="c1")
    episodes("in c2", conversation="c2")
    report = consolidate(store, opts("crashon:c1"))
    assert [(r.window.conversation, r.outcome) for r in report.results] == [
        ("c1", "refused"), ("c2", "created"),
    ]  # fmt: skip


def test_a_too_short_fact_is_refused(store: Store, episodes: Episodes) -> None:
    episodes("FACT: ok")
    report = consolidate(store, opts(min_fact_chars=8))
    (res,) = report.results
    assert res.refusal is not None and res.refusal.code == "too-short"
    assert res.refusal.message == "facts[0].content is 2 characters; the floor is 8"


def test_missing_program_fails_before_anything(store: Store, episodes: Episodes) -> None:
    episodes("hello")
    with pytest.raises(NotFoundError):
        consolidate(store, Options(summarizer=["no-such-summarizer-xyz"]))


# -- supersessions ----------------------------------------------------------------------------


def test_supersede_goes_through_supersede_and_keeps_the_reason(
    store: Store, episodes: Episodes
) -> None:
    old = store.add("Hana lives in Berlin", scope="alice", kind="fact")
    eps = episodes(f"SUPERSEDE {old.id} | Hana lives in Lisbon | she said she moved in March")
    report = consolidate(store, opts())
    (res,) = report.results
    (sup,) = res.superseded
    assert sup["old"] == old.id
    new = store.get(sup["new"])
    old_now = store.get(old.id)
    assert (old_now.status, old_now.superseded_by) == ("superseded", new.id)
    assert old_now.content == "Hana lives in Berlin\n"  # never overwritten
    assert (new.status, new.supersedes, new.content) == (
        "candidate",
        (old.id,),
        "Hana lives in Lisbon\n",
    )
    assert eps[0].id in new.derived_from
    assert new.source["item"] == "supersede:0"
    reasons = [e["detail"].get("reason") for e in log_events(store, "supersede")]  # type: ignore[union-attr]
    assert reasons == ["she said she moved in March"]


@pytest.mark.parametrize("target", ["missing", "episode", "other-scope", "superseded"])
def test_supersede_of_a_bad_target_is_refused(
    store: Store, episodes: Episodes, target: str
) -> None:
    if target == "missing":
        rid = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    elif target == "episode":
        rid = episodes("an episode to point at")[0].id
        consolidate(store, opts())
    elif target == "other-scope":
        rid = store.add("Bob lives in Oslo", scope="bob", kind="fact").id
    else:
        a = store.add("Ivan lives in Rome", scope="alice", kind="fact")
        store.supersede(a.id, "Ivan lives in Paris")
        rid = a.id
    before = {r.id for r in derived(store)}
    episodes(f"SUPERSEDE {rid} | Somebody lives somewhere else | a reason")
    report = consolidate(store, opts())
    (res,) = report.results
    assert res.refusal is not None and res.refusal.code == "bad-target"
    assert {r.id for r in derived(store)} == before


# -- lineage and forgetting -------------------------------------------------------------------


def test_forgetting_an_episode_cascades_and_a_rerun_does_not_resurrect(
    store: Store, episodes: Episodes
) -> None:
    eps = episodes("FACT: Jo keeps bees", "FACT: Jo has two hives", "other chat")
    consolidate(store, opts())
    fact_ids = {r.id for r in derived(store)}
    plan = store.plan_forget([eps[0].id])
    assert {r.id for r, _ in plan.cascade} == fact_ids  # shown before anything goes
    store.forget([eps[0].id], reason="asked to")
    assert derived(store) == []
    # even with the watermark lost, a re-run does not bring the forgotten facts back
    state_path(store).unlink()
    report = consolidate(store, opts())
    (res,) = report.results
    assert res.outcome == "created"
    assert {d["item"]: d["reason"] for d in res.dropped} == {"fact:0": "forgotten"}
    contents = [r.content for r in derived(store)]
    assert "Jo keeps bees\n" not in contents and "Jo has two hives\n" not in contents


def test_a_fact_already_in_the_store_is_not_duplicated(store: Store, episodes: Episodes) -> None:
    known = store.add("Kim is vegetarian", scope="alice", kind="preference")
    episodes("FACT: kim is vegetarian.", "FACT: Kim is vegetarian")
    (res,) = consolidate(store, opts()).results
    assert res.facts == []
    assert res.dropped == [
        {"item": "fact:0", "reason": "duplicate", "duplicate_of": known.id},
        {"item": "fact:1", "reason": "duplicate", "duplicate_of": known.id},
    ]


# -- run options --------------------------------------------------------------------------------


def test_plan_mode_runs_nothing_and_writes_nothing(
    store: Store, episodes: Episodes, calls: Calls
) -> None:
    episodes(*(f"episode {i}" for i in range(5)))
    log_before = len(list(store.log.iter_events()))
    report = consolidate(store, Options(window=4, overlap=1, mode="plan"))
    assert [r.outcome for r in report.results] == ["planned", "planned"]
    assert calls() == []
    assert not state_path(store).exists()
    assert len(list(store.log.iter_events())) == log_before


def test_preview_mode_calls_but_writes_nothing(
    store: Store, episodes: Episodes, calls: Calls
) -> None:
    episodes("FACT: Lee plays the cello", "chat")
    log_before = len(list(store.log.iter_events()))
    report = consolidate(store, opts(mode="preview"))
    (res,) = report.results
    assert res.outcome == "previewed"
    assert res.answer is not None and [f.content for f in res.answer.facts] == [
        "Lee plays the cello"
    ]
    assert len(calls()) == 1
    assert derived(store) == []
    assert not state_path(store).exists()
    assert len(list(store.log.iter_events())) == log_before


def test_max_windows_is_a_budget_of_calls(store: Store, episodes: Episodes, calls: Calls) -> None:
    episodes(*(f"episode {i}" for i in range(10)))
    report = consolidate(store, opts(max_windows=1))
    assert [r.outcome for r in report.results] == ["created"]
    assert report.budget_exhausted and len(report.not_run) == 2
    report = consolidate(store, opts(max_windows=5))
    assert [r.outcome for r in report.results] == ["created", "created"]
    assert len(calls()) == 3


def test_scope_filter_and_kinds(store: Store, episodes: Episodes) -> None:
    episodes("alice's episode")
    episodes("bob's episode", scope="bob")
    episodes("bob's event", scope="bob", kind="event")
    report = consolidate(store, opts(scopes=["bob"], kinds=("episode", "event")))
    assert [(r.window.scope, len(r.window.episodes)) for r in report.results] == [("bob", 2)]
    assert set(load_watermark(store)) == {("bob", "c1")}


def test_min_new_defers_a_short_trailing_window(store: Store, episodes: Episodes) -> None:
    episodes(*(f"episode {i}" for i in range(6)))
    report = consolidate(store, opts(window=4, overlap=1, min_new=3))
    assert [len(r.window.new_episodes) for r in report.results] == [4]
    assert report.deferred == [{"scope": "alice", "conversation": "c1", "new": 2, "min_new": 3}]


def test_only_active_and_candidate_episodes_are_consolidated(
    store: Store, episodes: Episodes
) -> None:
    a, b = episodes("kept episode", "rejected episode")
    store.reject(b.id)
    (res,) = consolidate(store, opts()).results
    assert res.window.episode_ids == [a.id]


def test_a_corrupt_watermark_is_reported_with_its_file(store: Store, episodes: Episodes) -> None:
    episodes("hello")
    state_path(store).write_text("{not json", "utf-8")
    with pytest.raises(StoreInvalidError) as exc:
        consolidate(store, opts())
    assert exc.value.path == str(state_path(store))
    assert derived(store) == []


def test_two_runs_never_interleave(store: Store, episodes: Episodes) -> None:
    episodes("hello")
    other = Store.open(store.root)
    with Consolidation(store, opts()), pytest.raises(LockTimeoutError):
        Consolidation(other, opts()).open()


@pytest.mark.parametrize(
    "bad",
    [
        {"window": 0},
        {"overlap": 4},
        {"overlap": -1},
        {"timeout": 0},
        {"min_new": 0},
        {"confidence": 1.5},
        {"kinds": ()},
        {"scopes": ["Not A Scope"]},
    ],
)
def test_bad_options_are_refused(store: Store, bad: dict[str, object]) -> None:
    from mem.format.base.errors import ValidationError

    with pytest.raises(ValidationError):
        consolidate(store, opts(**bad))


def test_list_filters_see_consolidated_candidates(store: Store, episodes: Episodes) -> None:
    episodes("FACT: Mo runs on Sundays")
    consolidate(store, opts())
    got = store.list(RecordFilter(scopes=["alice"], kinds=["fact"], statuses=["candidate"]))
    assert [r.content for r in got] == ["Mo runs on Sundays\n"]


def test_a_stale_journal_is_removed_and_another_scopes_is_kept(
    store: Store, episodes: Episodes
) -> None:
    a = episodes("FACT: Quin grows tomatoes", scope="alice")
    episodes("FACT: Rae grows basil", scope="bob")
    pending = store.local_dir / "consolidate-pending"
    pending.mkdir(parents=True, exist_ok=True)
    with Consolidation(store, opts(mode="preview")) as run:
        by_scope = {w.scope: w for w in run.plan()}
    for scope, w in by_scope.items():
        doc = {"format": "mem-consolidate-journal", "version": 1, "window": w.key, "scope": scope,
               "answer": {"summary": "a journaled summary text", "facts": []}}  # fmt: skip
        (pending / (w.key.split(":", 1)[1] + ".json")).write_text(json.dumps(doc), "utf-8")
    store.forget([a[0].id], reason="test")  # alice's window no longer exists
    consolidate(store, opts("crash"))  # bob's journal is applied (no call), alice's dropped
    assert list(pending.iterdir()) == []
    assert [r.content for r in derived(store)] == ["a journaled summary text\n"]
    # a run over alice only must not touch bob's journal
    (pending / ("f" * 64 + ".json")).write_text(
        json.dumps(
            {"format": "mem-consolidate-journal", "window": "sha256:" + "f" * 64, "scope": "bob"}
        ),
        "utf-8",
    )
    consolidate(store, opts(scopes=["alice"]))
    assert [p.name for p in pending.iterdir()] == ["f" * 64 + ".json"]
