#!/usr/bin/env python3
"""Transform a `mem export` stream: rename scopes and tag what was migrated.

    mem export | python transform.py --rename personal=alice --tag migrated | mem --store NEW import -

Reads mem JSON Lines (spec/export.md) on stdin and writes it to stdout. Only the standard
library; nothing else about mem is needed. Records keep their ids, times and provenance.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW", help="rename a scope")
    ap.add_argument("--tag", action="append", default=[], help="add a tag to every record")
    ap.add_argument("--drop-kind", action="append", default=[], help="leave records of this kind out")
    args = ap.parse_args()
    rename = dict(r.split("=", 1) for r in args.rename)
    for line in sys.stdin:
        obj = json.loads(line)
        kind = obj.get("type", "record")
        if kind == "record":
            if obj["kind"] in args.drop_kind:
                continue
            obj["tags"] = sorted(set(obj["tags"]) | set(args.tag))
            # content is not changed here; a script that edits it must drop (or recompute)
            # obj["digest"], which `mem import` checks against the content.
        if kind in ("record", "tombstone", "lift"):
            obj["scope"] = rename.get(obj["scope"], obj["scope"])
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
