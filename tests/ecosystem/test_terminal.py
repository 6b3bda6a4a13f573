"""Terminal manners across commands, through the real executable: light start-up, JSON on stdout
only, --quiet, NO_COLOR / --no-color, output width, progress bars only on a terminal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem

HEAVY = ("tantivy", "usearch", "numpy", "onnxruntime", "rich", "mcp", "pydantic", "tokenizers")
# SGR sequences that set a colour (foreground/background, 8/16/256/truecolor); bold/dim are fine
COLOUR_SGR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def registered_commands() -> dict[str, object]:
    import typer

    from mem.cli.app import build_app

    group = typer.main.get_command(build_app())
    return dict(group.commands)  # type: ignore[attr-defined]


def has_json_option(cmd: object) -> bool:
    return any("--json" in getattr(p, "opts", ()) for p in cmd.params)  # type: ignore[attr-defined]


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_stay_light(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from mem.cli.main import main\n"
        f"rc = main({argv!r})\n"
        f"heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY=\n" in p.stderr, p.stderr
    if argv == ["--version"]:
        assert p.stdout.startswith("mem ")
    else:
        assert "Usage: mem" in p.stdout + p.stderr


# --- JSON on stdout, messages on stderr ---------------------------------------------------------

TRANSCRIPT = (
    '{"role": "user", "content": "Remember that my sister Ana lives in Porto."}\n'
    '{"role": "assistant", "content": "Noted."}\n'
)

#: One run per command that has --json. {a} {a2} {c} {c2} {f}: record ids; {tmp}: a directory;
#: {store}: the store. The "init" case creates {tmp}/new (a git repository), which later cases use.
JSON_CASES: dict[str, list[str]] = {
    "init": ["init", "{tmp}/new", "--git", "--json"],
    "add": ["add", "--scope", "alice", "Alice collects stamps", "--json"],
    "show": ["show", "{a}", "--json"],
    "list": ["list", "--json"],
    "edit": ["edit", "{a}", "--json"],
    "update": ["update", "{a}", "--tag", "hobby", "--json"],
    "supersede": ["supersede", "{a2}", "Alice works at Globex", "--json"],
    "accept": ["accept", "{c}", "--json"],
    "reject": ["reject", "{c2}", "--json"],
    "forget": ["forget", "{f}", "--yes", "--json"],
    "search": ["search", "stamps", "--json"],
    "eval": ["eval", "{tmp}/labels.jsonl", "--json"],
    "log": ["log", "--json"],
    "stats": ["stats", "--json"],
    "capture": ["capture", "{tmp}/chat.jsonl", "--scope", "alice", "--json"],
    "review": ["review", "--list", "--json"],
    "import": ["--store", "{tmp}/new", "import", "{tmp}/export.jsonl", "--dry-run", "--json"],
    "export": ["export", "--json"],
    "consolidate": ["consolidate", "--dry-run", "--json"],
    "verify": ["verify", "--json"],
    "diff": ["diff", "{store}", "{tmp}/new", "--json"],
    "compact": ["compact", "--json"],
    "rebuild": ["rebuild", "--json"],
    "embed": ["embed", "--json"],
    "sync": ["--store", "{tmp}/new", "sync", "--no-push", "--json"],
    "repair": ["repair", "--dry-run", "--json"],
    "why": ["why", "{a}", "--json"],
    "hooks": ["hooks", "status", "--settings", "{tmp}/settings.json", "--agents-file", "{tmp}/AGENTS.md", "--json"],
}


@pytest.fixture(scope="module")
def commands() -> dict[str, object]:
    return registered_commands()


def test_every_json_command_has_a_case(commands: dict[str, object]) -> None:
    with_json = {name for name, cmd in commands.items() if has_json_option(cmd)}
    missing = with_json - set(JSON_CASES)
    assert not missing, f"add a JSON_CASES entry for: {sorted(missing)}"


def _seed(root: Path) -> dict[str, str]:
    s = Store.open(root)
    return {
        "a": s.add("Alice likes stamps", scope="alice").id,
        "a2": s.add("Alice works at Acme", scope="alice").id,
        "c": s.add("Alice likes jazz", scope="alice", status="candidate").id,
        "c2": s.add("Alice likes opera", scope="alice", status="candidate").id,
        "f": s.add("Alice's old phone is 0601", scope="alice").id,
    }


def test_json_goes_alone_to_stdout(tmp_path: Path, store_dir: Path, commands: dict[str, object]) -> None:
    ids = _seed(store_dir)
    (tmp_path / "chat.jsonl").write_text(TRANSCRIPT, "utf-8")
    (tmp_path / "labels.jsonl").write_text(
        '{"query": "stamps", "scope": "alice", "answer_contents": ["Alice likes stamps"]}\n', "utf-8"
    )
    env = {"MEM_STORE": str(store_dir), "MEM_EMBEDDER": "hashing", "EDITOR": "true", "VISUAL": "true"}
    if "export" in commands:
        exp = run_mem("export", env=env)
        assert exp.returncode == 0, exp.stderr
        (tmp_path / "export.jsonl").write_text(exp.stdout, "utf-8")
    failures: list[str] = []
    ran = 0
    for name, template in JSON_CASES.items():
        if name not in commands:
            continue  # not built (yet): test_every_json_command_has_a_case keeps the table honest
        args = [a.format(tmp=tmp_path, store=store_dir, **ids) for a in template]
        r = run_mem(*args, env=env)
        ran += 1
        if r.returncode not in (0, 1):
            failures.append(f"mem {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        try:
            json.loads(r.stdout)
        except ValueError:
            # JSON Lines is fine too, as long as every line is JSON
            try:
                for line in r.stdout.splitlines():
                    json.loads(line)
                assert r.stdout.strip()
            except (ValueError, AssertionError):
                failures.append(f"mem {' '.join(args)}: stdout is not JSON: {r.stdout[:300]!r}")
        if ANSI.search(r.stdout + r.stderr):
            failures.append(f"mem {' '.join(args)}: escape codes in a pipe")
    assert ran >= 10
    assert not failures, "\n".join(failures)


def test_quiet_silences_messages(tmp_path: Path) -> None:
    loud = run_mem("init", str(tmp_path / "s"))
    assert loud.returncode == 0 and "Initialized" in loud.stderr
    quiet_store = tmp_path / "q"
    r = run_mem("--quiet", "init", str(quiet_store))
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    env = {"MEM_STORE": str(quiet_store)}
    r = run_mem("-q", "add", "--scope", "alice", "Alice likes tea", env=env)
    assert r.returncode == 0 and r.stderr == ""
    rid = r.stdout.strip()
    assert re.fullmatch(r"[0-9A-Z]{26}", rid)  # the data is still printed
    r = run_mem("-q", "forget", rid, "--yes", env=env)
    assert r.returncode == 0 and r.stderr == ""
    # errors are not messages: --quiet never hides them
    r = run_mem("-q", "show", rid, env=env)
    assert r.returncode == 3 and "forgotten" in r.stderr


# --- on a terminal ------------------------------------------------------------------------------


def tty_run(args: list[str], env: dict[str, str], cols: int = 80) -> str:
    """Run mem on a pseudo-terminal; returns everything it wrote (stdout and stderr)."""
    assert MEM_EXE
    child = pexpect.spawn(MEM_EXE, args, env=env, dimensions=(40, cols), encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before)


@pytest.fixture
def tty_env(store_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MEM_STORE", "COLUMNS", "LINES")}
    env.update({"MEM_STORE": str(store_dir), "TERM": "xterm-256color", "MEM_EMBEDDER": "hashing"})
    s = Store.open(store_dir)
    s.add("Alice likes jazz, " + "and a long tail of words " * 8, scope="alice", status="candidate")
    s.add("Alice drinks tea", scope="alice", status="active", kind="preference")
    return env


def test_colour_on_a_terminal_and_no_color(tty_env: dict[str, str]) -> None:
    coloured = tty_run(["list"], tty_env)
    assert COLOUR_SGR.search(coloured), repr(coloured)  # statuses are coloured on a terminal
    assert not COLOUR_SGR.search(tty_run(["--no-color", "list"], tty_env))
    assert not COLOUR_SGR.search(tty_run(["list"], {**tty_env, "NO_COLOR": "1"}))
    # errors too
    bad = ["show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"]
    assert COLOUR_SGR.search(tty_run(bad, tty_env))
    out = tty_run(bad, {**tty_env, "NO_COLOR": "1"})
    assert "error:" in out and not COLOUR_SGR.search(out)


@pytest.mark.parametrize("args", [["list"], ["--help"], ["list", "--help"]])
def test_output_fits_the_terminal_width(tty_env: dict[str, str], args: list[str]) -> None:
    out = ANSI.sub("", tty_run(args, tty_env, cols=60))
    lines = out.replace("\r\n", "\n").split("\n")
    too_wide = [ln for ln in lines if len(ln) > 60]
    assert not too_wide, too_wide


# --- progress bars ------------------------------------------------------------------------------

#: Long work that shows a progress bar on a terminal (label it shows).
PROGRESS_CASES: dict[str, list[str]] = {
    "verify": ["verify", "--full"],
    "rebuild": ["rebuild"],
    "compact": ["compact"],
}


def test_no_progress_output_in_a_pipe(tty_env: dict[str, str], commands: dict[str, object]) -> None:
    ran = 0
    for name, args in PROGRESS_CASES.items():
        if name not in commands:
            continue
        ran += 1
        r = run_mem(*args, env={"MEM_STORE": tty_env["MEM_STORE"], "MEM_EMBEDDER": "hashing"})
        assert r.returncode == 0, r.stderr
        assert "\r" not in r.stderr and not ANSI.search(r.stderr), repr(r.stderr)
        assert "━" not in r.stderr
    assert ran >= 1


def test_progress_bar_on_a_terminal_only(tmp_path: Path, commands: dict[str, object]) -> None:
    if "import" not in commands or "export" not in commands:
        pytest.skip("import/export not built")
    src = Store.init(tmp_path / "src")
    with src.batch():
        for i in range(60):
            src.add(f"fact number {i} about things", scope="alice")
    exp = run_mem("--store", str(src.root), "export")
    assert exp.returncode == 0, exp.stderr
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exp.stdout, "utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MEM_STORE")}
    env.update({"TERM": "xterm-256color", "MEM_EMBEDDER": "hashing"})

    def fresh(name: str) -> str:
        d = tmp_path / name
        Store.init(d)
        return str(d)

    on_tty = tty_run(["--store", fresh("t1"), "import", str(dump)], env)
    assert "importing" in on_tty and "60/60" in on_tty, repr(on_tty)
    quiet = tty_run(["--quiet", "--store", fresh("t2"), "import", str(dump)], env)
    assert "importing" not in quiet and "/60" not in quiet, repr(quiet)
    piped = run_mem("--store", fresh("t3"), "import", str(dump))
    assert piped.returncode == 0, piped.stderr
    assert "/60" not in piped.stderr and "\r" not in piped.stderr and not ANSI.search(piped.stderr)
