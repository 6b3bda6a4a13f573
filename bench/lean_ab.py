"""Whole-process lexical search of this checkout against an older commit's, interleaved, with the floor.

    python bench/lean_ab.py STORE --ref COMMIT [--runs 41] [--word budget] [--json]

The older commit's tree is exported with ``git archive`` into a temporary folder; both versions run
as ``python -c 'from mem.cli.main import run; run()' --store STORE search WORD --mode lexical``
with ``PYTHONPATH`` pointing at their own ``src/`` (the same interpreter and libraries), both
byte-compiled first, after a check that both print the same bytes. The floor is bench/whole_lexical.py's (python, tantivy, open
the index with its tokenizer, one query). Each run times the three in turn, the order reversed
every other run; reported: medians of wall time and of the child's CPU time (user + sys, less
sensitive to a busy machine), and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from whole_lexical import floor_code

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "import sys\nfrom mem.cli.main import run\nsys.exit(run())\n"


def export(ref: str, into: Path) -> Path:
    """The tree of ``ref`` under ``into``; its ``src/`` (whose mem/format, mem/cli are symlinks)."""
    archive = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref], check=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)
    return into / "src"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--runs", type=int, default=41)
    ap.add_argument("--word", default="budget")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    root = a.store.resolve()
    gen = json.loads((root / ".mem/index/lexical.json").read_text())["generation"]
    env0 = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEM_STORE")}
    search = ["--store", str(root), "search", a.word, "--mode", "lexical", *(["--json"] if a.json else [])]
    with tempfile.TemporaryDirectory() as tmp:
        old_src = export(a.ref, Path(tmp))
        # byte-compiled, both (a run that compiles its modules measures the compiler; this
        # environment may set PYTHONDONTWRITEBYTECODE)
        for tree in (old_src.parent, ROOT):  # src/mem/format, cli, mcpserver are symbolic links,
            # which compileall does not follow: the folders themselves
            dirs = [str(tree / d) for d in ("src/mem", "format", "cli", "mcpserver") if (tree / d).is_dir()]
            subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], check=True)
        cmds = {
            "floor": ([sys.executable, "-c", floor_code(root / ".mem/index" / gen), a.word], env0),
            a.ref: ([sys.executable, "-c", SCRIPT, *search], dict(env0, PYTHONPATH=str(old_src))),
            "this checkout": ([sys.executable, "-c", SCRIPT, *search], dict(env0, PYTHONPATH=str(ROOT / "src"))),
        }
        names = list(cmds)
        outs = [subprocess.run(c, capture_output=True, env=e) for c, e in list(cmds.values())[1:]]
        if outs[0].returncode or outs[0].stdout != outs[1].stdout:
            sys.exit(f"the two versions differ: {outs[0].stderr!r} {outs[1].stderr!r}")
        wall: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        for i in range(a.runs + 1):  # the first run warms the caches (and writes .pyc files)
            for k in names if i % 2 == 0 else names[::-1]:
                c, e = cmds[k]
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run(c, capture_output=True, env=e)
                dt = time.perf_counter() - t
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                if i:
                    wall[k].append(dt * 1000)
                    cpu[k].append((r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000)
    w = {k: statistics.median(v) for k, v in wall.items()}
    c = {k: statistics.median(v) for k, v in cpu.items()}
    print("| command | wall p50 ms | cpu p50 ms | wall / floor | cpu / floor |\n|---|---|---|---|---|")
    for k in names:
        print(f"| {k} | {w[k]:.1f} | {c[k]:.1f} | {w[k] / w['floor']:.2f} | {c[k] / c['floor']:.2f} |")
    new, old = names[2], names[1]
    print(f"\nthis checkout / {a.ref}: wall {w[new] / w[old]:.3f}, cpu {c[new] / c[old]:.3f} ({a.runs} runs)")


if __name__ == "__main__":
    main()
