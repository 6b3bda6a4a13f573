"""What the k-independent pool costs (spec/cli/search.md, "Scores"): the engine of an older commit
beside this one, interleaved, on bench/convo's dev questions (k = 10, in-process, long-lived
searchers on the cached minilm store); and how many questions' top 10 differ from the top 10
of the same search with k = 50.

    .venv/bin/python bench/convo/convo_pool_cost.py [--base main] [--questions 300]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convo_run import prepare

from mem.format.search import engine
from mem.format.store.store import Store


def _older_engine(commit: str) -> ModuleType:
    """format/search/engine.py as it was at ``commit``, imported beside this one."""
    src = subprocess.run(["git", "show", f"{commit}:format/search/engine.py"], check=True, capture_output=True,
                         text=True, cwd=Path(__file__).resolve().parents[2]).stdout
    path = Path(tempfile.mkdtemp()) / "engine_base.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("mem.format.search.engine_base", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--questions", type=int, default=300)
    a = ap.parse_args(argv)
    prep = prepare("minilm")
    qs = prep.queries("dev")[: a.questions]
    store = Store.open(prep.store_dir)
    base = _older_engine(a.base)
    times: dict[str, list[float]] = {"base": [], "this": []}
    differ: dict[str, int] = {"base": 0, "this": 0}
    with base.Searcher(store, embedder="minilm") as sb, engine.Searcher(store, embedder="minilm") as sn:
        pair: dict[str, Any] = {"base": sb, "this": sn}
        for q in qs[:5]:  # warm both
            sb.search(q.text, scopes=[q.scope], k=10)
            sn.search(q.text, scopes=[q.scope], k=10)
        for i, q in enumerate(qs):
            for name in (("base", "this") if i % 2 else ("this", "base")):
                t0 = time.perf_counter()
                ten = [h.id for h in pair[name].search(q.text, scopes=[q.scope], k=10).hits]
                times[name].append((time.perf_counter() - t0) * 1000)
                fifty = [h.id for h in pair[name].search(q.text, scopes=[q.scope], k=50).hits]
                differ[name] += ten != fifty[:10]
    mb, mn = statistics.median(times["base"]), statistics.median(times["this"])
    sb_, sn_ = sum(times["base"]), sum(times["this"])
    print(f"{len(qs)} dev questions, k = 10, interleaved: base ({a.base}) p50 {mb:.2f} ms, this p50 {mn:.2f} ms, "
          f"ratio of medians {mn / mb:.3f}, ratio of totals {sn_ / sb_:.3f}; top 10 differing from k = 50's first "
          f"10: base {differ['base']}, this {differ['this']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
