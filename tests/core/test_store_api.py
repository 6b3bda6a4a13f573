"""The store through its Python API: writes, tombstones, cascade, supersession, time, audit."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from mem.format import Store
from mem.format.base.errors import (
    ConflictError,
    LockTimeoutError,
    NotFoundError,
    StoreInvalidError,
    StoreNotFoundError,
    TombstonedError,
    UnsupportedFormatError,
    ValidationError,
)
from mem.format.model.audit import verify_chain
from mem.format.model.record import dump_record
from mem.format.store.store import RecordFilter

UTC = dt.UTC


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mem" not in p.parts
    }


def test_add_get_and_file_layout(store: Store) -> None:
    r = store.add("I prefer tea", scope="alice", kind="preference", tags=["drinks"])
    path = store.root / "records" / "alice" / f"{r.id}.md"
    assert path.read_text() == dump_record(r)
    assert store.get(r.id) == r
    assert store.get(r.id.lower()) == r  # ids are case-insensitive on input
    assert (path.stat().st_mode & 0o777) == 0o600
    assert ((store.root / "records" / "alice").stat().st_mode & 0o777) == 0o700


def test_noop_update_writes_nothing(store: Store) -> None:
    r = store.add("fact one", scope="alice", kind="fact")
    before = snapshot(store.root)
    assert store.update(r.id, kind="fact") == r
    assert snapshot(store.root) == before


def test_scope_isolation_on_reads(store: Store) -> None:
    a = store.add("alice's secret", scope="alice", kind="fact")
    b = store.add("bob's secret", scope="bob", kind="fact")
    assert [r.id for r in store.list(RecordFilter(scopes=["alice"]))] == [a.id]
    assert [r.id for r in store.list(RecordFilter(scopes=["bob"]))] == [b.id]
    with pytest.raises(NotFoundError):
        store.get(a.id, scope="bob")
    with pytest.raises(ValidationError):
        store.list(RecordFilter(scopes=["../alice"]))


def test_tombstone_refuses_every_write_path(store: Store) -> None:
    r = store.add("I am allergic to peanuts", scope="alice", kind="fact")
    other = store.add("I like hiking", scope="alice", kind="preference")
    store.forget([r.id], reason="user asked")
    same = "i am ALLERGIC to peanuts."
    with pytest.raises(TombstonedError):
        store.add(same, scope="alice")
    with pytest.raises(TombstonedError):
        store.update(other.id, content=same)
    with pytest.raises(TombstonedError):
        store.supersede(other.id, same)
    with pytest.raises(TombstonedError):
        store.replace(other.with_changes(content=same + "\n"))
    with pytest.raises(TombstonedError):
        store.put(r)  # the very same record (same id) cannot come back
    # other scopes are not affected: tombstones are per scope
    store.add(same, scope="bob")
    # the explicit, logged override
    back = store.add(same, scope="alice", allow_tombstoned=True, override_reason="user re-told it")
    ops = [e["op"] for e in store.log.iter_events() if e.get("id") == back.id]
    assert ops == ["lift-tombstone", "add"]


def test_forget_cascades_through_lineage_and_leaves_no_content(store: Store) -> None:
    e1 = store.add("Met Sam at the climbing gym on Tuesday", scope="alice", kind="episode")
    e2 = store.add("Sam said he moves to Lisbon in May", scope="alice", kind="episode")
    s = store.add("Sam: climber, moving to Lisbon", scope="alice", kind="summary", derived_from=[e1.id, e2.id])
    f = store.add("Sam lives in Lisbon from May", scope="alice", kind="fact", derived_from=[s.id])
    keep = store.add("Unrelated fact", scope="alice", kind="fact")
    plan = store.plan_forget([e2.id])
    assert [r.id for r in plan.requested] == [e2.id]
    assert [(r.id, src) for r, src in plan.cascade] == [(s.id, e2.id), (f.id, s.id)]
    done = store.forget([e2.id], reason="privacy")
    assert {r.id for r in done.records} == {e2.id, s.id, f.id}
    live = {r.id for r in store.iter_records()}
    assert live == {e1.id, keep.id}
    blob = b"".join(p.read_bytes() for p in store.root.rglob("*") if p.is_file())
    for text in ("Lisbon", "moves to"):
        assert text.encode() not in blob
    tomb = [json.loads(x) for x in (store.root / "tombstones" / "alice.jsonl").read_text().splitlines()]
    assert {t["id"] for t in tomb} == {e2.id, s.id, f.id}
    assert {t["cascade_of"] for t in tomb} == {None, e2.id, s.id}
    with pytest.raises(NotFoundError, match="forgotten"):
        store.get(e2.id)


def test_dry_run_forget_changes_nothing(store: Store) -> None:
    r = store.add("x", scope="a", kind="fact")
    before = snapshot(store.root)
    plan = store.forget([r.id], dry_run=True)
    assert [x.id for x in plan.records] == [r.id]
    assert snapshot(store.root) == before


def test_supersede_and_time_filters(store: Store) -> None:
    t0 = dt.datetime(2024, 1, 1, tzinfo=UTC)
    old = store.add("Alice lives in Berlin", scope="alice", kind="fact", valid_from=t0, recorded_at=t0)
    new, old2 = store.supersede(old.id, "Alice lives in Lisbon", valid_from="2025-06-01", reason="moved")
    assert old2.status == "superseded" and old2.superseded_by == new.id
    assert old2.valid_to == dt.datetime(2025, 6, 1, tzinfo=UTC)
    assert new.supersedes == (old.id,)
    assert old2.superseded_at is not None

    def ids_for(**kw: object) -> list[str]:
        return [r.id for r in store.list(RecordFilter(scopes=["alice"], **kw))]  # type: ignore[arg-type]

    assert ids_for() == [new.id]  # superseded hidden by default
    assert ids_for(as_of=dt.datetime(2024, 7, 1, tzinfo=UTC)) == [old.id]
    assert ids_for(as_of=dt.datetime(2025, 7, 1, tzinfo=UTC)) == [new.id]
    # what the store believed before the supersession was recorded
    assert ids_for(known_at=dt.datetime(2024, 6, 1, tzinfo=UTC)) == [old.id]
    assert ids_for(known_at=old2.superseded_at + dt.timedelta(seconds=1)) == [new.id]  # type: ignore[operator]
    with pytest.raises(ConflictError):
        store.supersede(old.id, "again")
    ev = [e for e in store.log.iter_events() if e["op"] == "supersede"]
    assert ev[0]["detail"] == {"supersedes": old.id, "reason": "moved"}


def test_status_transitions(store: Store) -> None:
    c = store.add("maybe true", scope="a", kind="fact", status="candidate")
    assert store.accept(c.id).status == "active"
    assert store.reject(c.id).status == "rejected"
    assert store.list(RecordFilter(scopes=["a"])) == []
    assert [r.id for r in store.list(RecordFilter(statuses=["rejected"]))] == [c.id]
    _n, o = store.supersede(store.accept(c.id).id, "now true")
    with pytest.raises(ConflictError):
        store.accept(o.id)


def test_audit_chain_detects_tampering(store: Store) -> None:
    for i in range(5):
        store.add(f"fact {i}", scope="a", kind="fact")
    assert store.log.verify() == []
    path = store.log.path
    lines = path.read_text().splitlines()
    ev = json.loads(lines[2])
    ev["actor"] = "mallory"
    lines[2] = json.dumps(ev)
    path.write_text("\n".join(lines) + "\n")
    problems = verify_chain(path)
    assert [(p.line, p.kind) for p in problems] == [(3, "hash")]
    # dropping an event breaks the link and the sequence
    del lines[2]
    path.write_text("\n".join(lines) + "\n")
    kinds = {p.kind for p in verify_chain(path)}
    assert {"link", "seq"} <= kinds


def test_audit_events_never_hold_content(store: Store) -> None:
    r = store.add("the launch code is swordfish", scope="a", kind="fact")
    store.update(r.id, content="the launch code is marlin")
    store.forget([r.id])
    log_text = "".join(p.read_text() for p in (store.root / "log").glob("*.jsonl"))
    assert "swordfish" not in log_text and "marlin" not in log_text


def test_torn_log_tail_blocks_writes_until_repair(store: Store) -> None:
    from mem.format.verify.repair import repair

    store.add("one", scope="a", kind="fact")
    with open(store.log.path, "ab") as f:
        f.write(b'{"v":1,"seq":')
    fresh = Store.open(store.root)
    with pytest.raises(StoreInvalidError, match="incomplete"):
        fresh.add("two", scope="a", kind="fact")
    assert [p.kind for p in fresh.log.verify()] == ["torn"]
    rep = repair(fresh)
    assert rep.torn_tails and rep.torn_tails[0]["bytes"] == 13
    assert fresh.log.verify() == []
    fresh.add("two", scope="a", kind="fact")
    quarantined = list((store.root / ".mem" / "quarantine").iterdir())
    assert quarantined and quarantined[0].read_bytes() == b'{"v":1,"seq":'


def test_interrupted_forget_is_invisible_and_repaired(store: Store) -> None:
    from mem.format.model.tombstones import Tombstone
    from mem.format.verify.repair import repair

    r = store.add("half forgotten", scope="a", kind="fact")
    # simulate a crash after the tombstone was written but before the file was removed
    store.tombstones.add(Tombstone(r.id, "a", r.match_digest, "2026-01-01T00:00:00.000Z", "", "t"))
    assert store.record_path("a", r.id).exists()
    assert list(store.iter_records()) == []
    with pytest.raises(NotFoundError):
        store.get(r.id)
    assert repair(store).completed_forgets == [r.id]
    assert not store.record_path("a", r.id).exists()


def test_interrupted_supersession_is_repaired(store: Store) -> None:
    from mem.format.model.record import make_record
    from mem.format.verify.repair import repair

    old = store.add("v1", scope="a", kind="fact")
    new = make_record(scope="a", kind="fact", content="v2", supersedes=[old.id])
    store.put(new)  # crash before the old record was marked
    assert repair(store).completed_supersessions == [old.id]
    fixed = store.get(old.id)
    assert fixed.status == "superseded" and fixed.superseded_by == new.id


def test_declaration_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError):
        Store.open(tmp_path)
    s = Store.init(tmp_path / "s")
    decl = s.root / "memstore.json"
    decl.write_text(json.dumps({"format": "mem-store", "version": 2}))
    with pytest.raises(UnsupportedFormatError, match="version 2"):
        Store.open(s.root)
    decl.write_text(json.dumps({"format": "mem-store", "version": 1, "extensions": [{"name": "x-crypt"}]}))
    with pytest.raises(UnsupportedFormatError, match="x-crypt"):
        Store.open(s.root)
    decl.write_text(json.dumps({"format": "mem-store", "version": 1,
                                "extensions": [{"name": "x-hint", "must_understand": False}]}))
    Store.open(s.root)
    decl.write_text("{not json")
    with pytest.raises(StoreInvalidError, match="not valid JSON"):
        Store.open(s.root)


def test_writer_lock_times_out(store: Store) -> None:
    other = Store.open(store.root, lock_timeout=0.2)
    with store.lock, pytest.raises(LockTimeoutError):
        other.add("blocked", scope="a", kind="fact")
    other.add("now fine", scope="a", kind="fact")


def test_derived_from_must_exist(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.add("orphan summary", scope="a", kind="summary", derived_from=["01JD3Z8Q4T6W0000000000000A"])


def test_scope_move_keeps_id_and_logs(store: Store) -> None:
    r = store.add("movable", scope="a", kind="fact")
    m = store.update(r.id, scope="b")
    assert m.id == r.id and m.scope == "b"
    assert not store.record_path("a", r.id).exists() and store.record_path("b", r.id).exists()
    ev = list(store.log.iter_events())[-1]
    assert ev["op"] == "update" and ev["detail"] == {"from_scope": "a"}


def test_batch_groups_writes(store: Store) -> None:
    seen: list[int] = []
    store.listeners.append(lambda ch: seen.append(len(ch)))
    with store.batch():
        for i in range(20):
            store.add(f"batched {i}", scope="a", kind="note")
    assert seen == [20]
    assert len(list(store.iter_records())) == 20
    assert store.log.verify() == []


def test_override_lifts_a_forgotten_source_item(store: Store) -> None:
    src = {"type": "import", "system": "matrixos", "original_id": "mem-1"}
    r = store.add("imported fact", scope="a", kind="fact", source=src)
    store.forget([r.id])
    with pytest.raises(TombstonedError):
        store.add("reworded upstream", scope="a", kind="fact", source=src)
    back = store.add("reworded upstream", scope="a", kind="fact", source=src,
                     allow_tombstoned=True, override_reason="re-import on purpose")
    assert store.get(back.id).content == "reworded upstream\n"


def test_forgetting_a_successor_restores_what_it_superseded(store: Store) -> None:
    t0 = dt.datetime(2024, 1, 1, tzinfo=UTC)
    old = store.add("Alice lives in Berlin", scope="alice", kind="fact", valid_from=t0, recorded_at=t0)
    new, _ = store.supersede(old.id, "Alice lives in Lisbon", valid_from="2025-06-01")
    plan = store.forget([new.id], dry_run=True)
    assert [r.id for r in plan.restored] == [old.id]
    assert plan.to_dict()["restored"][0]["status"] == "active"
    store.forget([new.id], reason="wrong")
    back = store.get(old.id)
    assert back.status == "active" and back.superseded_by is None and back.superseded_at is None
    assert back.valid_to is None and back.valid_from == t0
    assert [r.id for r in store.list(RecordFilter(scopes=["alice"]))] == [old.id]
    ev = list(store.log.iter_events())[-1]
    assert ev["op"] == "update" and ev["detail"] == {"restored": True, "superseded_by_forgotten": new.id}


def test_a_candidate_comes_back_as_a_candidate(store: Store) -> None:
    old = store.add("maybe Berlin", scope="a", kind="fact", status="candidate")
    new, _ = store.supersede(old.id, "maybe Lisbon")
    store.forget([new.id])
    assert store.get(old.id).status == "candidate"


def test_repair_logs_a_record_whose_event_was_cut_off(store: Store) -> None:
    from mem.format.model.record import dump_record, make_record
    from mem.format.verify.repair import repair

    rec = make_record(scope="a", kind="fact", content="written, then the process died")
    path = store.record_path("a", rec.id)
    path.parent.mkdir(mode=0o700)
    path.write_text(dump_record(rec))  # the record landed; its log line never did
    assert repair(store, dry_run=True).adopted == [rec.id]
    assert repair(store).adopted == [rec.id]
    ev = list(store.log.iter_events())[-1]
    assert ev["op"] == "adopt" and ev["id"] == rec.id and ev["detail"] == {"reason": "record had no audit event"}
    assert repair(store).adopted == []
