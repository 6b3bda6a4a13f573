"""`mem search` and `mem rebuild` through the real executable: JSON shapes, batch, exit codes."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from tests.conftest import run_mem

ENV = {"MEM_EMBEDDER": "hashing"}


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("cli") / "st"
    assert run_mem("init", str(root), env=ENV).returncode == 0
    ids: dict[str, str] = {}
    for name, text, scope in (
        ("lisbon", "Ana lives in Lisbon", "ana"),
        ("tea", "Ana prefers green tea", "ana"),
        ("porto", "Bob lives in Porto", "bob"),
    ):
        r = run_mem("--store", str(root), "add", text, "--scope", scope, env=ENV)
        assert r.returncode == 0, r.stderr
        ids[name] = r.stdout.strip()
    return root, ids


def test_json_shape_exact(cli_store: tuple[Path, dict[str, str]]) -> None:
    root, ids = cli_store
    r = run_mem("--store", str(root), "search", "Lisbon", "--mode", "lexical", "--json", env=ENV)
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert list(out) == ["query", "mode", "hits", "warnings"]
    assert out["query"] == "Lisbon" and out["mode"] == "lexical" and out["warnings"] == []
    assert len(out["hits"]) == 1
    hit = out["hits"][0]
    assert list(hit) == ["id", "score", "scope", "kind", "status", "content", "arms"]
    assert hit["id"] == ids["lisbon"]
    assert hit | {"score": 0} == {"id": ids["lisbon"], "score": 0, "scope": "ana", "kind": "note",
                                  "status": "active", "content": "Ana lives in Lisbon\n", "arms": ["lexical"]}
    assert isinstance(hit["score"], float) and hit["score"] > 0


def test_hybrid_scope_and_explain(cli_store: tuple[Path, dict[str, str]]) -> None:
    root, ids = cli_store
    r = run_mem("--store", str(root), "search", "lives", "--scope", "bob", "--json", "--explain", env=ENV)
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["mode"] == "hybrid"
    assert [h["id"] for h in out["hits"]] == [ids["porto"]]
    ex = out["hits"][0]["explain"]
    assert set(ex) >= {"base", "prior", "prior_parts", "lexical", "vector"}
    assert out["hits"][0]["arms"] == ["lexical", "vector"]


def test_no_results_is_exit_0_empty_list(cli_store: tuple[Path, dict[str, str]]) -> None:
    root, _ = cli_store
    r = run_mem("--store", str(root), "search", "zanzibar", "--mode", "lexical", "--json", env=ENV)
    assert r.returncode == 0 and r.json()["hits"] == []


def test_operator_words_alone_are_searched_as_words(cli_store: tuple[Path, dict[str, str]]) -> None:
    """and/or/not/to/in are dropped from a query with other words, but a query of them alone is
    searched as those words (tantivy reads lowercase words as terms): never 'no searchable words'."""
    root, ids = cli_store
    r = run_mem("--store", str(root), "search", "IN", "--mode", "lexical", "--json", env=ENV)
    assert r.returncode == 0, r.stderr
    assert sorted(h["id"] for h in r.json()["hits"]) == sorted([ids["lisbon"], ids["porto"]])
    r = run_mem("--store", str(root), "search", "in Lisbon", "--mode", "lexical", "--json", env=ENV)
    assert r.returncode == 0 and [h["id"] for h in r.json()["hits"]] == [ids["lisbon"]]  # "in" dropped
    r = run_mem("--store", str(root), "search", "not", "--mode", "lexical", "--json", env=ENV)
    assert r.returncode == 0 and r.json()["hits"] == [], r.stderr  # a word no record holds
    r = run_mem("--store", str(root), "search", "in", "--json", env=ENV)  # hybrid
    assert r.returncode == 0, r.stderr
    assert {ids["lisbon"], ids["porto"]} <= {h["id"] for h in r.json()["hits"]}


def test_failed_search_is_nonzero_never_empty(cli_store: tuple[Path, dict[str, str]]) -> None:
    root, _ = cli_store
    r = run_mem("--store", str(root), "search", "?!", "--json", env=ENV)
    assert r.returncode == 4 and r.stdout == "" and "no searchable words" in r.stderr
    r = run_mem("--store", str(root), "search", "x", "--mode", "nope", env=ENV)
    assert r.returncode == 4 and r.stdout == ""
    r = run_mem("--store", str(root), "search", "x", "--scope", "Bad Scope!", env=ENV)
    assert r.returncode == 4 and r.stdout == ""


@pytest.mark.parametrize("mode", ["hybrid", "vector", "lexical"])
def test_a_query_of_undecodable_bytes_is_exit_4_in_every_mode(cli_store: tuple[Path, dict[str, str]],
                                                              mode: str) -> None:
    """Bytes that are not UTF-8 on the command line (a terminal in another encoding) reach the
    search as lone surrogates: a clear error, exit 4, no traceback (before: a TypeError from the
    tokenizer in hybrid and vector mode)."""
    import os
    import subprocess

    from tests.conftest import MEM_EXE

    root, _ = cli_store
    assert MEM_EXE is not None
    p = subprocess.run([MEM_EXE, "--store", str(root), "search", b"caf\xe9", "--mode", mode],
                       capture_output=True, env={**os.environ, **ENV}, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 4 and p.stdout == b"", err
    assert "not UTF-8" in err and "Traceback" not in err


def test_batch_one_line_per_query(cli_store: tuple[Path, dict[str, str]]) -> None:
    root, ids = cli_store
    lines = [
        {"id": 1, "query": "tea", "mode": "lexical"},
        {"query": "lives", "scope": "bob", "k": 1},
        "garbage",
        {"query": "Lisbon", "mode": "lexical", "status": ["rejected"]},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    r = run_mem("--store", str(root), "search", "--batch", input=stdin, env=ENV)
    assert r.returncode == 4  # one query failed
    outs = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(outs) == 4
    assert outs[0]["id"] == 1 and [h["id"] for h in outs[0]["hits"]] == [ids["tea"]]
    assert [h["id"] for h in outs[1]["hits"]] == [ids["porto"]]
    assert outs[2]["error"]["exit_code"] == 4 and outs[2]["query"] is None
    assert outs[3]["hits"] == []


def test_rebuild_json_and_space_guard_cli(cli_store: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ids = cli_store
    r = run_mem("--store", str(root), "rebuild", "--json", env=ENV)
    assert r.returncode == 0, r.stderr
    out = r.json()
    assert out["records"] == 3 and out["skipped"] == []
    assert out["lexical"]["docs"] == 3 and out["vectors"]["embedded"] == 3
    assert out["vectors"]["space"]["provider"] == "hashing"
    # a different configured space: vector mode refused (exit 10), hybrid degrades and says so
    bad = {"MEM_EMBEDDER": "wordllama"}
    r = run_mem("--store", str(root), "search", "Lisbon", "--mode", "vector", env=bad)
    assert r.returncode == 10 and "mem rebuild --vectors" in r.stderr and r.stdout == ""
    r = run_mem("--store", str(root), "search", "Lisbon", "--json", env=bad)
    assert r.returncode == 0
    out = r.json()
    assert out["mode"] == "lexical" and "mem rebuild --vectors" in out["warnings"][0]
    assert "warning:" in r.stderr and out["hits"]


def test_forget_through_cli_then_search(tmp_path: Path) -> None:
    root = tmp_path / "st"
    run_mem("init", str(root), env=ENV)
    rid = run_mem("--store", str(root), "add", "Secret plan about kites", env=ENV).stdout.strip()
    assert run_mem("--store", str(root), "search", "kites", "--json", env=ENV).json()["hits"]
    r = run_mem("--store", str(root), "forget", rid, "--yes", "--reason", "t", env=ENV)
    if r.returncode == 2 and "No such command" in r.stderr:
        pytest.skip("mem forget is not built yet")
    assert r.returncode == 0, r.stderr
    for mode in ("lexical", "vector", "hybrid"):
        out = run_mem("--store", str(root), "search", "kites", "--mode", mode, "--json", env=ENV)
        assert out.returncode == 0 and out.json()["hits"] == [], mode


def test_fast_path_matches_typer_command(cli_store: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from mem.cli.app import build_app
    from mem.cli.main import main
    from mem.cli.searchfast import parse

    monkeypatch.setenv("MEM_EMBEDDER", "hashing")
    root, _ = cli_store
    assert parse(["search", "q", "--help"]) is None and parse(["search", "--batch"]) is None
    assert parse(["search", "a", "b"]) is None and parse(["list"]) is None
    assert parse(["-s", "x", "search", "q", "--scope=a,b", "-k", "3"]) is not None
    for extra in (["--json", "--explain"], ["--mode", "lexical"], ["--scope", "ana", "-k", "1", "--json"]):
        args = ["--store", str(root), "search", "lives", *extra]
        assert main(args) == 0
        fast = capsys.readouterr().out
        with contextlib.suppress(SystemExit):
            build_app("search")(args=args, prog_name="mem", standalone_mode=False)
        typer_out = capsys.readouterr().out
        assert fast == typer_out and fast


def test_bad_global_option_is_the_same_usage_error_for_search(cli_store: tuple[Path, dict[str, str]]) -> None:
    root, _ = cli_store
    for cmd in (["search", "tea", "--mode", "lexical"], ["search", "tea"], ["list"]):
        r = run_mem("--store", str(root), "--lock-timeout", "x", *cmd, env=ENV)
        assert r.returncode == 2 and r.stdout == "", (cmd, r.stderr)
        assert "Invalid value for '--lock-timeout'" in r.stderr


def test_unreadable_record_file_is_named_in_a_warning(cli_store: tuple[Path, dict[str, str]]) -> None:
    """A record file broken outside mem is left out of the results, and the search says which
    file and why (stderr; `warnings` in --json); a healthy store has no warning."""
    root, _ = cli_store
    r = run_mem("--store", str(root), "search", "Lisbon", "--json", env=ENV)
    assert r.returncode == 0 and json.loads(r.stdout)["warnings"] == []
    victim = next((root / "records").rglob("*.md"))
    text = victim.read_text("utf-8")
    victim.write_text(text.replace("recorded_at: ", "recorded_at: 2026-13-45T00:00:00.000Z\nx_old: "), "utf-8")
    r = run_mem("--store", str(root), "search", "Lisbon", "--mode", "lexical", "--json", env=ENV)
    assert r.returncode == 0, r.stderr
    warnings = json.loads(r.stdout)["warnings"]
    assert len(warnings) == 1 and str(victim) in warnings[0] and "recorded_at" in warnings[0], warnings
    assert victim.stem not in [h["id"] for h in json.loads(r.stdout)["hits"]]


def test_batch_applies_the_command_line_filters_to_every_line(tmp_path: Path) -> None:
    """`--scope` (and --kind, --mode, -k...) on the command line bind every batch line: a script
    that binds the scope there never reads another scope; a line may narrow, never widen."""
    root = tmp_path / "st"
    assert run_mem("init", str(root), env=ENV).returncode == 0
    ids = {}
    for name, text, scope in (("lisbon", "Ana lives in Lisbon", "ana"), ("porto", "Bob lives in Porto", "bob")):
        r = run_mem("--store", str(root), "add", text, "--scope", scope, env=ENV)
        assert r.returncode == 0, r.stderr
        ids[name] = r.stdout.strip()
    lines = [
        {"query": "lives"},  # no scope of its own: the command line's
        {"query": "Porto", "scope": "bob"},  # widening: refused
        {"query": "lives", "scopes": ["ana", "bob"]},  # widening: refused
        {"query": "lives", "scope": "ana", "k": 1},  # narrowing: fine
        {"query": "lives", "k": 50},  # more than -k: refused
        {"query": "lives", "mode": "vector"},  # another mode: refused
        {"query": "lives", "kind": "fact"},  # outside --kind note: refused
    ]
    stdin = "".join(json.dumps(x) + "\n" for x in lines)
    r = run_mem("--store", str(root), "search", "--batch", "--scope", "ana", "--kind", "note",
                "--mode", "lexical", "-k", "5", input=stdin, env=ENV)
    assert r.returncode == 4
    outs = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(outs) == len(lines)
    assert [h["id"] for h in outs[0]["hits"]] == [ids["lisbon"]] and outs[0]["mode"] == "lexical"
    assert [h["id"] for h in outs[3]["hits"]] == [ids["lisbon"]]
    for n in (1, 2, 4, 5, 6):
        assert "hits" not in outs[n], outs[n]
        assert outs[n]["error"]["exit_code"] == 4
        assert "never widen" in outs[n]["error"]["message"]
    assert "outside the command line's --scope ana" in outs[1]["error"]["message"]
    assert ids["porto"] not in r.stdout
    # tags given on the command line are required by every line too
    r = run_mem("--store", str(root), "search", "--batch", "--tag", "nowhere", "--mode", "lexical",
                input=json.dumps({"query": "lives"}) + "\n", env=ENV)
    assert r.returncode == 0 and json.loads(r.stdout)["hits"] == []
