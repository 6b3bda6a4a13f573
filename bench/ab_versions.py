"""In-process hybrid search of this checkout against an older commit's, side by side in one process.

    python bench/ab_versions.py STORE --ref COMMIT [--rounds 8] [--first both|old|new]

The older commit's ``format/`` package is exported with ``git archive`` into a temporary folder and
imported under another name (``memold.format``: the core library uses relative imports only), so
both versions search the same store, with the same loaded libraries, on the same machine at the
same moments: queries alternate between the two searchers, the order flipped each time. Reported
per version: p50 of the time after the query's embedding (``Searcher.last_timings``) and in total,
for the 10 generic queries repeated and for the store's labelled queries asked once (bench/corpus.py
writes them to ``STORE/quality.json``). Both searchers hold their own indexes in memory, so the
absolute figures are higher than a lone searcher's (bench/run.py); the comparison is the point.

The searcher opened second was 2-4% faster than the one opened first, the same code in both
(2026-12-01, ``--ref HEAD`` on a clean checkout: 0.96-0.98x with the old one opened first,
1.02-1.03x with the new one first). So by default (``--first both``) the comparison runs twice,
in two processes, once in each opening order, and the ratios reported are the geometric means of
the two runs' ratios.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from quality import GENERIC_QUERIES

ROOT = Path(__file__).resolve().parent.parent


def export_old(ref: str, into: Path) -> None:
    """``format/`` of ``ref`` as the package ``memold.format`` under ``into``."""
    pkg = into / "memold"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    archive = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref, "format"], check=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            tar.extractall(pkg, filter="data")
        else:
            tar.extractall(pkg)  # our own repository's archive


Samples = dict[str, dict[str, list[float]]]  # version: measure: milliseconds


def measure(store: Path, ref: str, rounds: int, first: str) -> Samples:
    """Both versions' timings in this process, the ``first`` version's searcher opened first."""
    with tempfile.TemporaryDirectory() as tmp:
        export_old(ref, Path(tmp))
        sys.path.insert(0, tmp)
        searchers: dict[str, Any] = {}
        versions = [("old", "memold.format"), ("new", "mem.format")]
        for name, pkg in versions if first == "old" else versions[::-1]:
            search = importlib.import_module(f"{pkg}.search")
            store_mod = importlib.import_module(f"{pkg}.store")
            searchers[name] = search.open_searcher(store_mod.Store.open(store))
        for s in searchers.values():
            for q in GENERIC_QUERIES:  # warm: model loaded, indexes read
                s.search(q)
        res: Samples = {n: {"after": [], "total": [], "f_after": [], "f_total": []} for n in searchers}
        order = sorted(searchers)
        labelled_path = store / "quality.json"
        labelled = [q["query"] for q in json.loads(labelled_path.read_text())] if labelled_path.exists() else []
        for phase, queries in (("", GENERIC_QUERIES * rounds), ("f_", labelled)):
            for q in queries:
                order.reverse()
                for name in order:
                    s = searchers[name]
                    s.search(q, k=10)
                    res[name][phase + "after"].append(s.last_timings["after_embedding_ms"])
                    res[name][phase + "total"].append(s.last_timings["total_ms"])
        for s in searchers.values():
            s.close()
    return res


MEASURES = ("after", "total", "f_after", "f_total")


def p50(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def table(store: Path, ref: str, runs: list[tuple[str, Samples]]) -> None:
    def cell(x: float | None, unit: str = "") -> str:
        return "-" if x is None else f"{x:.2f}{unit}"

    print(f"\n| {store.name}, p50 ms | after the embedding | total | labelled, first time: after | total |")
    print("|---|---|---|---|---|")
    ratios: list[list[float | None]] = []
    for first, res in runs:
        for name in ("old", "new"):
            label = f"old ({ref})" if name == "old" else "new (this checkout)"
            print(f"| {label}, {first} opened first | " + " | ".join(cell(p50(res[name][m])) for m in MEASURES) + " |")
        row: list[float | None] = []
        for m in MEASURES:
            o, n = p50(res["old"][m]), p50(res["new"][m])
            row.append(None if o is None or n is None else n / o)
        ratios.append(row)
        print(f"| new / old, {first} opened first | " + " | ".join(cell(r, "x") for r in row) + " |")
    if len(runs) > 1:
        geo: list[float | None] = []
        for col in zip(*ratios, strict=True):
            got = [r for r in col if r is not None]
            geo.append(math.prod(got) ** (1 / len(got)) if len(got) == len(col) else None)
        print("| new / old, geometric mean of both orders | " + " | ".join(cell(r, "x") for r in geo) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True, help="the older commit (any git revision)")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--first", choices=("both", "old", "new"), default="both",
                    help="which version's searcher is opened first (both: one run each, in two processes)")
    ap.add_argument("--samples", action="store_true", help=argparse.SUPPRESS)  # a child's JSON output
    a = ap.parse_args()
    if a.first != "both":
        res = measure(a.store, a.ref, a.rounds, a.first)
        if a.samples:
            print(json.dumps(res))
        else:
            table(a.store, a.ref, [(a.first, res)])
        return
    runs = []
    for first in ("old", "new"):
        out = subprocess.run([sys.executable, __file__, str(a.store), "--ref", a.ref, "--rounds", str(a.rounds),
                              "--first", first, "--samples"], check=True, stdout=subprocess.PIPE, text=True).stdout
        runs.append((first, json.loads(out.strip().splitlines()[-1])))
    table(a.store, a.ref, runs)


if __name__ == "__main__":
    main()
