"""Ctrl-C (SIGINT) ends any `mem` command with exit 130 and one line on stderr, whenever it comes
once mem's code runs: while its modules import, while the command waits or writes, as it ends.

The delays are the child's own CPU time, not the wall clock: under load a fixed wall-clock delay
lands anywhere (even in the interpreter's own initialization, before any of mem's code runs,
which no code of mem can handle), while the CPU the child has used says how far its start-up
went whatever the machine's load.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mem.format.base.errors import ExitCode
from tests.conftest import MEM_EXE, run_mem, sigint_default

#: The interpreter's own start-up (site, the venv's .pth files) takes 10-20 ms of CPU; mem's
#: start-up up to the command (typer, the command's modules) about ten times that. The first
#: delay is past the former, the others spread over the latter.
CPU_DELAYS_MS = [40, 70, 100, 140, 200]
TEXT = "the spare key is under the blue flowerpot"


def _cpu_ms(pid: int) -> float | None:
    """The CPU time (user + system) process ``pid`` has used, in ms; None once it has ended."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] == "Z":
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def _interrupt_at(p: subprocess.Popen[str], cpu_ms: float) -> None:
    """Send SIGINT to ``p`` once it has used ``cpu_ms`` of CPU, or once it sleeps without using
    any more for half a second (it waits for input: its start-up is over), or at once if it ended."""
    still_since, last = time.monotonic(), -1.0
    deadline = time.monotonic() + 120  # readiness only: a start-up under heavy load
    while time.monotonic() < deadline:
        used = _cpu_ms(p.pid)
        if used is None or used >= cpu_ms:
            break
        if used != last or _state(p.pid) != "S":
            still_since, last = time.monotonic(), used
        elif time.monotonic() - still_since > 0.5:
            break
        time.sleep(0.002)
    p.send_signal(signal.SIGINT)


def _popen(store: Path, *args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
    assert MEM_EXE
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env.update(NO_COLOR="1", MEM_EMBEDDER="hashing", MEM_ACTOR="tester@test")
    return subprocess.Popen([MEM_EXE, "--store", str(store), *args], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, preexec_fn=sigint_default)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    assert run_mem("init", str(root)).returncode == 0
    return root


@pytest.mark.parametrize("cpu_ms", [*CPU_DELAYS_MS, 10_000])
def test_ctrl_c_at_any_point_of_start_up_is_exit_130_and_one_line(store_dir: Path, cpu_ms: int) -> None:
    """`mem add` waiting for its text on stdin (a pipe the test keeps open): interrupted while it
    starts up (or, at 10 s, once it waits), it exits 130 with `mem: interrupted` alone on
    stderr and the store is as it was, byte for byte."""
    before = _tree(store_dir)
    p = _popen(store_dir, "add", "-", stdin=subprocess.PIPE)
    try:
        _interrupt_at(p, cpu_ms)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert p.returncode == ExitCode.INTERRUPTED == 130, err
    assert err == "mem: interrupted\n"
    assert out == ""
    assert _tree(store_dir) == before  # nothing written, nothing left behind (no temp file)
    assert run_mem("--store", str(store_dir), "verify").returncode == 0
    assert run_mem("--store", str(store_dir), "--lock-timeout", "0", "add", "the lock is free").returncode == 0


@pytest.mark.parametrize("cpu_ms", CPU_DELAYS_MS)
def test_ctrl_c_during_a_write_leaves_the_record_whole_or_absent(store_dir: Path, cpu_ms: int) -> None:
    """`mem add TEXT` interrupted at each point: exit 130 with one line (or 0 when the signal
    came after the command ended), never a traceback; the record is whole or not there."""
    p = _popen(store_dir, "add", TEXT)
    _interrupt_at(p, cpu_ms)
    _, err = p.communicate(timeout=120)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert p.returncode in (0, 130), err
    if p.returncode == 130:
        assert err == "mem: interrupted\n"
    r = run_mem("--store", str(store_dir), "verify")
    assert r.returncode == 0, r.stdout + r.stderr
    listed = json.loads(run_mem("--store", str(store_dir), "list", "--json").stdout)
    assert [x["content"].strip() for x in listed] in ([], [TEXT])
    if p.returncode == 0:
        assert [x["content"].strip() for x in listed] == [TEXT]


def _driver(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` and then the executable's entry point (``mem.cli.main.run``) with ``args``."""
    script = f"import sys\n{code}\nfrom mem.cli.main import run\nsys.argv[1:] = {list(args)!r}\nrun()\n"
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"} | {"NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120, preexec_fn=sigint_default)


#: A Ctrl-C while a module of ``name`` is imported (as the interpreter raises it then).
INTERRUPT_IMPORT = """
import importlib.abc
class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {name!r}:
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
"""


@pytest.mark.parametrize("module", ["mem.cli.app", "typer", "mem.cli.commands.add", "mem.format.store.store"])
def test_ctrl_c_while_a_module_imports_is_exit_130(store_dir: Path, module: str) -> None:
    """Each stage of start-up, deterministically: the module's import raises KeyboardInterrupt."""
    r = _driver(INTERRUPT_IMPORT.format(name=module), "--store", str(store_dir), "add", TEXT)
    assert "Traceback" not in r.stderr, r.stderr
    assert (r.returncode, r.stderr, r.stdout) == (130, "mem: interrupted\n", "")
    assert json.loads(run_mem("--store", str(store_dir), "list", "--json").stdout) == []


def test_ctrl_c_after_the_command_ended_changes_nothing(store_dir: Path) -> None:
    """A Ctrl-C during the interpreter's finalization (here: an exit handler's) neither prints a
    traceback nor changes the exit status of the command that ran."""
    code = ("import atexit, os, signal, time\n"
            "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.2)))")
    r = _driver(code, "--store", str(store_dir), "add", TEXT)
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr
    assert [x["content"].strip() for x in json.loads(run_mem("--store", str(store_dir), "list", "--json").stdout)] == [TEXT]


def test_an_ignored_sigint_stays_ignored(store_dir: Path) -> None:
    """Inherited SIG_IGN (a background job of a non-interactive shell): a SIGINT does not stop
    the command; it runs to its end (here: `mem add -` reads its text, then writes it)."""
    assert MEM_EXE
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"} | {"NO_COLOR": "1"}
    p = subprocess.Popen([MEM_EXE, "--store", str(store_dir), "add", "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    _interrupt_at(p, 10_000)  # once it waits for stdin
    _, err = p.communicate(TEXT, timeout=120)
    assert p.returncode == 0, err
    listed = json.loads(run_mem("--store", str(store_dir), "list", "--json").stdout)
    assert [x["content"].strip() for x in listed] == [TEXT]
