"""Per-file cost of the rules layer's record readers, this checkout's against an older commit's.

    python bench/recordtext_ab.py STORE --ref COMMIT [--files 1000] [--rounds 61]

The older commit's ``format/rules/recordtext.py`` is loaded beside this checkout's in one process
(it imports the rest of mem, unchanged between the two, from this checkout), after a check that
both read the first 200 files alike. Each round reads ``--files`` record files of STORE with each
version, the order flipped every round: ``scan_canonical`` (the canonical layout: the index build
and ``mem verify``) and ``read_fast`` + ``lean_fields`` (the line reader: the one-shot search).
Reported per reader: the median and the minimum over the rounds of the CPU time per file, and
the ratios (on a busy machine the minimum is the steadier figure: load only adds time).
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from mem.format.rules import recordtext as new

ROOT = Path(__file__).resolve().parent.parent


def load_old(ref: str, into: Path) -> Any:
    path = into / "recordtext_old.py"
    path.write_bytes(subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:format/rules/recordtext.py"],
                                    check=True, capture_output=True).stdout)
    spec = importlib.util.spec_from_file_location("recordtext_old", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=61)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = load_old(a.ref, Path(tmp))
    files = sorted(glob.glob(str(a.store / "records" / "*" / "*.md")))[: a.files]
    texts = [Path(f).read_text("utf-8") for f in files]
    old.canonical_pattern()
    new.canonical_pattern()
    for t in texts[:200]:
        assert old.scan_canonical(t) == new.scan_canonical(t)
        assert old.lean_fields(*old.read_fast(t)) == new.lean_fields(*new.read_fast(t))

    def scan(m: Any) -> None:
        for t in texts:
            m.scan_canonical(t)

    def line(m: Any) -> None:
        for t in texts:
            m.lean_fields(*m.read_fast(t))

    readers = {"scan_canonical": scan, "read_fast + lean_fields": line}
    res: dict[tuple[str, str], list[float]] = {}
    for r in range(a.rounds):
        order = [("old", old), ("new", new)] if r % 2 == 0 else [("new", new), ("old", old)]
        for what, fn in readers.items():
            for name, m in order:
                t0 = time.process_time()
                fn(m)
                res.setdefault((what, name), []).append((time.process_time() - t0) / len(texts) * 1e6)
    print(f"| reader | {a.ref}: median / min us a file | this checkout | ratio of medians / of minimums |")
    print("|---|---|---|---|")
    for what in readers:
        o, n = (statistics.median(res[(what, v)]) for v in ("old", "new"))
        mo, mn = (min(res[(what, v)]) for v in ("old", "new"))
        print(f"| {what} | {o:.2f} / {mo:.2f} | {n:.2f} / {mn:.2f} | {n / o:.3f} / {mn / mo:.3f} |")
    print(f"\n{len(texts)} files, {a.rounds} rounds; load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
