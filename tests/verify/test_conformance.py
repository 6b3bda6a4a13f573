"""The code registry, spec/validation-codes.md and spec/fixtures/ agree; each fixture yields
exactly its code."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from mem.format.verify.checks import RULES, verify_store

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "spec" / "fixtures"
CODES_MD = ROOT / "spec" / "validation-codes.md"
#: Codes of the derived indexes: their fixtures need a built (git-ignored) index and are made in
#: tests/verify/test_index_codes.py instead of being committed.
INDEX_CODES = {"E401", "W401", "W402", "W403", "W404", "W405"}
#: E109 (a scope folder with a name Windows reserves) cannot be committed: this repository must
#: check out on Windows too. Its store is made here, at test time.
BUILT_HERE = {"E109"}
FILE_CODES = sorted(set(RULES) - INDEX_CODES - BUILT_HERE)


def _load_builder():
    spec = importlib.util.spec_from_file_location("fixtures_build", FIXTURES / "build.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_code_is_documented_with_its_severity_and_level() -> None:
    text = CODES_MD.read_text("utf-8")
    headings = re.findall(r"^### ([EW]\d{3})$", text, re.MULTILINE)
    assert headings == list(RULES), "headings must list the registry's codes, in order"
    rows = dict(
        (m.group(1), (m.group(2), m.group(3)))
        for m in re.finditer(r"^\| \[([EW]\d{3})\]\(#\w+\) \| (\w+) \| (\w+) \|", text, re.MULTILINE)
    )
    assert rows == {c: (r.severity, r.level) for c, r in RULES.items()}
    for code, rule in RULES.items():
        assert code[0] == ("E" if rule.severity == "error" else "W")
        section = text.split(f"### {code}\n", 1)[1].split("\n### ", 1)[0]
        assert "Fix:" in section and rule.title in section


def test_fixture_folders_are_exactly_the_codes() -> None:
    dirs = {p.name for p in FIXTURES.iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert dirs == set(FILE_CODES) | {"valid"}


def test_fixtures_are_up_to_date() -> None:
    assert _load_builder().main(["--check"]) == 0


def test_valid_fixture_is_valid() -> None:
    report = verify_store(FIXTURES / "valid", full=True)
    assert report.findings == []
    assert report.valid
    assert report.counts()["records"] == 4 and report.counts()["tombstones"] == 1


@pytest.mark.parametrize("code", FILE_CODES)
def test_fixture_yields_exactly_its_code(code: str) -> None:
    full = verify_store(FIXTURES / code, full=True)
    assert {f.code for f in full.findings} == {code}
    assert full.valid == (RULES[code].severity == "warning")
    fast = verify_store(FIXTURES / code)
    expected = {code} if RULES[code].level == "fast" else set()
    assert {f.code for f in fast.findings} == expected
    for f in full.findings:
        assert f.path and f.message and f.fix == RULES[code].fix
        assert f.severity == RULES[code].severity


@pytest.mark.parametrize("name", ["con", "nul.txt", "com1", "lpt9.a.b", "aux"])
def test_a_reserved_scope_folder_is_reported_as_e109(tmp_path: Path, name: str) -> None:
    import shutil

    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "valid", root)
    folder = root / "records" / name
    folder.mkdir()
    src = next((root / "records" / "alice").glob("*.md"))
    (folder / src.name).write_text(src.read_text("utf-8").replace("scope: alice", f"scope: {name}"), "utf-8")
    src.unlink()  # the id is only in the reserved folder (not a duplicate id)
    for full in (True, False):
        report = verify_store(root, full=full)
        found = {(f.code, f.path) for f in report.findings}
        assert ("E109", f"records/{name}") in found
        assert not report.valid
