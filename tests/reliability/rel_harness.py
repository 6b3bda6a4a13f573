"""Helpers of the reliability suite: run a workload, kill it, recover, and check the store.

A check returns a list of human-readable problems; the tests assert it is empty and tally the
counts (trials, records lost, inconsistencies left) for the suite's report.
"""

from __future__ import annotations

import importlib.util
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mem.format.base.errors import MemError, NotFoundError
from mem.format.base.fsutil import iter_tmp_files
from mem.format.base.jsonl import has_torn_tail
from mem.format.model.audit import verify_chain
from mem.format.model.record import canonical_body, read_record_file
from mem.format.store.store import Store

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "rel_driver.py"
PYTHON = sys.executable
MEM_EXE = str(Path(sys.executable).parent / "mem")

sys.path.insert(0, str(HERE))
from rel_driver import content_for  # noqa: E402


def has_command(name: str) -> bool:
    """True when ``mem <name>`` is built (its module exists)."""
    return importlib.util.find_spec(f"mem.cli.commands.{name}") is not None


def driver_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env.update({"MEM_ACTOR": "reliability@test", "NO_COLOR": "1", "MEM_EMBEDDER": "hashing"})
    env.update(extra or {})
    return env


@dataclass
class Outcome:
    """What a (possibly killed) workload reported before it died."""

    added: dict[str, tuple[str, int]] = field(default_factory=dict)  # id -> (scope, i)
    forgotten: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    killed: bool = False
    lines: list[str] = field(default_factory=list)


def parse_outcome(text: str, killed: bool) -> Outcome:
    out = Outcome(killed=killed)
    for line in text.splitlines():
        out.lines.append(line)
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "ADDED" and len(parts) == 4:
            out.added[parts[1]] = (parts[2], int(parts[3]))
        elif parts[0] == "BATCH" and len(parts) == 2:
            for item in parts[1].split(","):
                rid, i = item.split(":")
                out.added[rid] = ("default", int(i))
        elif parts[0] == "FORGOT" and len(parts) == 2:
            out.forgotten.update(parts[1].split(","))
        elif parts[0] == "ERROR":
            out.errors.append(line)
    return out


def run_and_kill(
    args: list[str],
    *,
    delay: float | None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> Outcome:
    """Start ``args`` in its own process group; SIGKILL the group ``delay`` s after READY.

    ``delay=None`` lets it finish. Returns what it reported.
    """
    p = subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env or driver_env(),
        start_new_session=True,
        text=True,
    )
    assert p.stdin is not None and p.stdout is not None
    if stdin:
        p.stdin.write(stdin)
    p.stdin.close()
    p.stdin = None  # communicate() must not flush it again
    first = p.stdout.readline()
    killed = False
    if first.strip() != "READY":
        _, err = p.communicate(timeout=timeout)
        raise AssertionError(f"workload did not start: {first!r} {err}")
    if delay is not None:
        time.sleep(delay)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            killed = True
    out, err = p.communicate(timeout=timeout)
    if not killed and p.returncode != 0:
        raise AssertionError(f"workload failed ({p.returncode}): {err}")
    return parse_outcome(first + out, killed)


def driver(mode: str, store: Path, **kw: object) -> list[str]:
    args = [PYTHON, str(DRIVER), mode, "--store", str(store), "--mem", MEM_EXE]
    for k, v in kw.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    return args


def recover(root: Path) -> dict[str, object]:
    """The explicit recovery a person runs after a crash: ``mem repair --json``."""
    p = subprocess.run(
        [MEM_EXE, "--store", str(root), "repair", "--json"],
        capture_output=True, text=True, env=driver_env(), stdin=subprocess.DEVNULL, timeout=120,
    )
    if p.returncode != 0:
        raise AssertionError(f"mem repair failed ({p.returncode}): {p.stderr}")
    import json

    rep: dict[str, object] = json.loads(p.stdout)
    return rep


def torn_files(root: Path) -> list[Path]:
    return [
        p
        for d in ("log", "tombstones")
        for p in sorted((root / d).glob("*.jsonl"))
        if has_torn_tail(p)
    ]


def check_store(
    root: Path,
    outcome: Outcome,
    *,
    tag: str,
    expected_live: dict[str, tuple[str, int]] | None = None,
) -> tuple[int, list[str]]:
    """(records lost, problems) of a recovered store against what the workload reported.

    Lost: a record whose add was reported (or that was there before and never forgotten) and
    is not readable with its exact content. Problems: anything else inconsistent.
    """
    store = Store.open(root)
    problems: list[str] = []
    lost = 0
    expected = dict(expected_live or {})
    expected.update(outcome.added)
    for rid, (scope, i) in expected.items():
        if rid in outcome.forgotten:
            continue
        try:
            rec = store.get(rid, scope)
        except NotFoundError as exc:
            if store.is_forgotten(scope, rid):
                continue  # forgotten by a forget that was cut off (not reported): allowed
            lost += 1
            problems.append(f"lost {rid}: {exc}")
            continue
        if rec.content != canonical_body(content_for(tag, i)):
            lost += 1
            problems.append(f"record {rid} is not intact")
    for rid in outcome.forgotten:
        for scope in store.scopes():
            if (root / "records" / scope / f"{rid}.md").exists():
                problems.append(f"forgotten record {rid} still has a file")
    # every record file parses and names itself
    errs: list[MemError] = []
    live = {r.id: r for r in store.iter_records(on_error=errs.append)}
    problems += [f"unreadable record: {e}" for e in errs]
    # no live record keeps lineage to a forgotten one (an interrupted cascade)
    for r in live.values():
        for src in r.derived_from:
            if store.tombstones.find_id(src) is not None:
                problems.append(f"record {r.id} survives its forgotten source {src}")
    # tombstoned ids have no file
    for t in store.tombstones:
        if (root / "records" / t.scope / f"{t.id}.md").exists():
            problems.append(f"tombstoned {t.id} still has a file")
    # the audit chains and tombstone files are whole
    for p in sorted((root / "log").glob("*.jsonl")):
        problems += [f"{c.path.name}:{c.line}: {c.message}" for c in verify_chain(p)]
    problems += [f"torn tail left in {p}" for p in torn_files(root)]
    problems += [f"temp file left: {p}" for p in iter_tmp_files(root)]
    for p in (root / "records").rglob("*"):
        if p.is_file() and p.suffix == ".md":
            try:
                read_record_file(p)
            except MemError as exc:
                problems.append(f"partial record file {p}: {exc}")
    return lost, problems


def unlogged_records(root: Path) -> int:
    """Live records with no audit event naming them (a crash between file and log)."""
    store = Store.open(root)
    logged = {ev.get("id") for ev in store.log.iter_events()}
    return sum(1 for r in store.iter_records(on_error=lambda e: None) if r.id not in logged)


def next_write_works(root: Path, *, cli: bool = True) -> list[str]:
    """After recovery the next write succeeds (a CLI or API add) and the chain still verifies."""
    if not cli:
        try:
            Store.open(root).add("after recovery: a fresh memory", scope="default")
        except MemError as exc:
            return [f"next add failed: {exc}"]
        return [f"after next write: {c.message}" for lp in sorted((root / "log").glob("*.jsonl")) for c in verify_chain(lp)]
    p = subprocess.run(
        [MEM_EXE, "--store", str(root), "add", "after recovery: a fresh memory"],
        capture_output=True, text=True, env=driver_env(), stdin=subprocess.DEVNULL, timeout=60,
    )
    if p.returncode != 0:
        return [f"next `mem add` failed ({p.returncode}): {p.stderr.strip()}"]
    probs = []
    for lp in sorted((root / "log").glob("*.jsonl")):
        probs += [f"after next write: {c.message}" for c in verify_chain(lp)]
    return probs


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def mem(*args: str, input: str | None = None, env: dict[str, str] | None = None, timeout: float = 120) -> Ran:
    """Run the real ``mem`` executable."""
    p = subprocess.run(
        [MEM_EXE, *args], capture_output=True, text=True, env=driver_env(env), input=input,
        stdin=None if input is not None else subprocess.DEVNULL, timeout=timeout,
    )
    return Ran(p.returncode, p.stdout, p.stderr)


def seeded(seed: int) -> random.Random:
    return random.Random(seed)
