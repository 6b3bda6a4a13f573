#!/usr/bin/env python3
"""A zero-LLM summarizer for `mem consolidate`: a starting point to copy and adapt.

    mem consolidate --summarizer 'python3 examples/summarizers/extractive.py'

It reads the window document (spec/consolidate.md, section 2) on stdin and answers on stdout:

* facts: sentences of the *new* episodes (not the overlap) that state something durable about
  the user, found by a few anchored first-person patterns ("I am ...", "my ... is ...",
  "I prefer ...", "I live in ...");
* summary: the first sentence of each new episode, joined, cut to 400 characters;
* NONE when no new episode has any content worth keeping (greetings, thanks, acknowledgements).

No network, no model, deterministic. Standard library only.
"""

from __future__ import annotations

import json
import re
import sys

# First-person statements that tend to stay true; each becomes one fact, in the third person.
PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^i(?: am|'m) allergic to (.+)$", re.I), "The user is allergic to {0}"),
    (re.compile(r"^i (?:live|moved) (?:in|to) (.+)$", re.I), "The user lives in {0}"),
    (re.compile(r"^i (?:prefer|like|love) (.+)$", re.I), "The user likes {0}"),
    (
        re.compile(r"^i (?:don't|do not|never) (?:like|eat|drink) (.+)$", re.I),
        "The user does not like {0}",
    ),
    (re.compile(r"^i work (?:as|at|for) (.+)$", re.I), "The user works as/at {0}"),
    (re.compile(r"^my ([a-z' ]{2,40}) is (.+)$", re.I), "The user's {0} is {1}"),
    (re.compile(r"^i(?: am|'m) (?:a|an) (.+)$", re.I), "The user is a {0}"),
]
SMALL_TALK = re.compile(
    r"^(hi|hello|hey|thanks|thank you|ok|okay|bye|good (morning|night|evening)|sure|yes|no)\b[\s!.?]*$",
    re.I,
)
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    return [s.strip().rstrip(".!?").strip() for s in SENTENCE.split(text.strip()) if s.strip()]


def main() -> int:
    window = json.load(sys.stdin)
    min_fact = window["limits"]["min_fact_chars"]
    min_summary = window["limits"]["min_summary_chars"]
    new = [e for e in window["episodes"] if not e["overlap"]]
    facts: list[str] = []
    firsts: list[str] = []
    for e in new:
        sents = sentences(e["content"])
        if not sents or all(SMALL_TALK.match(s) for s in sents):
            continue
        firsts.append(sents[0])
        if e.get("role") not in (None, "user"):
            continue  # only what the user said about themselves becomes a fact
        for s in sents:
            for pattern, template in PATTERNS:
                m = pattern.match(s)
                if m:
                    fact = template.format(*(g.strip() for g in m.groups()))
                    if len(fact) >= min_fact and fact not in facts:
                        facts.append(fact)
                    break
    summary = "; ".join(firsts)[:400].strip()
    if len(summary) < min_summary and not facts:
        sys.stdout.write("NONE\n")
        return 0
    if len(summary) < min_summary:
        summary = (summary + " (" + "; ".join(facts) + ")").strip()[:400]
    json.dump({"summary": summary, "facts": facts[: window["limits"]["max_facts"]]}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
