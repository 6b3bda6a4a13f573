"""Precision and recall of the secrets policy (format/rules/secretpolicy.py) on the corpus.

    .venv/bin/python bench/secrets_precision.py          # table per set, and the misses
    .venv/bin/python bench/secrets_precision.py --json

The corpus is tests/secrets/corpus.tsv (`label<TAB>verdict<TAB>sentence`); the label is the
ground truth written with the line, the detector is run afresh here (the pinned verdict column
is what the tests assert). A secret line flagged by any rule is a true positive; precision =
TP / (TP + FP), recall = TP / secret lines. Throughput: sentences per second through
find_secret over the whole corpus (median of 5 passes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mem.format.rules.secretpolicy import find_secret  # noqa: E402
from tests.secrets.corpus import load  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    lines = load()
    rows = []
    for name in [*dict.fromkeys(line.set for line in lines), "all"]:
        sel = [line for line in lines if name in ("all", line.set)]
        tp = sum(1 for x in sel if x.label == "secret" and find_secret(x.text))
        fp = sum(1 for x in sel if x.label == "innocent" and find_secret(x.text))
        pos = sum(1 for x in sel if x.label == "secret")
        neg = len(sel) - pos
        rows.append({
            "set": name, "secret": pos, "innocent": neg, "tp": tp, "fp": fp,
            "precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "recall": round(tp / pos, 4) if pos else None,
        })  # fmt: skip
    texts = [x.text for x in lines]
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for t in texts:
            find_secret(t)
        times.append(time.perf_counter() - t0)
    rate = len(texts) / statistics.median(times)
    misses = [x.text for x in lines if x.label == "secret" and not find_secret(x.text)]
    false = [x.text for x in lines if x.label == "innocent" and find_secret(x.text)]
    if args.json:
        print(json.dumps({"sets": rows, "sentences_per_s": round(rate), "misses": misses,
                          "false_alarms": false}, indent=2))  # fmt: skip
        return
    print("| set | secret | innocent | TP | FP | precision | recall |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['set']} | {r['secret']} | {r['innocent']} | {r['tp']} | {r['fp']} | "
              f"{r['precision']} | {r['recall']} |")  # fmt: skip
    print(f"\nfind_secret: {rate:,.0f} sentences/s (median of 5 passes over {len(texts)})")
    for m in misses:
        print(f"miss: {m}")
    for f in false:
        print(f"false alarm: {f}")


if __name__ == "__main__":
    main()
