"""A long-lived searcher under a steady stream of searches and writes (issue 21): no search
slower than 5x its p50, the background full scan and the new records' vectors included.

    python bench/searcher_soak.py STORE [--minutes 10] [--write-every 5] [--embedder minilm] [--floor]

STORE: an existing store with both indexes built (e.g. the 100k store `bench/import_search.py
--n 100000` leaves); the run writes to it (give it a copy). One long-lived searcher
(``open_searcher``, as the MCP server keeps: with ``freeze_gc`` unless ``--no-freeze``) runs
hybrid searches back to back for ``--minutes``, cycling over a few queries; meanwhile, every
``--write-every`` seconds, a separate `mem add` process writes a record (the searcher's background
thread, format/index/follower.py, indexes and embeds it). Prints the latency table (p50, p90,
p99, max, max / p50, searches over 5x p50), how many full scans and index-changing rounds the
background thread ran, and the slowest searches with their time into the run. Not a test:
nothing is asserted; the machine's load is printed. An add that fails is counted and its error
printed.

The floor (``--floor``): the same run with the `mem add` processes writing into a scratch store
of their own, and no periodic full scan (the background thread's ``_full_due`` wrapped to say
no), so that the searcher's background thread has nothing to index, embed or scan (its rounds
still run and find nothing). What is over 5x p50 there is the machine's: a process starting
beside the searches on 2 cores. Run it beside the real run, alternating.

The timeline (``--timeline``, on by default): what overlapped each search slower than 5x p50,
from hooks that only note times: the garbage collector's passes (``gc.callbacks``: generation,
duration), the background thread's rounds (``Follower.round`` wrapped: a full scan, a round that
changed the index, or one that did neither), within a full scan each chunk of files it stats and
each catch-up that indexed a write made meanwhile, the `mem add` processes, and the load average
sampled every 5 s. Prints the slow searches by what overlapped them, per minute, and the 15
slowest each with its overlaps. How soon a write is searchable: from each `mem add`'s start to
the background thread's commit that put its record in the index (read from the index's sequence
numbers at each commit, a commit made between a full scan's chunks included). The rounds that
took over 0.3 s without a full scan: where the background thread was, from its stack sampled
every 10 ms (``sys._current_frames``).

The searcher's memory (``--rss-every``, 2 s by default; 0: off): the process's resident set
(``VmRSS`` of /proc/self/status, Linux) and the collector's frozen objects
(``gc.get_freeze_count``) sampled every so many seconds and after each round of the background
thread that changed the index or ran a full scan. Prints the RSS at the start (after the warm-up
searches), the middle and the end, its maximum, its median per minute, and its trend over the
index-changing rounds (least squares, MB per 100 rounds, over all of them and over the second
half, past the warm-up). At the end, after the timed run, the searcher's frozen objects are
unfrozen and collected: the count of unreachable ones is the garbage freezing had kept from the
collector (with ``freeze_gc``, cyclic garbage made from frozen objects is never collected).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from mem.format.search.engine import open_searcher

MEM = str(Path(sys.executable).parent / "mem")
QUERIES = ["who is behind schedule", "travel recommendations for food", "team lead contact",
           "what happened last week", "keep messages short", "kite flying on the hill"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--write-every", type=float, default=5.0)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--no-timeline", dest="timeline", action="store_false")
    ap.add_argument("--no-freeze", dest="freeze", action="store_false",
                    help="open the searcher without freeze_gc (the MCP server and --batch freeze)")
    ap.add_argument("--floor", action="store_true",
                    help="the floor: the same `mem add` processes at the same pace, into a scratch store "
                         "of their own (the searcher's background thread has nothing to index or embed)")
    ap.add_argument("--rss-every", type=float, default=2.0,
                    help="sample the process's RSS every so many seconds (0: not at all, nor after rounds)")
    args = ap.parse_args()
    os.environ["MEM_EMBEDDER"] = args.embedder
    env = {**os.environ, "MEM_ACTOR": "bench@bench", "NO_COLOR": "1"}
    print(f"load average at start: {os.getloadavg()[0]:.1f}; store {args.store}; {args.minutes} min; "
          f"freeze_gc {args.freeze}; floor {args.floor}; MALLOC_ARENA_MAX {os.environ.get('MALLOC_ARENA_MAX')}",
          flush=True)
    target = args.store
    if args.floor:
        import tempfile

        target = Path(tempfile.mkdtemp(prefix="soak-floor-")) / "store"
        subprocess.run([MEM, "init", str(target)], env=env, check=True, capture_output=True)
    s = open_searcher(args.store, freeze_gc=args.freeze)
    for q in QUERIES:  # warm: the model, the indexes, the page cache
        s.search(q, mode="hybrid")
    stop = threading.Event()
    writes: list[float] = []
    new_ids: set[str] = set()  # records the `mem add`s made (an add of a content already stored makes none)
    failed: list[str] = []  # the last stderr line of each `mem add` that exited non-zero
    follower = getattr(s, "_follower", None)
    tl = Timeline() if args.timeline else None
    mem_log = Memory() if args.rss_every > 0 else None
    # this run's own contents: `mem add` is idempotent, and a store an earlier run wrote to holds
    # that run's notes (run on such a copy, 105 of 110 adds wrote nothing)
    run = time.strftime("%Y%m%d%H%M%S")

    def writer() -> None:
        i = 0
        while not stop.wait(args.write_every):
            t = time.perf_counter()
            out = subprocess.run([MEM, "--store", str(target), "add",
                                  f"kite flying note {i} on the hill, soak run {run}", "--scope", "ana", "--json"],
                                 env=env, capture_output=True, stdin=subprocess.DEVNULL, text=True)
            writes.append(time.perf_counter() - t)
            if out.returncode == 0 and f"soak run {run}" in out.stdout:
                rid = json.loads(out.stdout)["id"]
                new_ids.add(rid)
                if tl is not None:
                    tl.written.append((t, rid))
            elif out.returncode != 0:
                failed.append(f"exit {out.returncode}: {(out.stderr.strip().splitlines() or [''])[-1][:200]}")
            if tl is not None:
                tl.writes.append((t, time.perf_counter()))
            i += 1

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    #: (seconds into the run, latency s, unembedded, whether it is the first search after a round
    #: of the background thread that changed the index)
    lat: list[tuple[float, float, int, bool]] = []
    t0 = time.perf_counter()
    if tl is not None:
        tl.start(t0, stop)
    if mem_log is not None:
        mem_log.start(t0, stop, args.rss_every)
    if args.floor and follower is not None:
        follower._full_due = lambda *a, **kw: False  # type: ignore[method-assign]
    watch_rounds(follower, tl, mem_log)
    end = t0 + args.minutes * 60
    i = 0
    seen = getattr(follower, "rounds", 0)
    while time.perf_counter() < end:
        t = time.perf_counter()
        now = getattr(follower, "rounds", 0)
        res = s.search(QUERIES[i % len(QUERIES)], mode="hybrid")
        lat.append((t - t0, time.perf_counter() - t, res.unembedded, now != seen))
        seen = now
        i += 1
    stop.set()
    th.join()
    if tl is not None:
        tl.stop()
    if mem_log is not None:
        mem_log.sample("end", t0)
    scans = getattr(follower, "scans", None)
    rounds = getattr(follower, "rounds", None)
    s.close()
    ms = sorted(x[1] * 1000 for x in lat)
    p50 = statistics.median(ms)
    pct = statistics.quantiles(ms, n=100, method="inclusive")
    over = sum(1 for x in ms if x > 5 * p50)
    print("| measure | value |\n|---|---|")
    print(f"| searches (hybrid, one long-lived searcher) | {len(ms):,} in {args.minutes:g} min |")
    print(f"| p50 / p90 / p99 / max | {p50:.1f} / {pct[89]:.1f} / {pct[98]:.1f} / {ms[-1]:.1f} ms |")
    print(f"| max / p50 | {ms[-1] / p50:.1f}x |")
    print(f"| searches over 5x p50 | {over} |")
    print(f"| full scans run by the background thread | {scans} |")
    print(f"| rounds of the background thread that changed the index | {rounds} |")
    where = "into a scratch store (--floor)" if args.floor else "into the store"
    print(f"| records written meanwhile {where} (`mem add`, one process each) | {len(new_ids)} of {len(writes)} adds |")
    print(f"| most unembedded records a search reported | {max(x[2] for x in lat)} |")
    if failed:
        print(f"{len(failed)} adds failed; the first: {failed[0]}")
    firsts = sorted(1000 * x[1] for x in lat if x[3])
    others = [1000 * x[1] for x in lat if not x[3]]
    if firsts:
        print(f"first search after each index-changing round: {len(firsts)}, median {statistics.median(firsts):.1f} ms, "
              f"max {firsts[-1]:.1f} ms (the others: median {statistics.median(others):.1f} ms)")
    slow = sorted(lat, key=lambda x: -x[1])[:5]
    print("slowest: " + ", ".join(f"{x[1] * 1000:.0f} ms at {x[0]:.0f} s" for x in slow))
    if tl is not None:
        tl.report(lat, 5 * p50 / 1000, t0)
    if mem_log is not None:
        mem_log.report(args.minutes * 60)
        del s
        gc.unfreeze()  # after the timed run: what freezing kept from the collector
        print(f"after the run: gc.unfreeze() then gc.collect() found {gc.collect()} unreachable objects "
              f"(the searcher closed); RSS {rss_mb():.1f} MB")
    if args.floor:
        import shutil

        shutil.rmtree(target.parent, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


Span = tuple[float, float, str]  # (start, end, what), perf_counter seconds


def status_mb(*keys: str) -> list[float]:
    """Fields of /proc/self/status in MB (NaN where /proc is not there): ``VmRSS`` the resident
    set, ``RssAnon`` its anonymous part (the heaps, Python's objects, native allocations),
    ``RssFile`` its file-backed part (mapped files: libraries, memory-mapped index files)."""
    got: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                k = line.split(":", 1)[0]
                if k in keys:
                    got[k] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return [got.get(k, float("nan")) for k in keys]


def rss_mb() -> float:
    """The process's resident set now, MB (VmRSS)."""
    return status_mb("VmRSS")[0]


def threads() -> int:
    """The process's threads now (0 where /proc is not there)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def watch_rounds(follower: object, tl: Timeline | None, mem_log: Memory | None) -> None:
    """Wrap the background thread's ``round`` to note, after each, its kind (a full scan, a
    round that changed the index, or one that did neither) and span for the timeline, and the
    RSS after each scan or change."""
    if follower is None or (tl is None and mem_log is None):
        return
    f: Any = follower
    real = f.round

    def round_(poked: bool = True) -> None:
        scans, rounds, t = f.scans, f.rounds, time.perf_counter()
        stopped = False
        try:
            real(poked)
        except Exception as exc:
            # (the searcher closed at the run's end: a full scan in progress is abandoned)
            stopped = type(exc).__name__ == "_Stopped"
            raise
        finally:
            kind = ("stopped" if stopped else "scan" if f.scans != scans
                    else "change" if f.rounds != rounds else "round")
            if tl is not None:
                tl.rounds.append((t, time.perf_counter(), kind))
            if mem_log is not None and kind != "round":
                mem_log.sample(kind, mem_log.t0)

    f.round = round_
    if tl is None:
        return
    real_hand_over = f._hand_over
    seq: list[int | None] = [None]  # the index's last sequence number seen (on the thread: SQLite)

    def hand_over(lex: Any, committed: bool = False) -> None:
        if seq[0] is None and not committed:  # (each round starts with one: the baseline)
            seq[0] = int(lex.max_seq())
        real_hand_over(lex, committed)
        if committed and seq[0] is not None:  # the records this commit made searchable, and when
            now = time.perf_counter()
            rows = lex.db.execute("SELECT id, seq FROM records WHERE seq > ?", (seq[0],)).fetchall()
            for rid, sq in rows:
                tl.indexed.setdefault(rid, now)
                seq[0] = max(seq[0], int(sq))

    f._hand_over = hand_over
    # a full scan's parts: each chunk of files it stats between two pauses, and each catch-up
    # that indexed a write made meanwhile (which a slow search overlapped, not only "a scan")
    real_pause, real_catch_up = f._pause, f._catch_up

    def pause() -> None:  # (a chunk runs from its round's start, or the last pause's end)
        if tl.chunk_from is not None:
            tl.parts.append((tl.chunk_from, time.perf_counter(), "scan chunk"))
        try:
            real_pause()
        finally:
            tl.chunk_from = time.perf_counter()

    def catch_up() -> None:
        t, n, covered = time.perf_counter(), f.catch_ups, f._covered
        real_catch_up()
        if f.catch_ups != n or f._covered != covered:
            tl.parts.append((t, time.perf_counter(), "catch-up"))

    f._pause, f._catch_up = pause, catch_up
    tl.watch(f)


class Memory:
    """The searcher process's RSS and frozen-object count over the run (see the module text)."""

    def __init__(self) -> None:
        #: (seconds into the run, what: "tick" | "change" | "scan" | "end", RSS MB, frozen objects)
        self.samples: list[tuple[float, str, float, int]] = []
        #: beside each sample: RssAnon and RssFile (MB) and the process's threads
        self.parts: list[tuple[float, float, int]] = []
        self.t0 = 0.0
        self.start_rss = (rss_mb(), gc.get_freeze_count())  # after the warm-up searches
        self.start_parts = (*status_mb("RssAnon", "RssFile"), threads())

    def sample(self, what: str, t0: float) -> None:
        rss, anon, file = status_mb("VmRSS", "RssAnon", "RssFile")
        self.samples.append((time.perf_counter() - t0, what, rss, gc.get_freeze_count()))
        self.parts.append((anon, file, threads()))

    def start(self, t0: float, stop: threading.Event, every: float) -> None:
        self.t0 = t0

        def tick() -> None:
            while not stop.wait(every):
                self.sample("tick", t0)

        threading.Thread(target=tick, daemon=True).start()

    def report(self, seconds: float) -> None:
        if not self.samples:
            return
        at = [x[0] for x in self.samples]
        i_mid = min(range(len(at)), key=lambda i: abs(at[i] - seconds / 2))
        i_peak = max(range(len(at)), key=lambda i: self.samples[i][2])
        print("| searcher RSS | MB | of it anonymous / file-backed, MB | threads | frozen objects |\n"
              "|---|---|---|---|---|")
        a0, f0, th0 = self.start_parts
        print(f"| at the start (warmed) | {self.start_rss[0]:.1f} | {a0:.1f} / {f0:.1f} | {th0} | "
              f"{self.start_rss[1]:,} |")
        for what, i in ((f"in the middle ({at[i_mid]:.0f} s)", i_mid), (f"at the end ({at[-1]:.0f} s)", len(at) - 1),
                        (f"maximum ({at[i_peak]:.0f} s)", i_peak)):
            _t, _w, r, fz = self.samples[i]
            an, fi, th = self.parts[i]
            print(f"| {what} | {r:.1f} | {an:.1f} / {fi:.1f} | {th} | {fz:,} |")
        per_min: dict[int, list[tuple[float, float, float]]] = {}
        for (t, _w, r, _f), (an, fi, _th) in zip(self.samples, self.parts, strict=True):
            per_min.setdefault(int(t // 60), []).append((r, an, fi))
        print("RSS median per minute, MB (anonymous / file-backed): " + ", ".join(
            f"{m}: {statistics.median(x[0] for x in v):.1f} ({statistics.median(x[1] for x in v):.1f} / "
            f"{statistics.median(x[2] for x in v):.1f})" for m, v in sorted(per_min.items())))
        rounds = [(r, fz) for _t, w, r, fz in self.samples if w in ("change", "scan")]
        print(f"{len(self.samples)} samples over {at[-1]:.0f} s; after each of {len(rounds)} index-changing "
              f"rounds and scans: RSS first / last {rounds[0][0] if rounds else float('nan'):.1f} / "
              f"{rounds[-1][0] if rounds else float('nan'):.1f} MB, frozen first / last "
              f"{rounds[0][1] if rounds else 0:,} / {rounds[-1][1] if rounds else 0:,}")
        if len(rounds) >= 4:
            half = rounds[len(rounds) // 2:]
            print(f"RSS trend over those rounds: {100 * slope([r for r, _f in rounds]):+.2f} MB per 100 rounds "
                  f"(all), {100 * slope([r for r, _f in half]):+.2f} (second half); frozen objects "
                  f"{100 * slope([float(f) for _r, f in rounds]):+.0f} per 100 rounds (all), "
                  f"{100 * slope([float(f) for _r, f in half]):+.0f} (second half)")
        print("RSS after each index-changing round or scan, MB: "
              + " ".join(f"{r:.0f}" for r, _f in rounds))


def slope(ys: list[float]) -> float:
    """Least-squares slope of ys against 0, 1, 2, ... (per step)."""
    n = len(ys)
    mx = (n - 1) / 2
    my = sum(ys) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / den if den else 0.0


class Timeline:
    """Times of what may slow a search, noted by hooks (see the module text)."""

    def __init__(self) -> None:
        self.gcs: list[Span] = []
        self.rounds: list[Span] = []  # noted by watch_rounds
        self.parts: list[Span] = []  # a full scan's chunks and catch-ups (watch_rounds)
        self.chunk_from: float | None = None  # in a round: where its scan's next chunk starts
        self.writes: list[tuple[float, float]] = []
        #: (start, id) of each `mem add` that wrote a record, and when a commit of the background
        #: thread made each id searchable (``watch_rounds``)
        self.written: list[tuple[float, str]] = []
        self.indexed: dict[str, float] = {}
        #: where the background thread was, sampled every 10 ms during its rounds: one Counter of
        #: stacks per round that changed the index or did nothing, kept when it took over 0.3 s
        self.slow_rounds: list[tuple[float, str, Counter[str]]] = []
        self._follower: Any = None
        self.loads: list[tuple[float, float]] = []
        self._gc_start: float | None = None
        self._sampler: threading.Thread | None = None

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        elif self._gc_start is not None:
            self.gcs.append((self._gc_start, time.perf_counter(), f"gc{info.get('generation')}"))
            self._gc_start = None

    def start(self, t0: float, stop: threading.Event) -> None:
        gc.callbacks.append(self._gc)

        def sample() -> None:
            while not stop.wait(5.0):
                self.loads.append((time.perf_counter() - t0, os.getloadavg()[0]))

        self._sampler = threading.Thread(target=sample, daemon=True)
        self._sampler.start()

        def stacks() -> None:  # the background thread's stack while a round runs (sys._current_frames)
            while not stop.wait(0.01):
                f, into = self._follower, self._in_round  # (a round may end meanwhile)
                th = None if f is None else f._thread
                if th is None or th.ident is None or into is None:
                    continue
                frame = sys._current_frames().get(th.ident)
                names: list[str] = []
                while frame is not None and len(names) < 5:
                    code = frame.f_code
                    names.append(f"{code.co_name}@{Path(code.co_filename).stem}")
                    frame = frame.f_back
                into[" < ".join(names)] += 1

        threading.Thread(target=stacks, daemon=True).start()

    _in_round: Counter[str] | None = None

    def watch(self, f: Any) -> None:
        """Sample the background thread's stack during its rounds (see ``slow_rounds``)."""
        self._follower = f
        real = f.round

        def round_(poked: bool = True) -> None:
            here: Counter[str] = Counter()
            self._in_round = here
            self.chunk_from = time.perf_counter()
            t, scans = time.perf_counter(), f.scans
            raised = ""
            try:
                real(poked)
            except BaseException as exc:
                raised = f", raised {type(exc).__name__}: {str(exc)[:120]}"
                raise
            finally:
                took, self._in_round, self.chunk_from = time.perf_counter() - t, None, None
                if f.refused is not None:
                    raised += f", refused: {type(f.refused).__name__}"
                if took > 0.3 and f.scans == scans:
                    self.slow_rounds.append((took, ("change" if self.rounds and self.rounds[-1][2] == "change"
                                                    else "round") + raised, here))

        f.round = round_

    def stop(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)

    def overlaps(self, a: float, b: float) -> list[str]:
        out = []
        for s, e, what in self.gcs:
            if s < b and e > a:
                out.append(f"{what} {1000 * (e - s):.0f} ms")
        for s, e, what in self.rounds:
            if s < b and e > a and (what != "round" or e - s > 0.005):  # not the idle rounds
                out.append(f"follower {what} {1000 * (e - s):.0f} ms")
        for s, e, what in self.parts:
            if s < b and e > a:
                out.append(f"{what} {1000 * (e - s):.1f} ms")
        if any(s < b and e > a for s, e in self.writes):
            out.append("mem add running")
        return out

    def report(self, lat: list[tuple[float, float, int, bool]], slow_s: float, t0: float) -> None:
        slow = [(at, dt) for at, dt, _u, _f in lat if dt > slow_s]
        kinds: dict[str, int] = {}
        per_min: dict[int, int] = {}
        for at, dt in slow:
            a = t0 + at
            o = self.overlaps(a, a + dt)
            tags = sorted({" ".join(x.split(" ")[:2]) if x.startswith(("follower", "mem", "scan chunk")) else x.split(" ")[0]
                           for x in o}) or ["nothing noted"]
            key = " + ".join(tags)
            kinds[key] = kinds.get(key, 0) + 1
            per_min[int(at // 60)] = per_min.get(int(at // 60), 0) + 1
        gen = {g: sum(1 for *_x, w in self.gcs if w == g) for g in ("gc0", "gc1", "gc2")}
        g2 = [e - s for s, e, w in self.gcs if w == "gc2"]
        print(f"timeline: {len(slow)} searches over 5x p50 ({1000 * slow_s:.1f} ms); GC passes {gen}, "
              f"gen-2 max {1000 * max(g2, default=0):.0f} ms; follower rounds "
              f"{ {k: sum(1 for *_x, w in self.rounds if w == k) for k in ('scan', 'change', 'round')} }; "
              f"writes {len(self.writes)}")
        scans = sorted(e - s for s, e, w in self.rounds if w == "scan")
        changes = sorted(1000 * (e - s) for s, e, w in self.rounds if w == "change")
        if scans:
            print(f"full scans: {len(scans)}, {scans[0]:.1f}-{scans[-1]:.1f} s each")
        if changes:
            print(f"rounds that changed the index (not scans): {len(changes)}, median {statistics.median(changes):.0f} ms, "
                  f"max {changes[-1]:.0f} ms")
        # how soon a write is in the index: from the start of each `mem add` process (it may be
        # indexed before the process has exited) to the end of the first round after it that
        # changed the index (or scanned); writes are seconds apart, so that round is its own
        ends = sorted(e for _s, e, w in self.rounds if w in ("scan", "change"))
        lag = sorted(1000 * (min((e for e in ends if e > w_start), default=float("nan")) - w_start)
                     for w_start, _e in self.writes)
        lag = [x for x in lag if x == x]
        took = sorted(1000 * (e - s) for s, e in self.writes)
        if lag:
            print(f"from a `mem add`'s start to the end of the round that indexed it: {len(lag)} writes, median "
                  f"{statistics.median(lag):.0f} ms, p90 {lag[int(0.9 * (len(lag) - 1))]:.0f} ms, max {lag[-1]:.0f} ms "
                  f"(the `mem add` processes: median {statistics.median(took):.0f} ms start to exit)")
        # the same, measured exactly: to the commit that made the record's id searchable (a commit
        # made between a full scan's chunks included), read from the index at each commit
        got = sorted(1000 * (self.indexed[rid] - w) for w, rid in self.written if rid in self.indexed)
        if got:
            print(f"from a `mem add`'s start to the commit that made its record searchable: {len(got)} of "
                  f"{len(self.written)} writes, median {statistics.median(got):.0f} ms, "
                  f"p90 {got[int(0.9 * (len(got) - 1))]:.0f} ms, max {got[-1]:.0f} ms")
        if self._follower is not None and self._follower.last_error:
            print(f"the background thread's last error: {self._follower.last_error}")
        if self.slow_rounds:
            total: Counter[str] = Counter()
            for _t, _k, c in self.slow_rounds:
                total.update(c)
            print(f"rounds over 0.3 s (not scans): {len(self.slow_rounds)}, "
                  + ", ".join(f"{1000 * t:.0f} ms ({k})" for t, k, _c in sorted(self.slow_rounds, reverse=True)[:8])
                  + "; where the background thread was (10 ms samples, innermost first):")
            for stack, n in total.most_common(8):
                print(f"  {n:4d}  {stack}")
        print("| what overlapped the slow search | searches |\n|---|---|")
        for k, v in sorted(kinds.items(), key=lambda x: -x[1]):
            print(f"| {k} | {v} |")
        print("slow searches per minute: " + ", ".join(f"{m}: {per_min.get(m, 0)}"
                                                      for m in range(max(per_min, default=-1) + 1)))
        print("load average every 5 s: " + " ".join(f"{v:.1f}" for _t, v in self.loads))
        for at, dt in sorted(slow, key=lambda x: -x[1])[:15]:
            a = t0 + at
            print(f"  {1000 * dt:.0f} ms at {at:.1f} s: {', '.join(self.overlaps(a, a + dt)) or 'nothing noted'}")


if __name__ == "__main__":
    main()
