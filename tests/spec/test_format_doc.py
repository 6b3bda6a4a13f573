"""spec/format.md cites only published verify codes, and every MUST/SHOULD carries a code.

A normative sentence is tagged with the verify code that reports a store breaking it
(``[E103]``), ``[impl]`` for a rule on implementations that leaves nothing in a store to check,
or ``[—]`` for a rule that has no code yet (listed in section 20 of the spec).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORMAT = ROOT / "spec" / "format.md"
CODES = ROOT / "spec" / "validation-codes.md"

_TAG = re.compile(r"\[(?:[EW]\d{3}(?:, [EW]\d{3})*|impl|—)\]")
_KEYWORD = re.compile(r"\b(MUST|SHOULD|REQUIRED|RECOMMENDED)\b")


def _sentences(text: str) -> list[str]:
    """Normative sentences: split paragraphs and list items at sentence ends."""
    body = text.split("\n## 2.", 1)[1]  # section 1 defines the words and states no rule
    body = body.split("\n## 20.", 1)[0]  # the open-points section lists rules, it states none
    body = re.sub(r"```.*?```", "", body, flags=re.S)
    blocks = re.split(r"\n\s*\n|\n(?=- |\| |\d+\. )", body)
    out: list[str] = []
    for b in blocks:
        if b.lstrip().startswith("|"):
            out.extend(b.splitlines())
            continue
        flat = " ".join(b.split())
        out.extend(re.split(r"(?<![ (]e\.g)(?<![ (]i\.e)(?<=\.)\s+(?=[A-Z`(])", flat))
    return out


def test_every_normative_sentence_carries_a_code() -> None:
    text = FORMAT.read_text("utf-8")
    untagged = [s for s in _sentences(text) if _KEYWORD.search(s) and not _TAG.search(s)]
    assert untagged == []


def test_cited_codes_are_published() -> None:
    cited = set(re.findall(r"\b([EW]\d{3})\b", FORMAT.read_text("utf-8")))
    published = set(re.findall(r"^### ([EW]\d{3})$", CODES.read_text("utf-8"), re.M))
    assert published, "spec/validation-codes.md lists no codes"
    assert cited - published == set()


def test_referenced_files_exist() -> None:
    text = FORMAT.read_text("utf-8")
    for rel in set(re.findall(r"`((?:spec|examples)/[A-Za-z0-9_./-]+)`", text)):
        assert (ROOT / rel).exists(), rel


def test_examples_in_the_spec_are_real_lines_of_the_example_store() -> None:
    text = FORMAT.read_text("utf-8")
    store = ROOT / "examples" / "store"
    record = re.search(r"```markdown\n(.*?)```", text, re.S)
    assert record is not None
    rid = re.search(r"^id: (\S+)$", record.group(1), re.M)
    assert rid is not None
    path = next((store / "records").glob(f"*/{rid.group(1)}.md"))
    assert record.group(1) == path.read_text("utf-8")
    decl = re.search(r"```json\n(\{\n.*?\n\})\n```", text, re.S)
    assert decl is not None and decl.group(1) + "\n" == (store / "memstore.json").read_text("utf-8")
    lines = {
        ln for p in [*store.glob("log/*.jsonl"), *store.glob("tombstones/*.jsonl")]
        for ln in p.read_text("utf-8").splitlines()
    }
    one_line = re.findall(r"```json\n(\{\"[^\n]*\})\n```", text)
    assert len(one_line) == 2
    for ln in one_line:
        assert ln in lines
