"""A long-lived searcher's ``freeze_gc`` option (issue 21): what the searcher has loaded is frozen
out of the garbage collector's passes once it is warmed and again after each reload of its
indexes, never by a searcher that did not ask, nor after a search that loaded nothing; the MCP
server and ``mem search --batch`` ask for it, a one-shot ``mem search`` does not."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mem.format.base.errors import InvalidInputError
from mem.format.search.engine import open_searcher
from mem.format.store.store import Store
from mem.mcpserver.server import ScopedMemory
from tests.conftest import run_mem

ENV = {"MEM_EMBEDDER": "hashing", "MEM_ACTOR": "tester@test"}


@pytest.fixture
def unfrozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No frozen objects before the test, none left for the next one (freezing is process-wide)."""
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    gc.unfreeze()
    yield
    gc.unfreeze()


def collected(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (a frozen object is in none of them)."""
    return any(o is obj for o in gc.get_objects())


def test_without_the_option_nothing_is_frozen(sstore: Store, unfrozen: None) -> None:
    with open_searcher(sstore) as s:
        for q in ("tea", "Lisbon", "dentist"):
            s.search(q, mode="hybrid")
        sstore.add("Ana bought a new kettle", scope="ana")
        s.catch_up()
        assert "kettle" in s.search("kettle", mode="hybrid").hits[0].content
        assert gc.get_freeze_count() == 0
        assert collected(s._lex)


def test_frozen_once_warmed_and_again_after_each_reload(sstore: Store, unfrozen: None) -> None:
    with open_searcher(sstore, freeze_gc=True) as s:
        s.search("tea", mode="hybrid")  # warmed: the indexes and the embedder are loaded
        assert gc.get_freeze_count() > 0
        assert s._lex is not None and not collected(s._lex) and not collected(s._vec)

        s.catch_up()  # the background thread has opened its own indexes: frozen after the next search
        s.search("tea", mode="hybrid")
        made_after = [object()]  # made after the freeze: in the collector's generations
        for q in ("Lisbon", "tea", "dentist"):  # nothing loaded anew: nothing frozen
            s.search(q, mode="hybrid")
        assert collected(made_after)

        # another process writes: the background thread applies it and reloads the reader
        out = run_mem("--store", str(sstore.root), "add", "Gina repairs bicycles on Sundays", "--scope", "bob",
                      env=ENV)
        assert out.returncode == 0, out.stderr
        s.catch_up()
        res = s.search("bicycles", mode="hybrid")
        assert "Gina repairs bicycles" in res.hits[0].content
        assert not collected(made_after)  # frozen after the reload
        # and what it reloaded with it (the process-wide count is no measure: any frozen object of
        # the test process that is freed meanwhile leaves it, and a reload frees the old reader)
        assert s._lex is not None and not collected(s._lex) and not collected(s._vec)


def test_a_one_shot_searcher_refuses_the_option(sstore: Store, unfrozen: None) -> None:
    with pytest.raises(InvalidInputError, match="long-lived"):
        open_searcher(sstore, long_lived=False, freeze_gc=True)
    assert gc.get_freeze_count() == 0


def test_the_mcp_server_freezes_its_searcher(sstore: Store, unfrozen: None) -> None:
    mem = ScopedMemory(sstore, ["ana"])
    try:
        assert mem.warm() == []
        assert mem.searcher().freeze_gc is True
        assert gc.get_freeze_count() > 0
        hits = mem.recall("tea")
        assert any("green tea" in h["content"] for h in hits["results"])
    finally:
        mem.close()


def freeze_count_after(root: Path, args: list[str], stdin: str) -> tuple[int, str]:
    """Run `mem ARGS` through mem's entry point in a new Python process; the number of objects
    frozen when it returned, and its stdout."""
    code = ("import gc, sys\nfrom mem.cli.main import main\nrc = main(sys.argv[1:])\n"
            "sys.stdout.flush()\nprint('frozen', gc.get_freeze_count(), rc, file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code, "--store", str(root), *args], input=stdin, text=True,
                       capture_output=True, env={**os.environ, **ENV}, timeout=120)
    last = p.stderr.strip().splitlines()[-1].split()
    assert last[0] == "frozen" and last[2] == "0", p.stderr
    return int(last[1]), p.stdout


def test_search_batch_freezes_a_one_shot_search_does_not(sstore: Store) -> None:
    frozen, out = freeze_count_after(sstore.root, ["search", "--batch"],
                                     json.dumps({"query": "tea"}) + "\n" + json.dumps({"query": "Porto"}) + "\n")
    assert frozen > 0
    lines = out.splitlines()
    assert len(lines) == 2 and "green tea" in json.loads(lines[0])["hits"][0]["content"]
    frozen, out = freeze_count_after(sstore.root, ["search", "tea", "--json"], "")
    assert frozen == 0
    assert "green tea" in json.loads(out)["hits"][0]["content"]
