"""Where a long-lived searcher's background rounds spend their time, phase by phase, and which
phase keeps the searches from the GIL (issue 21: the round that applies a `mem add`'s journal
overlapped 10 of the 31 slow searches of the last soak, 125-371 ms rounds).

    python bench/round_phases.py STORE [--seconds 120] [--write-every 5] [--embedder hashing]
                                 [--no-freeze] [--interval 0.002]

STORE: a store with both indexes built, which this run writes to (`mem add` every
``--write-every`` seconds, as bench/searcher_soak.py does): give it a copy. One long-lived
searcher (``open_searcher``, ``freeze_gc`` as the MCP server unless ``--no-freeze``) runs hybrid
searches back to back in the main thread. Nothing in mem is changed; this process wraps mem's
functions with timers (the wall time and the calling thread's CPU time of each call) and:

- a round's phases: the write journal (its read, the lock, the record read, ``LexicalIndex.apply``
  with tantivy's writer, commit, merge wait and reload, the state rows), the plan, the manifest,
  the file modes' walk, the searcher's reader reload, the backfill (the missing vectors, the
  embedding, ``VectorIndex.add``), the full scan;
- the GIL: a sampler thread wakes every ``--interval`` s; a wake later than ``GAP_S`` means some
  thread held the GIL (or the machine gave this process no CPU). Each such gap is listed with
  the phases and garbage-collector passes it overlapped, the CPU time the background thread and
  the main thread used during it, and the background thread's stack before and after it;
- the searches over 5x p50, with what they overlapped.

Not a test: nothing is asserted; the load average is printed (figures under load are labelled).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

MEM = str(Path(sys.executable).parent / "mem")
QUERIES = ["who is behind schedule", "travel recommendations for food", "team lead contact",
           "what happened last week", "keep messages short", "kite flying on the hill"]
#: a sampler wake this much later than asked is a gap: something else held the GIL (or the CPU)
GAP_S = 0.02

Event = tuple[str, str, float, float, float]  # (thread, phase, start, end, thread CPU s)


class Phases:
    """Timers wrapped around mem's functions (the module attributes their callers look up)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def timed(self, name: str, fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return fn(*a, **kw)
        finally:
            self.events.append((threading.current_thread().name, name, t0, time.perf_counter(),
                                time.thread_time() - c0))

    def wrap(self, owner: Any, attr: str, name: str) -> None:
        real = getattr(owner, attr)

        def wrapper(*a: Any, **kw: Any) -> Any:
            return self.timed(name, real, *a, **kw)

        setattr(owner, attr, wrapper)

    def install(self) -> None:
        import mem.format.index.apply as apply_mod
        import mem.format.index.backlog as backlog
        import mem.format.index.derived as derived
        import mem.format.index.follower as follower
        import mem.format.index.lexical as lexical
        import mem.format.index.session as session
        import mem.format.index.vectors as vectors
        import mem.format.search.resources as resources
        from mem.format.base.lock import WriterLock

        w = self.wrap
        w(follower.Follower, "round", "round")
        w(follower.Follower, "_open", "round: open (pointer, own reader reload)")
        w(follower.Follower, "_backfill", "backfill")
        w(derived, "refresh", "refresh")
        w(derived, "_apply_pending_locked", "journal: lock + apply")
        w(derived, "_plan", "plan (stat the scopes / full scan)")
        w(derived, "_save_full_scan", "full scan: save its time")
        w(session, "_apply_pending", "journal: apply")
        w(session, "_read_pending", "journal: read")
        w(session, "_read_fields", "journal: read the record")
        w(session, "_apply", "journal: apply to both indexes")
        w(apply_mod, "secure", "file modes (chmod walk)")
        w(apply_mod, "_open_vectors", "vectors: open to drop")
        w(lexical.LexicalIndex, "apply", "lex.apply")
        w(lexical.LexicalIndex, "reload", "lex.reload")
        w(lexical.LexicalIndex, "max_seq", "lex.max_seq")
        w(lexical.LexicalIndex, "save_manifest", "lex.save_manifest")
        w(WriterLock, "acquire", "writer lock: acquire")
        w(resources.SearcherResources, "_reload", "searcher's reader reload (on the thread)")
        w(resources.SearcherResources, "_freeze_loaded", "searcher: gc collect + freeze")
        w(backlog, "missing_vectors", "backfill: missing_vectors")
        w(backlog, "_readable", "backfill: read records")
        w(backlog, "_sync_meta", "backfill: sync meta")
        w(vectors.VectorIndex, "add", "vec.add")
        w(vectors.VectorIndex, "valid_digests", "vec.valid_digests")
        w(vectors.VectorIndex, "_refresh_cache", "vec._refresh_cache")
        real_open = lexical.open_index
        lexical.open_index = lambda path: IndexProxy(real_open(path), self)


class WriterProxy:
    """tantivy's IndexWriter with its calls timed."""

    def __init__(self, real: Any, ph: Phases) -> None:
        self._real, self._ph = real, ph

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name in ("commit", "wait_merging_threads", "add_document", "delete_documents_by_term", "rollback"):
            return lambda *a, **kw: self._ph.timed(f"tantivy {name}", attr, *a, **kw)
        return attr


class IndexProxy:
    """tantivy's Index with ``writer`` and ``reload`` timed (everything else passed through)."""

    def __init__(self, real: Any, ph: Phases) -> None:
        self._real, self._ph = real, ph

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def writer(self, *a: Any, **kw: Any) -> Any:
        return WriterProxy(self._ph.timed("tantivy writer()", self._real.writer, *a, **kw), self._ph)

    def reload(self) -> None:
        self._ph.timed("tantivy reload", self._real.reload)


class Sampler:
    """Wakes every ``interval`` s; notes the gaps and the background thread's stack around them."""

    def __init__(self, interval: float, stop: threading.Event) -> None:
        self.interval = interval
        self.stop = stop
        self.gaps: list[tuple[float, float, float, float, str, str]] = []  # a, b, cpu follow, cpu main, before, after
        self.follow_id: int | None = None
        self.main_id = threading.main_thread().ident
        self.thread = threading.Thread(target=self.run, name="sampler", daemon=True)

    def _stack(self) -> str:
        """The background thread's innermost frames (read from the frame objects: no source lines)."""
        f = sys._current_frames().get(self.follow_id) if self.follow_id else None
        out = []
        while f is not None and len(out) < 4:
            out.append(f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}")
            f = f.f_back
        return " <- ".join(out) or "-"

    @staticmethod
    def _cpu(ident: int | None) -> float:
        try:
            return time.clock_gettime(time.pthread_getcpuclockid(ident)) if ident else 0.0
        except (OSError, AttributeError, ProcessLookupError):
            return 0.0

    def run(self) -> None:
        last = time.perf_counter()
        before = "-"
        cf = cm = 0.0
        while not self.stop.is_set():
            if self.follow_id is None:
                for t in threading.enumerate():
                    if t.name == "mem-follow":
                        self.follow_id = t.ident
            time.sleep(self.interval)
            now = time.perf_counter()
            f2, m2 = self._cpu(self.follow_id), self._cpu(self.main_id)
            if now - last > GAP_S + self.interval:
                self.gaps.append((last, now, f2 - cf, m2 - cm, before, self._stack()))
            before = self._stack()
            last, cf, cm = time.perf_counter(), self._cpu(self.follow_id), self._cpu(self.main_id)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--write-every", type=float, default=5.0)
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--no-freeze", dest="freeze", action="store_false")
    ap.add_argument("--interval", type=float, default=0.002)
    ap.add_argument("--no-scan", dest="scan", action="store_false",
                    help="no periodic full scan (the journal's rounds alone)")
    args = ap.parse_args()
    os.environ["MEM_EMBEDDER"] = args.embedder
    env = {**os.environ, "MEM_ACTOR": "bench@bench", "NO_COLOR": "1"}
    ph = Phases()
    ph.install()
    ph.wrap(gc, "collect", "gc.collect (explicit)")
    ph.wrap(gc, "freeze", "gc.freeze")
    if not args.scan:
        import mem.format.index.derived as derived

        real_auto = derived._auto_full
        derived._auto_full = lambda store, lex, *a, **kw: (  # type: ignore[assignment]
            int(lex.manifest.get("docs", 0)) <= derived.FULL_SCAN_MAX_DOCS and real_auto(store, lex, *a, **kw))
    from mem.format.search.engine import open_searcher

    print(f"load average at start: {os.getloadavg()[0]:.1f}; store {args.store}; {args.seconds:g} s; "
          f"freeze_gc {args.freeze}; full scan {args.scan}", flush=True)
    s = open_searcher(args.store, freeze_gc=args.freeze)
    for q in QUERIES:
        s.search(q, mode="hybrid")
    gcs: list[tuple[float, float, int]] = []
    gc_start: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_start[:] = [time.perf_counter()]
        elif gc_start:
            gcs.append((gc_start[0], time.perf_counter(), int(info.get("generation", -1))))

    stop = threading.Event()
    writes: list[tuple[float, float]] = []

    def writer() -> None:
        i = 0
        while not stop.wait(args.write_every):
            t = time.perf_counter()
            subprocess.run([MEM, "--store", str(args.store), "add", f"kite flying note {i} on the hill, phases run",
                            "--scope", "ana"], env=env, capture_output=True, stdin=subprocess.DEVNULL)
            writes.append((t, time.perf_counter()))
            i += 1

    ph.events.clear()
    gc.callbacks.append(on_gc)
    sampler = Sampler(args.interval, stop)
    sampler.thread.start()
    threading.Thread(target=writer, daemon=True).start()
    lat: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    end = t0 + args.seconds
    i = 0
    while time.perf_counter() < end:
        t = time.perf_counter()
        s.search(QUERIES[i % len(QUERIES)], mode="hybrid")
        lat.append((t, time.perf_counter()))
        i += 1
    stop.set()
    gc.callbacks.remove(on_gc)
    sampler.thread.join()
    s.close()
    report(ph.events, lat, gcs, sampler.gaps, writes, t0)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def report(events: list[Event], lat: list[tuple[float, float]], gcs: list[tuple[float, float, int]],
           gaps: list[tuple[float, float, float, float, str, str]], writes: list[tuple[float, float]],
           t0: float) -> None:
    ms = sorted(1000 * (b - a) for a, b in lat)
    p50 = statistics.median(ms)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    print(f"searches {len(ms):,}; p50 / p99 / max {p50:.1f} / {q[98]:.1f} / {ms[-1]:.1f} ms; "
          f"over 5x p50: {sum(1 for x in ms if x > 5 * p50)}; writes {len(writes)}")
    rounds = [e for e in events if e[1] == "round"]
    changing = [r for r in rounds if any(e[1] == "journal: apply" and r[2] <= e[2] <= r[3] for e in events)]
    print(f"rounds {len(rounds)}, of which applied a journal: {len(changing)}; "
          f"GC passes by generation {dict(sorted(defaultdict(int, {g: sum(1 for *_x, h in gcs if h == g) for g in (0, 1, 2)}).items()))}")

    def inside(r: Event) -> list[Event]:
        return [e for e in events if e[0] == r[0] and r[2] <= e[2] and e[3] <= r[3] and e is not r]

    print("\nPhases of the rounds that applied a journal (on the background thread; inclusive; "
          "wall median / max ms, CPU median / max ms, calls):")
    print("| phase | calls | wall median | wall max | CPU median | CPU max |\n|---|---|---|---|---|---|")
    per: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in changing:
        per["round"].append((r[3] - r[2], r[4]))
        for e in inside(r):
            per[e[1]].append((e[3] - e[2], e[4]))
    for name, xs in sorted(per.items(), key=lambda kv: -max(w for w, _c in kv[1])):
        w = [1000 * a for a, _b in xs]
        c = [1000 * b for _a, b in xs]
        print(f"| {name} | {len(xs)} | {statistics.median(w):.1f} | {max(w):.1f} | "
              f"{statistics.median(c):.1f} | {max(c):.1f} |")

    main_per: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        if e[0] == "MainThread" and e[1] in ("searcher: gc collect + freeze", "gc.collect (explicit)", "gc.freeze",
                                             "vec._refresh_cache", "lex.reload", "backfill"):
            main_per[e[1]].append((e[3] - e[2], e[4]))
    print("\nOn the searching thread (every call, in the searches):")
    print("| phase | calls | wall median | wall max | CPU median | CPU max |\n|---|---|---|---|---|---|")
    for name, xs in sorted(main_per.items()):
        w = [1000 * a for a, _b in xs]
        c = [1000 * b for _a, b in xs]
        print(f"| {name} | {len(xs)} | {statistics.median(w):.2f} | {max(w):.1f} | "
              f"{statistics.median(c):.2f} | {max(c):.1f} |")

    def innermost(a: float, b: float) -> list[str]:
        """The innermost phases of each thread that overlapped [a, b]."""
        over = [e for e in events if e[2] < b and e[3] > a]
        out = []
        for e in over:
            if not any(o is not e and o[0] == e[0] and e[2] <= o[2] and o[3] <= e[3] for o in over):
                out.append(f"{e[1]} [{e[0]}] {1000 * (e[3] - e[2]):.0f} ms")
        out += [f"gc{g} {1000 * (y - x):.0f} ms" for x, y, g in gcs if x < b and y > a]
        if any(x < b and y > a for x, y in writes):
            out.append("mem add running")
        return out

    print(f"\nGIL gaps (the sampler woke over {1000 * GAP_S:.0f} ms late): {len(gaps)}")
    kinds: dict[str, list[float]] = defaultdict(list)
    for a, b, cf, cm, _s1, _s2 in gaps:
        o = innermost(a, b)
        who = ("background thread ran" if cf >= 0.5 * (b - a) else "main thread ran" if cm >= 0.5 * (b - a)
               else "neither ran much (the machine)")
        key = who + ": " + " + ".join(sorted({x.split(" [")[0].split(" ")[0] if x.startswith("gc") else x.split(" [")[0]
                                 for x in o if "[sampler]" not in x})) or "nothing noted"
        kinds[key].append(1000 * (b - a))
    print("| overlapped | gaps | median ms | max ms |\n|---|---|---|---|")
    for k, v in sorted(kinds.items(), key=lambda kv: -max(kv[1])):
        print(f"| {k} | {len(v)} | {statistics.median(v):.0f} | {max(v):.0f} |")
    print("\nThe 12 longest gaps:")
    for a, b, cf, cm, s1, s2 in sorted(gaps, key=lambda g: g[0] - g[1])[:12]:
        print(f"  {1000 * (b - a):.0f} ms at {a - t0:.1f} s: CPU background {1000 * cf:.0f} ms, main {1000 * cm:.0f} ms; "
              f"{'; '.join(innermost(a, b)) or 'nothing noted'}\n    before: {s1}\n    after:  {s2}")
    slow = [(a, b) for a, b in lat if 1000 * (b - a) > 5 * p50]
    print(f"\nSearches over 5x p50 ({5 * p50:.1f} ms): {len(slow)}")
    for a, b in sorted(slow, key=lambda x: x[0] - x[1])[:12]:
        print(f"  {1000 * (b - a):.0f} ms at {a - t0:.1f} s: {'; '.join(innermost(a, b)) or 'nothing noted'}")


if __name__ == "__main__":
    main()
