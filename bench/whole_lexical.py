"""Whole-process lexical search against its floor and grep, interleaved (side by side).

    python bench/whole_lexical.py STORE [--runs 15] [--word budget]

The three commands run in turn, run after run, so a busy machine slows them alike; medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def floor_code(gen_dir: Path) -> str:
    """The floor's program: python, import tantivy, open the lexical index with its content
    tokenizer registered (as any reader of the index must: lexread.open_index, written out here
    with tantivy's API so that the floor imports nothing of mem), parse and run one query."""
    from mem.format.rules.lexicon import CONTENT_PATTERN, CONTENT_TOKENIZER, MAX_TERM_BYTES

    return (
        "import sys, tantivy\n"
        f"ix = tantivy.Index.open({str(gen_dir)!r})\n"
        f"ix.register_tokenizer({CONTENT_TOKENIZER!r}, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex("
        f"{CONTENT_PATTERN!r})).filter(tantivy.Filter.remove_long({MAX_TERM_BYTES}))"
        ".filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.ascii_fold())"
        ".filter(tantivy.Filter.stemmer('english')).build())\n"
        "q = ix.parse_query(sys.argv[1], ['content'])\n"
        "print(len(ix.searcher().search(q, 10).hits))\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--word", default="budget")
    a = ap.parse_args()
    root = a.store.resolve()
    gen = json.loads((root / ".mem/index/lexical.json").read_text())["generation"]
    floor = floor_code(root / ".mem/index" / gen)
    mem = str(Path(sys.executable).parent / "mem")
    env = dict(os.environ, MEM_STORE=str(root))
    cmds = {
        "floor: python -c 'import tantivy' + open index + 1 query": [sys.executable, "-c", floor, a.word],
        "mem search --mode lexical": [mem, "search", a.word, "--mode", "lexical"],
        "mem search --mode lexical --json": [mem, "search", a.word, "--mode", "lexical", "--json"],
        "grep -ril": ["grep", "-ril", a.word, str(root / "records")],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for i in range(a.runs + 1):
        for k, c in cmds.items():
            t = time.perf_counter()
            p = subprocess.run(c, capture_output=True, env=env)
            if p.returncode != 0:
                raise SystemExit(f"{c} failed: {p.stderr.decode()}")
            if i:  # the first round warms the page cache
                times[k].append((time.perf_counter() - t) * 1000)
    fl = statistics.median(times["floor: python -c 'import tantivy' + open index + 1 query"])
    print(f"| command ({root.name}, median of {a.runs}) | ms | vs floor |\n|---|---|---|")
    for k, ts in times.items():
        m = statistics.median(ts)
        print(f"| {k} | {m:.0f} | {m / fl:.2f}x |")


if __name__ == "__main__":
    main()
