"""Benchmark ``mem verify`` and ``mem verify --full`` against the cost of reading the bytes.

    python bench/verify_bench.py [--sizes 10000 100000] [--runs 3] [--work DIR]

For each size, builds a store with bench/corpus.py (canonical record files written directly),
adds an audit log with one ``add`` event per record (so the store is valid and the log
agreement check runs on every record) and a few tombstones, then times whole processes, side
by side and alternating, warm cache, median of ``--runs`` (wall time, and CPU time of the
child processes, which is less sensitive to other load on a shared machine):

* baseline ``cat``: ``find records -name '*.md' -print0 | xargs -0 cat > /dev/null``
* baseline ``sha256sum``: the same with ``sha256sum`` (reads and hashes every byte)
* ``mem verify --json STORE``       (fast level)
* ``mem verify --full --json STORE`` (recomputes every digest, checks canonical form)

The package is byte-compiled first (as ``make pytest`` does): with PYTHONDONTWRITEBYTECODE set,
every ``mem`` process would otherwise compile the modules it imports from source again.

Prints one JSON line per size and writes bench/out/verify.json.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import generate  # noqa: E402

import mem  # noqa: E402
from mem.format.base.jsonl import canonical_json  # noqa: E402
from mem.format.model.audit import event_hash  # noqa: E402
from mem.format.model.record import parse_record  # noqa: E402
from mem.format.model.tombstones import Tombstone, TombstoneSet  # noqa: E402

MEM = str(Path(sys.executable).parent / "mem")


def add_log_and_tombstones(root: Path) -> None:
    events: list[str] = []
    prev = None
    paths = sorted(root.glob("records/*/*.md"))
    for i, p in enumerate(paths, start=1):
        rec = parse_record(p.read_text("utf-8"))
        ev = {"v": 1, "seq": i, "ts": "2025-01-01T00:00:00.000Z", "actor": "bench@bench",
              "op": "import", "id": rec.id, "scope": rec.scope, "before": None,
              "after": rec.digest, "detail": {}, "prev": prev}
        ev["hash"] = prev = event_hash(ev)
        events.append(canonical_json(ev) + "\n")
    for f in (root / "log").glob("*.jsonl"):
        f.unlink()
    (root / "log" / "00000000000000be.jsonl").write_text("".join(events), "utf-8")
    tombs = TombstoneSet(root / "tombstones")
    for j in range(20):
        tombs.add(Tombstone(id=f"01HZZZZZZZZZZZZZZZZZZZZZ{j:02d}", scope="ana",
                            digest=f"sha256:{j:064x}", forgotten_at="2025-01-01T00:00:00.000Z",
                            reason="bench", actor="bench@bench"), sync=False)


def run(cmd: str, cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child processes: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, shell=True, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=False)
    dt = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed: {p.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return dt, cpu


def bench(root: Path, runs: int) -> dict[str, object]:
    cmds = {
        "cat": "find records -name '*.md' -print0 | xargs -0 cat > /dev/null",
        "sha256sum": "find records -name '*.md' -print0 | xargs -0 sha256sum > /dev/null",
        "verify": f"{MEM} verify --json .",
        "verify_full": f"{MEM} verify --full --json .",
    }
    check = subprocess.run([MEM, "verify", "--json", "."], cwd=root, capture_output=True, text=True)
    report = json.loads(check.stdout)
    for c in cmds.values():  # warm the page cache
        run(c, root)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(runs):
        for k, c in cmds.items():
            wall, cpu = run(c, root)
            times[k].append(wall)
            cpus[k].append(cpu)
    med = {k: round(statistics.median(v), 3) for k, v in times.items()}
    med_cpu = {k: round(statistics.median(v), 3) for k, v in cpus.items()}
    return {
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "median_cpu_s": med_cpu,
        "cpu_ratio_to_cat": {k: round(v / med_cpu["cat"], 2) for k, v in med_cpu.items()},
        "records": report["counts"]["records"],
        "valid": report["valid"],
        "findings": len(report["findings"]),
        "median_s": med,
        "ratio_to_cat": {k: round(v / med["cat"], 2) for k, v in med.items()},
        "ratio_to_sha256sum": {k: round(v / med["sha256sum"], 2) for k, v in med.items()},
        "runs": runs,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-verify-bench"))
    ap.add_argument("--keep", action="store_true", help="keep the stores for a re-run")
    a = ap.parse_args()
    pkg = Path(mem.__file__).parent
    for d in (pkg, *(p.resolve() for p in pkg.iterdir() if p.is_symlink())):  # format/, cli/
        compileall.compile_dir(d, quiet=1)
    results = []
    for n in a.sizes:
        root = a.work / f"store-{n}"
        if not (root / "memstore.json").exists():
            if root.exists():
                shutil.rmtree(root)
            generate(root, n)
            add_log_and_tombstones(root)
        res = {"size": n, **bench(root, a.runs)}
        print(json.dumps(res), flush=True)
        results.append(res)
        if not a.keep:
            shutil.rmtree(root)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "verify.json").write_text(json.dumps(results, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
