"""Several first searches of a new store at once: how many answer without the store's records.

    python bench/first_searches_at_once.py [--trials 6] [--procs 4] [--records 6] [--hogs 2]
                                           [--src DIR]

Each trial makes a store of RECORDS notes with no index yet and starts PROCS ``mem search
--json -k 20`` processes at once (the hashing embedder, ``MEM_LOCK_TIMEOUT=120``), as
tests/search/test_index_robustness.py's ``test_first_searches_at_once_all_answer`` does; it
counts the searches that answered with fewer hits than records, and prints their first warning.
``--hogs N`` runs N busy loops (``python -c "while 1: pass"``) for the whole run: the load under
which one search's first build outlasted the others' 0.5 s wait for the writer lock. ``--src``
runs the mem of another checkout's ``src/`` (``PYTHONPATH``; e.g. one unpacked with ``git
archive REV``) instead of this one, to compare before and after in the same window.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORD = "quillmarrow"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--records", type=int, default=6)
    ap.add_argument("--hogs", type=int, default=0)
    ap.add_argument("--src", type=Path, default=None)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"} | {
        "MEM_EMBEDDER": "hashing", "NO_COLOR": "1", "MEM_LOCK_TIMEOUT": "120", "MEM_ACTOR": "bench@first"}
    if a.src is not None:
        env["PYTHONPATH"] = str(a.src.resolve())
    mem = [sys.executable, "-c", "from mem.cli.main import run; run()"]
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(a.hogs)]
    work = Path(tempfile.mkdtemp(prefix="mem-first-searches-"))
    short, warnings_seen, started = 0, set(), time.monotonic()
    print(f"load before: {os.getloadavg()[0]:.1f}")
    try:
        for t in range(a.trials):
            store = work / f"s{t}"
            subprocess.run([*mem, "init", str(store)], check=True, capture_output=True, env=env)
            src = work / f"notes{t}.jsonl"
            src.write_text("".join(json.dumps({"content": f"{WORD} note {i} about the lighthouse", "kind": "fact"})
                                   + "\n" for i in range(a.records)))
            subprocess.run([*mem, "--store", str(store), "import", str(src), "--no-embed"],
                           check=True, capture_output=True, env=env)
            for p in (store / ".mem" / "index").glob("*"):  # no index: every search is a first search
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            procs = [subprocess.Popen([*mem, "--store", str(store), "search", "--json", "-k", "20", WORD],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                      stdin=subprocess.DEVNULL) for _ in range(a.procs)]
            for p in procs:
                out, err = p.communicate(timeout=600)
                hits = len(json.loads(out)["hits"]) if p.returncode == 0 else -1
                if hits != a.records:
                    short += 1
                    warnings_seen.add((json.loads(out)["warnings"] or [""])[0][:100] if p.returncode == 0
                                      else f"exit {p.returncode}: {err.strip()[-100:]}")
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"searches answering fewer than {a.records} hits: {short} of {a.trials * a.procs} "
          f"({time.monotonic() - started:.0f} s, load after: {os.getloadavg()[0]:.1f})")
    for w in sorted(warnings_seen):
        print(f"  {w}")


if __name__ == "__main__":
    main()
