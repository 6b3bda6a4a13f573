"""Ctrl-C while `mem` starts: what a SIGINT at each moment of start-up ends with.

    python bench/ctrl_c_startup.py [--runs 3] [--hogs 0] [--src DIR]

Starts ``mem add -`` (its text on stdin, a pipe kept open: the command waits there once started)
and sends it SIGINT at delays measured two ways: wall-clock seconds after the start (0 to 0.5 s)
and the child's own CPU time (/proc/PID/stat: 20 to 240 ms, then once it waits), RUNS times
each; prints a count of the outcomes: exit 130 with only ``mem: interrupted`` on stderr (what
spec/cli.md asks), exit 130 with nothing said, a Python traceback (the exit status with it),
``Fatal Python error`` (the interpreter's own start-up, before any of mem's code), or death by
the signal before Python's handler was installed. ``--hogs N`` runs N busy loops meanwhile.
``--src`` runs the mem of another checkout's ``src/`` (``PYTHONPATH``, e.g. one unpacked with
``git archive REV``), to compare before and after in the same window. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WALL_S = [0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5]
CPU_MS = [20, 40, 70, 100, 140, 200, 240, 10_000]


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _at_cpu(p: subprocess.Popen[str], ms: float) -> None:
    """Wait until ``p`` has used ``ms`` of CPU, or sleeps (waits on stdin) without using more for
    0.5 s, or has ended."""
    tick = 1000 / os.sysconf("SC_CLK_TCK")
    last, still = -1.0, time.monotonic()
    while True:
        f = _stat(p.pid)
        if f is None or f[0] == "Z":
            return
        used = (int(f[11]) + int(f[12])) * tick
        if used >= ms:
            return
        if used != last or f[0] != "S":
            last, still = used, time.monotonic()
        elif time.monotonic() - still > 0.5:
            return
        time.sleep(0.001)


def _outcome(code: int, err: str) -> str:
    if "Fatal Python error" in err:
        return "Fatal Python error (interpreter start-up)"
    if "Traceback" in err:
        return f"traceback, exit {code}"
    if code == -signal.SIGINT:
        return "killed by SIGINT before Python's handler"
    if code == 130:
        return "130, one line" if err == "mem: interrupted\n" else f"130, stderr {err.strip()[:40]!r}"
    return f"exit {code}, stderr {err.strip()[-60:]!r}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hogs", type=int, default=0)
    ap.add_argument("--src", type=Path, default=None)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"} | {
        "NO_COLOR": "1", "MEM_ACTOR": "bench@ctrl-c", "MEM_EMBEDDER": "hashing"}
    if a.src is not None:
        env["PYTHONPATH"] = str(a.src.resolve())
    mem = [sys.executable, "-c", "from mem.cli.main import run; run()"]
    work = Path(tempfile.mkdtemp(prefix="mem-ctrl-c-startup-"))
    store = work / "store"
    subprocess.run([*mem, "init", str(store)], check=True, capture_output=True, env=env)
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(a.hogs)]
    counts: dict[str, collections.Counter[str]] = {"wall": collections.Counter(), "cpu": collections.Counter()}
    print(f"load before: {os.getloadavg()[0]:.1f}")
    try:
        for _ in range(a.runs):
            for how, delays in (("wall", WALL_S), ("cpu", CPU_MS)):
                for d in delays:
                    p = subprocess.Popen([*mem, "--store", str(store), "add", "-"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
                    if how == "wall":
                        time.sleep(d)
                    else:
                        _at_cpu(p, d)
                    p.send_signal(signal.SIGINT)
                    _out, err = p.communicate(timeout=300)
                    counts[how][_outcome(p.returncode, err)] += 1
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"load after: {os.getloadavg()[0]:.1f}")
    for how, c in counts.items():
        label = "wall-clock delays 0-0.5 s" if how == "wall" else "CPU delays 20-240 ms and once it waits"
        print(f"{label} ({sum(c.values())} runs):")
        for what, n in c.most_common():
            print(f"  {n:4d}  {what}")


if __name__ == "__main__":
    main()
