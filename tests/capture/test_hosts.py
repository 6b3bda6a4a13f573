"""Capture from the transcripts agent hosts write: Claude Code, Codex CLI, ChatGPT, JSON arrays.

The fixtures in ``tests/capture/hosts/`` are shaped like the hosts' own files (field for field,
from the hosts' public sources and real files): each holds human turns with known facts, and
the same kind of sentences where they must NOT be mined (tool results, sidechains, meta and
command entries, injected context, assistant text, edited-away branches, custom instructions).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mem.format.base.errors import InvalidInputError
from mem.format.capture.dates import ground
from mem.format.capture.engine import capture
from mem.format.capture.transcripts import detect_format, read_transcripts
from mem.format.store.store import Store
from tests.conftest import run_mem

HOSTS = Path(__file__).parent / "hosts"
CLAUDE = HOSTS / "claude" / "-home-sam-proj" / "5b1c1f2e-7d4a-4c2e-9a51-3f0e8d2b6c11.jsonl"
CODEX = HOSTS / "codex" / "2026" / "11" / "30" / "rollout-2026-11-30T10-15-02-019ad0c4-7e21-7c33-9b1e-2d5f6a7b8c9d.jsonl"
CODEX_LEGACY = HOSTS / "codex" / "2025" / "05" / "01" / "rollout-2025-05-01-8c2d4e6f-1a3b-4c5d-8e9f-0a1b2c3d4e5f.jsonl"
CHATGPT = HOSTS / "chatgpt" / "conversations.json"
MESSAGES = HOSTS / "messages.json"
UTC = {"TZ": "UTC"}

# What each fixture must yield (exact, in order), and sentences planted where no human typed them.
EXPECTED = {
    CLAUDE: [
        "User lives in Lisbon",
        "User prefers tabs over spaces",
        "User's dentist appointment is on 2026-12-01",
        "User always uses uv for Python projects",
    ],
    CODEX: [
        "User lives in Oslo",
        "User has a job interview on Thursday 2026-12-10",
        "User's flight to Rome is on Monday 2026-12-07",
    ],
    CODEX_LEGACY: ["User works at Acme Corp"],
    CHATGPT: ["User lives in Valencia", "User has a cat named Miso", "User is vegetarian", "User uses Emacs"],
    MESSAGES: ["User lives in Berlin", "User's dentist appointment is on 2026-12-01"],
}
PLANTED = [
    "Globex", "Initech", "cats", "shellfish", "Tokyo", "Madrid", "vegan", "pytest", "Rust", "Go",
    "Python", "Emacs",
]
FORMAT = {CLAUDE: "claude-code", CODEX: "codex", CODEX_LEGACY: "codex", CHATGPT: "chatgpt", MESSAGES: "json"}


def _contents(store_dir: Path) -> list[str]:
    out = run_mem("--store", str(store_dir), "list", "--status", "all", "--json", env=UTC)
    assert out.returncode == 0, out.stderr
    return [r["content"].strip() for r in out.json()]


@pytest.mark.parametrize("path", list(EXPECTED), ids=lambda p: FORMAT[p] + ":" + p.name[:20])
def test_detected_by_content(path: Path, tmp_path: Path) -> None:
    assert detect_format(path) == FORMAT[path]
    # the name does not matter: a copy under a neutral name is detected the same
    copy = tmp_path / "transcript.data"
    shutil.copy(path, copy)
    assert detect_format(copy) == FORMAT[path]


@pytest.mark.parametrize("path", list(EXPECTED), ids=lambda p: FORMAT[p] + ":" + p.name[:20])
def test_each_host_yields_exactly_the_human_facts(path: Path, tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    assert run_mem("init", str(store_dir)).returncode == 0
    r = run_mem("--store", str(store_dir), "capture", "--json", str(path), env=UTC)
    assert r.returncode == 0, r.stderr
    report = r.json()
    assert [i["content"] for i in report["items"] if i["outcome"] == "captured"] == EXPECTED[path]
    assert report["sources"][0]["format"] == FORMAT[path]
    stored = _contents(store_dir)
    assert sorted(stored) == sorted(EXPECTED[path])
    if path is MESSAGES:
        return  # a plain array: Emacs/Python are nowhere in it, nothing else is planted
    planted_here = [w for w in PLANTED if path.read_text("utf-8").count(w) and not any(w in e for e in EXPECTED[path])]
    assert planted_here, "the fixture plants sentences that must not be captured"
    for word in planted_here:
        assert not any(word in s for s in stored), f"{word!r} was captured from a non-human entry"
    again = run_mem("--store", str(store_dir), "capture", "--json", str(path), env=UTC).json()
    assert again["counts"]["captured"] == 0 and again["counts"]["user-turns"] == 0


@pytest.mark.usefixtures("utc_local")
def test_source_names_host_session_turn_and_time_grounds_the_record(store: Store) -> None:
    capture(store, read_transcripts(CLAUDE))
    recs = {r.content.strip(): r for r in store.iter_records(["default"])}
    lisbon = recs["User lives in Lisbon"]
    assert {k: lisbon.source[k] for k in ("host", "session", "conversation", "turn", "format", "ts")} == {
        "host": "claude-code",
        "session": "5b1c1f2e-7d4a-4c2e-9a51-3f0e8d2b6c11",
        "conversation": "5b1c1f2e-7d4a-4c2e-9a51-3f0e8d2b6c11",
        "turn": 5,  # the line (0-based): stable when Claude Code appends
        "format": "claude-code",
        "ts": "2026-11-30T09:01:00.000Z",
    }
    # about the present: true from the turn's time; recorded when captured
    assert lisbon.valid_from == _dt.datetime(2026, 11, 30, 9, 1, tzinfo=_dt.UTC)
    assert lisbon.recorded_at > _dt.datetime(2026, 11, 30, 9, 1, tzinfo=_dt.UTC)
    dentist = recs["User's dentist appointment is on 2026-12-01"]
    assert dentist.valid_from == _dt.datetime(2026, 12, 1, tzinfo=_dt.UTC)
    assert dentist.source["resolved"] == [{"phrase": "tomorrow", "date": "2026-12-01"}]
    assert dentist.source["quote"] == "My dentist appointment is tomorrow."


def test_chatgpt_follows_the_current_branch_and_epoch_times(store: Store) -> None:
    (t,) = read_transcripts(CHATGPT)
    users = [(x.conversation, x.index, x.content, x.ts) for x in t.turns if x.is_user]
    assert users == [
        ("6749f2a0-1c2b-800a-9e3f-5d6c7b8a9f01", 2, "I live in Valencia. I have a cat named Miso.", "2025-11-30T10:01:00.123Z"),
        ("6749f2a0-1c2b-800a-9e3f-5d6c7b8a9f01", 6, "I am vegetarian. What is this dish?", "2025-11-30T10:02:00.123Z"),
        ("674b4420-88aa-800a-b1c2-d3e4f5a6b7c8", 0, "I use Emacs.", "2025-12-01T10:00:01.500Z"),
    ]


def test_codex_human_turns_are_the_user_message_events_only() -> None:
    (t,) = read_transcripts(CODEX)
    assert [x.content for x in t.turns if x.is_user] == [
        "I live in Oslo. I have a job interview next Thursday. Keep the changes small.",
        "My flight to Rome is on Monday.",
    ]
    assert {x.conversation for x in t.turns} == {"019ad0c4-7e21-7c33-9b1e-2d5f6a7b8c9d"}
    assert t.turns[0].fields["cwd"] == "/home/sam/api"


def test_appended_claude_session_yields_only_new_turns(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    session = tmp_path / "projects" / "-home-sam-proj" / CLAUDE.name
    session.parent.mkdir(parents=True)
    lines = CLAUDE.read_text("utf-8").splitlines(keepends=True)
    session.write_text("".join(lines[:6]), "utf-8")  # up to the Lisbon turn
    first = run_mem("--store", str(store_dir), "capture", "--json", str(tmp_path / "projects"), env=UTC).json()
    assert [i["content"] for i in first["items"]] == ["User lives in Lisbon", "User prefers tabs over spaces"]
    with open(session, "a", encoding="utf-8") as f:
        f.write("".join(lines[6:]))
    second = run_mem("--store", str(store_dir), "capture", "--json", str(tmp_path / "projects"), env=UTC).json()
    assert [i["content"] for i in second["items"]] == EXPECTED[CLAUDE][2:]
    assert second["sources"][0]["skipped_seen"] == 4  # the caveat, the command echo, its output, Lisbon


def test_a_folder_of_host_files_is_read_file_by_file(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    r = run_mem("--store", str(store_dir), "capture", "--json", str(HOSTS / "codex"), env=UTC)
    assert r.returncode == 0, r.stderr
    assert [s["format"] for s in r.json()["sources"]] == ["codex", "codex"]
    assert sorted(_contents(store_dir)) == sorted(EXPECTED[CODEX] + EXPECTED[CODEX_LEGACY])


def test_plain_json_array_was_refused_and_is_now_read(tmp_path: Path) -> None:
    p = tmp_path / "chat.json"
    p.write_text(json.dumps([{"role": "user", "content": "I live in Porto."},
                             {"role": "assistant", "content": "I live in Faro."}]), "utf-8")
    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    r = run_mem("--store", str(store_dir), "capture", str(p))
    assert r.returncode == 0, r.stderr
    assert _contents(store_dir) == ["User lives in Porto"]


def test_bad_json_array_names_the_file_and_message(tmp_path: Path) -> None:
    p = tmp_path / "chat.json"
    p.write_text(json.dumps([{"role": "user", "content": "hi"}, {"content": "no role"}]), "utf-8")
    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    r = run_mem("--store", str(store_dir), "capture", "--format", "json", str(p))
    assert r.returncode == 4
    assert str(p) in r.stderr and "message 1" in r.stderr
    assert _contents(store_dir) == []


def test_forced_format_reads_a_file_whatever_its_content_suggests(tmp_path: Path) -> None:
    (t,) = read_transcripts(MESSAGES, "json")
    assert t.format == "json"
    with pytest.raises(InvalidInputError) as exc:
        read_transcripts(CHATGPT, "json")
    assert "message 0" in str(exc.value)


# -- relative dates ---------------------------------------------------------------------------

TURN = _dt.datetime(2026, 12, 2, 15, 0, tzinfo=_dt.UTC)  # a Wednesday


@pytest.fixture
def utc_local() -> Iterator[None]:
    """Dates resolve in the local time zone: pin it to UTC for the test, then restore it."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


@pytest.mark.parametrize(
    ("text", "content", "date"),
    [
        ("User's appointment is tomorrow", "User's appointment is on 2026-12-03", "2026-12-03"),
        ("User has a call on Thursday", "User has a call on Thursday 2026-12-03", "2026-12-03"),
        ("User has a call next Thursday", "User has a call on Thursday 2026-12-10", "2026-12-10"),
        ("User has a call on Wednesday", "User has a call on Wednesday 2026-12-09", "2026-12-09"),
        ("User flies in 3 days", "User flies on 2026-12-05", "2026-12-05"),
        ("User moves next week", "User moves in the week of 2026-12-07", "2026-12-07"),
        ("User starts next month", "User starts in 2027-01", "2027-01-01"),
    ],
)
@pytest.mark.usefixtures("utc_local")
def test_relative_dates_resolve_against_the_turn(text: str, content: str, date: str) -> None:
    g = ground(text, TURN)
    assert (g.content, g.valid_from) == (content, _dt.date.fromisoformat(date))


@pytest.mark.usefixtures("utc_local")
def test_recurring_and_past_statements() -> None:
    every = ground("User has band practice every Monday", TURN)
    assert (every.content, every.valid_from) == ("User has band practice every Monday", TURN)
    past = ground("User used to live in Paris", TURN)
    assert (past.content, past.valid_from) == ("User used to live in Paris", None)
    assert ground("User lives in Oslo", None).valid_from is None


@given(
    day=st.dates(min_value=_dt.date(2000, 1, 1), max_value=_dt.date(2090, 12, 31)),
    which=st.sampled_from(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]),
    lead=st.sampled_from(["", "on ", "this ", "next ", "coming "]),
)
def test_weekdays_land_on_that_weekday_within_two_weeks(day: _dt.date, which: str, lead: str) -> None:
    t = _dt.datetime(day.year, day.month, day.day, 12, tzinfo=_dt.UTC).astimezone()  # noon local
    g = ground(f"User has a meeting {lead}{which.capitalize()}", t)
    assert isinstance(g.valid_from, _dt.date)
    local = t.date()
    delta = (g.valid_from - local).days
    assert g.valid_from.strftime("%A").lower() == which
    assert 1 <= delta <= (13 if lead == "next " else 7)
    assert g.content.endswith(g.valid_from.isoformat())


def _watcher(tmp_path: Path, sigint: object) -> tuple[object, Path, Path]:
    """A `mem capture --watch --json` over an empty folder, started with SIGINT at ``sigint``."""
    import signal
    import subprocess

    from tests.conftest import MEM_EXE

    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    projects = tmp_path / "projects"
    projects.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"} | {"TZ": "UTC", "NO_COLOR": "1"}
    assert MEM_EXE
    proc = subprocess.Popen(
        [MEM_EXE, "--store", str(store_dir), "capture", "--watch", "--json", "--interval", "0.1", str(projects)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),  # type: ignore[arg-type]
    )
    return proc, store_dir, projects


def _stopped(proc, sig: int) -> str:  # type: ignore[no-untyped-def]
    """Send ``sig`` to the watcher and return its whole stderr, whitespace made single spaces
    (the console wraps long lines); a watcher that does not stop is killed and fails the test."""
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    return " ".join(err.split())


def test_watch_captures_sessions_as_they_appear_and_stops_cleanly(tmp_path: Path) -> None:
    import signal

    proc, store_dir, projects = _watcher(tmp_path, signal.SIG_DFL)  # (SIGINT at its default)
    try:
        assert proc.stdout is not None
        session = projects / "-home-sam-proj" / CLAUDE.name
        session.parent.mkdir()
        lines = CLAUDE.read_text("utf-8").splitlines(keepends=True)

        def captured_until(n: int) -> list[str]:
            # each report line is one pass over one changed file; a write may be seen half done
            got: list[str] = []
            while len(got) < n:
                line = proc.stdout.readline()  # blocks until the watcher reports
                assert line, "the watcher ended early"
                got += [i["content"] for i in json.loads(line)["items"] if i["outcome"] == "captured"]
            return got

        session.write_text("".join(lines[:6]), "utf-8")
        assert captured_until(2) == ["User lives in Lisbon", "User prefers tabs over spaces"]
        with open(session, "a", encoding="utf-8") as f:
            f.write("".join(lines[6:]))
        assert captured_until(2) == EXPECTED[CLAUDE][2:]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()  # a watcher that did not stop is not left running after the test
                proc.communicate()
    assert proc.returncode == 0, err
    assert "stopped watching: 4 captured from" in err
    assert sorted(_contents(store_dir)) == sorted(EXPECTED[CLAUDE])


def test_watch_says_ctrl_c_stops_it(tmp_path: Path) -> None:
    import signal

    proc, _, _ = _watcher(tmp_path, signal.SIG_DFL)
    first = proc.stderr.readline()  # type: ignore[attr-defined]  # (the start line, then the passes)
    err = " ".join((first + _stopped(proc, signal.SIGINT)).split())
    assert "(Ctrl-C stops)" in err and "kill" not in err and "SIGTERM" not in err, err
    assert "stopped watching: 0 captured" in err


def test_watch_with_sigint_ignored_says_to_send_sigterm_to_its_pid(tmp_path: Path) -> None:
    """A watcher started where SIGINT is ignored (`mem capture --watch ... &` in a script) keeps
    ignoring it; its start line says Ctrl-C will not stop it and names the `kill` that will."""
    import signal

    proc, store_dir, projects = _watcher(tmp_path, signal.SIG_IGN)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stderr.readline()
    proc.send_signal(signal.SIGINT)  # ignored: the watcher still captures what comes next
    session = projects / "-home-sam-proj" / CLAUDE.name
    session.parent.mkdir()
    shutil.copy(CLAUDE, session)
    report = json.loads(proc.stdout.readline())  # blocks until the watcher's next pass reports
    assert report["file"] == str(session) and proc.poll() is None
    err = " ".join((first + _stopped(proc, signal.SIGTERM)).split())
    assert f"(Ctrl-C is ignored here; `kill {proc.pid}` (SIGTERM) stops it)" in err, err
    assert "(Ctrl-C stops)" not in err
    assert "stopped watching:" in err
    assert sorted(_contents(store_dir)) == sorted(EXPECTED[CLAUDE])


def test_a_folder_rerun_skips_files_unchanged_since_their_capture(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    folder = tmp_path / "projects" / "-home-sam-proj"
    folder.mkdir(parents=True)
    session = folder / CLAUDE.name
    shutil.copy(CLAUDE, session)
    assert run_mem("--store", str(store_dir), "capture", str(tmp_path / "projects"), env=UTC).returncode == 0
    (wm,) = (store_dir / "state" / "capture").glob("*.json")
    mark = wm.read_bytes()
    assert json.loads(mark)["mtime_ns"] == session.stat().st_mtime_ns
    # same size and modification time, other bytes: the watermark says there is nothing new, so
    # the file is not even read (a no-op run over a folder of long sessions costs a stat each)
    st = session.stat()
    session.write_bytes(b"x" * st.st_size)
    os.utime(session, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = run_mem("--store", str(store_dir), "capture", "--json", str(tmp_path / "projects"), env=UTC)
    assert again.returncode == 0, again.stderr
    assert again.json()["sources"] == []
    assert wm.read_bytes() == mark  # nothing new: the watermark is not rewritten either
    # --rescan reads it anyway (and finds it is no transcript now)
    forced = run_mem("--store", str(store_dir), "capture", "--rescan", str(tmp_path / "projects"), env=UTC)
    assert forced.returncode == 4 and str(session) in forced.stderr


def test_an_unchanged_file_named_alone_keeps_its_watermark_bytes(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    run_mem("init", str(store_dir))
    assert run_mem("--store", str(store_dir), "capture", str(CODEX), env=UTC).returncode == 0
    (wm,) = (store_dir / "state" / "capture").glob("*.json")
    mark = wm.read_bytes()
    again = run_mem("--store", str(store_dir), "capture", "--json", str(CODEX), env=UTC).json()
    assert again["counts"]["user-turns"] == 0 and wm.read_bytes() == mark
