"""The command line as a newcomer meets it (issue 26), through the real ``mem`` executable:
global options after the command, usage errors as JSON, exit codes of spec/cli.md, messages
that say what happened, search output that shows there is more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mem.format.base.errors import ExitCode
from mem.format.store.store import Store
from tests.conftest import run_mem


@pytest.fixture
def env(store_dir: Path) -> dict[str, str]:
    return {"MEM_STORE": str(store_dir), "MEM_EMBEDDER": "hashing"}


# --- options where people type them ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--no-color"],
        ["list", "--quiet"],
        ["list", "-q", "--scope", "alice"],
        ["list", "--no-pager"],
        ["list", "--lock-timeout", "3"],
        ["stats", "--json-errors"],
        ["search", "tea", "--no-color", "--mode", "lexical"],
        ["search", "tea", "--quiet"],
    ],
)
def test_global_options_after_the_command(env: dict[str, str], store: Store, args: list[str]) -> None:
    store.add("Alice drinks tea", scope="alice")
    r = run_mem(*args, env=env)
    assert r.returncode == 0, r.stderr
    assert "No such option" not in r.stderr


def test_store_after_the_command(tmp_path: Path, store: Store) -> None:
    store.add("Alice drinks tea", scope="alice")
    for args in (["list", "--store", str(store.root)], ["list", f"--store={store.root}"],
                 ["search", "tea", "-s", str(store.root)]):
        r = run_mem(*args, cwd=tmp_path)
        assert r.returncode == 0, (args, r.stderr)
        assert "Alice drinks tea" in r.stdout


def test_a_value_of_the_command_is_not_taken_for_a_global_option(env: dict[str, str], store: Store) -> None:
    rid = store.add("Alice drinks tea", scope="alice").id
    r = run_mem("update", rid, "--content", "--quiet", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert r.json()["content"] == "--quiet\n"


def test_json_errors_for_usage_errors(env: dict[str, str]) -> None:
    for args in (["list", "--bogus", "--json-errors"], ["--json-errors", "list", "--bogus"],
                 ["--json-errors", "show"], ["--json-errors", "--bogus"]):
        r = run_mem(*args, env=env)
        assert r.returncode == ExitCode.USAGE, (args, r.stderr)
        err = json.loads(r.stderr)
        assert err["error"] == "usage" and err["exit_code"] == 2, err
        assert set(err) == {"error", "message", "path", "line", "hint", "exit_code"}
    r = run_mem("bogus", "--json-errors", env=env)  # an unknown command: the flag counts too
    assert r.returncode == 2 and json.loads(r.stderr)["message"] == "No such command 'bogus'."
    r = run_mem("--json-errors", env=env)  # an option but no command: a usage error too
    assert r.returncode == 2 and json.loads(r.stderr)["message"] == "Missing command."
    r = run_mem(env=env)  # nothing at all: the help
    assert r.returncode == 2 and "Usage: mem" in r.stdout + r.stderr
    plain = run_mem("list", "--bogus", env=env)
    assert plain.returncode == 2 and "No such option: --bogus" in plain.stderr


def test_help_points_at_installed_help(env: dict[str, str]) -> None:
    top = run_mem("--help", env=env)
    assert top.returncode == 0
    assert "spec/cli.md" not in top.stdout
    assert "mem help COMMAND" in " ".join(top.stdout.split())
    assert run_mem("help", "list", env=env).stdout == run_mem("list", "--help", env=env).stdout
    assert run_mem("help", env=env).stdout == top.stdout
    bad = run_mem("help", "lsit", env=env)
    assert bad.returncode == ExitCode.USAGE and "no command 'lsit'" in bad.stderr


# --- exits and messages that match the spec -----------------------------------------------------


def test_missing_query_is_a_usage_error(env: dict[str, str]) -> None:
    r = run_mem("search", env=env)
    assert r.returncode == ExitCode.USAGE, r.stderr
    assert "QUERY" in r.stderr


def test_missing_file_is_not_found_for_add_as_for_import(env: dict[str, str], tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.txt")
    add = run_mem("add", "--file", missing, env=env)
    imp = run_mem("import", missing, env=env)
    assert add.returncode == imp.returncode == ExitCode.NOT_FOUND, (add.stderr, imp.stderr)
    assert missing in add.stderr


def test_search_status_all(env: dict[str, str], store: Store) -> None:
    old = store.add("Alice drinks tea", scope="alice")
    store.supersede(old.id, "Alice drinks coffee and tea")
    rej = store.add("Alice drinks tea with milk", scope="alice", status="candidate")
    store.set_status(rej.id, "rejected")
    for mode in ("lexical", "hybrid"):
        r = run_mem("search", "tea", "--status", "all", "--mode", mode, "--json", env=env)
        assert r.returncode == 0, r.stderr
        statuses = {h["status"] for h in r.json()["hits"]}
        assert statuses == {"active", "superseded", "rejected"}, (mode, statuses)
    lst = run_mem("list", "--status", "all", "--json", env=env)
    assert {x["status"] for x in lst.json()} == {"active", "superseded", "rejected"}


def test_update_without_changes_says_so(env: dict[str, str], store: Store) -> None:
    rid = store.add("Alice drinks tea", scope="alice", tags=["drinks"]).id
    for args in ([], ["--tag", "drinks"]):
        r = run_mem("update", rid, *args, env=env)
        assert r.returncode == 0, r.stderr
        assert r.stderr.strip() == "no changes", r.stderr
    r = run_mem("update", rid, "--tag", "tea", env=env)
    assert r.stderr.strip() == f"updated {rid}"


@pytest.mark.parametrize("typed", ["NOTANID", "lol", "01m8t5811b3tkdpd9ch9e83m1"])
def test_a_bad_id_is_echoed_as_typed(env: dict[str, str], typed: str) -> None:
    r = run_mem("show", typed, env=env)
    assert r.returncode == ExitCode.INVALID_INPUT
    assert f"id {typed!r} is not a record id" in r.stderr, r.stderr


def test_lowercase_and_aliases_still_find_the_record(env: dict[str, str], store: Store) -> None:
    rid = store.add("Alice drinks tea", scope="alice").id
    typed = rid.lower().replace("1", "l").replace("0", "o")
    r = run_mem("show", typed, "--json", env=env)
    assert r.returncode == 0 and r.json()["id"] == rid


def test_unknown_kind_and_operation_warn(env: dict[str, str], store: Store) -> None:
    store.add("Alice drinks tea", scope="alice", kind="preference")
    r = run_mem("list", "--kind", "prefernce", env=env)
    assert r.returncode == 0 and r.stdout == ""
    assert "warning: no record has kind 'prefernce'" in r.stderr
    ok = run_mem("list", "--kind", "preference", env=env)
    assert ok.stderr == "" and "Alice drinks tea" in ok.stdout
    custom = run_mem("list", "--kind", "recipe", env=env)  # kinds are open: no record, so say so
    assert "warning" in custom.stderr
    r = run_mem("log", "--op", "bogus", env=env)
    assert r.returncode == 0 and r.stdout == ""
    assert "warning: 'bogus' is not an operation of the audit log" in r.stderr
    ok = run_mem("log", "--op", "add", env=env)
    assert ok.stderr == "" and " add " in ok.stdout


def test_search_shows_that_a_memory_has_more_lines(env: dict[str, str], store: Store) -> None:
    store.add("Alice's tea order\nGreen tea\nNo sugar\n", scope="alice")
    store.add("Alice likes tea", scope="alice")
    for mode in ("lexical", "hybrid"):
        r = run_mem("search", "tea", "--mode", mode, env=env)
        lines = {ln.split("  ")[-1] for ln in r.stdout.splitlines()}
        assert "Alice's tea order  (+2 more lines)" in r.stdout, r.stdout
        assert any(ln.endswith("Alice likes tea") for ln in r.stdout.splitlines()), lines


def test_license_is_an_spdx_string() -> None:
    """A TOML table makes setuptools print a deprecation banner twice per build."""
    import tomllib

    meta = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8"))
    assert meta["project"]["license"] == "Apache-2.0"
