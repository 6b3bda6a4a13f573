#!/usr/bin/env python3
"""A deterministic summarizer for the consolidate tests: ``fake.py MODE``.

Reads the window JSON on stdin and answers by MODE:

ok         summary of the new episodes; a fact per "FACT: ..." in a new episode;
           a supersession per "SUPERSEDE <id> | <content> | <reason>" in a new episode
none       NONE               nonejson   {"none": true}
empty      nothing            junk       not JSON
crash      exit status 3      timeout    sleeps 60 s
short      a 5-character summary          extra      an unknown top-level key
badfact    a fact of the wrong type       big        more than 1 MiB of output
noread     answers NONE without reading stdin
crashon:C  exit status 3 for conversation C, ok for the others

Each call appends the window key to $FAKE_SUMMARIZER_LOG and writes the window document to
$FAKE_SUMMARIZER_DUMP/<n>.json when those are set.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "noread":
        sys.stdout.write("NONE\n")
        return 0
    window = json.load(sys.stdin)
    log = os.environ.get("FAKE_SUMMARIZER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(window["window"] + "\n")
    dump = os.environ.get("FAKE_SUMMARIZER_DUMP")
    if dump:
        n = len(os.listdir(dump))
        with open(os.path.join(dump, f"{n:03d}.json"), "w", encoding="utf-8") as f:
            json.dump(window, f)
    new = [e for e in window["episodes"] if not e["overlap"]]
    if mode.startswith("crashon:"):
        if window["conversation"] == mode.split(":", 1)[1]:
            sys.stderr.write("fake summarizer: crashing on purpose\n")
            return 3
        mode = "ok"
    if mode == "none":
        sys.stdout.write("NONE\n")
    elif mode == "nonejson":
        sys.stdout.write('{"none": true}')
    elif mode == "empty":
        pass
    elif mode == "junk":
        sys.stdout.write("Sure! Here is a summary of the conversation: the user likes tea.\n")
    elif mode == "crash":
        sys.stderr.write("fake summarizer: model backend unreachable\n")
        return 3
    elif mode == "timeout":
        time.sleep(60)
    elif mode == "short":
        sys.stdout.write(json.dumps({"summary": "Chat.", "facts": []}))
    elif mode == "extra":
        sys.stdout.write(
            json.dumps(
                {"summary": "A long enough summary text here.", "facts": [], "healing_log": "x"}
            )
        )
    elif mode == "badfact":
        sys.stdout.write(json.dumps({"summary": "A long enough summary text here.", "facts": [42]}))
    elif mode == "big":
        sys.stdout.write(json.dumps({"summary": "x" * (1024 * 1024 + 10), "facts": []}))
    else:
        facts: list[object] = []
        sups: list[dict[str, str]] = []
        for e in new:
            text = e["content"].strip()
            if text.startswith("FACT:"):
                facts.append(
                    {"content": text[5:].strip(), "kind": "fact", "tags": ["consolidated"]}
                )
            elif text.startswith("SUPERSEDE "):
                rid, content, reason = (p.strip() for p in text[10:].split("|"))
                sups.append({"id": rid, "content": content, "reason": reason})
        conv = window["conversation"] or "no conversation"
        summary = f"Summary of {len(new)} episode(s) in {conv}: " + "; ".join(
            e["content"].strip()[:40] for e in new
        )
        answer: dict[str, object] = {"summary": summary, "facts": facts}
        if sups:
            answer["supersedes"] = sups
        sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
