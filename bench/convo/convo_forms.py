"""R@10 and MRR of the questions whose evidence the friend said, by the form of the friend's turn.

Reads a ``--dump`` file of bench/convo/convo_run.py or bench/convo2/convo2_run.py (one line per
split, mode and question, with the evidence turns' speakers and texts) and sorts each question
whose evidence someone the question does not name said by how that turn says it: to the person
named ("you": ``spoken_to``), of them by name (the turn holds a name the question
holds), or with neither. A question counts under each form its friend-spoken evidence has, "you"
first.

    .venv/bin/python bench/convo/convo_forms.py /tmp/convo_hits.jsonl [--modes hybrid,"hybrid (before)"]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

from mem.format.search.relevance import read_query

FORMS = ("you", "by name", "neither")
#: Words by which a turn speaks to someone (English).
YOU_WORDS = frozenset(["you", "your", "yours", "yourself", "yourselves", "you're", "you've", "you'll", "you'd"])
_WORD = re.compile(r"(?:[^\W_]|['-])+")  # letters, digits, "'" and "-" (str.isalnum: no "_")


def spoken_to(speaker: str | None, named: float, text: str) -> float:
    """1.0 when a turn someone said (``speaker``) who is not the one a question names (``named``
    = 0) speaks to someone ("you", "your", "you're": ``YOU_WORDS``, any case): in a chat of two,
    the other speaker's turn to the person named ("congratulations on your new job"); else 0.0.
    (Stage 2 of mem's search had it as a term, ``addressed``, until its weight, fitted to 0 in
    every form, was taken out: bench/README.md, "The friend's "you" turns"; convo_fit.py still
    fits its forms.)"""
    if speaker is None or named:
        return 0.0
    return 1.0 if any(w.strip("'-").lower() in YOU_WORDS for w in _WORD.findall(text)) else 0.0


def form_of(text: str, speaker: str, names: frozenset[str]) -> str:
    """How a friend's turn tells of the person a question names (``names``: the question's)."""
    if spoken_to(speaker.lower(), 0.0, text):
        return "you"
    words = {w.strip(".,!?;:'\"()").lower().removesuffix("'s") for w in text.split()}
    return "by name" if words & names else "neither"


def table(path: Path, modes: list[str] | None = None) -> str:
    acc: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if not r["evidence"] or (modes and r["mode"] not in modes):
            continue
        names = read_query(r["question"]).names
        friend = [e for e in r["evidence"] if e[1].lower() not in names]
        forms = {form_of(e[2], e[1], names) for e in friend}
        evidence = {e[0] for e in r["evidence"]}
        top = [h[0] for h in r["hits"][:10]]
        rec = len(evidence & set(top)) / len(evidence)
        first = next((i for i, t in enumerate(top, 1) if t in evidence), None)
        for f in forms:
            acc[(r["split"], r["mode"], f)].append((rec, 1 / first if first else 0.0))
    lines = ["| split | mode | " + " | ".join(f"{f}: R@10 / MRR (n)" for f in FORMS) + " |",
             "|---|---|" + "---|" * len(FORMS)]
    for split, mode in sorted({(s, m) for s, m, _f in acc}):
        cells = []
        for f in FORMS:
            v = acc.get((split, mode, f), [])
            cells.append(f"{sum(a for a, _ in v) / len(v):.3f} / {sum(b for _, b in v) / len(v):.3f} ({len(v)})"
                         if v else "–")
        lines.append(f"| {split} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dump", type=Path)
    ap.add_argument("--modes", help="comma-separated modes (default: every mode in the file)")
    a = ap.parse_args()
    print(table(a.dump, a.modes.split(",") if a.modes else None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
