"""Search costs along the other axes of a store's size: scopes, filters, changes since a build.

    python bench/scale.py scopes [--scopes 400 --per 10]
    python bench/scale.py filters STORE
    python bench/scale.py churn STORE [--adds 3000 --updates 1500]

Each part measures in-process hybrid search (a long-lived searcher, the 10 generic queries
repeated three times, p50 in total and after the query's embedding) side by side with a baseline
in the same run, and prints the ratio:

- ``scopes``: a store of S scopes of R records against a store of the same S x R records in one
  scope (both generated here, in a temporary folder, and embedded with the configured model);
  searches of every scope, and of one scope of the many;
- ``filters``: searches with --kind, --kind --tag --status, and a status no record has, against
  the unfiltered search of the same store; with how many hits each returned (k = 10);
- ``churn``: a copy of STORE before and after ADDS records added and UPDATES updated through the
  API (vectors of the added and changed records in the delta table, the changed records' main rows
  dead), the vectors backfilled before the second measure.

MEM_EMBEDDER picks the model (minilm when unset), as everywhere.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from quality import GENERIC_QUERIES

WORDS = ["coffee", "tea", "lisbon", "porto", "meeting", "budget", "chess", "editor", "vim", "emacs",
         "database", "migration", "friday", "schedule", "lead", "contact", "travel", "food", "allergy",
         "peanut", "the", "a", "of", "in", "on"]


def timed(s: Any, **kw: Any) -> tuple[float, float, float]:
    """(p50 total ms, p50 after the embedding ms, median hits) of the repeated generic queries."""
    for q in GENERIC_QUERIES:
        s.search(q, **kw)
    total, after, hits = [], [], []
    for q in GENERIC_QUERIES * 3:
        t = time.perf_counter()
        res = s.search(q, k=10, **kw)
        total.append((time.perf_counter() - t) * 1000)
        after.append(s.last_timings.get("after_embedding_ms", 0.0))
        hits.append(len(res.hits))
    return statistics.median(total), statistics.median(after), statistics.median(hits)


def row(label: str, got: tuple[float, float, float], base: tuple[float, float, float] | None = None) -> str:
    """A table row: p50 total, p50 after the embedding, hits, and the ratios to ``base``."""
    ratios = " | | "
    if base is not None:
        ratios = f" | {got[0] / base[0]:.2f}x | " + (f"{got[1] / base[1]:.2f}x" if base[1] else "")
    return f"| {label} | {got[0]:.1f} | {got[1]:.1f} | {got[2]:g}{ratios} |"


def make_store(path: Path, scopes: int, per: int, seed: int = 1) -> None:
    from mem.format.model.record import dump_record, make_record
    from mem.format.store.store import Store

    Store.init(path)
    rng = random.Random(seed)
    for i in range(scopes):
        name = f"user{i:04d}" if scopes > 1 else "all"
        d = path / "records" / name
        d.mkdir(parents=True, exist_ok=True)
        for _ in range(per):
            r = make_record(scope=name, kind="fact", content=" ".join(rng.choices(WORDS, k=14)).capitalize() + ".")
            (d / f"{r.id}.md").write_text(dump_record(r))
    subprocess.run([str(Path(sys.executable).parent / "mem"), "--store", str(path), "rebuild"], check=True,
                   stdout=subprocess.DEVNULL)


def part_scopes(a: argparse.Namespace) -> None:
    from mem.format.search.engine import open_searcher

    with tempfile.TemporaryDirectory() as tmp:
        many, one = Path(tmp) / "many", Path(tmp) / "one"
        make_store(many, a.scopes, a.per)
        make_store(one, 1, a.scopes * a.per)
        s_many, s_one = open_searcher(many), open_searcher(one)
        base = timed(s_one)
        print(f"\n{a.scopes} scopes x {a.per} records against one scope of {a.scopes * a.per}\n")
        print("| search | p50 ms | after the embedding | hits | ratio total | ratio after |\n|---|---|---|---|---|---|")
        print(row(f"one scope of {a.scopes * a.per}", base))
        print(row(f"{a.scopes} scopes, all searched", timed(s_many), base))
        print(row(f"{a.scopes} scopes, one searched", timed(s_many, scopes=["user0007"]), base))


def part_filters(a: argparse.Namespace) -> None:
    from mem.format.search.engine import open_searcher

    s = open_searcher(a.store)
    base = timed(s)
    t = time.perf_counter()
    s.search("warm up the filter columns", kinds=["summary"])
    first = (time.perf_counter() - t) * 1000
    print(f"\n{a.store}: filtered hybrid searches against the unfiltered one (k = 10); the first filtered "
          f"search of the process, reading the state's columns: {first:.0f} ms\n")
    print("| search | p50 ms | after the embedding | hits | ratio total | ratio after |\n|---|---|---|---|---|---|")
    print(row("no filter", base))
    for label, kw in (("--kind summary", {"kinds": ["summary"]}),
                      ("--kind summary --tag food --status candidate",
                       {"kinds": ["summary"], "tags": ["food"], "statuses": ["candidate"]}),
                      ("--status rejected (no such record)", {"statuses": ["rejected"]})):
        print(row(label, timed(s, **kw), base))


def part_churn(a: argparse.Namespace) -> None:
    from mem.format.index.derived import attach
    from mem.format.search.engine import open_searcher
    from mem.format.store.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "store"
        shutil.copytree(a.store, root, symlinks=True)
        s = open_searcher(root)
        s.backfill_limit = None
        base = timed(s)
        st = Store.open(root)
        attach(st)
        rng = random.Random(5)
        scopes = st.scopes()
        for _ in range(a.adds):
            st.add(" ".join(rng.choices(WORDS, k=12)), scope=rng.choice(scopes), kind="note")
        recs = [r for r in st.iter_records(scopes[:1])]
        for r in rng.sample(recs, min(a.updates, len(recs))):
            st.update(r.id, content=r.content.rstrip() + " (updated)")
        t = time.perf_counter()
        s.search("backfill the vectors")
        took = time.perf_counter() - t
        db = s._vec.db if s._vec is not None else None
        delta = db.execute("SELECT count(*) FROM delta").fetchone()[0] if db is not None else 0
        dead = db.execute("SELECT count(*) FROM dead").fetchone()[0] if db is not None else 0
        print(f"\n{a.store}: after {a.adds} adds and {a.updates} updates ({delta} delta rows, {dead} dead; "
              f"their embedding took {took:.1f} s), against before\n")
        print("| search | p50 ms | after the embedding | hits | ratio total | ratio after |\n|---|---|---|---|---|---|")
        print(row("before", base))
        print(row("after", timed(s), base))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="part", required=True)
    p = sub.add_parser("scopes")
    p.add_argument("--scopes", type=int, default=400)
    p.add_argument("--per", type=int, default=10)
    p = sub.add_parser("filters")
    p.add_argument("store")
    p = sub.add_parser("churn")
    p.add_argument("store")
    p.add_argument("--adds", type=int, default=3000)
    p.add_argument("--updates", type=int, default=1500)
    a = ap.parse_args()
    {"scopes": part_scopes, "filters": part_filters, "churn": part_churn}[a.part](a)


if __name__ == "__main__":
    main()
