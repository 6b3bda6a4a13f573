"""In-process lexical and hybrid search of this checkout against an older commit's, process by process.

    python bench/inproc_ab.py STORE --ref COMMIT [--runs 8] [--rounds 10]

The older commit's ``src/`` and ``format/`` are exported with ``git archive`` into a temporary folder.
Each run starts one process per version, in alternating order (the order flipped every run); a
process puts its version's ``src/`` first on ``sys.path``, opens a long-lived searcher on STORE,
warms it (every generic query once per mode), then asks the 10 generic queries ``--rounds`` times
in lexical mode and in hybrid mode. Reported per version: the median over all its searches of
``Searcher.last_timings`` (``total_ms``; for hybrid also ``after_embedding_ms``), and the ratio
this checkout / the older commit. One process per version: both versions' modules import each
other by absolute name (``mem.format...``), so two versions cannot share a process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys
src, store, rounds, bench = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, src)
sys.path.insert(1, bench)
from quality import GENERIC_QUERIES
import mem.format.search.engine as eng
assert eng.__file__.startswith(src), (eng.__file__, src)
s = eng.open_searcher(store)
out = {}
for mode in ("lexical", "hybrid"):
    for q in GENERIC_QUERIES:
        s.search(q, mode=mode)
    total, after = [], []
    for _ in range(rounds):
        for q in GENERIC_QUERIES:
            s.search(q, mode=mode, k=10)
            total.append(s.last_timings["total_ms"])
            after.append(s.last_timings.get("after_embedding_ms", 0.0))
    out[mode] = total
    if mode == "hybrid":
        out["hybrid_after"] = after
s.close()
print(json.dumps(out))
"""

MEASURES = (("lexical", "lexical, total"), ("hybrid", "hybrid, total"), ("hybrid_after", "hybrid, after the embedding"))


def export(ref: str, into: Path) -> Path:
    """``src/`` and ``format/`` of ``ref`` under ``into``; returns its ``src``."""
    archive = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref, "src", "format"], check=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)  # our own repository's archive
    return into / "src"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True, help="the older commit (any git revision)")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    samples: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    with tempfile.TemporaryDirectory() as tmp:
        srcs = {"old": str(export(args.ref, Path(tmp))), "new": str(ROOT / "src")}
        order = ["old", "new"]
        for _ in range(args.runs):
            for name in order:
                got = subprocess.run([sys.executable, "-c", CHILD, srcs[name], str(args.store), str(args.rounds),
                                      str(ROOT / "bench")], check=True, capture_output=True, text=True)
                for m, xs in json.loads(got.stdout).items():
                    samples[name].setdefault(m, []).extend(xs)
            order.reverse()
    print(f"\n| {args.store.name}, p50 ms ({args.runs} runs x {args.rounds} rounds x 10 queries) | old ({args.ref}) "
          "| new (this checkout) | new / old |")
    print("|---|---|---|---|")
    for m, label in MEASURES:
        o, n = statistics.median(samples["old"][m]), statistics.median(samples["new"][m])
        print(f"| {label} | {o:.2f} | {n:.2f} | {n / o:.3f}x |")


if __name__ == "__main__":
    main()
