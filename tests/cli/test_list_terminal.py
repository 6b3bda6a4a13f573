"""``mem list`` on a terminal (issue 26), through the real executable on a fixed-width
pseudo-terminal: the content gets the width, no field is dropped, long listings go through a
pager (MEM_PAGER / PAGER / less -FRX; --no-pager), and without colour no escape code at all."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pexpect
import pytest

from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem

ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[=>])")
LONG = "Alice works at Acme Corporation since 2019 and leads the data team of twelve people there"


def tty(args: list[str], env: dict[str, str], cols: int = 80, rows: int = 40) -> str:
    assert MEM_EXE
    child = pexpect.spawn(MEM_EXE, args, env=env, dimensions=(rows, cols), encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before).replace("\r\n", "\n")


@pytest.fixture
def env(store_dir: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MEM_STORE", "COLUMNS", "LINES", "PAGER", "MEM_PAGER", "LESS")}
    e.update({"MEM_STORE": str(store_dir), "TERM": "xterm-256color", "MEM_EMBEDDER": "hashing"})
    return e


def test_content_gets_the_width_at_80_columns(env: dict[str, str], store: Store) -> None:
    rid = store.add(LONG, scope="alice", kind="fact").id
    out = ANSI.sub("", tty(["list", "--no-pager"], env))
    lines = [ln for ln in out.split("\n") if ln.strip()]
    assert all(len(ln) <= 80 for ln in lines), lines
    # every field is there, and the whole sentence (it fits in two lines of the width)
    assert any(rid in ln and "alice" in ln and "fact" in ln and "active" in ln for ln in lines), lines
    assert " ".join(" ".join(lines).split()).count(LONG) == 1, lines


def test_a_long_scope_is_never_dropped(env: dict[str, str], store: Store) -> None:
    scope = "a-very-long-project-scope-name-for-testing"
    store.add("Deploys go through the staging cluster first", scope=scope)
    for cols in (60, 80, 200):
        out = ANSI.sub("", tty(["list", "--no-pager"], env, cols=cols))
        assert scope in out and "note" in out and "active" in out, (cols, out)
        assert "Deploys go through the staging cluster first" in out, (cols, out)


def test_wide_terminal_keeps_one_row_per_record(env: dict[str, str], store: Store) -> None:
    store.add(LONG, scope="alice", kind="fact")
    out = ANSI.sub("", tty(["list", "--no-pager"], env, cols=160))
    lines = [ln for ln in out.split("\n") if ln.strip()]
    assert lines[0].split() == ["id", "scope", "kind", "status", "content"]
    assert len(lines) == 2 and LONG in lines[1], lines


def test_no_color_means_no_escape_codes(env: dict[str, str], store: Store) -> None:
    store.add("Alice drinks tea", scope="alice")
    for cols in (80, 160):  # the two-line layout and the table (with its header)
        for args, extra in ((["list", "--no-pager"], {"NO_COLOR": "1"}),
                            (["--no-color", "list", "--no-pager"], {}),
                            (["list", "--no-color", "--no-pager"], {})):
            out = tty(args, {**env, **extra}, cols=cols)
            assert "Alice drinks tea" in out
            assert "\x1b" not in out, (args, cols, repr(out))
    coloured = tty(["list", "--no-pager"], env, cols=160)
    assert "\x1b[1m" in coloured and "\x1b[32m" in coloured  # with colour: bold header, green status


def test_pager_on_a_terminal(env: dict[str, str], store: Store, tmp_path: Path) -> None:
    store.add("Alice drinks tea", scope="alice")
    pager = "sed 's/^/PAGED: /'"
    out = tty(["list"], {**env, "MEM_PAGER": pager, "PAGER": "false"})
    assert "PAGED: " in out and "Alice drinks tea" in out, out
    out = tty(["list"], {**env, "PAGER": pager})
    assert "PAGED: " in out, out
    for args, extra in ((["list", "--no-pager"], {"PAGER": pager}), (["--no-pager", "list"], {"PAGER": pager}),
                        (["list"], {"PAGER": "cat"}), (["list"], {"MEM_PAGER": "", "PAGER": pager})):
        out = tty(args, {**env, **extra})
        assert "PAGED" not in out and "Alice drinks tea" in out, (args, extra, out)
    # never in a pipe
    r = run_mem("list", env={"MEM_STORE": env["MEM_STORE"], "PAGER": pager, "MEM_PAGER": pager})
    assert r.returncode == 0 and "PAGED" not in r.stdout and "Alice drinks tea" in r.stdout


def test_default_pager_is_less_frx(env: dict[str, str], store: Store) -> None:
    if not pexpect.which("less"):
        pytest.skip("less is not installed")
    with store.batch():
        for i in range(60):
            store.add(f"fact number {i}", scope="alice")
    child = pexpect.spawn(MEM_EXE, ["list"], env=env, dimensions=(20, 100), encoding="utf-8", timeout=60)
    child.expect("fact number")  # the first screen, then less waits
    child.expect(":")  # less's prompt: the listing did not scroll past
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # a listing that fits one screen: less -F quits by itself
    short = tty(["list", "--kind", "note", "-n", "3"], env)
    assert short.count("fact number") == 3


def test_add_without_text_on_a_terminal_is_a_missing_argument(env: dict[str, str]) -> None:
    assert MEM_EXE
    child = pexpect.spawn(MEM_EXE, ["add", "--scope", "alice"], env=env, encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2, child.before
    assert "missing argument TEXT" in str(child.before)


def test_log_goes_through_the_pager_too(env: dict[str, str], store: Store) -> None:
    store.add("Alice drinks tea", scope="alice")
    out = tty(["log"], {**env, "MEM_PAGER": "sed 's/^/PAGED: /'"})
    assert "PAGED: " in out and " add " in out, out
    out = tty(["log", "--no-pager"], {**env, "MEM_PAGER": "sed 's/^/PAGED: /'"})
    assert "PAGED" not in out and " add " in out, out
