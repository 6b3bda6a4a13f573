"""`mem consolidate` through the real executable: output contracts, exit codes, cascade on forget."""

from __future__ import annotations

from pathlib import Path

from mem.format.base.errors import ExitCode
from mem.format.store.store import Store
from tests.conftest import Result, run_mem
from tests.consolidate.conftest import Episodes, fake_cmd

REPORT_KEYS = [
    "mode", "summarizer", "windows", "budget_exhausted", "created", "superseded", "refusals",
    "deferred", "results", "vectors",
]  # fmt: skip
WINDOW_COUNTS = [
    "planned", "processed", "created", "none", "done", "refused", "previewed", "not_run", "deferred",
]  # fmt: skip


def mem(store: Store, *args: str, env: dict[str, str] | None = None) -> Result:
    return run_mem("--store", str(store.root), *args, env=env)


def test_run_json_report_lineage_and_forget_cascade(store: Store, episodes: Episodes) -> None:
    eps = episodes(
        "FACT: Nora is learning Japanese", "we talked about books", "FACT: Nora lives in Kyoto"
    )
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--json")
    assert r.returncode == 0, r.stderr
    report = r.json()
    assert list(report) == REPORT_KEYS
    assert list(report["windows"]) == WINDOW_COUNTS
    assert report["mode"] == "run"
    assert report["summarizer"].endswith("fake.py")
    assert (report["windows"]["planned"], report["windows"]["created"]) == (1, 1)
    (res,) = report["results"]
    assert list(res) == [
        "scope", "conversation", "window", "episodes", "overlap", "new", "outcome", "summary",
        "facts", "superseded", "dropped",
    ]  # fmt: skip
    assert res["episodes"] == [e.id for e in eps]
    assert report["created"] == [*res["facts"], res["summary"]]
    assert "1 window(s): 1 created" in r.stderr
    # the records, as `mem show` sees them
    shown = mem(store, "show", res["summary"], "--json").json()
    assert (shown["kind"], shown["status"], shown["derived_from"]) == (
        "summary",
        "candidate",
        res["episodes"],
    )
    assert shown["source"]["window"] == res["window"]
    # forgetting one episode shows, then removes, everything derived from it
    plan = mem(store, "forget", eps[1].id, "--dry-run", "--json").json()
    assert sorted(c["id"] for c in plan["cascade"]) == sorted(report["created"])
    assert mem(store, "forget", eps[1].id, "--yes", "--reason", "test").returncode == 0
    for rid in report["created"]:
        assert mem(store, "show", rid).returncode == ExitCode.NOT_FOUND
    # and a re-run does not bring anything back
    again = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--json").json()
    assert again["windows"]["planned"] == 0 and again["created"] == []


def test_human_output_and_rerun(store: Store, episodes: Episodes) -> None:
    episodes(*(f"episode number {i}" for i in range(5)))
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--window", "3", "--overlap", "1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == ["created", "created"]
    assert "3 episodes (1 overlap)" in lines[1]
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"))
    assert (r.returncode, r.stdout) == (0, "")
    assert "0 window(s)" in r.stderr


def test_refusal_exit_status_and_report(store: Store, episodes: Episodes) -> None:
    episodes("hello", "world")
    r = mem(store, "consolidate", "--summarizer", fake_cmd("crash"))
    assert r.returncode == ExitCode.INVALID_INPUT
    assert r.stdout.startswith("refused ")
    assert "exit-status: the summarizer exited with status 3" in r.stdout
    assert "1 window(s) refused" in r.stderr
    r = mem(store, "consolidate", "--summarizer", fake_cmd("junk"), "--json")
    assert r.returncode == ExitCode.INVALID_INPUT
    report = r.json()
    assert [(x["code"], x["scope"], x["conversation"]) for x in report["refusals"]] == [
        ("malformed", "alice", "c1")
    ]
    assert report["results"][0]["refusal"]["code"] == "malformed"
    assert not (store.state_dir / "consolidate.json").exists()
    assert mem(store, "list", "--kind", "summary", "--json").json() == []


def test_dry_run_needs_no_summarizer_and_writes_nothing(store: Store, episodes: Episodes) -> None:
    episodes("one", "two", "three")
    r = mem(store, "consolidate", "--dry-run", "--window", "2", "--overlap", "0")
    assert r.returncode == 0, r.stderr
    assert [ln.split()[0] for ln in r.stdout.splitlines()] == ["planned", "planned"]
    assert "nothing was run" in r.stderr
    r = mem(store, "consolidate", "--dry-run", "--json")
    assert r.json()["mode"] == "plan"
    assert not (store.state_dir / "consolidate.json").exists()


def test_preview_runs_the_summarizer_but_writes_nothing(store: Store, episodes: Episodes) -> None:
    episodes("FACT: Omar collects stamps")
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--preview", "--json")
    assert r.returncode == 0, r.stderr
    (res,) = r.json()["results"]
    assert res["outcome"] == "previewed"
    assert not (store.state_dir / "consolidate.json").exists()
    assert mem(store, "list", "--kind", "fact", "--json").json() == []


def test_summarizer_from_the_environment_and_trust(store: Store, episodes: Episodes) -> None:
    episodes("FACT: Pia is a pilot")
    r = mem(store, "consolidate", "--trust", "--json", env={"MEM_SUMMARIZER": fake_cmd("ok")})
    assert r.returncode == 0, r.stderr
    facts = mem(store, "list", "--kind", "fact", "--json").json()
    assert [(f["content"], f["status"]) for f in facts] == [("Pia is a pilot\n", "active")]


def test_usage_errors(store: Store, tmp_path: Path) -> None:
    r = mem(store, "consolidate")
    assert r.returncode == ExitCode.USAGE and "no summarizer" in r.stderr
    r = mem(store, "consolidate", "--summarizer", "'unbalanced")
    assert r.returncode == ExitCode.USAGE
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--dry-run", "--preview")
    assert r.returncode == ExitCode.USAGE
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--overlap", "20")
    assert r.returncode == ExitCode.INVALID_INPUT and "--overlap" in r.stderr
    r = mem(store, "consolidate", "--summarizer", str(tmp_path / "no-such-program"))
    assert r.returncode == ExitCode.NOT_FOUND and "no-such-program" in r.stderr


def test_a_corrupt_watermark_names_the_file(store: Store, episodes: Episodes) -> None:
    episodes("hello")
    (store.state_dir / "consolidate.json").write_text('{"format": "other"}', "utf-8")
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"))
    assert r.returncode == ExitCode.STORE_INVALID
    assert "consolidate.json" in r.stderr


def test_preview_shows_what_would_be_written(store: Store, episodes: Episodes) -> None:
    """Nothing is written in a preview, so there are no ids: the text shows instead (issue 26)."""
    episodes("FACT: Omar collects stamps", "we talked about the weather")
    r = mem(store, "consolidate", "--summarizer", fake_cmd("ok"), "--preview")
    assert r.returncode == 0, r.stderr
    head, *rest = r.stdout.splitlines()
    assert head.startswith("previewed ")
    assert "fact(s)" not in r.stdout and "facts ;" not in r.stdout
    assert rest[0].startswith("    summary: ") and len(rest[0]) > len("    summary: ")
    assert "    fact: Omar collects stamps" in rest
