"""The reliability suite's tally: every test adds its counts; the run prints the report table.

Counts go to ``.pytest_cache/d/reliability/`` (one file per process, merged at the end, so
``pytest -n 2`` works too) and the merged table is printed after the run and written to
``.pytest_cache/d/reliability/report.json`` and ``report.md``. ``tests/reliability/README.md``
quotes a run of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mem.format.store.store import Store

COLUMNS = ("trials", "lost", "inconsistent", "examples", "notes")
_TALLY: dict[str, dict[str, Any]] = {}


def add_tally(row: str, *, note: str | None = None, **counts: int) -> None:
    r = _TALLY.setdefault(row, {"trials": 0, "lost": 0, "inconsistent": 0, "examples": 0, "notes": []})
    for k, v in counts.items():
        if k not in r:
            raise KeyError(k)
        r[k] += v
    if note and note not in r["notes"]:
        r["notes"].append(note)


@pytest.fixture
def tally() -> Callable[..., None]:
    return add_tally


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A module that names its attack family (``ATTACK = "attack: ..."``) gets one trial per test
    in that row, and an inconsistency for each test that failed: the attack catalogue's files
    that check exact outcomes (secrets, terminal text, forgetting) count without a tally call
    in every test."""
    outcome = yield
    rep = outcome.get_result()
    attack = getattr(getattr(item, "module", None), "ATTACK", None)
    if isinstance(attack, str) and rep.when == "call" and not rep.skipped:
        add_tally(attack, trials=1, inconsistent=0 if rep.passed else 1)


def _report_dir(config: pytest.Config) -> Path:
    assert config.cache is not None
    return Path(config.cache.mkdir("reliability"))


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # (a historic hook: it runs for this conftest too, although it is found after session start)
    if getattr(config, "cache", None) is None or _is_worker(config):
        return
    for p in _report_dir(config).glob("tally-*.json"):
        p.unlink()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if getattr(session.config, "cache", None) is None or not _TALLY:
        return
    out = _report_dir(session.config) / f"tally-{os.getpid()}.json"
    out.write_text(json.dumps(_TALLY, indent=1), "utf-8")


def merged(config: pytest.Config) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for p in sorted(_report_dir(config).glob("tally-*.json")):
        for row, r in json.loads(p.read_text("utf-8")).items():
            m = rows.setdefault(row, {"trials": 0, "lost": 0, "inconsistent": 0, "examples": 0, "notes": []})
            for k in ("trials", "lost", "inconsistent", "examples"):
                m[k] += r[k]
            m["notes"] += [n for n in r["notes"] if n not in m["notes"]]
    return dict(sorted(rows.items()))


def table(rows: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| fault / target | trials | records lost | inconsistencies after recovery | examples / inputs tried | notes |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row, r in rows.items():
        lines.append(
            f"| {row} | {r['trials']} | {r['lost']} | {r['inconsistent']} | {r['examples']} | "
            + "; ".join(r["notes"]) + " |"
        )
    return "\n".join(lines)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if getattr(config, "cache", None) is None or _is_worker(config):
        return
    rows = merged(config)
    if not rows:
        return
    d = _report_dir(config)
    (d / "report.json").write_text(json.dumps(rows, indent=1), "utf-8")
    md = table(rows)
    (d / "report.md").write_text(md + "\n", "utf-8")
    terminalreporter.write_sep("=", "reliability report")
    terminalreporter.write_line(md)
    terminalreporter.write_line(f"(written to {d / 'report.md'})")


@pytest.fixture(scope="module")
def template_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An initialised empty store to copy (init once per module, copy per trial)."""
    root = tmp_path_factory.mktemp("template") / "store"
    Store.init(root, actor="reliability@test")
    return root
