"""The record commands through the real `mem` executable: output contracts and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mem.format.base.errors import ExitCode
from tests.conftest import run_mem

RECORD_KEYS = [
    "id", "scope", "kind", "status", "confidence", "tags", "content", "valid_from", "valid_to",
    "recorded_at", "updated_at", "superseded_at", "supersedes", "superseded_by", "derived_from",
    "source", "digest",
]  # fmt: skip


@pytest.fixture
def sdir(tmp_path: Path) -> Path:
    r = run_mem("init", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert "Initialized an empty mem store" in r.stderr
    return tmp_path / "s"


def mem(sdir: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_mem("--store", str(sdir), *args, input=input, env=env)


def test_add_show_list_json_shapes(sdir: Path) -> None:
    r = mem(sdir, "add", "I prefer green tea", "--scope", "alice", "--kind", "preference",
            "-t", "drinks,morning", "--confidence", "0.8", "--json")
    assert r.returncode == 0, r.stderr
    rec = r.json()
    assert list(rec) == RECORD_KEYS
    assert rec["content"] == "I prefer green tea\n"
    assert rec["tags"] == ["drinks", "morning"]
    assert rec["confidence"] == 0.8
    assert rec["status"] == "active"
    assert rec["source"] == {"type": "cli", "command": "add", "writer": rec["source"]["writer"]}
    assert rec["digest"].startswith("sha256:")
    shown = mem(sdir, "show", rec["id"], "--json").json()
    assert shown == rec
    listed = mem(sdir, "list", "--json").json()
    assert listed == [rec]
    raw = mem(sdir, "show", rec["id"], "--raw").stdout
    assert raw == (sdir / "records" / "alice" / f"{rec['id']}.md").read_text()


def test_add_prints_only_the_id_on_stdout(sdir: Path) -> None:
    r = mem(sdir, "add", "--scope", "bob", input="from stdin\n")
    assert r.returncode == 0
    rid = r.stdout.strip()
    assert len(rid) == 26 and r.stdout == rid + "\n"
    assert mem(sdir, "show", rid, "--json").json()["content"] == "from stdin\n"
    q = mem(sdir, "-q", "add", "quiet one", "--scope", "bob")
    assert q.stderr == "" and len(q.stdout.strip()) == 26


def test_list_in_a_pipe_is_tab_separated(sdir: Path) -> None:
    rid = mem(sdir, "add", "line one\nline two", "--scope", "a", "--kind", "fact").stdout.strip()
    out = mem(sdir, "list").stdout
    assert out == f"{rid}\ta\tfact\tactive\tline one line two\n"


def test_exit_codes(sdir: Path) -> None:
    assert mem(sdir, "show", "01ZZZZZZZZZZZZZZZZZZZZZZZZ").returncode == ExitCode.NOT_FOUND
    bad_id = mem(sdir, "show", "../../etc/passwd")
    assert bad_id.returncode == ExitCode.INVALID_INPUT and "not a record id" in bad_id.stderr
    trav = mem(sdir, "add", "x", "--scope", "../x")
    assert trav.returncode == ExitCode.INVALID_INPUT and "scope '../x' is not valid" in trav.stderr
    assert mem(sdir, "add", "", "--scope", "a").returncode == ExitCode.INVALID_INPUT
    assert mem(sdir, "add", "x", "--bogus").returncode == ExitCode.USAGE
    assert mem(sdir, "list", "--status", "weird").returncode == ExitCode.INVALID_INPUT
    nostore = run_mem("--store", str(sdir / "nope"), "list")
    assert nostore.returncode == ExitCode.NOT_FOUND and "no such directory" in nostore.stderr
    assert not list((sdir / "records").glob("*/*.md"))  # nothing was written by the failures


def test_forget_requires_confirmation_off_a_terminal(sdir: Path) -> None:
    src = mem(sdir, "add", "episode one", "--scope", "a", "--kind", "episode").stdout.strip()
    der = mem(sdir, "add", "summary", "--scope", "a", "--kind", "summary", "--derived-from", src).stdout.strip()
    dry = mem(sdir, "forget", src, "--dry-run", "--json")
    assert dry.returncode == 0
    plan = dry.json()
    assert plan["count"] == 2 and plan["dry_run"] is True
    assert plan["cascade"][0]["id"] == der and plan["cascade"][0]["derived_from"] == src
    refused = mem(sdir, "forget", src)
    assert refused.returncode == ExitCode.CONFLICT and "--yes" in refused.stderr
    done = mem(sdir, "forget", src, "--yes", "--reason", "test")
    assert done.returncode == 0 and "forgot 2 record(s)" in done.stderr
    again = mem(sdir, "add", "episode one", "--scope", "a")
    assert again.returncode == ExitCode.TOMBSTONED and "forgotten" in again.stderr
    assert mem(sdir, "list", "--json").json() == []


def test_bad_record_files_are_named(sdir: Path) -> None:
    d = sdir / "records" / "a"
    d.mkdir(mode=0o700)
    bad = d / "01JD3Z8Q4T6W0000000000000A.md"
    bad.write_bytes(b"---\nid: 01JD3Z8Q4T6W0000000000000A\nscope: a\n---\n\xff\xfe body\n")
    r = mem(sdir, "list")  # left out with a warning naming it (issue 19): the others still list
    assert r.returncode == 0
    assert str(bad) in r.stderr and "not valid UTF-8" in r.stderr and "left out" in r.stderr
    bad.write_text("---\nid: 01JD3Z8Q4T6W0000000000000B\nscope: a\nkind: fact\nstatus: active\n"
                   "recorded_at: 2024-01-01T00:00:00.000Z\ndigest: sha256:00\n---\nbody\n")
    r = mem(sdir, "list")
    assert r.returncode == 0 and "file name and frontmatter disagree" in r.stderr
    bad.write_text("---\nid: 01JD3Z8Q4T6W0000000000000A\nscope: [a\n---\nbody\n")
    r = mem(sdir, "list")
    assert r.returncode == 0 and f"{bad}:4: frontmatter is not valid YAML" in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_version_is_refused(sdir: Path) -> None:
    (sdir / "memstore.json").write_text('{"format": "mem-store", "version": 9}\n')
    r = mem(sdir, "list")
    assert r.returncode == ExitCode.STORE_INVALID
    assert "memstore.json: format version 9 is not supported" in r.stderr


def test_edit_valid_and_invalid(sdir: Path, tmp_path: Path) -> None:
    rid = mem(sdir, "add", "typo in here", "--scope", "a", "--kind", "fact").stdout.strip()
    fix = tmp_path / "fix.py"
    fix.write_text("import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
                   "p.write_text(p.read_text().replace('typo', 'no typo'))\n")
    r = mem(sdir, "edit", rid, "--json", env={"EDITOR": f"{sys.executable} {fix}"})
    assert r.returncode == 0, r.stderr
    assert r.json()["content"] == "no typo in here\n" and r.json()["updated_at"]
    breaker = tmp_path / "break.py"
    breaker.write_text("import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
                       "p.write_text(p.read_text().replace('status: active', 'status: bogus'))\n")
    before = (sdir / "records" / "a" / f"{rid}.md").read_bytes()
    r = mem(sdir, "edit", rid, env={"EDITOR": f"{sys.executable} {breaker}"})
    assert r.returncode == ExitCode.INVALID_INPUT
    assert "status 'bogus'" in r.stderr and "draft is kept" in r.stderr
    assert (sdir / "records" / "a" / f"{rid}.md").read_bytes() == before


def test_supersede_update_accept_reject_log_stats(sdir: Path) -> None:
    old = mem(sdir, "add", "Lives in Berlin", "--scope", "a", "--kind", "fact").stdout.strip()
    sup = mem(sdir, "supersede", old, "Lives in Lisbon", "--reason", "moved", "--json").json()
    assert sup["old"]["status"] == "superseded" and sup["new"]["supersedes"] == [old]
    assert [r["content"] for r in mem(sdir, "list", "--json").json()] == ["Lives in Lisbon\n"]
    as_of = mem(sdir, "list", "--as-of", "2000-01-01", "--json").json()
    assert as_of == [] or all(r["valid_from"] is None for r in as_of)
    cand = mem(sdir, "add", "maybe", "--scope", "a", "--status", "candidate").stdout.strip()
    assert mem(sdir, "accept", cand, "--json").json()[0]["status"] == "active"
    assert mem(sdir, "reject", cand, "--reason", "wrong", "--json").json()[0]["status"] == "rejected"
    upd = mem(sdir, "update", sup["new"]["id"], "-t", "home", "--json").json()
    assert upd["tags"] == ["home"]
    events = mem(sdir, "log", "--json").json()
    assert [e["op"] for e in events] == ["init", "add", "supersede", "update", "add", "accept", "reject", "update"]
    assert all("content" not in json.dumps(e["detail"]) for e in events)
    assert mem(sdir, "log", "--verify").returncode == 0
    st = mem(sdir, "stats", "--json").json()
    assert st["records"] == 3 and st["by_status"] == {"candidate": 0, "active": 1, "superseded": 1, "rejected": 1}


def test_store_is_found_from_a_subdirectory(sdir: Path) -> None:
    sub = sdir / "records"
    r = run_mem("add", "found upward", "--scope", "a", cwd=sub)
    assert r.returncode == 0, r.stderr
    r = run_mem("list", cwd=sdir.parent)
    assert r.returncode == ExitCode.NOT_FOUND and "mem init" in r.stderr


def test_installed_package_imports_from_outside_the_tree(tmp_path: Path) -> None:
    code = textwrap.dedent(
        """
        import importlib.util, json, sys
        import mem, mem.format, mem.cli.main
        assert importlib.util.find_spec("format") is None or "mem" not in str(importlib.util.find_spec("format").origin)
        print(json.dumps({"version": mem.__version__, "file": mem.format.__file__}))
        """
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ""})
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["version"]


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["list", "--help"]])
def test_light_start_up(args: list[str]) -> None:
    code = (
        "import sys\nfrom mem.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('tantivy', 'usearch', 'numpy', 'onnxruntime', 'pydantic') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "HEAVY=" in p.stderr and p.stderr.split("HEAVY=")[1] == ""


#: What `mem show` and `mem add` have no use for: the index build's modules (the listener they
#: attach is index.session's), the terminal renderer under --json, the rule of the embedded text
#: (nothing is embedded), and the canonical layout's pattern (compiled for a build's workers).
SHOW_ADD_UNUSED = ("mem.format.index.derived", "mem.format.index.build", "mem.format.index.reading",
                   "mem.format.index.stats", "mem.cli.render")


def _loaded_by(args: list[str]) -> dict[str, object]:
    code = (
        "import io, json, sys, contextlib\nfrom mem.cli.main import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    code = main({args!r})\n"
        "modules = sorted(m for m in sys.modules if m.startswith('mem.'))\n"
        "from mem.format.rules import embedtext, recordtext\n"
        "print(json.dumps({'code': code, 'modules': modules,\n"
        "                  'canonical': recordtext._CANONICAL is not None, 'prefix': embedtext._PREFIX is not None}))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out: dict[str, object] = json.loads(p.stdout)
    return out


def test_show_and_add_start_without_what_they_do_not_use(sdir: Path) -> None:
    rid = mem(sdir, "add", "the first blue umbrella", "--scope", "a").stdout.strip()
    assert mem(sdir, "rebuild", "--lexical").returncode == 0  # add asks the lexical index for twins
    show = _loaded_by(["--store", str(sdir), "show", rid, "--json"])
    add = _loaded_by(["--store", str(sdir), "add", "the second blue umbrella", "--scope", "a", "--json"])
    assert show["code"] == add["code"] == 0
    for run in (show, add):
        modules = run["modules"]
        assert isinstance(modules, list)
        assert "mem.format.index.session" in modules  # the index listener is attached
        assert not set(SHOW_ADD_UNUSED) & set(modules), run
        assert run["canonical"] is False and run["prefix"] is False
    assert "mem.format.index.lexical" in add["modules"]  # the twin check did open the index
    assert "mem.format.rules.embedtext" not in show["modules"]
    assert mem(sdir, "show", rid, "--json").json()["content"].strip() == "the first blue umbrella"
    assert len(mem(sdir, "list", "--json").json()) == 2


def test_version_output() -> None:
    from mem import __version__

    r = run_mem("--version")
    assert r.returncode == 0 and r.stdout == f"mem {__version__}\n"


def test_repair_adopts_an_outside_edit(sdir: Path) -> None:
    rid = mem(sdir, "add", "edited by hand later", "--scope", "a").stdout.strip()
    path = sdir / "records" / "a" / f"{rid}.md"
    path.write_text(path.read_text().replace("edited by hand later", "edited by hand now"))
    before = mem(sdir, "verify", "--full", "--json").json()
    assert {f["code"] for f in before["findings"]} == {"E108"}, before
    dry = mem(sdir, "repair", "--adopt", "--dry-run", "--json").json()
    assert dry["adopted"] == [rid] and dry["dry_run"] is True
    assert mem(sdir, "repair", "--adopt").stdout == f"adopt outside change to {rid}\n"
    after = mem(sdir, "verify", "--full", "--json").json()
    assert after["findings"] == [] and after["valid"] is True
    assert mem(sdir, "log", "--op", "adopt", "--json").json()[0]["id"] == rid


def test_verify_is_quiet_about_journaled_writes(sdir: Path) -> None:
    env = {"MEM_EMBEDDER": "hashing"}
    mem(sdir, "add", "first", "--scope", "a", env=env)
    assert mem(sdir, "search", "first", "--mode", "lexical", env=env).returncode == 0  # builds the index
    mem(sdir, "add", "second, journaled for the next search", "--scope", "a", env=env)
    r = mem(sdir, "verify", "--json", env=env)
    assert r.returncode == 0 and r.json()["findings"] == [], r.stdout
