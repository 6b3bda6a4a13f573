"""The committed example store (examples/store/) loads cleanly and is what its script builds.

Checks: every record parses and is canonical, its stored digest is right and its file sits at
``records/<scope>/<id>.md``; the counts per scope, kind and status are those documented in
examples/README.md (and reported by ``mem stats --json``); the audit chains verify; tombstoned
ids have no file; every link (derived_from, supersedes, superseded_by) resolves to a live record
or a tombstone; and re-running examples/build_example_store.py reproduces the committed bytes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mem.format.base.jsonl import read_jsonl
from mem.format.model.audit import verify_chain
from mem.format.model.record import STATUSES, Record, dump_record, read_record_file, stored_digest
from mem.format.rules import ids
from mem.format.store.store import RecordFilter, Store
from tests.conftest import run_mem

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
STORE = EXAMPLES / "store"
README = EXAMPLES / "README.md"
SCOPES = ("alice", "assistant", "project-atlas")


@pytest.fixture(scope="module")
def records() -> list[Record]:
    out = []
    for path in sorted((STORE / "records").glob("*/*.md")):
        rec, text = read_record_file(path)
        assert text == dump_record(rec), f"{path} is not canonical"
        assert stored_digest(text) == rec.digest, f"{path}: stored digest is wrong"
        assert path.name == f"{rec.id}.md" and path.parent.name == rec.scope, path
        out.append(rec)
    return out


def _table(marker: str) -> list[list[str]]:
    text = README.read_text("utf-8")
    m = re.search(rf"<!-- counts:{marker} -->\n(.*?)<!-- /counts:{marker} -->", text, re.S)
    assert m, f"examples/README.md has no counts:{marker} table"
    rows = [ln.strip().strip("|").split("|") for ln in m.group(1).strip().splitlines()[2:]]
    return [[c.strip().strip("*") for c in row] for row in rows]


def _tombstone_ids() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for p in sorted((STORE / "tombstones").glob("*.jsonl")):
        lines, tail = read_jsonl(p)
        assert tail is None
        out[p.stem] = {ln.value["id"] for ln in lines if ln.value and ln.value["type"] == "tombstone"}
    return out


def test_every_record_loads_through_the_store(records: list[Record]) -> None:
    store = Store.open(STORE)
    errors: list[str] = []
    live = list(store.iter_records(on_error=lambda e: errors.append(str(e))))
    assert errors == []
    assert sorted(r.id for r in live) == sorted(r.id for r in records)
    assert len(records) >= 60


def test_counts_match_the_readme(records: list[Record]) -> None:
    tombs = _tombstone_ids()
    by_scope_status = Counter((r.scope, r.status) for r in records)
    rows = _table("scope")
    assert [r[0] for r in rows] == [*SCOPES, "total"]
    for row in rows:
        name, total, *per_status, n_tomb = row
        scopes = SCOPES if name == "total" else (name,)
        assert int(total) == sum(1 for r in records if r.scope in scopes), name
        for status, n in zip(STATUSES, per_status, strict=True):
            assert int(n) == sum(by_scope_status[(s, status)] for s in scopes), (name, status)
        assert int(n_tomb) == sum(len(tombs.get(s, ())) for s in scopes), name
    by_scope_kind = Counter((r.scope, r.kind) for r in records)
    rows = _table("kind")
    assert sorted(r[0] for r in rows) == sorted(ids.KNOWN_KINDS)
    for kind, *per_scope, total in rows:
        for scope, n in zip(SCOPES, per_scope, strict=True):
            assert int(n) == by_scope_kind[(scope, kind)], (kind, scope)
        assert int(total) == sum(by_scope_kind[(s, kind)] for s in SCOPES)


def test_mem_stats_agrees_with_the_readme() -> None:
    res = run_mem("--store", str(STORE), "stats", "--json")
    assert res.returncode == 0, res.stderr
    stats = res.json()
    total = _table("scope")[-1]
    assert stats["records"] == int(total[1])
    assert stats["tombstones"] == int(total[-1])
    assert stats["by_status"] == dict(zip(STATUSES, map(int, total[2:6]), strict=True))
    assert stats["by_kind"] == {row[0]: int(row[-1]) for row in _table("kind")}


def test_audit_chains_verify_and_hold_no_content(records: list[Record]) -> None:
    chains = sorted((STORE / "log").glob("*.jsonl"))
    assert len(chains) == 1
    for p in chains:
        assert verify_chain(p) == []
    text = chains[0].read_text("utf-8")
    for r in records:  # no body text ever reaches the log
        assert r.content.strip()[:40] not in text


def test_forgotten_records_are_gone(records: list[Record]) -> None:
    tombs = _tombstone_ids()
    assert sum(map(len, tombs.values())) == 5
    for scope, gone in tombs.items():
        for rid in gone:
            assert not (STORE / "records" / scope / f"{rid}.md").exists()
    # a forgotten credential leaves no trace of its text anywhere in the store
    for p in STORE.rglob("*"):
        if p.is_file() and ".mem" not in p.parts:
            assert "hunter2" not in p.read_text("utf-8", errors="replace"), p
    # the lift entry and its record: the restored weekly-sync fact is live
    lifts = [ln.value for ln in read_jsonl(STORE / "tombstones" / "project-atlas.jsonl")[0]
             if ln.value and ln.value["type"] == "lift"]
    assert len(lifts) == 1
    assert any(r.id == lifts[0]["id"] for r in records)


def test_links_resolve_and_chains_exist(records: list[Record]) -> None:
    live = {r.id: r for r in records}
    gone = set().union(*_tombstone_ids().values())
    for r in records:
        for link in (*r.derived_from, *r.supersedes, *([r.superseded_by] if r.superseded_by else [])):
            assert link in live or link in gone, (r.id, link)
        if r.superseded_by:
            nxt = live[r.superseded_by]
            assert r.status == "superseded" and r.id in nxt.supersedes
            assert r.superseded_at is not None and r.valid_to is not None
    # supersession chains of three: A -> B -> C
    heads = [r for r in records if r.supersedes and live[r.supersedes[0]].supersedes]
    assert len(heads) >= 2
    # every summary is derived from episodes
    summaries = [r for r in records if r.kind == "summary"]
    assert summaries and all(
        any(live[d].kind == "episode" for d in s.derived_from if d in live) for s in summaries
    )
    assert {r.status for r in records} == set(STATUSES)
    assert {r.kind for r in records} >= set(ids.KNOWN_KINDS)
    assert {r.scope for r in records} == set(SCOPES)


def test_bitemporal_queries_on_the_example(records: list[Record]) -> None:
    store = Store.open(STORE)
    launch = "Atlas public launch is planned for"

    def launches(flt: RecordFilter) -> list[str]:
        return sorted(r.content for r in store.list(flt) if r.content.startswith(launch))

    t = "2024-12-01T00:00:00Z"
    from mem.format.rules.timeutil import parse_time

    assert launches(RecordFilter(scopes=["project-atlas"], as_of=parse_time(t))) == [
        f"{launch} 2025-03-15.\n"
    ]
    assert launches(RecordFilter(scopes=["project-atlas"], known_at=parse_time("2025-01-10"))) == [
        f"{launch} 2025-04-01.\n"
    ]
    assert launches(RecordFilter(scopes=["project-atlas"])) == [f"{launch} 2025-04-22.\n"]
    # scope isolation: nothing of alice's is listed for the assistant
    assert all(r.scope == "assistant" for r in store.list(RecordFilter(scopes=["assistant"])))


def test_the_script_rebuilds_the_committed_store(tmp_path: Path) -> None:
    target = tmp_path / "store"
    p = subprocess.run(
        [sys.executable, str(EXAMPLES / "build_example_store.py"), str(target)],
        capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 0, p.stderr

    def tree(root: Path) -> dict[str, bytes]:
        return {
            str(f.relative_to(root)): f.read_bytes()
            for f in sorted(root.rglob("*"))
            if f.is_file() and ".mem" not in f.relative_to(root).parts
        }

    built, committed = tree(target), tree(STORE)
    assert sorted(built) == sorted(committed), (
        "examples/store is out of date: run .venv/bin/python examples/build_example_store.py"
    )
    stale = [name for name in built if built[name] != committed[name]]
    assert stale == [], (
        f"examples/store differs from what the script builds ({stale[:3]}...): run "
        ".venv/bin/python examples/build_example_store.py and commit the result"
    )


def test_mem_verify_full_finds_nothing() -> None:
    res = run_mem("--store", str(STORE), "verify", "--full", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    report = res.json()
    assert report["valid"] is True
    assert report["findings"] == []
    assert report["counts"]["records"] == int(_table("scope")[-1][1])
