"""Corrupt derived files: truncated, zeroed or deleted index files and manifests.

Each is detected with a clear message (exit 9 naming the file, or a degraded answer with a
warning, as spec/index.md says), never a traceback and never a wrong answer; `mem verify`
reports it; `mem rebuild` repairs it and the next search answers in full.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from rel_harness import has_command, mem

from mem.format.store.store import Store

pytestmark = pytest.mark.skipif(not has_command("rebuild"), reason="mem rebuild not built yet")

N = 12
WORD = "lanterncopper"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with lexical and vector indexes; the vector graph (usearch) forced on."""
    import mem.format.index.derived as index_mod
    from mem.format.index import vectors as vmod

    root = tmp_path_factory.mktemp("idx") / "store"
    s = Store.init(root, actor="reliability@test")
    for i in range(N):
        s.add(f"{WORD} memory number {i} about the harbor", scope="default")
    real = vmod.build_vectors

    def with_graph(*a: object, **kw: object) -> object:
        kw["hnsw_min_rows"] = 1
        return real(*a, **kw)  # type: ignore[arg-type]

    mp = pytest.MonkeyPatch()
    mp.setattr(vmod, "build_vectors", with_graph)
    if hasattr(index_mod, "build_vectors"):
        mp.setattr(index_mod, "build_vectors", with_graph)
    mp.setenv("MEM_EMBEDDER", "hashing")
    try:
        index_mod.rebuild(Store.open(root), lexical=True, vectors=True)
    finally:
        mp.undo()
    return root


def _gen(root: Path, pointer: str) -> Path:
    m = json.loads((root / ".mem" / "index" / pointer).read_text("utf-8"))
    return root / ".mem" / "index" / str(m["generation"])


def _target(root: Path, what: str) -> Path:
    lex, vec = _gen(root, "lexical.json"), _gen(root, "vectors.json")
    if what in ("lexical.json", "vectors.json"):
        return root / ".mem" / "index" / what
    if what == "lexical generation dir":
        return lex
    for d in (lex, vec):
        if (d / what).exists():
            return d / what
        hits = sorted(p for p in d.iterdir() if p.name.endswith(what))
        if hits:
            return hits[0]
    raise AssertionError(f"no index file {what}")


#: (file, how): every index file once, the three damages spread over them.
CASES = [
    ("lexical.json", "truncate"),
    ("vectors.json", "zero"),
    ("meta.json", "delete"),
    ("state.db", "zero"),
    ("vectors.db", "delete"),
    (".idx", "truncate"),
    (".term", "zero"),
    (".store", "truncate"),
    (".pos", "delete"),
    (".fast", "zero"),
    (".npy", "truncate"),
    (".rows", "zero"),
    (".usearch", "truncate"),
    ("lexical generation dir", "delete"),
]
def _mutate(path: Path, how: str) -> None:
    if how == "delete":
        path.unlink()
    elif how == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif how == "zero":
        path.write_bytes(b"\0" * max(path.stat().st_size, 16))


def _check(indexed: Path, root: Path, what: str, how: str) -> tuple[list[str], str]:
    """Damage ``what`` by ``how`` in a copy; (failures, outcome) of search/verify/rebuild."""
    shutil.copytree(indexed, root, symlinks=True)
    target = _target(root, what)
    if target.is_dir():
        shutil.rmtree(target)
    else:
        _mutate(target, how)
    case = f"{how} {what}"
    failures: list[str] = []
    outcome = ""
    r = mem("--store", str(root), "search", "--json", WORD)
    if "Traceback" in r.stderr or r.returncode not in (0, 9, 10):
        failures.append(f"{case} / search: exit {r.returncode}: {r.stderr.strip()[-600:]}")
    elif r.returncode in (9, 10):
        outcome = "refused (exit 9/10 naming the file and `mem rebuild`)"
        if "mem rebuild" not in r.stderr or str(root) not in r.stderr:
            failures.append(f"{case} / search: refusal does not name the file and `mem rebuild`: {r.stderr.strip()}")
    else:
        res = json.loads(r.stdout)
        if len({h["id"] for h in res["hits"]}) != min(N, 10):
            failures.append(f"{case} / search: answered with {len(res['hits'])} hits, not {min(N, 10)}")
        outcome = "degraded with a warning" if res["warnings"] else "healed by the search itself"
    if has_command("verify"):
        v = mem("--store", str(root), "verify", "--json")
        if "Traceback" in v.stderr or v.returncode not in (0, 1):
            failures.append(f"{case} / verify: exit {v.returncode}: {v.stderr.strip()[-400:]}")
    rb = mem("--store", str(root), "rebuild")
    if rb.returncode != 0:
        failures.append(f"{case} / rebuild: exit {rb.returncode}: {rb.stderr.strip()[-400:]}")
        return failures, outcome
    r = mem("--store", str(root), "search", "--json", WORD)
    if r.returncode != 0 or len(json.loads(r.stdout)["hits"]) != min(N, 10) or json.loads(r.stdout)["warnings"]:
        failures.append(f"{case} / search after rebuild: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    return failures, outcome


def test_corrupt_index_files_detected_and_rebuilt(indexed: Path, tmp_path: Path, tally: Callable[..., None]) -> None:
    assert any(p.suffix == ".usearch" for p in _gen(indexed, "vectors.json").iterdir())
    failures: list[str] = []
    outcomes: set[str] = set()
    trials = 0
    for what, how in CASES:
        trials += 1
        f, o = _check(indexed, tmp_path / f"t{trials}", what, how)
        failures += f
        outcomes.add(o)
    tally(
        "corrupt derived files (truncate/zero/delete, each index file)",
        trials=trials, inconsistent=len(failures),
        note="outcomes seen: " + ", ".join(sorted(x for x in outcomes if x)),
    )
    assert failures == [], "\n".join(failures)
