"""Crash at any point: workloads killed with SIGKILL at seeded random moments.

After each kill: every record whose write was reported is present and intact, no partial
record file is visible, torn lines are only repaired by ``mem repair`` (explicitly), the audit
chain verifies after that, and the next command works.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_driver import content_for
from rel_harness import (
    MEM_EXE,
    Outcome,
    check_store,
    driver,
    driver_env,
    has_command,
    mem,
    next_write_works,
    recover,
    run_and_kill,
    seeded,
    torn_files,
    unlogged_records,
)

from mem.format.model.audit import verify_chain
from mem.format.store.store import Store


def _fresh(template: Path, tmp_path: Path, name: str = "s") -> Path:
    dst = tmp_path / name
    shutil.copytree(template, dst, symlinks=True)
    return dst


def _settle(
    root: Path, outcome: Outcome, tag: str, tally: Callable[..., None], row: str,
    expected_live: dict[str, tuple[str, int]] | None = None, *, cli: bool = False,
) -> None:
    """Recover explicitly, then check; tally the trial; fail on any loss or inconsistency."""
    rep = recover(root)
    lost, problems = check_store(root, outcome, tag=tag, expected_live=expected_live)
    problems += next_write_works(root, cli=cli)
    note = None
    if rep.get("completed_forgets"):
        note = "repair completed interrupted forgets"
    tally(row, trials=1, lost=lost, inconsistent=len(problems), note=note)
    unl = unlogged_records(root)
    if unl:
        tally(row, note="some kills fell between a record file and its log event: record kept, "
              "its event missing (`mem repair --adopt` logs it)")
    assert not outcome.errors, outcome.errors
    assert lost == 0 and not problems, problems


@pytest.mark.parametrize("trial", range(10))
def test_kill_api_add_loop(trial: int, template_store: Path, tmp_path: Path, tally: Callable[..., None]) -> None:
    rnd = seeded(1000 + trial)
    root = _fresh(template_store, tmp_path)
    tag = f"a{trial}"
    out = run_and_kill(driver("add", root, tag=tag, n=400), delay=rnd.uniform(0.0, 0.35))
    _settle(root, out, tag, tally, "crash: `add` via API (SIGKILL)")


@pytest.mark.parametrize("trial", range(6))
def test_kill_cli_add_loop(trial: int, template_store: Path, tmp_path: Path, tally: Callable[..., None]) -> None:
    rnd = seeded(2000 + trial)
    root = _fresh(template_store, tmp_path)
    tag = f"c{trial}"
    out = run_and_kill(driver("cli-add", root, tag=tag, n=40), delay=rnd.uniform(0.2, 1.2))
    _settle(root, out, tag, tally, "crash: `mem add` loop (SIGKILL)", cli=True)


@pytest.mark.parametrize("trial", range(6))
def test_kill_batch_add(trial: int, template_store: Path, tmp_path: Path, tally: Callable[..., None]) -> None:
    rnd = seeded(3000 + trial)
    root = _fresh(template_store, tmp_path)
    tag = f"b{trial}"
    out = run_and_kill(driver("batch", root, tag=tag, n=300, batch_size=7), delay=rnd.uniform(0.0, 0.35))
    _settle(root, out, tag, tally, "crash: `store.batch()` adds (SIGKILL)")


@pytest.fixture(scope="module")
def lineage_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], dict[str, tuple[str, int]]]:
    """A store with 6 roots, each with a derived chain and a fan-out (5 records per root), + 10 loose."""
    from rel_driver import content_for

    root = tmp_path_factory.mktemp("lineage") / "store"
    s = Store.init(root, actor="reliability@test")
    roots: list[str] = []
    live: dict[str, tuple[str, int]] = {}
    i = 0

    def add(derived: list[str]) -> str:
        nonlocal i
        r = s.add(content_for("L", i), scope="default", derived_from=derived)
        live[r.id] = ("default", i)
        i += 1
        return r.id

    with s.batch():
        for _ in range(6):
            a = add([])
            b = add([a])
            c = add([b])
            add([a])
            add([c, b])
            roots.append(a)
        for _ in range(10):
            add([])
    return root, roots, live


@pytest.mark.parametrize("trial", range(10))
def test_kill_forget_cascade(
    trial: int, lineage_store: tuple[Path, list[str], dict[str, tuple[str, int]]], tmp_path: Path,
    tally: Callable[..., None],
) -> None:
    src, roots, live = lineage_store
    rnd = seeded(4000 + trial)
    root = _fresh(src, tmp_path)
    out = run_and_kill(driver("forget", root), stdin="\n".join(roots), delay=rnd.uniform(0.0, 0.25))
    _settle(root, out, "L", tally, "crash: forget cascades via API (SIGKILL)", expected_live=live)


@pytest.mark.parametrize("trial", range(5))
def test_kill_cli_forget(
    trial: int, lineage_store: tuple[Path, list[str], dict[str, tuple[str, int]]], tmp_path: Path,
    tally: Callable[..., None],
) -> None:
    src, roots, live = lineage_store
    rnd = seeded(5000 + trial)
    root = _fresh(src, tmp_path)
    out = run_and_kill(driver("cli-forget", root), stdin="\n".join(roots), delay=rnd.uniform(0.2, 1.5))
    _settle(root, out, "L", tally, "crash: `mem forget` cascades (SIGKILL)", expected_live=live, cli=True)


@pytest.mark.parametrize("trial", range(5))
def test_torn_tail_is_refused_then_repaired_explicitly(
    trial: int, template_store: Path, tmp_path: Path, tally: Callable[..., None]
) -> None:
    """A power cut mid-append (SIGKILL cannot tear a write(2), so the tear is injected)."""
    rnd = seeded(6000 + trial)
    root = _fresh(template_store, tmp_path)
    tag = f"t{trial}"
    out = run_and_kill(driver("add", root, tag=tag, n=5 + trial), delay=None)
    log = sorted((root / "log").glob("*.jsonl"))[0]
    data = log.read_bytes()
    cut = rnd.randint(1, len(data.rstrip(b"\n").rsplit(b"\n", 1)[-1]) - 1)
    torn = data[: len(data) - 1 - cut]  # drop the newline and `cut` bytes of the last event
    log.write_bytes(torn)
    tail_bytes = torn[torn.rfind(b"\n") + 1 :]
    # detected, never silently dropped or built upon
    assert any(c.kind == "torn" for c in verify_chain(log))
    r = mem("--store", str(root), "add", "must not be appended after a torn line")
    assert r.returncode == 5, r.stderr
    assert "incomplete" in r.stderr and "mem repair" in r.stderr
    assert log.read_bytes() == torn  # nothing appended, nothing dropped
    # the explicit repair quarantines the bytes and logs that it did
    rep = recover(root)
    assert [t["bytes"] for t in rep["torn_tails"]] == [len(tail_bytes)]  # type: ignore[index]
    q = list((root / ".mem" / "quarantine").iterdir())
    assert [p.read_bytes() for p in q] == [tail_bytes]
    assert torn_files(root) == []
    # the event whose line was torn is lost from the log, not the record: all records intact
    lost, problems = check_store(root, out, tag=tag)
    problems += next_write_works(root)
    ops = [ev["op"] for ev in Store.open(root).log.iter_events()]
    assert "repair" in ops
    tally("crash: torn last log line (injected power cut)", trials=1, lost=lost, inconsistent=len(problems))
    assert lost == 0 and not problems, problems


def test_lock_released_by_kill(template_store: Path, tmp_path: Path) -> None:
    """A killed writer never leaves the store locked (flock dies with the process)."""
    import subprocess

    root = _fresh(template_store, tmp_path)
    run_and_kill(driver("add", root, tag="k", n=10_000), delay=0.3)
    p = subprocess.run(
        [MEM_EXE, "--store", str(root), "--lock-timeout", "0", "add", "right after a kill"],
        capture_output=True, text=True, env=driver_env(), stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, p.stderr


@pytest.fixture(scope="module")
def export_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[str, int]]]:
    """A JSON Lines export of 1,500 records (made with `mem export`), and id -> (scope, i)."""
    from rel_driver import content_for

    if not has_command("import_") or not has_command("export"):
        pytest.skip("mem import/export not built yet")
    d = tmp_path_factory.mktemp("exp")
    s = Store.init(d / "src", actor="reliability@test")
    live: dict[str, tuple[str, int]] = {}
    with s.batch():
        for i in range(1500):
            r = s.add(content_for("I", i), scope="default" if i % 3 else "other")
            live[r.id] = (r.scope, i)
    out = d / "big.jsonl"
    r = mem("--store", str(s.root), "export", "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out, live


@pytest.mark.parametrize("trial", range(6))
def test_kill_import(
    trial: int, export_file: tuple[Path, dict[str, tuple[str, int]]], template_store: Path,
    tmp_path: Path, tally: Callable[..., None],
) -> None:
    """`mem import` of a large file killed at random; repair + a re-run gives exactly the file."""
    import subprocess

    src, live = export_file
    rnd = seeded(7000 + trial)
    root = _fresh(template_store, tmp_path)
    p = subprocess.Popen([MEM_EXE, "--store", str(root), "import", str(src)], env=driver_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    import os
    import signal
    import time

    time.sleep(rnd.uniform(0.3, 2.5))
    killed = p.poll() is None
    if killed:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    recover(root)
    # what the killed import wrote is whole (intact content, parseable files)
    lost, problems = check_store(root, Outcome(), tag="I")
    s = Store.open(root)
    for r in s.iter_records():
        _scope, i = live.get(r.id, ("?", -1))
        if i < 0 or r.content.strip() != content_for("I", i).strip():
            problems.append(f"partial or foreign record {r.id}")
    # the next command restores full consistency: re-running the import completes it, no duplicates
    r2 = mem("--store", str(root), "import", str(src))
    if r2.returncode != 0:
        problems.append(f"re-import failed: {r2.stderr[-300:]}")
    got = {r.id: r for r in Store.open(root).iter_records()}
    lost += sum(1 for rid in live if rid not in got)
    if len(got) != len(live):
        problems.append(f"{len(got)} records after re-import, expected {len(live)}")
    problems += next_write_works(root, cli=False)
    tally("crash: `mem import` of 1,500 records (SIGKILL)", trials=1, lost=lost, inconsistent=len(problems),
          note=None if killed else "some imports finished before the kill")
    assert lost == 0 and problems == [], problems[:10]


@pytest.mark.parametrize("trial", range(5))
def test_kill_rebuild(trial: int, lineage_store: tuple[Path, list[str], dict[str, tuple[str, int]]],
                      tmp_path: Path, tally: Callable[..., None]) -> None:
    """`mem rebuild` killed at random: search still answers or refuses cleanly; a new rebuild
    restores a full, fresh index and leaves no build leftovers."""
    import json as _json

    if not has_command("rebuild"):
        pytest.skip("mem rebuild not built yet")
    src, _roots, live = lineage_store
    rnd = seeded(8000 + trial)
    root = _fresh(src, tmp_path)
    if trial % 2:
        assert mem("--store", str(root), "rebuild").returncode == 0  # an old generation exists
    import os
    import signal
    import subprocess
    import time

    p = subprocess.Popen([MEM_EXE, "--store", str(root), "rebuild"], env=driver_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(rnd.uniform(0.2, 1.2))
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    problems: list[str] = []
    r = mem("--store", str(root), "search", "--json", "workload")
    if "Traceback" in r.stderr or r.returncode not in (0, 9):
        problems.append(f"search after a killed rebuild: exit {r.returncode}: {r.stderr[-300:]}")
    rb = mem("--store", str(root), "rebuild")
    if rb.returncode != 0:
        problems.append(f"rebuild after a killed rebuild: {rb.stderr[-300:]}")
    r = mem("--store", str(root), "search", "--json", "-k", "100", "workload")
    if r.returncode != 0:
        problems.append(f"search after rebuild: exit {r.returncode}: {r.stderr[-300:]}")
    else:
        hits = _json.loads(r.stdout)["hits"]
        if len(hits) != min(len(live), 100):
            problems.append(f"search after rebuild found {len(hits)} of {len(live)}")
    leftovers = [p.name for p in (root / ".mem" / "index").iterdir() if p.name.startswith("build-")]
    problems += [f"build leftover {n}" for n in leftovers]
    tally("crash: `mem rebuild` (SIGKILL)", trials=1, inconsistent=len(problems))
    assert problems == [], problems


#: Where the deterministic compact trials die (rel_driver.py ``--kill-at``): in the build (only
#: the lexical generation built), before the first pointer write (a new generation renamed in,
#: no pointer names it), between the two pointer writes (new lexical, old vectors), after both
#: pointers (old generations not yet deleted), half-way through deleting them, before the empty
#: build folder is removed.
COMPACT_KILL_POINTS = ["build_vectors:1", "write_pointer:1", "write_pointer:2", "remove_tree:1",
                       "remove_tree:2", "remove_tree:3"]


@pytest.fixture(scope="module")
def compact_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[str, int]], list[str]]:
    """1,500 records indexed (lexical + vectors), then 40 adds (vector delta) and 25 forgets (dead
    vectors, deleted tantivy docs) applied by a search: everything compact has to merge."""
    from mem.format.index.derived import attach, rebuild

    if not has_command("compact") or not has_command("rebuild"):
        pytest.skip("mem compact not built yet")
    root = tmp_path_factory.mktemp("compact") / "store"
    s = Store.init(root, actor="reliability@test")
    live: dict[str, tuple[str, int]] = {}
    with s.batch():
        for i in range(1500):
            r = s.add(content_for("K", i), scope="default" if i % 3 else "other")
            live[r.id] = (r.scope, i)
    mp = pytest.MonkeyPatch()
    mp.setenv("MEM_EMBEDDER", "hashing")
    try:
        rebuild(Store.open(root))
        s = Store.open(root)
        attach(s)
        for i in range(1500, 1540):
            r = s.add(content_for("K", i), scope="default")
            live[r.id] = (r.scope, i)
        gone = sorted(live)[:25]
        s.forget(gone, reason="compact crash fixture")
        for rid in gone:
            del live[rid]
    finally:
        mp.undo()
    assert mem("--store", str(root), "search", "workload").returncode == 0  # journal applied
    # a search embeds a small backlog only (issue 21): the catch-up fills the rest of the delta
    assert mem("--store", str(root), "embed").returncode == 0
    return root, live, gone


def _after_killed_compact(root: Path, live: dict[str, tuple[str, int]], gone: list[str]) -> list[str]:
    """The index left by a killed compact (old or new generation) is whole; search answers in
    every mode; verify finds nothing unexplained; a new compact finishes and leaves no garbage."""
    import json as _json

    from mem.format.index.common import garbage
    from mem.format.index.derived import index_stats, staleness

    problems: list[str] = []
    store = Store.open(root)
    st = index_stats(store).to_dict()
    for part in ("lexical", "vectors"):
        if not st[part]["present"] or st[part]["corrupt"]:
            problems.append(f"{part} index after the kill: present={st[part]['present']} corrupt={st[part]['corrupt']}")
    if problems:
        return problems
    if st["vectors"]["vectors"] != len(live) or st["vectors"]["missing"]:
        problems.append(f"vectors after the kill: {st['vectors']['vectors']} valid, {st['vectors']['missing']} missing, "
                        f"for {len(live)} live records")
    stale = staleness(store, full=True)
    if stale.stale:
        problems.append(f"lexical index after the kill does not match the records: {stale.to_dict()}")
    v = mem("--store", str(root), "verify", "--json")
    if v.returncode not in (0, 1) or "Traceback" in v.stderr:
        problems.append(f"verify after the kill: exit {v.returncode}: {v.stderr[-300:]}")
    else:
        findings = _json.loads(v.stdout)["findings"]
        codes = {f["code"] for f in findings}
        # explained: W404 names each leftover folder, W501 a pointer's temp file cut off by the kill
        if codes - {"W404", "W501"}:
            problems.append(f"verify after the kill: {sorted(codes)}: {v.stdout[-600:]}")
        live_now = {str(st[p]["generation"]) for p in ("lexical", "vectors")}
        left = sorted(p.name for p in garbage(root / ".mem" / "index", live_now))
        named = sorted(Path(f["path"]).name for f in findings if f["code"] == "W404")
        if named != left:
            problems.append(f"leftovers {left} but verify names {named}")
    forgotten = set(gone)
    for mode in ("lexical", "vector", "hybrid"):
        r = mem("--store", str(root), "search", "--json", "-k", "1000", "--mode", mode, "workload")
        if r.returncode != 0:
            problems.append(f"search --mode {mode} after the kill: exit {r.returncode}: {r.stderr[-300:]}")
            continue
        res = _json.loads(r.stdout)
        ids = {h["id"] for h in res["hits"]}
        if res["warnings"] or len(ids) != 1000 or ids & forgotten or ids - set(live):
            problems.append(f"search --mode {mode} after the kill: {len(ids)} hits, warnings {res['warnings']}, "
                            f"{len(ids & forgotten)} forgotten, {len(ids - set(live))} unknown")
    c = mem("--store", str(root), "compact", "--json")
    if c.returncode != 0:
        problems.append(f"compact after the kill: exit {c.returncode}: {c.stderr[-300:]}")
    live_gens = {str(index_stats(Store.open(root)).to_dict()[p]["generation"]) for p in ("lexical", "vectors")}
    left = [p.name for p in garbage(root / ".mem" / "index", live_gens)]
    problems += [f"garbage left after a second compact: {n}" for n in left]
    st = index_stats(Store.open(root)).to_dict()
    if st["vectors"]["delta"] or st["vectors"]["dead"] or st["vectors"]["vectors"] != len(live):
        problems.append(f"second compact did not finish the merge: {st['vectors']}")
    if st["lexical"]["docs"] != len(live) or st["lexical"]["deleted_docs"]:
        problems.append(f"second compact: lexical {st['lexical']}")
    return problems


@pytest.mark.parametrize("kill_at", COMPACT_KILL_POINTS)
def test_compact_killed_at_each_step(
    kill_at: str, compact_store: tuple[Path, dict[str, tuple[str, int]], list[str]], tmp_path: Path,
    tally: Callable[..., None],
) -> None:
    src, live, gone = compact_store
    root = _fresh(src, tmp_path)
    import signal
    import subprocess

    p = subprocess.run(driver("compact", root, kill_at=kill_at), capture_output=True, text=True,
                       env=driver_env(), stdin=subprocess.DEVNULL, timeout=300)
    lines = p.stdout.splitlines()
    # it died by SIGKILL where it was told, not elsewhere
    assert p.returncode == -signal.SIGKILL and lines[-1] == f"KILLED {kill_at}", (p.returncode, lines, p.stderr)
    problems = _after_killed_compact(root, live, gone)
    tally("crash: `mem compact` (SIGKILL at each build/swap step, and at random)", trials=1,
          inconsistent=len(problems))
    assert problems == [], problems


@pytest.mark.parametrize("trial", range(5))
def test_kill_compact_at_random(
    trial: int, compact_store: tuple[Path, dict[str, tuple[str, int]], list[str]], tmp_path: Path,
    tally: Callable[..., None],
) -> None:
    """The real `mem compact` process killed at a random moment (it runs ~1.5 s here)."""
    import os
    import signal
    import subprocess
    import time

    src, live, gone = compact_store
    rnd = seeded(9000 + trial)
    root = _fresh(src, tmp_path)
    p = subprocess.Popen([MEM_EXE, "--store", str(root), "compact"], env=driver_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(rnd.uniform(0.3, 1.4))
    killed = p.poll() is None
    if killed:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    problems = _after_killed_compact(root, live, gone)
    tally("crash: `mem compact` (SIGKILL at each build/swap step, and at random)", trials=1,
          inconsistent=len(problems), note=None if killed else "some compactions finished before the kill")
    assert problems == [], problems
