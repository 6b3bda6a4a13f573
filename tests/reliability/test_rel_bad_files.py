"""One bad file never takes down the store (issue 19), through the real `mem` executable.

A record file broken the ways hand edits and merges break them: every reader skips it with a
warning naming the file and goes on with the rest (export writes the rest and exits 4), nothing
prints a traceback, and the fast `mem verify` (the pre-commit hook's) reports it.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_harness import MEM_EXE, driver_env
from rel_harness import mem as run_mem

from mem.format.store.store import Store


def _fm_body(text: str) -> tuple[str, str]:
    end = text.index("\n---\n", 4)
    return text[4 : end + 1], text[end + 5 :]


def _conflict(text: str) -> str:
    fm, body = _fm_body(text)
    fm = fm.replace("status: active\n", "<<<<<<< HEAD\nstatus: active\n=======\nstatus: rejected\n>>>>>>> theirs\n")
    return "---\n" + fm + "---\n" + body


def _with_fm(extra: str, replace: tuple[str, str] | None = None) -> Callable[[str], str]:
    def edit(text: str) -> str:
        fm, body = _fm_body(text)
        if replace:
            assert replace[0] in fm
            fm = fm.replace(*replace)
        return "---\n" + fm + extra + "---\n" + body
    return edit


BAD: dict[str, Callable[[str], str]] = {
    "conflict-markers": _conflict,
    "yaml-anchor": _with_fm("x_a: &a [1, 2]\nx_b: *a\n"),
    "1mb-frontmatter": _with_fm('x_big: "' + "a" * 1_100_000 + '"\n'),
    "confidence-1e309": _with_fm("", ("confidence: 1.0", "confidence: 1e309")),
    "tag-with-newline": _with_fm("", ("recorded_at", 'tags: ["a\\nb"]\nrecorded_at')),
    "5000-brackets": _with_fm("x_deep: " + "[" * 5000 + "]" * 5000 + "\n"),
    "5000-brackets-in-source": _with_fm("", ("  command: add", "  command: " + "[" * 5000 + "]" * 5000)),
}


@pytest.fixture
def two_records(tmp_path: Path) -> tuple[Path, str, str]:
    root = tmp_path / "s"
    assert run_mem("init", str(root)).returncode == 0
    good = run_mem("--store", str(root), "add", "good record about tea", "--tag", "drinks").stdout.strip()
    bad = run_mem("--store", str(root), "add", "the record that gets broken").stdout.strip()
    assert good and bad
    return root, good, bad


@pytest.mark.parametrize("case", sorted(BAD))
def test_readers_skip_a_bad_record_and_verify_reports_it(
    case: str, two_records: tuple[Path, str, str], tally: Callable[..., None]
) -> None:
    root, good, bad = two_records
    path = root / "records" / "default" / f"{bad}.md"
    path.write_text(BAD[case](path.read_text("utf-8")), "utf-8")
    problems: list[str] = []

    def run(*args: str) -> tuple[int, str, str]:
        r = run_mem("--store", str(root), *args)
        if "Traceback" in r.stderr:
            problems.append(f"`mem {' '.join(args)}`: traceback {r.stderr[-300:]}")
        return r.returncode, r.stdout, r.stderr

    def skipped_with_warning(what: str, err: str) -> None:
        if str(path) not in err or "left out" not in err:
            problems.append(f"{what}: no warning naming {path.name}: {err[-200:]}")

    rc, out, err = run("list", "--json", "--status", "all")
    if rc != 0 or [r["id"] for r in json.loads(out or "[]")] != [good]:
        problems.append(f"list --json: exit {rc}, {out[:200]}")
    skipped_with_warning("list --json", err)
    rc, out, err = run("list")
    if rc != 0 or good not in out:
        problems.append(f"list: exit {rc}")
    skipped_with_warning("list", err)
    rc, out, err = run("review", "--list")
    if rc != 0:
        problems.append(f"review --list: exit {rc} {err[-200:]}")
    skipped_with_warning("review --list", err)
    dest = root.parent / "out.jsonl"
    rc, out, err = run("export", "-o", str(dest))
    exported = [json.loads(x) for x in dest.read_text().splitlines()] if dest.exists() else []
    if rc != 4 or [o.get("id") for o in exported if o.get("type") == "record"] != [good]:
        problems.append(f"export: exit {rc} (want 4), wrote {[o.get('id') for o in exported]}")
    skipped_with_warning("export", err)
    rc, out, err = run("show", "--json", good)
    if rc != 0:
        problems.append(f"show --json of the good record: exit {rc}")
    rc, out, err = run("show", "--json", bad)
    if rc != 4 or str(path) not in err:
        problems.append(f"show --json of the bad record: exit {rc} (want 4 naming the file) {err[-200:]}")
    rc, out, err = run("search", "tea", "--mode", "lexical")
    if rc != 0 or good not in out:
        problems.append(f"search: exit {rc} {err[-200:]}")
    for level in ([], ["--full"]):
        rc, out, err = run("verify", "--json", *level)
        findings = json.loads(out)["findings"] if out.strip().startswith("{") else []
        mine = [f["code"] for f in findings if f["path"].endswith(f"{bad}.md") and f["severity"] == "error"]
        if rc != 1 or not mine:
            problems.append(f"verify {' '.join(level)}: exit {rc}, findings on the file {mine} {err[-200:]}")
    rc, out, err = run("repair", "--dry-run")
    if rc not in (0, 1):
        problems.append(f"repair --dry-run: exit {rc} {err[-200:]}")
    tally("bad record files: readers skip, export writes the rest, verify reports (via `mem`)", trials=1, inconsistent=len(problems))
    assert problems == [], problems


def test_a_hand_written_date_is_read_as_its_text(two_records: tuple[Path, str, str]) -> None:
    # `x_due: 2026-01-15` (YAML reads a date object): show/list --json and export gave tracebacks
    root, _good, bad = two_records
    path = root / "records" / "default" / f"{bad}.md"
    path.write_text(_with_fm("x_due: 2026-01-15\n")(path.read_text("utf-8")), "utf-8")
    r = run_mem("--store", str(root), "show", "--json", bad)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["extra"]["x_due"] == "2026-01-15"
    r = run_mem("--store", str(root), "export", "-o", str(root.parent / "o.jsonl"))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    r = run_mem("--store", str(root), "verify", "--full", "--json")
    codes = [f["code"] for f in json.loads(r.stdout)["findings"]]
    assert r.returncode == 0 and codes == ["W101"], r.stdout  # readable; written canonically quoted


def test_verify_reports_an_interrupted_supersession_w201(tmp_path: Path) -> None:
    s = Store.init(tmp_path / "s")
    a = s.add("sam lives in leeds", scope="default")
    b = s.add("sam lives in york", scope="default")
    # B supersedes A, but A was never marked (the second half of a supersede did not happen)
    p = s.record_path("default", b.id)
    text = p.read_text()
    p.write_text(text.replace("source:\n", f"supersedes: [\"{a.id}\"]\nsource:\n"))
    r = run_mem("--store", str(s.root), "verify", "--json")
    found = [(f["code"], f["path"]) for f in json.loads(r.stdout)["findings"]]
    assert ("W201", f"records/default/{b.id}.md") in found, r.stdout


def _holds_open(pid: int, target: Path) -> bool:
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if Path(os.readlink(fd)) == target:
                    return True
            except OSError:
                continue
    except OSError:
        return False
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_verify_beside_a_forget_reports_no_false_e201(tmp_path: Path) -> None:
    # The moment inside a forget between its tombstone and the file's removal, made by hand
    # under the writer lock: a verify that reads both must wait for the writer, not report E201.
    s = Store.init(tmp_path / "s")
    keep = s.add("kept", scope="default")
    gone = s.add("forgotten while verify runs", scope="default")
    from mem.format.model.tombstones import Tombstone

    lock_path = (s.local_dir / "lock").resolve()
    with s.lock:
        s.tombstones.add(Tombstone(id=gone.id, scope="default", digest=gone.match_digest,
                                   forgotten_at="2026-01-01T00:00:00.000Z", reason="", actor="t"))
        p = subprocess.Popen([MEM_EXE, "--store", str(s.root), "verify", "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=driver_env(), stdin=subprocess.DEVNULL)
        while p.poll() is None and not _holds_open(p.pid, lock_path):
            time.sleep(0.01)
        s.record_path("default", gone.id).unlink()
        s.log.append("forget", id=gone.id, scope="default", before=gone.digest, detail={"reason": ""})
    out, err = p.communicate(timeout=120)
    codes = [f["code"] for f in json.loads(out)["findings"]]
    assert "E201" not in codes, out
    assert p.returncode == 0, (out, err)
    assert keep.id


def _sed_editor(tmp_path: Path, script: str) -> dict[str, str]:
    ed = tmp_path / "ed.sh"
    ed.write_text(f"#!/bin/sh\nsed -i '{script}' \"$1\"\n")
    ed.chmod(0o755)
    return {"EDITOR": str(ed), "VISUAL": str(ed)}


@pytest.mark.parametrize("script,code", [
    ("s/^status: active$/status: superseded/", "E208"),  # superseded without superseded_by
    ("s/^status: active$/status: superseded\\nsuperseded_by: 01JGZ00000000000000000000Z/", "E207"),  # dangling
])
def test_edit_refuses_what_verify_rejects(script: str, code: str, two_records: tuple[Path, str, str], tmp_path: Path) -> None:
    root, _good, bad = two_records
    path = root / "records" / "default" / f"{bad}.md"
    before = path.read_bytes()
    r = run_mem("--store", str(root), "edit", bad, env=_sed_editor(tmp_path, script))
    assert r.returncode == 4 and "nothing saved" in r.stderr and code in r.stderr, r.stderr
    assert path.read_bytes() == before
    assert run_mem("--store", str(root), "verify").returncode == 0


def test_import_refuses_what_verify_rejects(two_records: tuple[Path, str, str]) -> None:
    root, _good, bad = two_records
    exp = root.parent / "e.jsonl"
    assert run_mem("--store", str(root), "export", "-o", str(exp)).returncode == 0
    dest = root.parent / "d"
    assert run_mem("init", str(dest)).returncode == 0
    lines = [json.loads(x) for x in exp.read_text().splitlines()]
    for o in lines:
        if o.get("id") == bad:
            o["status"] = "superseded"  # and no superseded_by
        elif o.get("type") == "record":
            o["status"] = "superseded"
            o["superseded_by"] = "01JGZ00000000000000000000Z"  # names no record
    exp.write_text("".join(json.dumps(o) + "\n" for o in lines))
    r = run_mem("--store", str(dest), "import", str(exp))
    assert r.returncode != 0 and "E208" in r.stderr + r.stdout and "E207" in r.stderr + r.stdout, r.stderr
    assert json.loads(run_mem("--store", str(dest), "list", "--json", "--status", "all").stdout) == []
    assert run_mem("--store", str(dest), "verify").returncode == 0
