"""Rebuild with vectors vs the raw embedder, side by side (CPU seconds: robust to a busy machine).

    python bench/embed_overhead.py STORE

(a) raw: the embedder alone over every record's content, batches of 64;
(b) build: build_indexes(vectors=True, lexical=False) into a scratch directory (read, parse,
    embed, write matrices) — not swapped in, the live index is untouched.
Prints both rates and the overhead of everything around the embedder.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mem.format.embed import load_embedder
from mem.format.index.common import remove_tree
from mem.format.index.derived import build_indexes, new_build_dir
from mem.format.store.store import Store


def main() -> None:
    store = Store.open(Path(sys.argv[1]))
    emb = load_embedder(config=store.config)
    texts = [r.content for r in store.iter_records()]
    c0, w0 = time.process_time(), time.perf_counter()
    for i in range(0, len(texts), 64):
        emb.embed(texts[i:i + 64])
    raw_cpu, raw_wall = time.process_time() - c0, time.perf_counter() - w0
    dest = new_build_dir(store.index_dir)
    try:
        c0, w0 = time.process_time(), time.perf_counter()
        built = build_indexes(store, dest, lexical=False, vectors=True, embedder=emb, reuse_vectors=False)
        b_cpu, b_wall = time.process_time() - c0, time.perf_counter() - w0
    finally:
        remove_tree(dest)
    n = len(texts)
    print(f"| records | {n:,} |\n|---|---|")
    print(f"| raw embedder ({emb.space.provider}, 1 thread): records per CPU-second | {n / raw_cpu:.1f} (wall {raw_wall:.0f} s) |")
    print(f"| rebuild --vectors path: records per CPU-second | {built.embedded / b_cpu:.1f} (wall {b_wall:.0f} s) |")
    print(f"| overhead around the embedder (CPU) | {100 * (b_cpu / raw_cpu - 1):+.1f}% |")


if __name__ == "__main__":
    main()
