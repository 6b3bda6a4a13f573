"""Transcript formats, detection, and the capture engine through the API and the real CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.format.base.errors import InvalidInputError
from mem.format.capture.engine import MAX_SIGHTINGS, capture, watermark_path
from mem.format.capture.transcripts import detect_format, read_jsonl, read_transcripts
from mem.format.store.store import Store
from tests.conftest import run_mem


def write_jsonl(path: Path, rows: list[dict[str, object]], mode: str = "w") -> Path:
    with open(path, mode, encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path


def u(text: str, conv: str = "c1") -> dict[str, object]:
    return {"role": "user", "content": text, "conversation": conv}


def a(text: str, conv: str = "c1") -> dict[str, object]:
    return {"role": "assistant", "content": text, "conversation": conv}


def run(store: Store, path: Path, **kw: object) -> dict[str, int]:
    return capture(store, read_transcripts(path), **kw).counts()  # type: ignore[arg-type]


def make_windie(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE memories (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, content TEXT NOT NULL, "
        "timestamp TEXT NOT NULL, metadata TEXT, embedding_id INTEGER, created_at REAL, "
        "record_kind TEXT DEFAULT 'memory', conversation_id TEXT, role TEXT, message_index INTEGER)"
    )
    rows = [
        ("m1", "alice", "My name is Alice.", "transcript", "conv_1", "user", 0),
        ("m2", "alice", "Hello Alice! My name is Windie.", "transcript", "conv_1", "assistant", 1),
        ("m3", "alice", "I'm allergic to peanuts.", "transcript", "conv_1", "user", 2),
        ("m4", "bob", "I prefer tea over coffee.", "transcript", "conv_2", "user", 0),
        ("m5", "alice", "User: My name is Alice.\nAssistant: hi", "interaction", "conv_1", None, None),
    ]
    for rid, user, content, kind, conv, role, idx in rows:
        con.execute(
            "INSERT INTO memories (id, user_id, content, timestamp, record_kind, conversation_id, role, message_index) "
            "VALUES (?, ?, ?, '2025-01-01T00:00:00.000000+00:00', ?, ?, ?, ?)",
            (rid, user, content, kind, conv, role, idx),
        )
    con.commit()
    con.close()
    return path


# -- formats -------------------------------------------------------------------------------------


def test_each_format_is_detected_and_read(tmp_path: Path) -> None:
    j = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam."), a("Hi Sam")])
    t = tmp_path / "t.txt"
    t.write_text("User: My name is Sam.\nI live in Oslo.\nAssistant: Nice.\n=== conversation: b ===\nUser: hi\n")
    sk_dir = tmp_path / "sessions"
    sk_dir.mkdir()
    sk = sk_dir / "session_1700000000000_abcdef012345.json"
    sk.write_text(json.dumps({"id": "s1", "title": "x", "messages": [
        {"role": "user", "content": "I work at Acme.", "timestamp": 1}, {"role": "assistant", "content": "ok"}]}))
    (sk_dir / "session_1700000000001_abcdef012345.json").write_bytes(b"")  # 0-byte session
    (sk_dir / "session_1700000000002_abcdef012345.json.tmp").write_text("{")  # leftover
    w = make_windie(tmp_path / "episodic.db")
    assert [detect_format(p) for p in (j, t, sk, sk_dir, w, tmp_path)] == [
        "jsonl", "text", "skales", "skales", "windieos", "windieos",
    ]  # fmt: skip
    (tj,) = read_transcripts(j)
    assert [(x.role, x.index) for x in tj.turns] == [("user", 0), ("assistant", 1)]
    (tt,) = read_transcripts(t)
    assert [(x.conversation, x.index, x.role, x.content) for x in tt.turns] == [
        ("", 0, "user", "My name is Sam.\nI live in Oslo."), ("", 1, "assistant", "Nice."), ("b", 0, "user", "hi"),
    ]  # fmt: skip
    sks = read_transcripts(sk_dir)
    assert [len(x.turns) for x in sks] == [2, 0]
    assert sks[0].turns[0].conversation == "s1"
    (tw,) = read_transcripts(w)
    assert [(x.conversation, x.index, x.role) for x in tw.turns] == [
        ("conv_1", 0, "user"), ("conv_1", 1, "assistant"), ("conv_1", 2, "user"), ("conv_2", 0, "user"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "data", "fmt", "line", "words"),
    [
        ("bad.jsonl", '{"role": "user", "content": "hi"}\nnot json\n', "jsonl", 2, "not a JSON object"),
        ("bad2.jsonl", '{"role": "user"}\n', "jsonl", 1, "lacks 'content'"),
        ("bad.txt", "hello there\nUser: hi\n", "text", 1, "before the first"),
        ("session_1_a.json", '{"id": "x", "messages": [', "skales", 1, "not valid JSON"),
        ("bad.db", "SQLite format 3\x00garbage", "windieos", None, "SQLite"),
    ],
)
def test_bad_transcripts_name_file_and_problem(tmp_path: Path, name: str, data: str, fmt: str,
                                               line: int | None, words: str) -> None:
    p = tmp_path / name
    p.write_text(data)
    with pytest.raises(InvalidInputError) as ei:
        read_transcripts(p, fmt)
    assert ei.value.path is not None and name in ei.value.path
    assert ei.value.line == line
    assert words in ei.value.message


def test_undetectable_file(tmp_path: Path) -> None:
    p = tmp_path / "notes.md"
    p.write_text("# Some notes\nnothing here\n")
    with pytest.raises(InvalidInputError, match="cannot tell the transcript format"):
        detect_format(p)


_roles = st.sampled_from(["user", "assistant", "system"])


@given(st.lists(st.tuples(_roles, st.text(max_size=40), st.sampled_from(["", "a", "b"])), max_size=20))
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_jsonl_round_trip(tmp_path: Path, rows: list[tuple[str, str, str]]) -> None:
    p = write_jsonl(tmp_path / "rt.jsonl", [{"role": r, "content": c, "conversation": v} for r, c, v in rows])
    t = read_jsonl(p)
    assert [(x.role, x.content, x.conversation) for x in t.turns] == rows
    for conv in {v for _, _, v in rows}:
        assert [x.index for x in t.turns if x.conversation == conv] == list(range(sum(1 for *_, v in rows if v == conv)))


# -- engine --------------------------------------------------------------------------------------


def test_user_turns_only_and_candidate_records(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam. I prefer tea over coffee."),
                                           a("My name is Claude. I prefer brevity."), u("don't worry about it")])
    c = run(store, p, scope="sam")
    assert (c["captured"], c["skipped-non-user"], c["user-turns"]) == (2, 1, 2)
    recs = sorted(store.list(), key=lambda r: r.content)
    assert [r.content for r in recs] == ["User prefers tea over coffee\n", "User's name is Sam\n"]
    r = recs[1]
    assert (r.status, r.scope, r.kind) == ("candidate", "sam", "fact")
    assert 0 < r.confidence < 1
    assert {k: r.source[k] for k in ("type", "transcript", "conversation", "turn", "pattern", "quote")} == {
        "type": "capture", "transcript": str(p.resolve()), "conversation": "c1", "turn": 0,
        "pattern": "fact.name", "quote": "My name is Sam.",
    }  # fmt: skip


def test_idempotent_and_incremental(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam."), a("hi")])
    assert run(store, p)["captured"] == 1
    again = run(store, p)
    assert (again["captured"], again["skipped-seen"], again["user-turns"]) == (0, 2, 0)
    write_jsonl(p, [u("I live in Oslo."), u("I live in Oslo.", conv="c2")], mode="a")
    c = run(store, p)
    assert (c["captured"], c["sighting"], c["skipped-seen"]) == (1, 1, 2)
    assert len(store.list()) == 2
    wm = json.loads(watermark_path(store, str(p.resolve())).read_text())
    assert wm["conversations"] == {"c1": 2, "c2": 0}
    # --rescan ignores the watermark but still adds nothing
    c = capture(store, read_transcripts(p), rescan=True).counts()
    assert (c["captured"], c["duplicate"]) == (0, 3)
    assert len(store.list()) == 2


def test_two_finds_of_one_pattern_in_a_turn_are_both_stored(store: Store, tmp_path: Path) -> None:
    from mem.format.store.store import source_key

    p = write_jsonl(tmp_path / "t.jsonl", [u("I love hiking and I love jazz. My name is Sam.")])
    c = run(store, p)
    assert (c["captured"], c["duplicate"]) == (3, 0)
    recs = {r.content.strip(): r for r in store.list()}
    assert set(recs) == {"User loves hiking", "User loves jazz", "User's name is Sam"}
    hiking, jazz = recs["User loves hiking"], recs["User loves jazz"]
    assert hiking.source["pattern"] == jazz.source["pattern"] == "preference.like"
    assert "clause" not in hiking.source  # a first find keeps the plain (round-2) source key
    assert jazz.source["clause"] == 1
    assert "clause" not in recs["User's name is Sam"].source  # first find of its own pattern
    assert source_key(hiking.source) != source_key(jazz.source)
    # idempotent: a rescan finds both as duplicates; forgetting the second keeps it forgotten
    again = capture(store, read_transcripts(p), rescan=True).counts()
    assert (again["captured"], again["duplicate"]) == (0, 3)
    store.forget([jazz.id], reason="test")
    again = capture(store, read_transcripts(p), rescan=True).counts()
    assert (again["captured"], again["suppressed-forgotten"]) == (0, 1)


def test_rewritten_transcript_is_read_again_without_duplicates(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam."), u("I live in Oslo.")])
    run(store, p)
    write_jsonl(p, [u("My name is Sam!"), u("I work at Acme.")])  # rewritten, not appended
    rep = capture(store, read_transcripts(p))
    assert rep.sources[0].rewritten
    c = rep.counts()
    assert (c["captured"], c["duplicate"]) == (1, 1)


def test_dry_run_writes_nothing(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam."), u("My name is Sam.", conv="c2")])
    rep = capture(store, read_transcripts(p), dry_run=True)
    assert [i.outcome for i in rep.items] == ["captured", "sighting"]
    assert store.list() == []
    assert not watermark_path(store, str(p.resolve())).exists()


def test_forgotten_capture_is_never_recaptured(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("I'm allergic to peanuts.")])
    run(store, p)
    (rec,) = store.list()
    store.forget([rec.id], reason="asked to")
    c = capture(store, read_transcripts(p), rescan=True).counts()
    assert (c["captured"], c["suppressed-forgotten"]) == (0, 1)
    q = write_jsonl(tmp_path / "other.jsonl", [u("Oh, and I'm allergic to peanuts!")])
    assert run(store, q)["suppressed-forgotten"] == 1
    assert store.list(None) == []


def test_rejected_capture_suppresses_recapture(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("I love hiking.")])
    run(store, p)
    (rec,) = store.list()
    store.reject(rec.id)
    q = write_jsonl(tmp_path / "other.jsonl", [u("I love hiking!"), u("I love hiking.", conv="c9")])
    c = run(store, q)
    assert (c["captured"], c["suppressed-rejected"]) == (0, 2)
    assert capture(store, read_transcripts(p), rescan=True).counts()["suppressed-rejected"] == 1


def test_sightings_are_bounded_and_deduplicated(store: Store, tmp_path: Path) -> None:
    rows = [u("I prefer tea over coffee.", conv=f"c{i}") for i in range(MAX_SIGHTINGS + 5)]
    p = write_jsonl(tmp_path / "t.jsonl", rows)
    c = run(store, p)
    assert (c["captured"], c["sighting"]) == (1, MAX_SIGHTINGS + 4)
    (rec,) = store.list()
    sightings = rec.source["sightings"]
    assert len(sightings) == MAX_SIGHTINGS
    assert rec.source["sighting_count"] == MAX_SIGHTINGS + 4
    assert sightings[-1]["conversation"] == f"c{MAX_SIGHTINGS}"  # the first ones are kept
    again = capture(store, read_transcripts(p), rescan=True).counts()
    assert (again["sighting"], again["duplicate"]) == (0, MAX_SIGHTINGS + 5)  # nothing new
    assert store.get(rec.id) == rec


def test_existing_active_memory_gains_sighting(store: Store, tmp_path: Path) -> None:
    rec = store.add("User lives in Oslo", scope="default", kind="fact")
    p = write_jsonl(tmp_path / "t.jsonl", [u("I live in Oslo.")])
    assert run(store, p)["sighting"] == 1
    got = store.get(rec.id)
    assert got.status == "active"
    assert got.source["sightings"][0]["turn"] == 0
    ops = [e["op"] for e in (json.loads(x) for x in next((store.root / "log").glob("*.jsonl")).read_text().splitlines())]
    assert ops[-1] == "sighting"


def test_secrets_are_refused_and_never_written(store: Store, tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "t.jsonl", [u("Remember that my password is Tr0ub4dor&3. My name is Sam.")])
    rep = capture(store, read_transcripts(p))
    assert [(i.outcome, i.secret, i.content, i.quote) for i in rep.items] == [
        ("refused-secret", "password", None, None), ("captured", None, "User's name is Sam", "My name is Sam."),
    ]  # fmt: skip
    for f in store.root.rglob("*"):
        if f.is_file():
            assert b"Tr0ub4dor" not in f.read_bytes(), f


def test_scope_from_a_transcript_field(store: Store, tmp_path: Path) -> None:
    w = make_windie(tmp_path / "episodic.db")
    c = capture(store, read_transcripts(w), scope_from="user_id").counts()
    assert c["captured"] == 3
    assert {(r.scope, r.content.strip()) for r in store.list()} == {
        ("alice", "User's name is Alice"), ("alice", "User is allergic to peanuts"), ("bob", "User prefers tea over coffee"),
    }  # fmt: skip
    p = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam.")])
    with pytest.raises(InvalidInputError, match="no field 'user_id'"):
        capture(store, read_transcripts(p), scope=None, scope_from="user_id")


# -- the real executable ---------------------------------------------------------------------------


def test_cli_capture_json_and_exit_codes(tmp_path: Path) -> None:
    assert run_mem("init", str(tmp_path / "s")).returncode == 0
    p = write_jsonl(tmp_path / "t.jsonl", [u("My name is Sam. My api key is sk-abcdefghijklmnopqrstuvwxyz0123."), a("ok")])
    r = run_mem("--store", str(tmp_path / "s"), "capture", str(p), "--scope", "sam", "--json")
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert set(out) == {"dry_run", "counts", "sources", "items", "vectors"}
    assert out["counts"] == {"captured": 1, "sighting": 0, "duplicate": 0, "suppressed-forgotten": 0,
                             "suppressed-rejected": 0, "refused-secret": 1, "skipped-non-user": 1,
                             "skipped-seen": 0, "user-turns": 1}  # fmt: skip
    assert out["sources"] == [{"transcript": str(p.resolve()), "format": "jsonl", "turns": 2, "new_turns": 2,
                               "user_turns": 1, "skipped_non_user": 1, "skipped_seen": 0, "rewritten": False}]  # fmt: skip
    cap, sec = out["items"]
    assert set(cap) == {"outcome", "id", "scope", "kind", "pattern", "confidence", "content", "quote",
                        "transcript", "conversation", "turn"}  # fmt: skip
    assert (cap["outcome"], cap["scope"], cap["content"]) == ("captured", "sam", "User's name is Sam")
    assert (sec["outcome"], sec["secret"], sec["content"], sec["quote"]) == ("refused-secret", "sk-api-key", None, None)
    assert "sk-abc" not in r.stdout + r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "x"}\n{oops\n')
    r = run_mem("--store", str(tmp_path / "s"), "capture", str(bad))
    assert r.returncode == 4 and f"{bad}:2:" in r.stderr
    r = run_mem("--store", str(tmp_path / "s"), "capture", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 3
    r = run_mem("--store", str(tmp_path / "s"), "capture", str(p), "--format", "yaml")
    assert r.returncode == 4


def test_cli_scope_from_never_merges_users(tmp_path: Path) -> None:
    """`--scope-from` maps each user id by import's rule: distinct ids (non-ASCII, homoglyphs,
    case and punctuation variants) never share a scope (before: алиса and борис both went to
    `default`, аlice with a Cyrillic а to user lice's scope, alice@home and Alice-Home to one)."""
    assert run_mem("init", str(tmp_path / "s")).returncode == 0
    users = ["алиса", "борис", "аlice", "lice", "alice@home", "Alice-Home", "con"]
    rows = [{"role": "user", "content": f"My name is Person{n}.", "conversation": f"c{n}", "user": who}
            for n, who in enumerate(users)]
    p = write_jsonl(tmp_path / "t.jsonl", rows)
    r = run_mem("--store", str(tmp_path / "s"), "capture", str(p), "--scope-from", "user", "--json")
    assert r.returncode == 0, r.stderr
    listed = run_mem("--store", str(tmp_path / "s"), "list", "--json")
    assert listed.returncode == 0, listed.stderr
    by_scope = {}
    for rec in listed.json():
        by_scope.setdefault(rec["scope"], []).append(rec["content"])
    assert len(by_scope) == len(users), by_scope  # one scope per user
    assert by_scope["lice"] == ["User's name is Person3\n"]
    assert "default" not in by_scope and "con" not in by_scope
