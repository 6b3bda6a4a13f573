"""In-process hybrid search of this checkout against an older commit's, side by side in one process.

    python bench/ab_versions.py STORE --ref COMMIT [--rounds 8]

The older commit's ``format/`` package is exported with ``git archive`` into a temporary folder and
imported under another name (``memold.format``: the core library uses relative imports only), so
both versions search the same store, with the same loaded libraries, on the same machine at the
same moments: queries alternate between the two searchers, the order flipped each time. Reported
per version: p50 of the time after the query's embedding (``Searcher.last_timings``) and in total,
for the 10 generic queries repeated and for the store's labelled queries asked once (bench/corpus.py
writes them to ``STORE/quality.json``). Both searchers hold their own indexes in memory, so the
absolute figures are higher than a lone searcher's (bench/run.py); the comparison is the point.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["where does Ana live", "favourite food", "database migration schedule", "who practises chess",
           "meeting on Friday", "switched editors", "team lead contact", "budget behind schedule",
           "travel recommendation", "keep messages short"]


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True, help="the older commit (any git revision)")
    ap.add_argument("--rounds", type=int, default=8)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        export_old(a.ref, Path(tmp))
        sys.path.insert(0, tmp)
        searchers: dict[str, Any] = {}
        for name, pkg in (("old", "memold.format"), ("new", "mem.format")):
            search = importlib.import_module(f"{pkg}.search")
            store = importlib.import_module(f"{pkg}.store")
            searchers[name] = search.open_searcher(store.Store.open(a.store))
        for s in searchers.values():
            for q in QUERIES:  # warm: model loaded, indexes read
                s.search(q)
        res: dict[str, dict[str, list[float]]] = {n: {"after": [], "total": [], "f_after": [], "f_total": []}
                                                  for n in searchers}
        order = list(searchers)
        labelled_path = a.store / "quality.json"
        labelled = [q["query"] for q in json.loads(labelled_path.read_text())] if labelled_path.exists() else []
        for phase, queries in (("", QUERIES * a.rounds), ("f_", labelled)):
            for q in queries:
                order.reverse()
                for name in order:
                    s = searchers[name]
                    s.search(q, k=10)
                    res[name][phase + "after"].append(s.last_timings["after_embedding_ms"])
                    res[name][phase + "total"].append(s.last_timings["total_ms"])
        for s in searchers.values():
            s.close()

    def p50(xs: list[float]) -> str:
        return f"{statistics.median(xs):.2f}" if xs else "-"

    print(f"\n| {a.store.name}, p50 ms | after the embedding | total | labelled, first time: after | total |")
    print("|---|---|---|---|---|")
    for name, d in res.items():
        label = f"{name} ({a.ref})" if name == "old" else f"{name} (this checkout)"
        print(f"| {label} | {p50(d['after'])} | {p50(d['total'])} | {p50(d['f_after'])} | {p50(d['f_total'])} |")
    o, n = res["old"], res["new"]
    print(f"| new / old | {statistics.median(n['after']) / statistics.median(o['after']):.2f}x | "
          f"{statistics.median(n['total']) / statistics.median(o['total']):.2f}x | "
          + (f"{statistics.median(n['f_after']) / statistics.median(o['f_after']):.2f}x | "
             f"{statistics.median(n['f_total']) / statistics.median(o['f_total']):.2f}x |" if labelled else "- | - |"))


if __name__ == "__main__":
    main()
