"""Import throughput (records/s) of a JSON Lines file, against a baseline run side by side.

    python bench/import_throughput.py [--sizes 10000 100000] [--runs 3] [--work DIR]

For each size, writes a JSON Lines file of minimal-shape objects (content, scope, kind, tags,
recorded_at; realistic sentences from bench/corpus.py) and times, alternating, in this process:

* baseline: read the file, ``json.loads`` each line, ``make_record`` + ``dump_record``, and
  ``atomic_write`` each record file (no per-file fsync) under records/<scope>/, then one
  ``os.sync()`` — the same bytes on disk without the store's checks, audit log or lock;
* mem: ``Store.init`` + ``import_path(store, file, "jsonl")`` (reader, idempotence and tombstone
  checks, lineage ordering, ``store.put`` per record in one ``store.batch()``: atomic record
  files, hash-chained audit events, deferred fsync).

Each run starts from an empty directory. Reports the median wall time and process CPU time,
records/s, and the ratio mem / baseline. Writes bench/out/import_throughput.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import sentence  # noqa: E402

from mem.format.base.fsutil import atomic_write, ensure_dir  # noqa: E402
from mem.format.interchange.migrate import import_path  # noqa: E402
from mem.format.model.record import dump_record, make_record  # noqa: E402
from mem.format.store.store import Store  # noqa: E402

SCOPES = ["ana", "bob", "carla", "team", "default"]


def write_input(path: Path, n: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    t0 = 1_600_000_000_000
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            kind, text = sentence(rng)
            obj = {
                "content": f"{text} (#{i})",
                "scope": rng.choice(SCOPES),
                "kind": kind,
                "tags": rng.sample(["work", "home", "health", "travel", "food"], rng.randint(0, 2)),
                "recorded_at": t0 + i * 60_000,
            }
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")


def baseline(src: Path, out: Path) -> int:
    """Parse + build + serialize + atomically write every record, one sync at the end."""
    n = 0
    made: set[str] = set()
    with open(src, encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            rec = make_record(
                scope=obj["scope"], kind=obj["kind"], content=obj["content"], tags=obj["tags"],
                recorded_at=obj["recorded_at"], source={"type": "import", "system": "jsonl"},
            )  # fmt: skip
            d = out / "records" / rec.scope
            if rec.scope not in made:
                ensure_dir(d)
                made.add(rec.scope)
            atomic_write(d / f"{rec.id}.md", dump_record(rec), sync=False)
            n += 1
    os.sync()
    return n


def with_mem(src: Path, out: Path) -> int:
    store = Store.init(out, actor="bench@bench")
    s = import_path(store, src, "jsonl")
    assert not s.failed, s.to_dict()["problems"][:3]
    return s.counts["created"]


def timed(fn: Any, src: Path, work: Path) -> tuple[float, float, int]:
    out = work / "out"
    if out.exists():
        shutil.rmtree(out)
    os.sync()
    w0, c0 = time.perf_counter(), time.process_time()
    n = fn(src, out)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    shutil.rmtree(out)
    return wall, cpu, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mem-import-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for n in args.sizes:
        src = work / f"input-{n}.jsonl"
        write_input(src, n)
        samples: dict[str, list[tuple[float, float]]] = {"baseline": [], "mem": []}
        for _ in range(args.runs):
            for name, fn in (("baseline", baseline), ("mem", with_mem)):
                wall, cpu, count = timed(fn, src, work)
                assert count == n, (name, count)
                samples[name].append((wall, cpu))
        row: dict[str, Any] = {"records": n, "runs": args.runs, "input_mb": round(src.stat().st_size / 1e6, 1)}
        for name, vals in samples.items():
            wall = statistics.median(v[0] for v in vals)
            cpu = statistics.median(v[1] for v in vals)
            row[name] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "records_per_s": round(n / wall)}
        row["ratio_wall"] = round(row["mem"]["wall_s"] / row["baseline"]["wall_s"], 2)
        row["ratio_cpu"] = round(row["mem"]["cpu_s"] / row["baseline"]["cpu_s"], 2)
        print(json.dumps(row), flush=True)
        results.append(row)
        src.unlink()
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "import_throughput.json").write_text(json.dumps(results, indent=2) + "\n")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
