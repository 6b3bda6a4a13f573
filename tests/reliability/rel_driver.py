"""A workload process for the crash and concurrency tests (run as a script, killed at will).

Every line it prints on stdout is a promise the parent holds the store to:

    READY                      the store is open; the workload starts now
    ADDED <id> <scope> <i>     record i of this workload was added (the call returned)
    FORGOT <id>,<id>,...       a forget returned; these ids (request + cascade) are gone
    BATCH <id>,<id>,...        a batch of adds returned (all committed together)

Content is a pure function of (tag, i) so the parent can check every reported record is intact.
Modes: ``add`` (API adds), ``cli-add`` (a loop of ``mem add`` processes), ``batch`` (adds in
``store.batch()`` groups), ``forget`` (API forgets of the ids given on stdin), ``cli-forget``,
``search`` (a loop of ``mem search``/``mem list`` reads that must all succeed), ``compact``
(``compact_store`` as `mem compact` runs it; ``--kill-at NAME:N`` SIGKILLs the process just
before the N-th call of the index step NAME: ``build_vectors``, ``write_pointer`` or
``remove_tree``, so a crash lands exactly between two steps of the build and swap).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys


def content_for(tag: str, i: int) -> str:
    """The content of record ``i`` of workload ``tag`` (the parent recomputes it)."""
    words = ("river", "lantern", "copper", "meadow", "violet", "harbor", "quartz", "saffron")
    w = " ".join(words[(i * k + len(tag)) % len(words)] for k in (1, 3, 5))
    return f"workload {tag} item {i}: remember the {w} ({i * 7919 % 10007}).\n"


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("--store", required=True)
    ap.add_argument("--tag", default="t")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--scope", default="default")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--mem", default="mem")
    ap.add_argument("--batch-size", type=int, default=5)
    ap.add_argument("--kill-at", default="")
    args = ap.parse_args()

    if args.mode == "compact":
        return compact(args.store, args.kill_at)

    if args.mode == "cli-add":
        say("READY")
        for i in range(args.start, args.start + args.n):
            p = subprocess.run(
                [args.mem, "--store", args.store, "add", "--scope", args.scope, "-"],
                input=content_for(args.tag, i), capture_output=True, text=True,
            )
            if p.returncode != 0:
                say(f"ERROR {p.returncode} {p.stderr.strip()!r}")
                return 1
            say(f"ADDED {p.stdout.strip()} {args.scope} {i}")
        return 0
    if args.mode == "cli-forget":
        ids = sys.stdin.read().split()
        say("READY")
        for rid in ids:
            p = subprocess.run(
                [args.mem, "--store", args.store, "forget", "--yes", "--json", rid],
                capture_output=True, text=True, stdin=subprocess.DEVNULL,
            )
            if p.returncode != 0:
                say(f"ERROR {p.returncode} {p.stderr.strip()!r}")
                return 1
            import json

            plan = json.loads(p.stdout)
            gone = [r["id"] for r in plan["requested"]] + [r["id"] for r in plan["cascade"]]
            say("FORGOT " + ",".join(gone))
        return 0
    if args.mode == "search":
        say("READY")
        n_ok = 0
        for i in range(args.n):
            cmd = [args.mem, "--store", args.store, "search", "--json", f"item {i}"]
            if os.environ.get("REL_SEARCH_CMD") == "list":
                cmd = [args.mem, "--store", args.store, "list", "--json"]
            p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if p.returncode != 0:
                say(f"ERROR {p.returncode} {p.stderr.strip()!r}")
                continue
            n_ok += 1
        say(f"SEARCHES {n_ok}")
        return 0

    from mem.format.store.store import Store

    store = Store.open(args.store)
    if os.environ.get("REL_ATTACH_INDEX") == "1":
        # like the CLI (cli.common.open_store): mem's own writes keep the indexes current
        from mem.format.index.derived import attach

        attach(store)
    if args.mode == "add":
        say("READY")
        for i in range(args.start, args.start + args.n):
            rec = store.add(content_for(args.tag, i), scope=args.scope, kind="fact")
            say(f"ADDED {rec.id} {rec.scope} {i}")
        return 0
    if args.mode == "batch":
        say("READY")
        i = args.start
        while i < args.start + args.n:
            done = []
            with store.batch():
                for j in range(i, min(i + args.batch_size, args.start + args.n)):
                    done.append(store.add(content_for(args.tag, j), scope=args.scope).id)
            say("BATCH " + ",".join(f"{rid}:{j}" for j, rid in enumerate(done, start=i)))
            i += args.batch_size
        return 0
    if args.mode == "forget":
        ids = sys.stdin.read().split()
        say("READY")
        for rid in ids:
            plan = store.forget([rid], reason="crash test")
            say("FORGOT " + ",".join(r.id for r in plan.records))
        return 0
    raise SystemExit(f"unknown mode {args.mode}")


def compact(store_path: str, kill_at: str) -> int:
    """Compact the store's indexes; with ``kill_at`` die by SIGKILL at that exact step."""
    import signal

    import mem.format.index.build as index_mod
    from mem.format.index import vectors as vectors_mod
    from mem.format.ops.compact import compact_store
    from mem.format.store.store import Store

    if kill_at:
        name, _, nth = kill_at.partition(":")
        owner = vectors_mod if name == "build_vectors" else index_mod
        real = getattr(owner, name)
        calls = {"n": 0}

        def dying(*a: object, **kw: object) -> object:
            calls["n"] += 1
            if calls["n"] == int(nth or 1):
                say(f"KILLED {kill_at}")
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*a, **kw)

        setattr(owner, name, dying)
    store = Store.open(store_path)
    say("READY")
    compact_store(store)
    say("COMPACTED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
