"""The command line of a conversational benchmark's generator (bench/convo/convo_generate.py,
bench/convo2/convo2_generate.py): ``--out FILE`` writes the data set as JSON, ``--show CID``
prints one conversation as text, ``--stats`` (or no option) prints its size."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def main(argv: list[str] | None, doc: str | None, dataset: Callable[[int, int], dict[str, Any]],
         stats: Callable[[dict[str, Any]], dict[str, Any]], seed: int, conversations: int) -> int:
    """Parse ``argv`` and do what it asks with the generator's ``dataset`` and ``stats``
    (``doc``'s first paragraph is the help's description; ``seed`` and ``conversations``, the
    defaults)."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--conversations", type=int, default=conversations)
    ap.add_argument("--out", type=Path, help="write the data set as JSON")
    ap.add_argument("--stats", action="store_true", help="print its size")
    ap.add_argument("--show", metavar="CID", help="print one conversation as text (e.g. c00)")
    args = ap.parse_args(argv)
    data = dataset(args.seed, args.conversations)
    if args.out:
        args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.show:
        conv = next(c for c in data["conversations"] if c["id"] == args.show)
        for s in conv["sessions"]:
            print(f"--- session {s['index'] + 1}, {s['date']}")
            for t in s["turns"]:
                print(f"{t['id']}  {t['speaker']}: {t['text']}")
        for q in conv["questions"]:
            trap = "/" + q["trap"] if "trap" in q else ""
            print(f"{q['id']} [{q['kind']}{trap}] {q['question']} -> {q['answer']}  {q['evidence']}")
    if args.stats or not (args.out or args.show):
        print(json.dumps(stats(data), indent=1))
    return 0
