"""Whole-process `mem` commands of this checkout against an older commit's, interleaved.

    python bench/ab_commands.py STORE --ref COMMIT [--runs 5] [--only NAME,...] [--import-n 2000]

A refactor's "no regression" check across the commands users run, not one hot path: the older
commit's tree is exported with ``git archive`` (as bench/lean_ab.py does) and both versions run
as ``python -c 'from mem.cli.main import run; run()' ...`` with ``PYTHONPATH`` pointing at their
own ``src/``: the same interpreter, libraries and store, both byte-compiled first. Each run
times every command once per version, the order of the two reversed every other run; reported
per command: medians of wall time and of the child's CPU time (user + sys: the steadier figure on
a busy machine), the new / old ratios, and whether the two versions printed the same bytes
(read-only commands; a command whose output names a time or a path differs by nature).

Commands that write run on their own copy of STORE (one per version), or, for ``import``, on a
new store each run: read-only ones on STORE itself. STORE is a store with vectors
(``bench/corpus.py`` then ``mem rebuild``); its embedder is the one configured there.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from lean_ab import export

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "import sys\nfrom mem.cli.main import run\nsys.exit(run())\n"

#: name -> (arguments after ``--store S``, writes?, output comparable?)
COMMANDS: dict[str, tuple[list[str], bool, bool]] = {
    "search lexical": (["search", "budget", "--mode", "lexical", "--json"], False, True),
    "search hybrid": (["search", "what did Ana say about the passport renewal", "--json"], False, True),
    "list --limit 20": (["list", "--limit", "20", "--json"], False, True),
    "stats": (["stats", "--json"], False, True),
    "show": (["show", "{rid}", "--json"], False, True),
    "context": (["context", "--query", "travel plans", "--budget", "800"], False, True),
    "export jsonl": (["export", "-o", "{tmp}/export-{ver}.jsonl", "--json"], False, True),
    "verify": (["verify", "--json"], False, True),
    "verify --full": (["verify", "--full", "--json"], False, True),
    "rebuild --lexical": (["rebuild", "--lexical", "--json"], True, False),
    "add": (["add", "remember the {i}th blue umbrella of {ver}", "--scope", "ana", "--json"], True, False),
    "import --no-embed": (["import", "{tmp}/items.jsonl", "--from", "jsonl", "--no-embed", "--json"], True, False),
}


def make_items(path: Path, n: int) -> None:
    """``n`` JSON Lines memories of 10-40 words (the same file for both versions)."""
    import random

    rnd = random.Random(7)
    words = ["river", "budget", "passport", "garden", "meeting", "Lisbon", "Porto", "train", "ticket",
             "doctor", "friday", "sister", "recipe", "coffee", "project", "deadline", "invoice", "piano",
             "lesson", "museum", "weekend", "flight", "hotel"]
    with path.open("w") as f:
        for i in range(n):
            text = " ".join(rnd.choice(words) for _ in range(rnd.randint(10, 40)))
            f.write(json.dumps({"content": f"item {i}: {text}", "kind": "fact", "scope": "imported"}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated command names (default: all)")
    ap.add_argument("--import-n", type=int, default=2000)
    a = ap.parse_args()
    names = [n for n in COMMANDS if not a.only or n in a.only.split(",")]
    env0 = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEM_STORE")}
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        (tmp / "old").mkdir()
        old_src = export(a.ref, tmp / "old")
        for tree in (old_src.parent, ROOT):
            dirs = [str(tree / d) for d in ("src/mem", "format", "cli", "mcpserver") if (tree / d).is_dir()]
            subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], check=True)
        make_items(tmp / "items.jsonl", a.import_n)
        versions = {a.ref: old_src, "this checkout": ROOT / "src"}
        copies = {}
        for ver in versions:
            copies[ver] = tmp / f"store-{len(copies)}"
            shutil.copytree(a.store, copies[ver], symlinks=True)
        rid = json.loads(subprocess.run(
            [sys.executable, "-c", SCRIPT, "--store", str(a.store), "list", "--limit", "1", "--json"],
            capture_output=True, env=dict(env0, PYTHONPATH=str(ROOT / "src")), check=True, text=True,
        ).stdout)
        rid = (rid[0] if isinstance(rid, list) else rid["records"][0])["id"]

        def argv(name: str, ver: str, i: int) -> list[str]:
            args, writes, _ = COMMANDS[name]
            vtag = "old" if ver == a.ref else "new"
            store = copies[ver] if writes else a.store
            if name.startswith("import"):
                store = tmp / f"imp-{vtag}-{i}"
                subprocess.run([sys.executable, "-c", SCRIPT, "init", str(store)], capture_output=True,
                               env=dict(env0, PYTHONPATH=str(versions[ver])), check=True)
            out = [s.format(rid=rid, tmp=tmp, ver=vtag, i=i) for s in args]
            return [sys.executable, "-c", SCRIPT, "--store", str(store), *out]

        wall: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        same: dict[str, bool] = {}
        for i in range(a.runs + 1):  # run 0 warms the caches; not counted
            for name in names:
                outs = {}
                order = list(versions) if i % 2 == 0 else list(versions)[::-1]
                for ver in order:
                    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    t = time.perf_counter()
                    p = subprocess.run(argv(name, ver, i), capture_output=True,
                                       env=dict(env0, PYTHONPATH=str(versions[ver])))
                    dt = time.perf_counter() - t
                    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    if p.returncode not in (0, 1):  # verify exits 1 on warnings
                        sys.exit(f"{name} ({ver}) exit {p.returncode}: {p.stderr.decode()[-800:]}")
                    outs[ver] = p.stdout.replace(b"-old", b"-VER").replace(b"-new", b"-VER")
                    if i:
                        wall.setdefault((name, ver), []).append(dt * 1000)
                        cpu.setdefault((name, ver), []).append(
                            (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000)
                if COMMANDS[name][2]:
                    same[name] = same.get(name, True) and outs[a.ref] == outs["this checkout"]
    new, old = "this checkout", a.ref
    print(f"| command | {old} wall p50 ms | new wall p50 ms | {old} cpu p50 ms | new cpu p50 ms "
          "| new / old wall | new / old cpu | same output |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        wo, wn = (statistics.median(wall[(name, v)]) for v in (old, new))
        co, cn = (statistics.median(cpu[(name, v)]) for v in (old, new))
        eq = {True: "yes", False: "NO"}.get(same[name], "-") if name in same else "-"
        print(f"| {name} | {wo:.0f} | {wn:.0f} | {co:.0f} | {cn:.0f} | {wn / wo:.2f} | {cn / co:.2f} | {eq} |")
    print(f"\n{a.runs} runs per command and version, interleaved; load average at the end: "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
