"""Fixtures of the consolidate tests: a deterministic summarizer and episode builders."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mem.format.model.record import Record
from mem.format.store.store import Store

FAKE = Path(__file__).parent / "summarizers" / "fake.py"
SCHEMAS = Path(__file__).resolve().parents[2] / "spec" / "schemas"
T0 = dt.datetime(2025, 3, 1, 9, 0, tzinfo=dt.UTC)


def fake_argv(mode: str = "ok") -> list[str]:
    return [sys.executable, str(FAKE), mode]


def fake_cmd(mode: str = "ok") -> str:
    """The fake summarizer as a --summarizer command line."""
    import shlex

    return shlex.join(fake_argv(mode))


def load_schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / name).read_text("utf-8"))
    return data


class Episodes:
    """Adds episodes with strictly increasing record times (a deterministic order)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.n = 0

    def __call__(
        self,
        *contents: str,
        scope: str = "alice",
        conversation: str | None = "c1",
        kind: str = "episode",
    ) -> list[Record]:
        out = []
        for text in contents:
            src: dict[str, Any] = {"type": "api", "turn": self.n}
            if conversation is not None:
                src["conversation"] = conversation
            out.append(
                self.store.add(
                    text,
                    scope=scope,
                    kind=kind,
                    recorded_at=T0 + dt.timedelta(minutes=self.n),
                    source=src,
                )
            )
            self.n += 1
        return out


@pytest.fixture
def episodes(store: Store) -> Episodes:
    return Episodes(store)


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[str]]:
    """The window keys the fake summarizer was called with (in this test)."""
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_SUMMARIZER_LOG", str(log))

    def read() -> list[str]:
        return log.read_text("utf-8").split() if log.exists() else []

    return read


@pytest.fixture(autouse=True)
def _hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hashing embedder (fast, not semantic) for the records consolidate embeds as it
    writes; tests/search/test_backlog.py tests the embedding with the real model."""
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
