"""Copy the bundled example store (examples/store) to a fresh directory for the demo.

Only the source of truth is copied (declaration, config, records, tombstones, log, state);
derived data is rebuilt by `mem rebuild`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent / "store"
PARTS = ("memstore.json", "config.toml", "records", "tombstones", "log", "state")


def main(dest: str) -> int:
    target = Path(dest)
    if target.exists():
        print(f"error: {target} already exists", file=sys.stderr)
        return 1
    target.mkdir(parents=True)
    for part in PARTS:
        src = SRC / part
        if src.is_dir():
            shutil.copytree(src, target / part)
        elif src.is_file():
            shutil.copy2(src, target / part)
    print(f"copied the example store to {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ".demo-store"))
