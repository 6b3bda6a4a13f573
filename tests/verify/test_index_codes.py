"""The derived-index codes (E401, W401-W405) and their sub-rules, on indexes built at test time
(they are local, git-ignored data, so these fixtures cannot be committed under spec/fixtures/)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from mem.format.index.derived import attach, rebuild
from mem.format.store.store import Store
from mem.format.verify.checks import RULES, SUBRULES, verify_store
from tests.conftest import run_mem
from tests.verify.test_verify_cli import _tree_digest


@pytest.fixture(autouse=True)
def _hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_EMBEDDER", "hashing")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    os.environ["MEM_EMBEDDER"] = "hashing"
    try:
        s = Store.init(tmp_path_factory.mktemp("idx") / "store", actor="t@t")
        attach(s)
        for i in range(6):
            s.add(f"note {i} about tea, trains and the river", scope="ana")
        rebuild(s)
    finally:
        del os.environ["MEM_EMBEDDER"]
    return s.root


@pytest.fixture
def copy(indexed: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "store"
    shutil.copytree(indexed, dest)
    return dest


def codes(root: Path, **kw: bool) -> set[str]:
    return {f.code for f in verify_store(root, **kw).findings}


def test_built_index_is_clean_and_verify_writes_nothing(copy: Path) -> None:
    before = _tree_digest(copy)
    assert codes(copy) == set() and codes(copy, full=True) == set()
    assert _tree_digest(copy) == before  # not even SQLite journals or a lock file


@pytest.mark.parametrize("pointer", ["lexical.json", "vectors.json"])
def test_e401_garbage_in_a_manifest(copy: Path, pointer: str) -> None:
    p = copy / ".mem" / "index" / pointer
    p.write_bytes(p.read_bytes()[:17])  # truncated
    assert codes(copy) == {"E401"}
    r = run_mem("verify", str(copy), "--json", env={"MEM_EMBEDDER": "hashing"})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (f,) = r.json()["findings"]
    assert f["code"] == "E401" and "mem rebuild" in f["fix"]


def test_w401_records_changed_outside_the_index(copy: Path) -> None:
    Store.open(copy, actor="t@t").add("a note written without the index listener", scope="ana")
    assert codes(copy) == {"W401"}


def test_w402_other_embedding_space(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_EMBEDDER", "minilm")  # compared by manifest; the model is not loaded
    assert codes(copy) == {"W402"}


def test_w405_vectors_of_an_older_text_recipe(copy: Path) -> None:
    p = copy / ".mem" / "index" / "vectors.json"
    m = json.loads(p.read_text("utf-8"))
    del m["text_recipe"]  # as a mem of recipe 1 wrote it (tests/search/test_embedtext.py: the rest)
    p.write_text(json.dumps(m), "utf-8")
    assert codes(copy) == {"W405"} and codes(copy, full=True) == {"W405"}


def test_w403_counts_disagree(copy: Path) -> None:
    s = Store.open(copy, actor="t@t")
    scope_dir = copy / "records" / "ana"
    st = scope_dir.stat()
    victim = next(s.iter_records())
    s.forget([victim.id], reason="t")  # no index listener: the index still holds it
    os.utime(scope_dir, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the folder looks unchanged
    assert codes(copy) == {"W403"}
    # --full stats every file and sees the removal (the vector count still disagrees too)
    assert codes(copy, full=True) == {"W401", "W403"}


@pytest.mark.parametrize("leftover", ["build-0123456789", "lexical-0123456789", "vectors-0123456789"])
def test_w404_leftover_of_an_interrupted_rebuild_or_compact(copy: Path, leftover: str) -> None:
    d = copy / ".mem" / "index" / leftover
    d.mkdir()
    (d / "meta.json").write_text("{}", "utf-8")
    r = run_mem("verify", str(copy), "--json", env={"MEM_EMBEDDER": "hashing"})
    (f,) = r.json()["findings"]
    assert f["code"] == "W404" and f["path"].endswith(leftover) and "mem compact" in f["fix"]
    assert r.returncode == 0  # a warning: the live indexes are whole
    assert run_mem("--store", str(copy), "compact", env={"MEM_EMBEDDER": "hashing"}).returncode == 0
    assert not d.exists() and codes(copy) == set()


def _lexical_of_an_older_schema(root: Path) -> None:
    p = root / ".mem" / "index" / "lexical.json"
    m = json.loads(p.read_text("utf-8"))
    p.write_text(json.dumps({**m, "schema": 1}), "utf-8")


def _forgotten_behind_the_index(root: Path) -> None:
    s = Store.open(root, actor="t@t")
    scope_dir = root / "records" / "ana"
    st = scope_dir.stat()
    s.forget([next(s.iter_records()).id], reason="t")
    os.utime(scope_dir, ns=(st.st_atime_ns, st.st_mtime_ns))


def _truncate(name: str) -> object:
    def go(root: Path) -> None:
        p = root / ".mem" / "index" / name
        p.write_bytes(p.read_bytes()[:17])
    return go


#: One store per sub-rule of the index codes, built from the indexed store: (what to do, whether
#: --full, the sub-rules found). Every sub-rule of E401, W401 and W403 is here.
_SUB_CASES = {
    "E401.1": (_truncate("lexical.json"), False, {"E401.1"}),
    "E401.2": (_truncate("vectors.json"), False, {"E401.2"}),
    "W401.1": (lambda root: Store.open(root, actor="t@t").add("a note written without the index listener",
                                                                scope="ana"), False, {"W401.1"}),
    "W401.2": (_lexical_of_an_older_schema, False, {"W401.2"}),
    "W403.1": (_forgotten_behind_the_index, False, {"W403.1", "W403.2"}),
    "W403.2": (_forgotten_behind_the_index, True, {"W401.1", "W403.2"}),
}


def test_every_index_sub_rule_has_a_case() -> None:
    assert sorted(_SUB_CASES) == sorted(s for s, r in SUBRULES.items() if r.parent in ("E401", "W401", "W403"))


@pytest.mark.parametrize("sub", sorted(_SUB_CASES))
def test_index_sub_rule_named_with_its_section(copy: Path, sub: str) -> None:
    make, full, want = _SUB_CASES[sub]
    make(copy)  # type: ignore[operator]
    found = verify_store(copy, full=full).findings
    assert {f.rule for f in found} == want
    for f in found:
        rule = SUBRULES[str(f.rule)]
        assert (f.code, f.fix) == (rule.parent, rule.fix) and f.fix.endswith(f"see {rule.section}")
        assert f.severity == RULES[rule.parent].severity
