"""Whole-process ``mem rebuild --lexical`` and ``mem verify --json`` of this checkout against an older
commit's, interleaved (the paths that read every record file: issue 22's one frontmatter reader).

    python bench/reader_ab.py STORE --ref COMMIT [--runs 11]

The older commit's tree is exported with ``git archive`` (as bench/lean_ab.py does); both run as
``python -c 'from mem.cli.main import run; run()' --store STORE ...`` with ``PYTHONPATH`` at their
own ``src/``, byte-compiled first, with ``MEM_EMBEDDER=hashing``. Each run times the two commands
with each version, the order of the versions reversed every other run. Reported: medians of wall
time and of CPU time (user + sys of the process and its worker processes), their ratio, and the
median of the per-run ratios. STORE is rebuilt in place (both versions write the same index).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lean_ab import export

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "import sys\nfrom mem.cli.main import run\nsys.exit(run())\n"
COMMANDS = {"rebuild --lexical": ["rebuild", "--lexical"], "verify --json": ["verify", "--json"]}


def compile_tree(src: Path) -> None:
    for sub in ("format", "cli", "mcpserver"):
        compileall.compile_dir(str(src.parent / sub), quiet=1)


def one(src: Path, store: Path, args: list[str]) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEM_STORE")}
    env.update(PYTHONPATH=str(src), MEM_EMBEDDER="hashing")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", SCRIPT, "--store", str(store), *args], env=env,
                       capture_output=True, check=False)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{src}: {' '.join(args)} exited {p.returncode}: {p.stderr[-2000:]!r}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    store = a.store.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {a.ref: export(a.ref, Path(tmp)), "this checkout": ROOT / "src"}
        for src in trees.values():
            compile_tree(src)
        got: dict[tuple[str, str], list[tuple[float, float]]] = {(t, c): [] for t in trees for c in COMMANDS}
        for i in range(a.runs):
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            for cmd, args in COMMANDS.items():
                for t in order:
                    got[(t, cmd)].append(one(trees[t], store, args))
    print(f"| command | {a.ref}: wall / cpu s | this checkout: wall / cpu s | medians' ratio wall / cpu "
          "| median of run ratios wall / cpu |")
    print("|---|---|---|---|---|")
    for cmd in COMMANDS:
        old, new = got[(a.ref, cmd)], got[("this checkout", cmd)]
        ow, oc = statistics.median(x[0] for x in old), statistics.median(x[1] for x in old)
        nw, nc = statistics.median(x[0] for x in new), statistics.median(x[1] for x in new)
        rw = statistics.median(n[0] / o[0] for o, n in zip(old, new, strict=True))
        rc = statistics.median(n[1] / o[1] for o, n in zip(old, new, strict=True))
        print(f"| `{cmd}` | {ow:.3f} / {oc:.3f} | {nw:.3f} / {nc:.3f} | {nw / ow:.3f} / {nc / oc:.3f} "
              f"| {rw:.3f} / {rc:.3f} |")
    print(f"\n({a.runs} runs, load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
