"""The secrets corpus (``corpus.tsv``): labelled sentences and the verdict pinned for each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).with_name("corpus.tsv")


@dataclass(frozen=True)
class Line:
    set: str
    label: str  # "secret" or "innocent"
    verdict: str | None  # the rule expected to fire, None for none
    text: str
    lineno: int


def load(path: Path = CORPUS) -> list[Line]:
    out: list[Line] = []
    current = ""
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.startswith("# set: "):
            current = raw.removeprefix("# set: ").strip()
            continue
        if not raw.strip() or raw.startswith("#"):
            continue
        label, verdict, text = raw.split("\t", 2)
        if label not in ("secret", "innocent"):
            raise ValueError(f"{path}:{n}: label {label!r} is not secret or innocent")
        out.append(Line(current, label, None if verdict == "-" else verdict, text, n))
    return out
