"""Builders of the stores of the memory tools people migrate from, shaped as their sources write
them (mem0's export and history.db, a basic-memory project, Claude Code's CLAUDE.md and
auto-memory folder, a Letta agent file, ChatGPT's saved memories pasted as text), with the
awkward cases real ones contain: duplicates, deleted items, non-ASCII, a corrupt entry.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------------
# mem0: get_all() JSON ({"results": [...]}, times in US/Pacific as mem0 writes them) + history.db

M0 = {
    "cricket": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e01",
    "diet": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e02",
    "russian": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e03",
    "empty": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e04",
    "agent": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e05",
    "badhash": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e06",
    "moved": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e07",
    "cat": "5a3f3c1e-1b2d-4c6e-9f10-1a2b3c4d5e08",
}
M0_BORIS = "борис"

HISTORY_SQL = """
CREATE TABLE history (
    id           TEXT PRIMARY KEY,
    memory_id    TEXT,
    old_memory   TEXT,
    new_memory   TEXT,
    event        TEXT,
    created_at   DATETIME,
    updated_at   DATETIME,
    is_deleted   INTEGER,
    actor_id     TEXT,
    role         TEXT
);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_scope TEXT, role TEXT, content TEXT, name TEXT, created_at DATETIME);
"""


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _m0(mid: str, memory: str, created: str, updated: str | None = None, **kw: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": mid,
        "memory": memory,
        "hash": md5(memory),
        "metadata": kw.pop("metadata", None),
        "created_at": created,
        "updated_at": updated,
    }
    item.update(kw)
    return item


def build_mem0(root: Path) -> Path:
    """``root/export.json`` (get_all output) and ``root/history.db``; returns root."""
    root.mkdir(parents=True, exist_ok=True)
    results = [
        _m0(M0["cricket"], "Likes to play cricket on weekends", "2025-06-01T09:15:22.123456-07:00", user_id="alice"),
        _m0(M0["diet"], "Is vegetarian", "2025-06-01T09:20:00.000000-07:00", "2025-06-03T18:00:00.000000-07:00",
            user_id="alice", metadata={"source": "chat"}),
        _m0(M0["russian"], "Прекрасно говорит по-русски 🇷🇺", "2025-06-02T10:00:00-07:00", user_id=M0_BORIS),
        _m0(M0["cricket"], "Likes to play cricket on weekends", "2025-06-01T09:15:22.123456-07:00", user_id="alice"),
        _m0(M0["empty"], "", "2025-06-02T11:00:00-07:00", user_id="alice"),
        _m0(M0["agent"], "Answers support tickets in a formal tone", "2025-06-02T12:00:00-07:00", agent_id="support-bot"),
        dict(_m0(M0["badhash"], "Has a sister named Mia", "2025-06-02T13:00:00-07:00", user_id="alice"), hash="0" * 32),
    ]
    (root / "export.json").write_text(json.dumps({"results": results}, ensure_ascii=False, indent=2), encoding="utf-8")
    con = sqlite3.connect(root / "history.db")
    con.executescript(HISTORY_SQL)
    rows = [
        ("h1", M0["cricket"], None, "Likes to play cricket on weekends", "ADD", "2025-06-01T09:15:22.123456-07:00", None, 0),
        ("h2", M0["diet"], None, "Eats fish", "ADD", "2025-06-01T09:20:00.000000-07:00", None, 0),
        ("h3", M0["diet"], "Eats fish", "Is vegetarian", "UPDATE", "2025-06-01T09:20:00.000000-07:00",
         "2025-06-03T18:00:00.000000-07:00", 0),
        ("h4", M0["moved"], None, "Lives in Berlin", "ADD", "2025-05-01T08:00:00-07:00", None, 0),
        ("h5", M0["moved"], "Lives in Berlin", "Lives in Paris", "UPDATE", "2025-05-01T08:00:00-07:00",
         "2025-05-10T08:00:00-07:00", 0),
        ("h6", M0["moved"], "Lives in Paris", None, "DELETE", "2025-05-01T08:00:00-07:00",
         "2025-05-20T08:00:00-07:00", 1),
        ("h7", M0["cat"], None, "Owns a grey cat called Pixel", "ADD", "2025-04-01T08:00:00-07:00", None, 0),
        ("h8", None, None, "orphan", "ADD", "2025-04-01T08:00:00-07:00", None, 0),
    ]
    con.executemany(
        "INSERT INTO history (id, memory_id, old_memory, new_memory, event, created_at, updated_at, is_deleted)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    con.execute("INSERT INTO messages VALUES ('m1', 'user_id=alice', 'user', 'hi', NULL, '2025-06-01')")
    con.commit()
    con.close()
    return root


# ---------------------------------------------------------------------------------------------
# basic-memory: a project folder of notes

BM_COFFEE = """---
title: Coffee Brewing Methods
type: note
tags: [coffee, brewing]
permalink: coffee-brewing-methods
created: 2025-03-01T10:00:00Z
modified: 2025-03-05T10:00:00Z
---

# Coffee Brewing Methods

Notes from the barista course.

## Observations
- [method] Pour over provides more flavor clarity than French press
- [preference] Ethiopian beans with lighter roasts #beans (personal experience)
- [fact] Water at 96 °C extracts best #brewing #temperature
- [ ] buy a new grinder
- [link](https://example.org/coffee)

## Relations
- relates_to [[Coffee Bean Origins]]
- "pairs well with" [[Breakfast]]

```python
# - [fact] this is code, not an observation
```
"""

BM_PERSON = """---
title: Zoë Müller
type: person
tags: colleague, berlin
---

- [contact] zoe@example.org
- [role] Leads the data team
- works_at [[ACME]] (since 2023)
"""

BM_BROKEN = """---
title: [unclosed
tags: {
---

- [fact] The office moves to the third floor in May
"""


def build_basic_memory(root: Path) -> Path:
    (root / "people").mkdir(parents=True, exist_ok=True)
    (root / ".basic-memory").mkdir(exist_ok=True)
    (root / "coffee-brewing-methods.md").write_text(BM_COFFEE, encoding="utf-8")
    (root / "people" / "zoe-muller.md").write_text(BM_PERSON, encoding="utf-8")
    (root / "office.md").write_text(BM_BROKEN, encoding="utf-8")
    (root / "empty.md").write_text("", encoding="utf-8")
    (root / ".basic-memory" / "memory.db").write_bytes(b"not read")
    return root


# ---------------------------------------------------------------------------------------------
# Claude Code: a project's CLAUDE.md (+ an import) and an auto-memory folder

CLAUDE_MD = """# Project conventions

## Build
- Run `make test` before every commit.
- Never push to main directly.

## Style
- I prefer small functions with docstrings.
- The API server listens on port 8080.

See @docs/git-workflow.md for the branch rules.
@docs/git-workflow.md

```sh
# - this bullet is inside code
make dev
```
"""

GIT_WORKFLOW = """# Git
- Always rebase feature branches onto main.
"""

MEMORY_INDEX = """# Memory index
- [User role](user_role.md) — who the user is
- [Testing feedback](feedback_testing.md) — how to run tests
- [Missing](gone.md) — a pointer to a file that is not there
- The staging database is read-only on Fridays.
"""

TOPIC_USER = """---
name: user-role
description: the user is a data scientist
metadata:
  type: user
---
The user is a data scientist who works mostly in Python and SQL.
"""

TOPIC_FEEDBACK = """---
name: testing
description: how tests must be run
type: feedback
---
Run the integration tests with a real database, never with mocks.
"""


def build_claude_code(root: Path) -> tuple[Path, Path]:
    """(project folder, auto-memory folder)."""
    project = root / "project"
    (project / "docs").mkdir(parents=True, exist_ok=True)
    (project / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    (project / "docs" / "git-workflow.md").write_text(GIT_WORKFLOW, encoding="utf-8")
    mem = root / "dot-claude" / "projects" / "-home-me-project" / "memory"
    mem.mkdir(parents=True, exist_ok=True)
    (mem / "MEMORY.md").write_text(MEMORY_INDEX, encoding="utf-8")
    (mem / "user_role.md").write_text(TOPIC_USER, encoding="utf-8")
    (mem / "feedback_testing.md").write_text(TOPIC_FEEDBACK, encoding="utf-8")
    (root / "dot-claude" / "CLAUDE.md").write_text("- Answer in British English.\n", encoding="utf-8")
    return project, root / "dot-claude"


# ---------------------------------------------------------------------------------------------
# Letta: an agent file (the current AgentFileSchema shape) and one of the first shape


def build_letta(path: Path) -> Path:
    af = {
        "agents": [
            {
                "id": "agent-0",
                "name": "Sam the Bot",
                "agent_type": "memgpt_v2_agent",
                "system": "You are Sam.",
                "block_ids": ["block-0", "block-1", "block-9"],
                "tool_ids": ["tool-0"],
                "messages": [
                    {"id": "message-0", "role": "user", "content": [{"type": "text", "text": "hi"}],
                     "created_at": "2025-07-01T10:00:00Z"},
                ],
                "in_context_message_ids": ["message-0"],
                "passages": [
                    {"id": "passage-0", "text": "Chad's favourite band is Radiohead.", "created_at": "2025-07-02T10:00:00Z"},
                    {"id": "passage-1", "text": "", "created_at": "2025-07-02T10:00:00Z"},
                ],
                "created_at": "2025-07-01T09:00:00Z",
            }
        ],
        "blocks": [
            {"id": "block-0", "label": "persona", "value": "I am Sam, a helpful assistant.\nI keep answers short.",
             "limit": 5000, "description": "The persona block", "metadata": {}},
            {"id": "block-1", "label": "human", "value": "Name: Chad\n- Lives in Lisbon\n- Allergic to penicillin\n",
             "limit": 5000, "description": None, "metadata": {}},
        ],
        "groups": [],
        "files": [],
        "sources": [],
        "tools": [{"id": "tool-0", "name": "send_message"}],
        "mcp_servers": [],
        "metadata": {"revision_id": "abc"},
        "created_at": "2025-07-03T12:00:00Z",
    }
    path.write_text(json.dumps(af, indent=2), encoding="utf-8")
    return path


CHATGPT_MEMORIES = """Prefers concise answers with code examples.
• Is training for a marathon in October.
2. Wants responses in metric units.

Has a dog named Rufus.
Has a dog named Rufus.
Живёт в Москве.
"""


def build_chatgpt(path: Path) -> Path:
    path.write_text(CHATGPT_MEMORIES, encoding="utf-8")
    return path
