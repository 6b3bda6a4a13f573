"""Fixtures: the hashing embedder (fast, not semantic) for the vectors these commands embed as
they write; what is tested here is what they write (tests/search/test_backlog.py tests the
embedding with the real model)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
