"""Builders of the four seed systems' on-disk stores, written with sqlite3/json from the
descriptions in /shared/formats/README.md, with the edge cases real stores contain.

Each builder returns a small description of what it wrote (the ids the tests check against).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------------
# WindieOS: memory/{episodic,semantic}.db (+ FAISS files, watermark, embedding space)

EPISODIC_SQL = """
CREATE TABLE memories (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, content TEXT NOT NULL, timestamp TEXT NOT NULL,
    metadata TEXT, embedding_id INTEGER, created_at REAL
);
ALTER TABLE memories ADD COLUMN is_semanticized INTEGER DEFAULT 0;
ALTER TABLE memories ADD COLUMN conversation_id TEXT;
ALTER TABLE memories ADD COLUMN record_kind TEXT DEFAULT 'memory';
ALTER TABLE memories ADD COLUMN role TEXT;
ALTER TABLE memories ADD COLUMN message_index INTEGER;
ALTER TABLE memories ADD COLUMN message_type TEXT;
ALTER TABLE memories ADD COLUMN tool_name TEXT;
ALTER TABLE memories ADD COLUMN correlation_id TEXT;
ALTER TABLE memories ADD COLUMN model_id TEXT;
ALTER TABLE memories ADD COLUMN model_provider TEXT;
ALTER TABLE memories ADD COLUMN screenshot TEXT;
CREATE TABLE conversation_titles (user_id TEXT, conversation_id TEXT, title TEXT, source TEXT,
    PRIMARY KEY (user_id, conversation_id));
"""
SEMANTIC_SQL = """
CREATE TABLE memories (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, content TEXT NOT NULL, timestamp TEXT NOT NULL,
    metadata TEXT, embedding_id INTEGER, created_at REAL
);
"""

W_IDS = {
    "interaction": "6f1c2a6e-0d1b-4c55-9d1e-5b7a0b3e9a01",
    "tool": "0b9e7c1d-3f2a-4e8b-a1c5-7d6e5f4a3b02",
    "transcript": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e03",
    "replay": "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f04",
    "old": "3e4f5a6b-7c8d-4e9f-0a1b-2c3d4e5f6a05",
    "shot": "4f5a6b7c-8d9e-4f0a-1b2c-3d4e5f6a7b06",
    "blank": "5a6b7c8d-9e0f-4a1b-2c3d-4e5f6a7b8c07",
    "summary": "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c10",
}
W_DELETED = "deadbeef-0000-4000-8000-000000000000"  # a summarized row that was deleted later
W_USER = "u-Alice@example"


def build_windieos(root: Path, *, with_fts: bool = True) -> dict[str, Any]:
    root.mkdir(parents=True, exist_ok=True)
    ep = sqlite3.connect(root / "episodic.db")
    ep.executescript(EPISODIC_SQL)
    if with_fts:
        ep.execute(
            "CREATE VIRTUAL TABLE transcript_fts USING fts5(content, content='memories', content_rowid='rowid')"
        )
    meta_inter = json.dumps(  # ensure_ascii: \u00e9 escapes in metadata, raw UTF-8 in content
        {"type": "episodic", "source": "interaction_completed", "conversation_id": "conv_11111111",
         "note": "café", "semantic_status": "summarized"},
    )  # fmt: skip
    rows = [
        (W_IDS["interaction"], W_USER, "User: I moved to Lyon last week.\nAssistant: Congratulations on the move!",
         "2025-03-01T10:00:00.123456+00:00", meta_inter, 0, 1740823200.12, 1, "conv_11111111",
         "interaction", None, None, None, None, None, "gpt-x", "openai", None),
        (W_IDS["tool"], W_USER, "Alice's favourite dish is 麻婆豆腐 🌶",
         "2025-03-01T10:05:00.000000+00:00", json.dumps({"type": "memory"}), None, 1740823500.0, 1,
         "conv_11111111", "memory", None, None, None, "remember", "corr-1", None, None, None),
        (W_IDS["transcript"], W_USER, "hello there", "2025-03-01T09:59:00.000000+00:00", None, 1,
         1740823140.0, 0, "conv_11111111", "transcript", "user", 0, "text", None, None, None, None, None),
        (W_IDS["replay"], W_USER, "[internal replay entry]", "2025-03-01T09:59:30.000000+00:00", None,
         None, 1740823170.0, 0, "conv_11111111", "transcript_replay", None, None, None, None, None,
         None, None, None),
        (W_IDS["old"], "default_user", "Prefers metric units", "2024-12-31 23:30:00", None, None,
         1735687800.0, 0, None, "memory", None, None, None, None, None, None, None, None),
        (W_IDS["shot"], W_USER, "User: what is on my screen?\nAssistant: A spreadsheet of expenses.",
         "2025-03-02T08:00:00.000000+00:00",
         json.dumps({"type": "episodic", "source": "interaction_completed"}), 7, 1740902400.0, 0,
         "conv_22222222", "interaction", None, None, None, None, None, None, None,
         base64.b64encode(os.urandom(60_000)).decode()),
        (W_IDS["blank"], W_USER, "   ", "2025-03-02T09:00:00+00:00", None, None, 1740906000.0, 0,
         None, "memory", None, None, None, None, None, None, None, None),
    ]  # fmt: skip
    ep.executemany(f"INSERT INTO memories VALUES ({','.join('?' * 18)})", rows)
    ep.execute(
        "INSERT INTO conversation_titles VALUES (?, ?, ?, ?)", (W_USER, "conv_11111111", "Moving", "heuristic")
    )
    ep.commit()
    ep.close()
    sem = sqlite3.connect(root / "semantic.db")
    sem.executescript(SEMANTIC_SQL)
    smeta = {
        "source": "periodic_summarization",
        "summary_hash": "abc123",
        "source_conversation_id": "conv_11111111",
        "source_memory_ids": [W_IDS["interaction"], W_IDS["tool"], W_DELETED],
        "source_memory_count": 3,
        "summary_created_at": "2025-03-02T00:00:00+00:00",
        "durable_fact_count": 2,
        "semantic_categories": ["personal info", "location"],
    }
    sem.execute(
        "INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?)",
        (W_IDS["summary"], W_USER, "Summary: Alice moved to Lyon.\nFacts:\n- Alice lives in Lyon\n- Alice likes spicy food",
         "2025-03-02T00:00:00.000000+00:00", json.dumps(smeta), 0, 1740873600.0),
    )  # fmt: skip
    sem.commit()
    sem.close()
    (root / "episodic.faiss.index").write_bytes(os.urandom(384 * 4 * 9))  # includes deleted rows
    (root / "semantic.faiss.index").write_bytes(os.urandom(384 * 4))
    (root / "watermark_state.json").write_text(
        json.dumps({"last_semanticized_id": W_IDS["tool"], "pending_message_count": 3,
                    "last_updated": "2025-03-02T01:00:00.123456"})
    )
    (root / "embedding_space.json").write_text(
        json.dumps({"provider": "sentence-transformers", "model_id": "all-MiniLM-L6-v2", "dimension": 384,
                    "version": 1})
    )
    return {"ids": W_IDS, "user": W_USER}


# ---------------------------------------------------------------------------------------------
# Matrix OS: $MATRIX_HOME/system/matrix.db (WAL) and the stale export folder system/memory/

M_ROWS = [
    ("mem-7c1e9a42-5b3", "Prefers dark mode in every app", "telegram:0f6c7d1e-3b2a-4c5d-9e8f-112233445566",
     "preference", "2025-01-05T08:30:00.000Z", "2025-01-05T08:30:00.000Z"),
    ("mem-1a2b3c4d-5e6", "Always answer in French", None, "instruction",
     "2025-01-06T09:00:00.000Z", "2025-02-01T12:00:00.500Z"),
    ("mem-deleted0-001", "Forgotten by the user", None, "fact", "2025-01-06T10:00:00.000Z", "2025-01-06T10:00:00.000Z"),
    ("mem-2b3c4d5e-6f7", "Works on the kernel team", "9b2e4c1a-7d3f-4e5a-8b6c-0d1e2f3a4b5c", None,
     "2025-01-07T11:15:30.250Z", "2025-01-07T11:15:30.250Z"),
    ("mem-deleted0-002", "Another deleted memory", None, "fact", "2025-01-07T12:00:00.000Z", "2025-01-07T12:00:00.000Z"),
    ("mem-3c4d5e6f-708", "Currently planning a trip to Kyoto", "9b2e4c1a-7d3f-4e5a-8b6c-0d1e2f3a4b5c", "context",
     "2025-01-08T18:45:00.000Z", "2025-01-08T18:45:00.000Z"),
]  # fmt: skip
M_LIVE = [r[0] for r in M_ROWS if not r[0].startswith("mem-deleted")]


def build_matrixos(home: Path, *, keep_open: bool = False) -> sqlite3.Connection | None:
    """Writes the database in WAL mode; with keep_open, returns the writer connection (the -wal
    file then holds committed transactions not yet checkpointed into the database)."""
    sysdir = home / "system"
    sysdir.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(sysdir / "matrix.db")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.executescript(
        """
        CREATE TABLE memories (id TEXT PRIMARY KEY, content TEXT NOT NULL, source TEXT,
            category TEXT DEFAULT 'fact', created_at TEXT, updated_at TEXT);
        CREATE VIRTUAL TABLE memories_fts USING fts5(content, content_rowid='rowid');
        CREATE TABLE tasks (id TEXT PRIMARY KEY, title TEXT);
        CREATE TABLE messages (id TEXT PRIMARY KEY, body TEXT);
        INSERT INTO tasks VALUES ('t1', 'not a memory');
        INSERT INTO messages VALUES ('m1', 'not a memory either');
        """
    )
    for row in M_ROWS:
        cur = con.execute("INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?)", row)
        con.execute("INSERT INTO memories_fts(rowid, content) VALUES (?, ?)", (cur.lastrowid, row[1]))
    con.commit()
    for mid in ("mem-deleted0-001", "mem-deleted0-002"):  # hard delete from both tables: rowid gaps
        rowid = con.execute("SELECT rowid FROM memories WHERE id = ?", (mid,)).fetchone()[0]
        con.execute("DELETE FROM memories WHERE id = ?", (mid,))
        con.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
    con.commit()
    exp = sysdir / "memory"
    exp.mkdir(exist_ok=True)
    for mid, content, source, cat, created, updated in M_ROWS:  # stale: includes deleted ones
        fm = [f"id: {mid}", f"category: {cat or 'fact'}"]
        if source:
            fm.append(f"source: {source}")  # unquoted: telegram:... misreads as YAML
        fm += [f"created: {created}", f"updated: {updated}"]
        (exp / f"{cat or 'fact'}-{mid[4:12]}.md").write_text("---\n" + "\n".join(fm) + "\n---\n" + content + "\n")
    if keep_open:
        return con
    con.close()
    return None


# ---------------------------------------------------------------------------------------------
# Skales: ~/.skales-data

S_MEMORIES = [
    {"id": "1700000000000_ab12c", "category": "preference", "content": "User likes green tea",
     "source_conversation_id": "session_1700000000000_0123456789ab", "extracted_at": 1700000000000,
     "relevance_keywords": ["green", "tea"]},
    {"id": "1700000100000_cd34e", "category": "contact", "content": "Email contact: bob@example.com",
     "source_conversation_id": "session_1700000000000_0123456789ab", "extracted_at": 1700000100000,
     "relevance_keywords": []},
    {"id": "1700000200000_ef56g", "category": "fact", "content": "Works at: Acme GmbH",
     "source_conversation_id": "session_1700000200000_abcdefabcdef", "extracted_at": 1700000200000,
     "relevance_keywords": ["acme", "gmbh"]},
    {"id": "1700000200000_hi78j", "category": "location", "content": "Lives in: München",
     "source_conversation_id": "session_1700000200000_abcdefabcdef", "extracted_at": 1700000200000,
     "relevance_keywords": ["mÃ¼nchen"]},
    {"id": "1700000300000_kl90m", "category": "action_item", "content": "Task: renew passport",
     "source_conversation_id": None, "extracted_at": 1700000300000, "relevance_keywords": ["passport"]},
]  # fmt: skip


def build_skales(root: Path) -> dict[str, Any]:
    mem = root / "memories"
    mem.mkdir(parents=True)
    for m in S_MEMORIES:
        (mem / f"{m['id']}.json").write_text(json.dumps(m, ensure_ascii=False, indent=2), "utf-8")
    (mem / "_state.json").write_text(json.dumps({"lastScanTimestamp": 1700000300000}))
    (mem / "1700000400000_zz99z.json").write_text('{"id": "1700000400000_zz99z", "category": "fa')  # torn
    (mem / "1700000500000_empty.json").write_bytes(b"")
    (mem / "1700000600000_tmp00.json.tmp").write_text(json.dumps(S_MEMORIES[0]))
    ident = root / "identity"
    ident.mkdir()
    (ident / "soul.json").write_text(
        json.dumps({"name": "Skales", "memory": {"knownFacts": {"birthday": "12 May", "pet": "a cat named Miso",
                                                                "empty": ""}}}),
        "utf-8",
    )
    (ident / "human.json").write_text(json.dumps({"name": "Alex"}))
    for tier, name, obj in (
        ("long-term", "1700001000000", {"summary": "Planning a move", "content": "Alex plans to move to Berlin in spring",
                                         "context": "mentioned twice"}),
        ("episodic", "1700002000000", {"summary": "Talked about tea", "user": "Which green tea is best?",
                                        "ai": "Gyokuro is a favourite."}),
        ("short-term", "1700003000000", {"content": "Currently reading Dune"}),
    ):  # fmt: skip
        d = root / "memory" / tier
        d.mkdir(parents=True)
        (d / f"{name}.json").write_text(json.dumps(obj), "utf-8")
    sess = root / "sessions"
    sess.mkdir()
    (sess / "session_1700000000000_0123456789ab.json").write_text(
        json.dumps({"id": "session_1700000000000_0123456789ab", "title": "tea", "messages": [
            {"role": "user", "content": "I like green tea", "timestamp": 1700000000000}],
            "provider": "x", "model": "y", "agentId": "a", "createdAt": 1, "updatedAt": 2})
    )
    (sess / "session_1700000200000_abcdefabcdef.json").write_bytes(b"")
    return {}


# ---------------------------------------------------------------------------------------------
# Soul of Waifu: .soul/<character>/chats/<chat>/memory/

MEMORY_MD = """# SOUL CACHE: AIKO

## CORE IDENTITY & UNBREAKABLE BELIEFS
- I am Aiko, a librarian who loves old maps.
- I never lie to the user,
  even when the truth is hard.

## INTERNAL STATE & PSYCHOLOGICAL MOMENTUM
- **Primary Emotion**: Curious (Intensity: 3/5)
- **Tension**: low
- Emotional Decay Counter: 1/3

## COGNITIVE DRIVE & ACTIVE AGENDA
- Find out where the user grew up.

## UNRESOLVED COGNITIVE DISSONANCE
- The user said they hate tea but ordered matcha.
"""

USER_MD = """# USER PROFILE & RELATIONSHIP MEMORY: KENJI

## USER IDENTITY & STATUS
- **Name**: Kenji
- **Job**: nurse, night shifts

## RELATIONSHIP METADATA
- Trust: growing

## PREFERENCES & HABITS
- Drinks matcha every morning
- Hates horror films

## SHARED MILESTONES & PROMISES
- Promised to visit the map museum together"""  # no trailing newline

DIARY = """# Personal Diary: 2025-03-01

**[09:15]**
Kenji came back from a night shift, tired but kind.

**[21:40]**
We talked about maps of Kyoto for an hour.
"""


def build_soulofwaifu(app_dir: Path) -> Path:
    """Writes ``<app_dir>/.soul`` and returns it."""
    soul = app_dir / ".soul"
    mem = soul / "Aiko" / "chats" / "Main chat" / "memory"
    (mem / "topics").mkdir(parents=True)
    (mem / "backups").mkdir()
    (mem / "MEMORY.md").write_text(MEMORY_MD, "utf-8")
    (mem / "USER.md").write_text(USER_MD, "utf-8")
    (mem / "USER.md.tmp").write_text("half written")
    (mem / "topics" / "maps.md").write_text("# Maps\n\nKenji collects old maps of Japan.\n", "utf-8")
    (mem / "topics" / "Diary_2025-03-01.md").write_text(DIARY, "utf-8")
    (mem / "topics" / "diary_2025-03-02.md").write_text(
        "# Personal Diary: 2025-03-02\n\n**[07:05]**\nKenji overslept.\n", "utf-8"
    )
    (mem / "backups" / "MEMORY_20250301_120000.md").write_text(MEMORY_MD, "utf-8")
    (mem / "backups" / "USER_20250301_120000.md").write_bytes(b"")
    (mem / "agent_logs.txt").write_text(
        "[2025-03-01 21:41:00] DIARY_UPDATED | added entry\n"
        "[2025-03-01 09:16:00] USER_PROFILE_UPDATE | job:\n  nurse, night shifts\n",  # out of order, multi-line
        "utf-8",
    )
    (mem / "last_mem_update.txt").write_text("2025-03-01 21:41:00")
    # a second character with a non-ASCII name: an empty MEMORY.md and a hand-edited USER.md
    mem2 = soul / "さくら" / "chats" / "default" / "memory"
    mem2.mkdir(parents=True)
    (mem2 / "MEMORY.md").write_bytes(b"")
    (mem2 / "USER.md").write_text("likes cherry blossoms\n\n- has a dog named Hachi", "utf-8")
    return soul


# ---------------------------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``root`` (to check nothing changed)."""
    out: dict[str, str] = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
