"""One `mem add` into a big store, whole process: this checkout against an older commit's.

    python bench/add_bench.py STORE [STORE ...] --ref COMMIT [--rounds 7]

STORE is a store made by bench/corpus.py with its lexical index built (`mem --store STORE
rebuild --lexical`). The older commit's ``format/`` and ``cli/`` are exported with ``git
archive`` into a temporary folder as the package ``mem``; both versions run as
``python -c "from mem.cli.main import run; run()"`` with their own ``PYTHONPATH`` (the same
interpreter and libraries), alternating, the order flipped each round. Two cases per round:

- ``plain``: `mem add NEW_TEXT --scope ana`, nothing changed around mem since the index caught up
  (the common case: one stat decides there is nothing to refresh);
- ``after a pull``: a record file is first written into ``records/ana/`` around mem (as a git
  pull or a hand edit would), then `mem add` of that record's content: the idempotence check must
  report the existing id. The time includes the refresh that finds the new file.

Between timed calls an untimed ``mem search --mode lexical`` (this checkout) brings the index
up to date, so each call starts from the same state. Reported per store, case and version: the
median and the range in ms, the ratio of medians (new/old), and for ``after a pull`` how many
adds recognized the pulled record (the rest stored a duplicate).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = "import sys; from mem.cli.main import run; sys.argv[0] = 'mem'; run()"


def export(ref: str, into: Path) -> Path:
    """``format/`` and ``cli/`` of ``ref`` as the package ``mem`` under ``into``; returns ``into``."""
    pkg = into / "mem"
    pkg.mkdir(parents=True)
    archive = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref, "format", "cli", "src/mem/__init__.py"],
                   check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "x", filter="data")
    (into / "x" / "src" / "mem" / "__init__.py").rename(pkg / "__init__.py")
    (into / "x" / "format").rename(pkg / "format")
    (into / "x" / "cli").rename(pkg / "cli")
    compile_tree(pkg)
    return into


def compile_tree(path: Path) -> None:
    """Byte-compile ``path`` once: with PYTHONDONTWRITEBYTECODE set (as on the project machine),
    a tree without ``.pyc`` files would be compiled again by every run."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(path)], check=True)


def mem(path: Path, store: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PYTHONPATH": str(path), "MEM_EMBEDDER": "hashing", "NO_COLOR": "1"}
    env.pop("MEM_STORE", None)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", RUN, "--store", str(store), *args],
                       capture_output=True, text=True, env=env)
    ms = (time.perf_counter() - t) * 1000
    if p.returncode != 0:
        raise SystemExit(f"mem {' '.join(args)} failed: {p.stderr}")
    return ms, p


def pull_one(store: Path, template: Path, n: int) -> tuple[str, str]:
    """Write a record file into records/ana/ around mem (a copy of ``template`` with a new id and
    content, as a pull would bring it); returns (id, content)."""
    from mem.format.rules.ids import new_id

    rid = new_id()
    content = f"pulled memory number {n} written around mem {time.time_ns()}"
    old_id = template.stem
    text = template.read_text("utf-8").replace(old_id, rid)
    head, sep, _body = text.partition("\n---\n")
    digest = "sha256:" + hashlib.sha256((content + "\n").encode()).hexdigest()
    lines = [f"digest: {digest}" if ln.startswith("digest: ") else ln for ln in head.split("\n")]
    (store / "records" / "ana" / f"{rid}.md").write_text("\n".join(lines) + sep + content + "\n", "utf-8")
    return rid, content


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stores", nargs="+", type=Path)
    ap.add_argument("--ref", required=True, help="the older commit (the baseline)")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    new_path = ROOT / "src"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        old_path = export(a.ref, Path(tmp))
        for tree in ("format", "cli"):
            compile_tree(ROOT / tree)
        versions = {"new": new_path, "old": old_path}
        for store in a.stores:
            template = next(p for p in sorted((store / "records" / "ana").glob("*.md")))
            times: dict[tuple[str, str], list[float]] = {}
            found: dict[str, int] = {"new": 0, "old": 0}
            n = 0
            mem(new_path, store, "search", "--mode", "lexical", "warm")  # the index current
            for r in range(a.rounds):
                order = ["new", "old"] if r % 2 == 0 else ["old", "new"]
                for v in order:
                    n += 1
                    ms, _p = mem(versions[v], store, "add", f"bench add {n} {time.time_ns()}", "--scope", "ana")
                    times.setdefault(("plain", v), []).append(ms)
                    mem(new_path, store, "search", "--mode", "lexical", "warm")
                    rid, content = pull_one(store, template, n)
                    ms, p = mem(versions[v], store, "add", content, "--scope", "ana")
                    times.setdefault(("after a pull", v), []).append(ms)
                    found[v] += p.stdout.strip() == rid
                    mem(new_path, store, "search", "--mode", "lexical", "warm")
            docs = sum(1 for _ in (store / "records").rglob("*.md"))
            for case in ("plain", "after a pull"):
                new, old = times[(case, "new")], times[(case, "old")]
                ratio = statistics.median(new) / statistics.median(old)
                hit = f"{found['new']}/{a.rounds} vs {found['old']}/{a.rounds}" if case == "after a pull" else ""
                rows.append(f"| {store.name} ({docs:,} records) | {case} | {statistics.median(new):.0f} "
                            f"({min(new):.0f}-{max(new):.0f}) | {statistics.median(old):.0f} "
                            f"({min(old):.0f}-{max(old):.0f}) | {ratio:.2f}x | {hit} |")
    print(f"one `mem add`, whole process, ms: median (range) of {a.rounds}; new = this checkout, old = {a.ref}\n")
    print("| store | case | new | old | new/old | pulled record recognized (new vs old) |")
    print("|---|---|---:|---:|---:|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
