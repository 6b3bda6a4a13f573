"""Dry runs, repairs and error messages that say what is true (issue 26), through the real
``mem`` executable."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mem.format.base.errors import ExitCode
from mem.format.store.store import Store
from tests.conftest import run_mem


def mem(store: Store, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_mem("--store", str(store.root), *args, env={"MEM_EMBEDDER": "hashing", **(env or {})})


def test_forget_dry_run_plan_on_stdout(store: Store) -> None:
    """spec/cli.md: a dry run's plan is its data (stdout); the header is a message (stderr)."""
    src = store.add("Alice's old phone is 0601", scope="alice")
    child = store.add("Alice can be called on 0601", scope="alice", kind="fact", derived_from=[src.id])
    r = mem(store, "forget", src.id, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        f"{src.id}\talice\tnote\tAlice's old phone is 0601\n"
        f"{child.id}\talice\tfact\tAlice can be called on 0601\t(derived from {src.id})\n"
    )
    assert r.stderr == "mem would forget 2 record(s):\n"
    assert store.get(src.id).id == src.id  # nothing forgotten
    # without --dry-run the plan is a message before the question (stderr), stdout stays empty
    r = mem(store, "forget", src.id, "--yes")
    assert r.returncode == 0 and r.stdout == ""
    assert f"{child.id}\talice\tfact" in r.stderr


def _frontmatter_swapped(path: Path) -> None:
    """Rewrite a record file out of canonical key order (same values): a W101 finding."""
    lines = path.read_text("utf-8").split("\n")
    i = next(n for n, ln in enumerate(lines) if ln.startswith("scope:"))
    j = next(n for n, ln in enumerate(lines) if ln.startswith("kind:"))
    lines[i], lines[j] = lines[j], lines[i]
    path.write_text("\n".join(lines), "utf-8")


def test_repair_dry_run_names_what_only_adopt_fixes(store: Store) -> None:
    rid = store.add("edited by hand later", scope="a").id
    path = store.root / "records" / "a" / f"{rid}.md"
    path.write_text(path.read_text("utf-8").replace("edited by hand later", "edited by hand now"), "utf-8")
    assert {f["code"] for f in mem(store, "verify", "--full", "--json").json()["findings"]} == {"E108"}
    for args in (["--dry-run"], []):
        r = mem(store, "repair", *args)
        assert r.returncode == 0, r.stderr
        assert "nothing to repair" not in r.stderr
        assert r.stdout == f"record {rid} was changed outside mem: `mem repair --adopt` accepts the change\n"
    dry = mem(store, "repair", "--dry-run", "--json").json()
    assert dry["needs_adopt"] == [rid] and dry["adopted"] == []
    assert mem(store, "repair", "--adopt").stdout == f"adopt outside change to {rid}\n"
    assert mem(store, "verify", "--full", "--json").json()["findings"] == []
    r = mem(store, "repair", "--dry-run")
    assert r.stdout == "" and "nothing to repair" in r.stderr


def test_w101_fix_hint_fixes_it(store: Store) -> None:
    rid = store.add("Alice drinks tea", scope="alice").id
    _frontmatter_swapped(store.root / "records" / "alice" / f"{rid}.md")
    found = mem(store, "verify", "--full", "--json").json()["findings"]
    assert [f["code"] for f in found] == ["W101"], found
    hint = mem(store, "verify", "--full").stdout + mem(store, "verify", "--full").stderr
    assert "mem repair --adopt" in hint, hint
    # what the hint says works
    assert mem(store, "repair", "--adopt").returncode == 0
    assert mem(store, "verify", "--full", "--json").json()["findings"] == []
    assert mem(store, "show", rid, "--json").json()["content"] == "Alice drinks tea\n"


def test_compact_dry_run_predicts_the_run(store: Store) -> None:
    for i in range(4):
        store.add(f"fact number {i} about tea", scope="alice")
    assert mem(store, "rebuild").returncode == 0
    # changes the indexes do not know yet (written without mem's index hooks), and a forget
    for i in range(5):
        store.add(f"later fact {i} about coffee", scope="bob")
    victim = mem(store, "add", "--scope", "alice", "to be forgotten").stdout.strip()
    assert mem(store, "forget", victim, "--yes").returncode == 0
    dry = mem(store, "compact", "--dry-run", "--json").json()
    r = mem(store, "compact", "--dry-run")
    assert "-> would be 9 docs, 0 deleted" in r.stderr, r.stderr
    run = mem(store, "compact", "--json").json()
    for arm, keys in (("lexical", ("docs", "deleted_docs")), ("vectors", ("vectors", "delta", "dead"))):
        for key in keys:
            assert dry["after"][arm][key] == run["after"][arm][key], (arm, key, dry["after"], run["after"])
    assert run["after"]["lexical"]["docs"] == 9


def test_capture_dry_run_rows_say_would(store: Store, tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"role": "user", "content": "Remember that my sister Ana lives in Porto."}\n', "utf-8")
    r = mem(store, "capture", str(chat), "--scope", "alice", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("would-capture "), r.stdout
    assert not re.search(r"^captured ", r.stdout, re.M)
    real = mem(store, "capture", str(chat), "--scope", "alice")
    assert real.stdout.startswith("captured "), real.stdout


def test_diff_names_the_missing_directory(store: Store, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    for args in ([str(missing), str(store.root)], [str(store.root), str(missing)]):
        r = run_mem("diff", *args, cwd=tmp_path)
        assert r.returncode == ExitCode.NOT_FOUND, r.stderr
        assert str(missing) in r.stderr and "no mem store here" not in r.stderr, r.stderr


def test_diff_stat_columns_align(tmp_path: Path) -> None:
    a = Store.init(tmp_path / "a")
    b = Store.init(tmp_path / "b")
    for i in range(12):
        b.add(f"note {i}", scope="alice")
    b.add("one note", scope="a-much-longer-scope")
    r = run_mem("diff", "--stat", str(a.root), str(b.root))
    assert r.returncode == 1, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if "|" in ln]
    assert rows == [
        " a-much-longer-scope |  +1 -0 ~0",
        " alice               | +12 -0 ~0",
    ], rows


def test_csv_import_warnings_in_line_order(store: Store, tmp_path: Path) -> None:
    gone = store.add("Bob's secret thing", scope="a").id
    store.forget([gone], reason="test")
    csv = tmp_path / "t.csv"
    csv.write_text(
        "scope,kind,content\n"
        "a,fact,Bob's secret thing\n"  # line 2: refused while importing (forgotten)
        "a,BAD KIND,hello\n"  # line 3: invalid when read
        "a,fact,ok one\n"
        "b!,fact,bad scope\n",  # line 5: invalid when read
        "utf-8",
    )
    r = mem(store, "import", str(csv), "--dry-run")
    assert r.returncode == ExitCode.INVALID_INPUT
    lines = [int(m.group(1)) for m in re.finditer(r"t\.csv:(\d+):", r.stderr)]
    assert lines == [2, 3, 5], r.stderr


def test_an_embedder_runtime_that_cannot_load_is_named(store: Store, tmp_path: Path) -> None:
    """An ImportError raised inside a package has no module name: never 'cannot import None'."""
    shadow = tmp_path / "shadow" / "onnxruntime"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        'raise ImportError("libonnxruntime.so.1: cannot open shared object file")\n', "utf-8"
    )
    store.add("Alice drinks tea", scope="alice")
    r = run_mem("--store", str(store.root), "search", "tea", "--mode", "vector",
                env={"PYTHONPATH": str(tmp_path / "shadow"), "MEM_EMBEDDER": "minilm"})
    assert r.returncode == ExitCode.EMBEDDER_UNAVAILABLE, r.stderr
    assert "None" not in r.stderr
    assert "libonnxruntime.so.1: cannot open shared object file" in r.stderr, r.stderr
    err = json.loads(run_mem("--json-errors", "--store", str(store.root), "search", "tea", "--mode", "vector",
                             env={"PYTHONPATH": str(tmp_path / "shadow"), "MEM_EMBEDDER": "minilm"}).stderr)
    assert "None" not in err["message"]
