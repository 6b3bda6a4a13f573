"""How long `mem rebuild --vectors` and `mem embed` take to exit after Ctrl-C (SIGINT).

    python bench/ctrl_c_exit.py [--runs 5] [--command rebuild|embed] [--n 700] [--after 1.0]
                                [--threads 1] [--work DIR]

Makes a store of N short JSON Lines memories imported with --no-embed (the MiniLM model, the
way tests/search/test_backlog.py's Ctrl-C tests do), then RUNS times starts the command as its
own process with ``MEM_EMBED_THREADS=THREADS``, sends it SIGINT ``--after`` seconds into its
embedding (rebuild: after its build folder appears; embed: after it started) and prints the
seconds from the signal to the process's exit, its exit status, the load average and the last
line it wrote on stderr. The child takes SIGINT's default action even when this script runs
in the background of a non-interactive shell (which ignores SIGINT).

Before the fix, the interrupted process waited for the embedding its pool thread had (a batch
of 256 texts at the pool's lower priority, ``[embedder] bulk_nice``), which on a loaded machine
took a minute or more.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEM = str(Path(sys.executable).with_name("mem"))


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--command", choices=("rebuild", "embed"), default="rebuild")
    ap.add_argument("--n", type=int, default=700)
    ap.add_argument("--after", type=float, default=1.0)
    ap.add_argument("--threads", default="1")
    ap.add_argument("--work", type=Path, default=None)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"} | {
        "NO_COLOR": "1", "MEM_ACTOR": "bench@ctrl-c", "MEM_EMBEDDER": "minilm", "MEM_EMBED_THREADS": a.threads}
    work = a.work or Path(tempfile.mkdtemp(prefix="mem-ctrl-c-"))
    store, src = work / "store", work / "memories.jsonl"
    src.write_text("".join(json.dumps({"content": f"the ferry to the island leaves at dawn, note {i}",
                                       "kind": "fact"}) + "\n" for i in range(a.n)))

    def mem(*args: str) -> None:
        subprocess.run([MEM, "--store", str(store), *args], check=True, capture_output=True, env=env)

    subprocess.run([MEM, "init", str(store)], check=True, capture_output=True, env=env)
    mem("import", str(src), "--no-embed")
    mem("search", "ferry", "--mode", "lexical")  # the lexical index, as the tests have it
    args = ["rebuild", "--vectors"] if a.command == "rebuild" else ["embed"]
    print(f"mem {' '.join(args)}, {a.n} records, MEM_EMBED_THREADS={a.threads}, SIGINT {a.after:g} s in")
    waits = []
    for i in range(a.runs):
        if a.command == "embed" and i:
            shutil.rmtree(store)  # a fresh backlog each run
            subprocess.run([MEM, "init", str(store)], check=True, capture_output=True, env=env)
            mem("import", str(src), "--no-embed")
        p = subprocess.Popen([MEM, "--store", str(store), *args], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                             preexec_fn=_default_sigint)
        while p.poll() is None and a.command == "rebuild" and not any(
                x.name.startswith("build-") for x in (store / ".mem" / "index").iterdir()):
            time.sleep(0.05)
        time.sleep(a.after)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=900)
        waited = time.monotonic() - sent
        waits.append(waited)
        last = (err.strip().splitlines() or [""])[-1]
        print(f"run {i}: SIGINT -> exit {waited:6.1f} s  exit {p.returncode}  load {os.getloadavg()[0]:.1f}  "
              f"{last[:90]}", flush=True)
    waits.sort()
    print(f"median {waits[len(waits) // 2]:.1f} s, max {waits[-1]:.1f} s over {len(waits)} runs")
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
