"""Importing the four seed systems' on-disk stores (fixtures built from their format descriptions)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mem.format.interchange.importers import detect
from mem.format.interchange.migrate import ImportOptions, ImportSummary, import_path
from mem.format.model.record import Record
from mem.format.rules.timeutil import epoch_ms, format_time
from mem.format.store.store import Store, source_key

from . import builders as b


def by_orig(store: Store) -> dict[str, Record]:
    return {str(r.source.get("original_id")): r for r in store.iter_records()}


def problems(s: ImportSummary, outcome: str) -> list[str]:
    return sorted(f"{p.where}" for p in s.problems if p.outcome == outcome)


# ---------------------------------------------------------------------------------------------
# WindieOS


@pytest.fixture
def windie(tmp_path: Path) -> Path:
    b.build_windieos(tmp_path / "memory")
    return tmp_path / "memory"


#: "Aiko" / "Main chat" folded by ids.scope_for: a digest of the original name, as for every
#: name that is not a valid scope as it is
AIKO = "aiko.main-chat-bf0203cb"


def test_windieos_import(store: Store, windie: Path) -> None:
    before = b.snapshot(windie)
    assert detect(windie) == "windieos"
    s = import_path(store, windie, "windieos")
    assert b.snapshot(windie) == before  # the source is never modified (no -wal/-shm, same bytes)
    c = s.counts
    assert (c["created"], c["skipped_not_memory"], c["invalid"]) == (5, 2, 1)
    assert problems(s, "skipped_not_memory") == ["episodic.db#memories:3", "episodic.db#memories:4"]
    assert problems(s, "invalid") == ["episodic.db#memories:7"]  # blank content
    recs = by_orig(store)
    ids = b.W_IDS
    inter = recs[f"episodic:{ids['interaction']}"]
    assert inter.kind == "episode" and inter.scope == "u-alice-example-dee1d585"
    assert format_time(inter.recorded_at) == "2025-03-01T10:00:00.123Z"
    assert inter.valid_from == inter.recorded_at  # an interaction happened then (world time)
    assert inter.source["conversation"] == "conv_11111111"
    assert inter.source["user"] == b.W_USER
    assert inter.source["embedding_space"]["model_id"] == "all-MiniLM-L6-v2"
    from mem.format.rules.ids import id_time_ms

    assert id_time_ms(inter.id) == epoch_ms(inter.recorded_at)
    tool = recs[f"episodic:{ids['tool']}"]
    assert tool.kind == "note" and tool.valid_from is None
    assert tool.content == "Alice's favourite dish is 麻婆豆腐 🌶\n"  # raw UTF-8 kept
    assert tool.source["tool"] == "remember"
    old = recs[f"episodic:{ids['old']}"]
    assert old.scope == "default_user"
    assert format_time(old.recorded_at) == "2024-12-31T23:30:00.000Z"  # naive: UTC by default
    shot = recs[f"episodic:{ids['shot']}"]
    assert "screenshot" not in shot.source and len(shot.content) < 200
    summ = recs[f"semantic:{ids['summary']}"]
    assert summ.kind == "summary" and summ.scope == "u-alice-example-dee1d585"
    assert set(summ.derived_from) == {inter.id, tool.id}  # lineage through source_memory_ids
    assert summ.source["missing_sources"] == 1  # the deleted row
    assert next(p.message for p in s.problems if p.outcome == "warning").startswith("1 of 3 source item(s)")
    assert set(summ.tags) == {"personal-info", "location"}
    assert format_time(summ.recorded_at) == "2025-03-02T00:00:00.000Z"
    assert not any("transcript" in str(r.source.get("record_kind")) for r in recs.values())


def test_windieos_timezone_and_scope_map(store: Store, windie: Path) -> None:
    opts = ImportOptions(scope_map={b.W_USER: "alice"})
    import_path(store, windie, "windieos", options=opts, timezone="Europe/Paris")
    recs = by_orig(store)
    old = recs[f"episodic:{b.W_IDS['old']}"]
    assert format_time(old.recorded_at) == "2024-12-31T22:30:00.000Z"  # 23:30 in Paris (UTC+1)
    assert recs[f"episodic:{b.W_IDS['tool']}"].scope == "alice"
    assert old.scope == "default_user"


def test_windieos_without_fts_and_summary_whose_sources_are_gone(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "m"
    b.build_windieos(root, with_fts=False)
    (root / "episodic.db").unlink()  # only summaries left: their sources were deleted
    s = import_path(store, root, "windieos")
    assert s.counts["created"] == 1
    (summ,) = store.iter_records()
    assert summ.derived_from == () and summ.source["missing_sources"] == 3


def test_reimport_adds_nothing_and_forgotten_stays_forgotten(store: Store, windie: Path) -> None:
    import_path(store, windie, "windieos")
    files = b.snapshot(store.records_dir)
    s2 = import_path(store, windie, "windieos")
    assert s2.counts["created"] == 0 and s2.counts["unchanged"] == 5
    assert b.snapshot(store.records_dir) == files
    tool = by_orig(store)[f"episodic:{b.W_IDS['tool']}"]
    plan = store.forget([tool.id], reason="user asked")
    assert {r.source["original_id"] for r in plan.records} == {
        f"episodic:{b.W_IDS['tool']}",
        f"semantic:{b.W_IDS['summary']}",  # cascade through lineage
    }
    s3 = import_path(store, windie, "windieos")
    assert s3.counts["created"] == 0
    assert s3.counts["refused_forgotten"] == 2  # neither the tool memory nor its summary return
    live = {r.source["original_id"] for r in store.iter_records()}
    assert f"episodic:{b.W_IDS['tool']}" not in live and f"semantic:{b.W_IDS['summary']}" not in live


def test_dry_run_writes_nothing(store: Store, windie: Path) -> None:
    before = b.snapshot(store.root)
    s = import_path(store, windie, "windieos", options=ImportOptions(dry_run=True, keep_items=True))
    assert b.snapshot(store.root) == before
    assert s.dry_run and s.counts["created"] == 5
    planned = {i.original_id: i for i in s.items}
    summ = planned[f"semantic:{b.W_IDS['summary']}"]
    assert summ.outcome == "created" and summ.kind == "summary"


# ---------------------------------------------------------------------------------------------
# Matrix OS


def test_matrixos_wal_database_with_live_writer(store: Store, tmp_path: Path) -> None:
    home = tmp_path / "matrixos"
    writer = b.build_matrixos(home, keep_open=True)
    assert writer is not None
    try:
        wal = home / "system" / "matrix.db-wal"
        assert wal.stat().st_size > 0  # committed rows live in the WAL only
        before = b.snapshot(home)
        assert detect(home) == "matrixos"
        s = import_path(store, home, "matrixos")
        assert b.snapshot(home) == before
    finally:
        writer.close()
    assert s.counts["created"] == len(b.M_LIVE) == 4
    recs = by_orig(store)
    assert sorted(recs) == sorted(b.M_LIVE)  # the export folder's deleted memories are not read
    assert {r.scope for r in recs.values()} == {"default"}
    pref = recs["mem-7c1e9a42-5b3"]
    assert pref.kind == "preference"
    assert pref.source["conversation"] == "telegram:0f6c7d1e-3b2a-4c5d-9e8f-112233445566"
    assert format_time(pref.recorded_at) == "2025-01-05T08:30:00.000Z" and pref.updated_at is None
    instr = recs["mem-1a2b3c4d-5e6"]
    assert instr.kind == "instruction" and "conversation" not in instr.source
    assert format_time(instr.updated_at) == "2025-02-01T12:00:00.500Z"  # type: ignore[arg-type]
    assert recs["mem-2b3c4d5e-6f7"].kind == "fact"  # NULL category
    ctx = recs["mem-3c4d5e6f-708"]
    assert (ctx.kind, ctx.tags) == ("note", ("context",))


def test_matrixos_read_only_directory(store: Store, tmp_path: Path) -> None:
    home = tmp_path / "matrixos"
    b.build_matrixos(home)  # closed: checkpointed, no -wal left
    sysdir = home / "system"
    sysdir.chmod(0o555)  # (no effect when the tests run as root; the snapshot still checks)
    try:
        before = b.snapshot(home)
        s = import_path(store, sysdir / "matrix.db", "matrixos", options=ImportOptions(scope="work"))
        assert b.snapshot(home) == before
    finally:
        sysdir.chmod(0o755)
    assert s.counts["created"] == 4
    assert {r.scope for r in store.iter_records()} == {"work"}


def test_not_a_database_is_a_clear_error(store: Store, tmp_path: Path) -> None:
    from mem.format.base.errors import InvalidInputError

    (tmp_path / "system").mkdir()
    (tmp_path / "system" / "matrix.db").write_bytes(b"garbage" * 20)
    with pytest.raises(InvalidInputError, match="not an SQLite database"):
        import_path(store, tmp_path, "matrixos")


# ---------------------------------------------------------------------------------------------
# Skales


def test_skales_import(store: Store, tmp_path: Path) -> None:
    root = tmp_path / ".skales-data"
    b.build_skales(root)
    before = b.snapshot(root)
    assert detect(root) == "skales"
    s = import_path(store, root, "skales")
    assert b.snapshot(root) == before
    c = s.counts
    # 5 memories + 2 known facts + 3 tier files
    assert (c["created"], c["invalid"], c["skipped_empty"], c["skipped_not_memory"]) == (10, 1, 2, 4)
    assert problems(s, "invalid") == ["memories/1700000400000_zz99z.json:1"]  # corrupt: reported
    assert "memories/1700000600000_tmp00.json.tmp" in problems(s, "skipped_not_memory")
    recs = by_orig(store)
    tea = recs["memories/1700000000000_ab12c"]
    assert (tea.kind, tea.content) == ("preference", "User likes green tea\n")
    assert tea.source["conversation"] == "session_1700000000000_0123456789ab"
    assert format_time(tea.recorded_at) == "2023-11-14T22:13:20.000Z"
    assert recs["memories/1700000100000_cd34e"].kind == "contact"
    # two memories from one sentence stay two records
    assert recs["memories/1700000200000_ef56g"].content == "Works at: Acme GmbH\n"
    loc = recs["memories/1700000200000_hi78j"]
    assert (loc.kind, loc.tags, loc.content) == ("fact", ("location",), "Lives in: München\n")
    assert recs["soul/knownFacts/pet"].content == "pet: a cat named Miso\n"
    ep = recs["memory/episodic/1700002000000"]
    assert ep.kind == "episode" and ep.valid_from == ep.recorded_at
    assert "User: Which green tea is best?" in ep.content
    assert recs["memory/long-term/1700001000000"].tags == ("long-term",)
    assert not any(k.startswith("sessions") for k in recs)
    assert import_path(store, root, "skales").counts["created"] == 0


# ---------------------------------------------------------------------------------------------
# Soul of Waifu


def test_soulofwaifu_import(store: Store, tmp_path: Path) -> None:
    soul = b.build_soulofwaifu(tmp_path / "app")
    before = b.snapshot(soul)
    assert detect(soul) == "soulofwaifu"
    s = import_path(store, soul, "soulofwaifu")
    assert b.snapshot(soul) == before
    recs = list(store.iter_records())
    aiko = [r for r in recs if r.scope == AIKO]
    by_tag: dict[str, list[str]] = {}
    for r in aiko:
        for t in r.tags:
            by_tag.setdefault(t, []).append(r.content)
    assert sorted(by_tag["core-identity"]) == [
        "I am Aiko, a librarian who loves old maps.\n",
        "I never lie to the user,\neven when the truth is hard.\n",  # continuation line kept
    ]
    (state,) = by_tag["internal-state"]  # one snapshot record, not one per bullet
    assert "Emotional Decay Counter: 1/3" in state
    assert sorted(by_tag["preference"]) == ["Drinks matcha every morning\n", "Hates horror films\n"]
    assert by_tag["milestone"] == ["Promised to visit the map museum together\n"]  # no trailing newline
    assert by_tag["topic"] == ["# Maps\n\nKenji collects old maps of Japan.\n"]
    diary = sorted((r for r in aiko if "diary" in r.tags), key=lambda r: r.recorded_at)
    assert [format_time(r.valid_from) for r in diary if r.valid_from] == [
        "2025-03-01T09:15:00.000Z",
        "2025-03-01T21:40:00.000Z",
        "2025-03-02T07:05:00.000Z",  # lowercase diary_ file
    ]
    assert all(r.kind == "episode" for r in diary)
    assert all(r.source["character"] == "Aiko" and r.source["chat"] == "Main chat" for r in aiko)
    # not memory: backups, logs, markers, tmp leftovers; 0-byte MEMORY.md counted as empty
    skipped = problems(s, "skipped_not_memory")
    assert any("backups/MEMORY_" in p for p in skipped) and any("agent_logs.txt" in p for p in skipped)
    assert any("USER.md.tmp" in p for p in skipped)
    assert s.counts["skipped_empty"] == 1
    assert not any("SOUL CACHE" in r.content for r in recs)
    # the second character: a non-ASCII name gets a distinct scope; a file without headings
    other = sorted(r.content for r in recs if r.scope != AIKO)
    assert other == ["has a dog named Hachi\n", "likes cherry blossoms\n"]
    assert {r.scope for r in recs if r.scope != AIKO} == {"default-1e6f84c0"}
    assert s.counts["created"] == len(recs) == 17
    assert import_path(store, soul, "soulofwaifu").counts["unchanged"] == 17


def test_edited_bullet_arrives_as_new_record(store: Store, tmp_path: Path) -> None:
    soul = b.build_soulofwaifu(tmp_path / "app")
    import_path(store, soul, "soulofwaifu")
    user_md = soul / "Aiko" / "chats" / "Main chat" / "memory" / "USER.md"
    user_md.write_text(user_md.read_text("utf-8").replace("Trust: growing", "Trust: high"), "utf-8")
    s = import_path(store, soul, "soulofwaifu")
    assert s.counts["created"] == 1 and s.counts["unchanged"] == 16


def test_source_key_of_imported_records_matches_original_ids(store: Store, tmp_path: Path) -> None:
    root = tmp_path / ".skales-data"
    b.build_skales(root)
    import_path(store, root, "skales")
    keys = store.source_keys()
    k = source_key({"system": "skales", "original_id": "memories/1700000000000_ab12c"})
    assert k in keys


def test_wal_database_without_wal_file_opens_immutable(tmp_path: Path) -> None:
    from mem.format.interchange.importers.sqlite_ro import open_readonly

    db = tmp_path / "x.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE t(a)")
    con.execute("INSERT INTO t VALUES (1)")
    con.commit()
    con.close()
    before = b.snapshot(tmp_path)
    with open_readonly(db) as ro:
        assert ro.execute("SELECT a FROM t").fetchone()[0] == 1
    assert b.snapshot(tmp_path) == before  # no -wal/-shm created
