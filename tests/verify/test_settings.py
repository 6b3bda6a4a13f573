"""Every setting of config.toml has one rule (mem.format.rules.settings.SETTINGS): the code that
reads it gets its value and its default from there, and a bad value gets the same error (file,
setting, problem, exit code) from every command that reads it, the MCP server and `mem verify`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mem.format.base.errors import ExitCode, MemError
from mem.format.embed import choose
from mem.format.index.backlog import bulk_nice, bulk_threads
from mem.format.index.follower import full_scan_period
from mem.format.rules import settings
from mem.format.rules.config import Config, read_config
from mem.format.rules.settings import SETTINGS, config_findings
from mem.format.search.engine import Searcher
from mem.format.search.lexfast import lexical_search
from mem.format.store import readlog
from mem.format.store.store import Store
from mem.mcpserver.memory import ScopedMemory
from tests.conftest import MEM_EXE, run_mem

ROOT = Path(__file__).resolve().parents[2]

#: A value of each setting that breaks its rule.
BAD: dict[tuple[str, str], Any] = {
    ("embedder", "provider"): "gpt",
    ("embedder", "threads"): 0,
    ("embedder", "graph"): "fp16",
    ("embedder", "bulk_nice"): 40,
    ("search", "default_k"): 0,
    ("search", "rerank"): "yes",
    ("search", "rerank_top"): 1001,
    ("search", "fusion"): "max",
    ("search", "vector_weight"): 2,
    ("search", "full_scan_seconds"): -1,
    ("mcp", "min_score"): "high",
    ("audit", "reads"): 1,
    ("permissions", "file_mode"): "7777",
    ("permissions", "dir_mode"): "0000",
}

#: A good value of each setting other than its default, and the value a reader then gets.
GOOD: dict[tuple[str, str], tuple[Any, Any]] = {
    ("embedder", "provider"): ("hashing", "hashing"),
    ("embedder", "threads"): (3, 3),
    ("embedder", "graph"): ("float", "float"),
    ("embedder", "bulk_nice"): (4, 4),
    ("search", "default_k"): (3, 3),
    ("search", "rerank"): (True, True),
    ("search", "rerank_top"): (7, 7),
    ("search", "fusion"): ("rrf", "rrf"),
    ("search", "vector_weight"): (0.25, 0.25),
    ("search", "full_scan_seconds"): (5, 5.0),
    ("mcp", "min_score"): (0.5, 0.5),
    ("audit", "reads"): (True, True),
    ("permissions", "file_mode"): ("0640", 0o640),
    ("permissions", "dir_mode"): ("0750", 0o750),
}


def _toml(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def _exit_of(section: str) -> int:
    return {"embedder": ExitCode.EMBEDDER_UNAVAILABLE, "search": ExitCode.INVALID_INPUT,
            "mcp": ExitCode.INVALID_INPUT}.get(section, ExitCode.STORE_INVALID)


def _store(tmp_path: Path, n: int = 12) -> Store:
    store = Store.init(tmp_path / "s", actor="tester@test")
    (store.root / "config.toml").write_text('[embedder]\nprovider = "hashing"\n', "utf-8")
    store = Store.open(store.root)
    with store.batch():
        for i in range(n):
            store.add(f"note {i} about the harbour ferries", scope="alice", kind="fact")
    return store


# -- what every reader reads ------------------------------------------------------------------


def _hits(store: Store) -> int:
    with Searcher(store, long_lived=False) as s:
        return len(s.search("harbour ferries", mode="lexical").hits)


def _lean_hits(store: Store) -> int:
    res = lexical_search(str(store.root), "harbour ferries")
    assert res is not None  # a fresh index: the lean path answers
    return len(res.hits)


def _rerank(store: Store, i: int) -> Any:
    with Searcher(store, long_lived=False) as s:
        return s._rerank_setting(None)[i]


def _fusion(store: Store, i: int) -> Any:
    with Searcher(store, long_lived=False) as s:
        return s._fusion()[i]


def _file_mode(store: Store) -> int:
    rec = store.add("a private note", scope="modes", kind="fact")
    return stat.S_IMODE(next((store.root / "records" / "modes").glob(f"{rec.id}.md")).stat().st_mode)


def _dir_mode(store: Store) -> int:
    scope = f"folder{len(list((store.root / 'records').iterdir()))}"  # a new folder each time
    store.add("a private note", scope=scope, kind="fact")
    return stat.S_IMODE((store.root / "records" / scope).stat().st_mode)


#: Each setting's readers: what the code that uses it gets from a store (the store is opened
#: again after config.toml is written). Every setting of SETTINGS has at least one.
READERS: dict[tuple[str, str], list[Callable[[Store], Any]]] = {
    ("embedder", "provider"): [lambda s: choose(s.config, env={}).provider],
    ("embedder", "threads"): [lambda s: choose(s.config, env={}).threads, lambda s: bulk_threads(s.config, env={})],
    ("embedder", "graph"): [lambda s: choose(s.config, env={}).graph],
    ("embedder", "bulk_nice"): [lambda s: bulk_nice(s.config)],
    ("search", "default_k"): [_hits, _lean_hits],
    ("search", "rerank"): [lambda s: _rerank(s, 0)],
    ("search", "rerank_top"): [lambda s: _rerank(s, 1)],
    ("search", "fusion"): [lambda s: _fusion(s, 0)],
    ("search", "vector_weight"): [lambda s: _fusion(s, 1)],
    ("search", "full_scan_seconds"): [full_scan_period],
    ("mcp", "min_score"): [lambda s: ScopedMemory(s, ["alice"]).default_floor()],
    ("audit", "reads"): [readlog.enabled],
    ("permissions", "file_mode"): [lambda s: s.config.file_mode, _file_mode],
    ("permissions", "dir_mode"): [lambda s: s.config.dir_mode, _dir_mode],
}

#: What a reader gets when a setting without a default value is unset (Setting.unset says it).
UNSET: dict[tuple[str, str], list[Any]] = {
    ("embedder", "threads"): [1, len(os.sched_getaffinity(0))],
    ("embedder", "graph"): [""],
    ("mcp", "min_score"): [None],  # the store's embedder (hashing) has no calibrated floor
}


#: The settings a command reads and refuses when bad (E007); the other one, ``[verify] severity``,
#: is read by ``mem verify`` alone, which reports a bad entry (W001) and goes on without it
#: (test_verify_severity_is_a_setting_of_the_table below).
READ_SETTINGS = {name: s for name, s in SETTINGS.items() if s.rule.startswith("E007.")}


def test_the_tables_cover_every_setting() -> None:
    assert set(SETTINGS) - set(READ_SETTINGS) == {("verify", "severity")}
    assert set(BAD) == set(GOOD) == set(READERS) == set(READ_SETTINGS)
    for (section, key), s in READ_SETTINGS.items():
        assert s.default is not None or s.unset, (section, key)  # unset means something said
        assert (s.default is None) == ((section, key) in UNSET), (section, key)
        assert s.rule.startswith("E007."), (section, key)


def _config(root: Path, section: str, key: str, value: Any) -> None:
    """config.toml with ``key = value`` in ``[section]`` and the test embedder."""
    if (section, key) == ("embedder", "provider"):
        text = f"[embedder]\nprovider = {_toml(value)}\n"
    elif section == "embedder":
        text = f'[embedder]\nprovider = "hashing"\n{key} = {_toml(value)}\n'
    else:
        text = f'[embedder]\nprovider = "hashing"\n\n[{section}]\n{key} = {_toml(value)}\n'
    (root / "config.toml").write_text(text, "utf-8")


@pytest.mark.parametrize("name", sorted(READ_SETTINGS), ids=lambda n: ".".join(n))
def test_every_reader_reads_the_setting_and_its_one_default(
        name: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset, each reader gets SETTINGS' default (and follows it when the table's default is
    changed: no reader keeps a default of its own); set, each reader gets the value."""
    section, key = name
    store = _store(tmp_path)
    if section == "embedder" and key == "provider":
        (store.root / "config.toml").write_text("", "utf-8")
    readers = READERS[name]
    s = SETTINGS[name]
    if s.default is not None:
        assert [r(Store.open(store.root)) for r in readers] == [s.default] * len(readers)
        # another default in the one table: every reader follows it
        other = GOOD[name][1] if name != ("embedder", "provider") else "hashing"
        raw_other = GOOD[name][0]
        monkeypatch.setattr(s, "default", s.accept(raw_other))
        assert [r(Store.open(store.root)) for r in readers] == [other] * len(readers)
        monkeypatch.undo()
    else:
        assert [r(Store.open(store.root)) for r in readers] == UNSET[name]
    raw, want = GOOD[name]
    _config(store.root, section, key, raw)
    assert [r(Store.open(store.root)) for r in readers] == [want] * len(readers)


@pytest.mark.parametrize("name", sorted(READ_SETTINGS), ids=lambda n: ".".join(n))
def test_a_bad_value_is_one_error_everywhere(name: tuple[str, str], tmp_path: Path) -> None:
    """Each reader raises the setting's error: config.toml, the problem ``mem verify`` reports
    (which names the setting and the value), the sub-rule, the section's exit code."""
    section, key = name
    store = _store(tmp_path)
    _config(store.root, section, key, BAD[name])
    [(rule, problem)] = config_findings(read_config(store.root).raw)
    assert rule == SETTINGS[name].rule and f"[{section}]" in problem and key in problem
    for reader in READERS[name]:
        if reader is _lean_hits:  # the lean path gives up; the full path reports the value
            assert lexical_search(str(store.root), "harbour ferries") is None
            continue
        with pytest.raises(MemError) as err:
            reader(Store.open(store.root))
        exc = err.value
        assert (exc.message, exc.path, exc.rule, exc.exit_code) == (
            problem, str(store.root / "config.toml"), rule, _exit_of(section)), reader


def test_an_environment_value_is_checked_by_the_settings_rule() -> None:
    with pytest.raises(MemError) as err:
        choose(Config(), env={"MEM_EMBED_THREADS": "0"})
    assert err.value.message == "MEM_EMBED_THREADS = '0' must be a whole number from 1 to 256"
    assert err.value.exit_code == ExitCode.EMBEDDER_UNAVAILABLE and err.value.path is None
    with pytest.raises(MemError, match="MEM_EMBEDDER = 'gpt' must be"):
        choose(Config(), env={"MEM_EMBEDDER": "gpt"})
    assert choose(Config(embedder={"provider": "hashing"}), env={"MEM_EMBEDDER": " MiniLM "}).provider == "minilm"
    assert bulk_threads(Config(embedder={"threads": 2}), env={"MEM_EMBED_THREADS": "5"}) == 5


def test_no_reader_reads_a_setting_around_the_rule() -> None:
    """A setting's value is read through Config.value / settings.value_in, never from its table:
    no ``.search.get(``, ``.embedder["threads"]``, ``raw.get("mcp")`` outside the rules layer."""
    direct = re.compile(r"\.(embedder|search|permissions)\s*(\.get\(|\[)|raw\.get\(\s*[\"'](mcp|audit)[\"']")
    found = []
    for folder in ("format", "cli", "mcpserver"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.parent.name == "rules":
                continue
            for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                if direct.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


# -- through the real executable and the MCP server -------------------------------------------

#: The command that reads each setting (arguments after --store S), and its environment; a
#: batch search reports a line's error on stdout.
SEARCH = (["search", "harbour"], {"MEM_EMBEDDER": "hashing"})
BATCH = (["search", "--batch"], {"MEM_EMBEDDER": "hashing"})
COMMANDS: dict[tuple[str, str], tuple[list[str], dict[str, str]]] = {
    ("embedder", "provider"): (["embed"], {"MEM_EMBEDDER": ""}),
    ("embedder", "threads"): (["embed"], {"MEM_EMBEDDER": ""}),
    ("embedder", "graph"): (["embed"], {"MEM_EMBEDDER": ""}),
    ("embedder", "bulk_nice"): (["embed"], {"MEM_EMBEDDER": ""}),
    ("search", "default_k"): SEARCH,
    ("search", "rerank"): SEARCH,
    ("search", "rerank_top"): SEARCH,
    ("search", "fusion"): SEARCH,
    ("search", "vector_weight"): SEARCH,
    ("search", "full_scan_seconds"): BATCH,  # a long-lived searcher's upkeep reads it
    ("audit", "reads"): BATCH,
    ("permissions", "file_mode"): (["add", "a private memory", "--scope", "alice"], {}),
    ("permissions", "dir_mode"): (["add", "a private memory", "--scope", "newscope"], {}),
}


def _error_of(r: Any) -> dict[str, Any]:
    """The error a command reported: a batch line's (stdout), else --json-errors' (stderr)."""
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    if lines and "error" in lines[0]:
        return dict(lines[0]["error"])
    return dict(json.loads(r.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("name", sorted(COMMANDS), ids=lambda n: ".".join(n))
def test_mem_and_verify_report_a_bad_value_alike(name: tuple[str, str], tmp_path: Path) -> None:
    section, key = name
    store = _store(tmp_path, n=3)
    _config(store.root, section, key, BAD[name])
    [(rule, problem)] = config_findings(read_config(store.root).raw)
    v = run_mem("--store", str(store.root), "verify", "--json", env={"MEM_EMBEDDER": "hashing"})
    findings = [f for f in json.loads(v.stdout)["findings"] if f["code"] == "E007"]
    assert v.returncode == 1 and [(f["rule"], f["path"], f["message"]) for f in findings] == [
        (rule, "config.toml", problem)], v.stdout
    args, env = COMMANDS[name]
    r = run_mem("--json-errors", "--store", str(store.root), *args, env=env, input='{"query": "harbour"}\n')
    assert r.returncode == _exit_of(section), (r.returncode, r.stdout, r.stderr)
    err = _error_of(r)
    assert (err["message"], err["path"], err["exit_code"]) == (
        problem, str(store.root / "config.toml"), _exit_of(section)), (r.stdout, r.stderr)
    if name == ("search", "default_k"):  # the one-shot lexical search too (its lean path gives up)
        r = run_mem("--json-errors", "--store", str(store.root), "search", "harbour", "--mode", "lexical")
        assert r.returncode == ExitCode.INVALID_INPUT and json.loads(r.stderr)["message"] == problem, r.stderr
    if section == "embedder" and key != "bulk_nice":
        # a hybrid search whose query cannot be embedded answers lexically and says why
        r = run_mem("--store", str(store.root), "search", "harbour", env=env)
        assert r.returncode == 0 and f"lexical results only: {store.root / 'config.toml'}: {problem}" in r.stderr


def test_default_k_is_what_mem_search_returns_without_k(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _config(store.root, "search", "default_k", 4)
    for mode in ("lexical", "hybrid"):
        r = run_mem("--store", str(store.root), "search", "harbour ferries", "--mode", mode, "--json",
                    env={"MEM_EMBEDDER": "hashing"})
        assert r.returncode == 0 and len(json.loads(r.stdout)["hits"]) == 4, r.stderr
        r = run_mem("--store", str(store.root), "search", "harbour ferries", "--mode", mode, "--json", "-k", "6",
                    env={"MEM_EMBEDDER": "hashing"})
        assert r.returncode == 0 and len(json.loads(r.stdout)["hits"]) == 6, r.stderr


async def _mcp_errors(root: Path) -> list[str]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    assert MEM_EXE
    params = StdioServerParameters(command=MEM_EXE, args=["mcp", "--store", str(root), "--scope", "alice"],
                                   env={"MEM_EMBEDDER": "hashing", "MEM_ACTOR": "agent@test", "NO_COLOR": "1"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        res = await session.call_tool("recall", {"query": "harbour"})
        assert res.is_error
        return [str(getattr(c, "text", "")) for c in res.content]


@pytest.mark.parametrize("name", [("mcp", "min_score"), ("search", "fusion"), ("search", "rerank_top")],
                         ids=lambda n: ".".join(n))
def test_mcp_recall_reports_a_bad_value_as_mem_does(name: tuple[str, str], tmp_path: Path) -> None:
    section, key = name
    store = _store(tmp_path, n=3)
    _config(store.root, section, key, BAD[name])
    [(rule, problem)] = config_findings(read_config(store.root).raw)
    [text] = asyncio.run(_mcp_errors(store.root))
    assert f"error [invalid-input]: {store.root / 'config.toml'}: {problem} (hint: " in text, text
    assert rule in text
    v = run_mem("--store", str(store.root), "verify", "--json", env={"MEM_EMBEDDER": "hashing"})
    assert [f["message"] for f in json.loads(v.stdout)["findings"] if f["code"] == "E007"] == [problem]


def test_the_tables_of_mcp_and_audit_must_be_tables(tmp_path: Path) -> None:
    store = _store(tmp_path, n=1)
    for section in ("mcp", "audit"):
        (store.root / "config.toml").write_text(f"{section} = 3\n", "utf-8")
        with pytest.raises(MemError) as err:
            Store.open(store.root)
        assert err.value.rule == "E005.2" and f"[{section}] must be a table" in err.value.message
    assert settings.SECTION_RULES.keys() >= {sec for sec, _ in SETTINGS}


def test_verify_severity_is_a_setting_of_the_table(tmp_path: Path) -> None:
    """``[verify] severity``'s rule, default and problem come from SETTINGS: ``mem verify`` reports
    a bad entry as W001 naming config.toml in the setting's words, and applies the good ones."""
    s = SETTINGS[("verify", "severity")]
    assert s.rule == "W001" and s.default is None and s.unset
    assert s.accept({"W301": "error"}) == {"W301": "error"} and s.accept({"W301": "loud"}) is None
    assert s.accept("W301") is None and s.accept({"W301": 1}) is None
    store = _store(tmp_path, n=2)
    for raw, problem in (('{ W301 = "loud", W101 = "ignore" }', "[verify] severity W301 = 'loud': use one of error, warning, ignore"),
                         ('"W301"', "[verify] severity must be a table of CODE = level")):
        (store.root / "config.toml").write_text(f'[embedder]\nprovider = "hashing"\n\n[verify]\nseverity = {raw}\n', "utf-8")
        [(rule, found)] = config_findings(read_config(store.root).raw)
        assert (rule, found) == ("W001", problem) == ("W001", s.problem(read_config(store.root).raw["verify"]["severity"]))
        v = run_mem("--store", str(store.root), "verify", "--json", env={"MEM_EMBEDDER": "hashing"})
        report = json.loads(v.stdout)
        assert [(f["code"], f["path"], f["message"]) for f in report["findings"] if f["code"] == "W001"] == [
            ("W001", "config.toml", problem)], v.stdout
        assert v.returncode == 0  # a warning: verify goes on
        # the good entry is applied; a value that is not a table sets none
        assert report["overrides"] == ({"W101": "ignore"} if raw.startswith("{") else {}), report
    # a reader that asks for it through the table gets the setting's error, naming the file
    with pytest.raises(MemError) as err:
        Store.open(store.root).config.value("verify", "severity")
    assert (err.value.message, err.value.path, err.value.rule) == (
        "[verify] severity must be a table of CODE = level", str(store.root / "config.toml"), "W001")
    (store.root / "config.toml").write_text("", "utf-8")
    assert Store.open(store.root).config.value("verify", "severity") is None  # unset: no override
