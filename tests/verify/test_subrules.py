"""Codes that cover several rules name the rule broken (``E103.5``): the sub-rule table, its
documentation and ``spec/fixtures/_rules/`` agree; each fixture yields its code and only that
sub-rule; every code and sub-rule names the spec section that states it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from mem.format.model.record import MAX_RECORD_BYTES
from mem.format.verify.checks import RULES, SUBRULES, verify_store
from tests.conftest import run_mem

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "spec" / "fixtures"
SUB_FIXTURES = FIXTURES / "_rules"
CODES_MD = ROOT / "spec" / "validation-codes.md"
R1 = "01JGZ00000000000000000000A"
#: Content over 4 MiB makes a file too large to commit: its store is made here; the index codes'
#: sub-rules concern local, git-ignored data: tests/verify/test_index_codes.py makes their stores.
BUILT_HERE = {"E103.14"} | {s for s, r in SUBRULES.items() if r.parent in ("E401", "W401", "W403")}
COMMITTED = sorted(set(SUBRULES) - BUILT_HERE)


def _section_headings() -> set[str]:
    text = (ROOT / "spec" / "format.md").read_text("utf-8")
    return set(re.findall(r"^##+ (\d+(?:\.\d+)?)\.? ", text, re.MULTILINE))


def _check(root: Path, sub: str) -> None:
    rule = SUBRULES[sub]
    parent = RULES[rule.parent]
    full = verify_store(root, full=True)
    assert full.findings, sub
    for f in full.findings:
        assert (f.code, f.rule, f.fix, f.severity) == (parent.code, sub, rule.fix, parent.severity)
        assert f.to_dict()["rule"] == sub and f.line().startswith(f"[{parent.code}] ")
        assert f.line().endswith(f"({sub}; fix: {rule.fix})")
    fast = verify_store(root)
    assert {(f.code, f.rule) for f in fast.findings} == (
        {(parent.code, sub)} if parent.level == "fast" else set()
    )


def test_sub_fixture_folders_are_exactly_the_sub_rules() -> None:
    assert sorted(p.name for p in SUB_FIXTURES.iterdir() if p.is_dir()) == COMMITTED


@pytest.mark.parametrize("sub", COMMITTED)
def test_sub_fixture_yields_its_code_and_only_that_rule(sub: str) -> None:
    _check(SUB_FIXTURES / sub, sub)


def test_content_over_4_mib_is_e103_14(tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "valid", root)
    p = root / "records" / "alice" / f"{R1}.md"
    text = p.read_text("utf-8")
    p.write_text(text.replace("Alice is allergic to peanuts.\n", "x" * (MAX_RECORD_BYTES + 8) + "\n"), "utf-8")
    _check(root, "E103.14")


def test_sub_codes_are_their_code_a_dot_and_a_number_in_order() -> None:
    seen: dict[str, int] = {}
    for sub, rule in SUBRULES.items():
        m = re.fullmatch(r"([EW]\d{3})\.([1-9]\d*)", sub)
        assert m and m.group(1) in RULES and rule.parent == m.group(1), sub
        assert int(m.group(2)) == seen.get(m.group(1), 0) + 1, sub
        seen[m.group(1)] = int(m.group(2))


def test_every_code_and_sub_rule_names_an_existing_spec_section() -> None:
    headings = _section_headings()
    for rule in [*RULES.values(), *SUBRULES.values()]:
        m = re.fullmatch(r"spec/format\.md §(\d+(?:\.\d+)?)", rule.section)
        assert m and m.group(1) in headings, (rule.code, rule.section)
        assert rule.fix.endswith(f"; see {rule.section}")


def test_every_sub_rule_is_documented_under_its_code() -> None:
    text = CODES_MD.read_text("utf-8")
    for code, rule in RULES.items():
        section = text.split(f"### {code}\n", 1)[1].split("\n### ", 1)[0]
        assert f"Spec: {rule.section}." in section, code
        rows = re.findall(r"^\| `([EW]\d{3}\.\d+)` \| (.+?) \| (spec/format\.md §[\d.]+) \|", section, re.M)
        expected = [(s, r.title, r.section) for s, r in SUBRULES.items() if r.parent == code]
        assert rows == expected, code


def test_json_and_text_name_the_rule(tmp_path: Path) -> None:
    store = tmp_path / "s"
    shutil.copytree(SUB_FIXTURES / "E103.6", store)
    r = run_mem("verify", str(store), "--json")
    assert r.returncode == 1
    (f,) = r.json()["findings"]
    assert (f["code"], f["rule"], f["fix"]) == ("E103", "E103.6", SUBRULES["E103.6"].fix)
    assert r.json()["counts"]["by_code"] == {"E103": 1}
    t = run_mem("verify", str(store))
    assert t.returncode == 1
    assert t.stdout == (
        f"[E103] records/alice/{R1}.md: confidence 7.0 is outside 0..1 "
        f"(E103.6; fix: {SUBRULES['E103.6'].fix})\n"
    )


@pytest.mark.parametrize(
    ("old", "new", "sub"),
    [
        ("confidence: 1.0", "confidence: abc", "E103.6"),
        ("confidence: 1.0", "confidence: true", "E103.6"),
        ('tags: ["health"]', "tags: 5", "E103.9"),
        ("source:", "supersedes: [nope]\nsource:", "E103.10"),
        ("source:", "superseded_by: 5\nsource:", "E103.10"),
        ("source:\n  type: cli\n  writer: \"mem 0.1.0\"\n  command: add\n", "source: 5\n", "E103.11"),
        ("  type: cli", "  type: 5", "E103.11"),
        ("recorded_at: 2025-01-01T00:00:02.000Z", "recorded_at: yesterday", "E103.7"),
        ("recorded_at: 2025-01-01T00:00:02.000Z", "recorded_at: 2025-01-01\nvalid_to: soon", "E103.7"),
        (f"id: {R1}", "id: 5", "E103.2"),
        ("scope: alice", "scope: [alice]", "E103.3"),
        ("status: active", "status: ", "E103.1"),
        ("kind: fact", "kind: ../fact", "E103.4"),
        ("kind: fact", "kind: fact\nx_a: &a 1\nx_b: *a", "E102.4"),
        ("kind: fact", "kind: {fact", "E102.2"),
        ("kind: fact", "- kind", "E102.2"),
    ],
)
def test_reader_messages_name_their_sub_rule(tmp_path: Path, old: str, new: str, sub: str) -> None:
    """Beyond the fixtures: other ways of breaking the same rules are told the same sub-rule."""
    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "valid", root)
    p = root / "records" / "alice" / f"{R1}.md"
    text = p.read_text("utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), "utf-8")
    for full in (True, False):
        found = [(f.code, f.rule) for f in verify_store(root, full=full).findings]
        assert found == [(SUBRULES[sub].parent, sub)], (full, found)


#: The codes whose findings come from rules applied outside ``mem verify`` (the declaration's
#: and the configuration's acceptance, the configuration's settings, the record reader).
_APPLIED_ELSEWHERE = ("E002", "E003", "E005", "E007", "E102", "E103")


def _rules_raised(root: Path) -> set[str | None]:
    """The rules named by the errors (or findings) of the rules that verify applies from
    elsewhere, applied to the fixture ``root`` through the library's own readers."""
    import tomllib

    from mem.format.base.errors import MemError
    from mem.format.model.record import read_record_file
    from mem.format.rules.config import config_findings, read_config, read_declaration

    named: set[str | None] = set()
    for read in (read_declaration, read_config):
        try:
            read(root)
        except MemError as exc:
            named.add(exc.rule)
    config = root / "config.toml"
    try:
        data = tomllib.loads(config.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = None
    if isinstance(data, dict) and all(isinstance(v, dict) for v in data.values()):
        named |= {rule for rule, _ in config_findings(data)}
    for path in sorted((root / "records").glob("*/*.md")):
        try:
            read_record_file(path)
        except MemError as exc:
            named.add(exc.rule)
    return named


@pytest.mark.parametrize("sub", [s for s in COMMITTED if SUBRULES[s].parent in _APPLIED_ELSEWHERE])
def test_the_rule_applied_elsewhere_names_its_sub_rule_where_it_is_raised(sub: str) -> None:
    """Verify reads a sub-rule from the error or refusal, not from its message: each fixture's
    problem, met by the library's reader, is an error (or a config finding) naming the sub-rule."""
    assert _rules_raised(SUB_FIXTURES / sub) == {sub}


def test_the_valid_fixture_raises_no_rule() -> None:
    assert _rules_raised(FIXTURES / "valid") == set()


def test_a_reworded_message_keeps_its_sub_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sub-rule does not depend on the message's words: a status error reworded by the
    reader is still E103.5."""
    import mem.format.model.record as record_module

    root = tmp_path / "store"
    shutil.copytree(SUB_FIXTURES / "E103.5", root)
    real = record_module.validate_record

    def reworded(r: record_module.Record) -> record_module.Record:
        try:
            return real(r)
        except record_module.ValidationError as exc:
            raise record_module.ValidationError("unrecognised lifecycle state", rule=exc.rule) from None

    monkeypatch.setattr(record_module, "validate_record", reworded)
    found = [(f.code, f.rule, f.message) for f in verify_store(root, full=True).findings]
    assert found == [("E103", "E103.5", "unrecognised lifecycle state")]
