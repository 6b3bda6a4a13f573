"""`mem hooks` against real-shaped host configurations that already hold a user's own settings.

Every test runs the real `mem` executable with a temporary HOME (and XDG_CONFIG_HOME), so the
user's files are never touched.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.conftest import run_mem

HOSTS = Path(__file__).parent / "hosts"
CAPTURE_HOSTS = Path(__file__).parent.parent / "capture" / "hosts"
CLAUDE_SESSION = CAPTURE_HOSTS / "claude" / "-home-sam-proj" / "5b1c1f2e-7d4a-4c2e-9a51-3f0e8d2b6c11.jsonl"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    (h / ".codex").mkdir()
    shutil.copy(HOSTS / "claude-settings.json", h / ".claude" / "settings.json")
    shutil.copy(HOSTS / "codex-config.toml", h / ".codex" / "config.toml")
    shutil.copy(HOSTS / "AGENTS.md", h / ".codex" / "AGENTS.md")
    return h


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    s = tmp_path / "store"
    assert run_mem("init", str(s)).returncode == 0
    r = run_mem("--store", str(s), "add", "--scope", "sam", "--kind", "instruction", "Answer in British English.")
    assert r.returncode == 0, r.stderr
    return s


def mem(home: Path, store_dir: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TZ": "UTC"}
    r = run_mem("--store", str(store_dir), *args, env=env, input=input)
    return r.returncode, r.stdout, r.stderr


def test_claude_code_install_reinstall_status_uninstall(home: Path, store_dir: Path) -> None:
    settings = home / ".claude" / "settings.json"
    original = settings.read_bytes()
    code, out, err = mem(home, store_dir, "hooks", "install", "claude-code", "--scope", "sam")
    assert code == 0, err
    assert out == f"updated          {settings}\n"
    after = json.loads(settings.read_text("utf-8"))
    mine = json.loads(original)
    # the user's own settings and hooks are all there, unchanged and first
    for key in ("$schema", "model", "permissions", "env", "statusLine", "includeCoAuthoredBy"):
        assert after[key] == mine[key]
    assert after["hooks"]["PostToolUse"] == mine["hooks"]["PostToolUse"]
    assert after["hooks"]["Stop"][0] == mine["hooks"]["Stop"][0]
    assert set(after["hooks"]) == {"PostToolUse", "Stop", "SessionStart", "PreCompact"}
    start = after["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    stop = after["hooks"]["Stop"][1]["hooks"][0]["command"]
    assert after["hooks"]["PreCompact"][0]["hooks"][0]["command"] == stop
    assert start.endswith(" context --scope sam --budget 2000 # mem-hooks")
    assert stop.endswith(" --quiet capture --hook --scope sam # mem-hooks")
    assert f"--store {store_dir.resolve()}" in start
    # reinstall: not a byte changes
    installed = settings.read_bytes()
    code, out, _ = mem(home, store_dir, "hooks", "install", "claude-code", "--scope", "sam")
    assert (code, out) == (0, f"unchanged        {settings}\n")
    assert settings.read_bytes() == installed
    code, out, _ = mem(home, store_dir, "hooks", "status", "claude-code")
    assert out == f"claude-code  installed     {settings} [Stop, SessionStart, PreCompact]\n"
    # uninstall: the file as it was, byte for byte
    code, out, _ = mem(home, store_dir, "hooks", "uninstall", "claude-code")
    assert code == 0
    assert out == f"restored         {settings}  (byte for byte as before the first install)\n"
    assert settings.read_bytes() == original
    code, out, _ = mem(home, store_dir, "hooks", "status", "claude-code")
    assert out == f"claude-code  not installed {settings}\n"


def test_claude_code_hooks_really_run(home: Path, store_dir: Path, tmp_path: Path) -> None:
    assert mem(home, store_dir, "hooks", "install", "claude-code", "--scope", "sam")[0] == 0
    hooks = json.loads((home / ".claude" / "settings.json").read_text("utf-8"))["hooks"]
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TZ": "UTC"}
    start = subprocess.run(hooks["SessionStart"][0]["hooks"][0]["command"], shell=True, env=env,
                           capture_output=True, text=True, input='{"hook_event_name": "SessionStart", "source": "startup"}')
    assert start.returncode == 0, start.stderr
    assert start.stdout == mem(home, store_dir, "context", "--scope", "sam", "--budget", "2000")[1]
    assert "- Answer in British English. [instruction " in start.stdout
    session = tmp_path / "session.jsonl"
    shutil.copy(CLAUDE_SESSION, session)
    event = {"session_id": "5b1c1f2e-7d4a-4c2e-9a51-3f0e8d2b6c11", "transcript_path": str(session),
             "cwd": "/home/sam/proj", "hook_event_name": "Stop", "stop_hook_active": False}
    stop_cmd = hooks["Stop"][1]["hooks"][0]["command"]
    stop = subprocess.run(stop_cmd, shell=True, env=env, capture_output=True, text=True, input=json.dumps(event))
    assert (stop.returncode, stop.stdout) == (0, ""), stop.stderr
    listed = mem(home, store_dir, "list", "--scope", "sam", "--status", "candidate", "--json")[1]
    assert sorted(r["content"].strip() for r in json.loads(listed)) == sorted([
        "User lives in Lisbon", "User prefers tabs over spaces", "User's dentist appointment is on 2026-12-01",
        "User always uses uv for Python projects"])
    # a hook never blocks the host: a missing transcript is exit 1 (Claude Code's 2 would block)
    event["transcript_path"] = str(tmp_path / "gone.jsonl")
    bad = subprocess.run(stop_cmd, shell=True, env=env, capture_output=True, text=True, input=json.dumps(event))
    assert bad.returncode == 1 and "gone.jsonl" in bad.stderr
    junk = subprocess.run(stop_cmd, shell=True, env=env, capture_output=True, text=True, input="not json")
    assert junk.returncode == 1 and "transcript_path" in junk.stderr


def test_claude_code_uninstall_keeps_what_the_user_changed_since(home: Path, store_dir: Path) -> None:
    settings = home / ".claude" / "settings.json"
    assert mem(home, store_dir, "hooks", "install", "claude-code")[0] == 0
    doc = json.loads(settings.read_text("utf-8"))
    doc["model"] = "sonnet"
    doc["hooks"]["SessionStart"].insert(0, {"hooks": [{"type": "command", "command": "echo hi"}]})
    settings.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    code, out, _ = mem(home, store_dir, "hooks", "uninstall", "claude-code")
    assert code == 0 and out.startswith("entries-removed")
    left = json.loads(settings.read_text("utf-8"))
    assert left["model"] == "sonnet"
    assert left["hooks"]["SessionStart"] == [{"hooks": [{"type": "command", "command": "echo hi"}]}]
    assert "PreCompact" not in left["hooks"]
    assert "mem-hooks" not in settings.read_text("utf-8")
    assert len(left["hooks"]["Stop"]) == 1


def test_claude_code_without_a_settings_file_and_a_broken_one(home: Path, store_dir: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.unlink()
    assert mem(home, store_dir, "hooks", "install", "claude-code")[1].startswith("created")
    assert mem(home, store_dir, "hooks", "uninstall", "claude-code")[1].startswith("removed")
    assert not settings.exists()
    settings.write_text('{"model": "opus",', "utf-8")
    code, _, err = mem(home, store_dir, "hooks", "install", "claude-code")
    assert code == 4 and str(settings) in err and "not valid JSON" in err
    assert settings.read_text("utf-8") == '{"model": "opus",'


def test_codex_install_refresh_uninstall(home: Path, store_dir: Path) -> None:
    agents, config = home / ".codex" / "AGENTS.md", home / ".codex" / "config.toml"
    orig_agents, orig_config = agents.read_bytes(), config.read_bytes()
    code, out, err = mem(home, store_dir, "hooks", "install", "codex", "--scope", "sam", "--budget", "500")
    assert code == 0, err
    assert out == f"updated          {agents}\nupdated          {config}\n"
    text = agents.read_text("utf-8")
    assert text.startswith(orig_agents.decode())
    ctx = mem(home, store_dir, "context", "--scope", "sam", "--budget", "500")[1]
    assert text == orig_agents.decode() + "\n" + (
        "<!-- mem:begin (managed by `mem hooks`; `mem hooks refresh codex` rewrites it) -->\n"
        + ctx + "<!-- mem:end -->\n"
    )
    cfg = tomllib.loads(config.read_text("utf-8"))
    assert cfg["model"] == "gpt-5.1-codex" and cfg["mcp_servers"]["context7"]["command"] == "npx"
    assert cfg["projects"]["/home/sam/api"] == {"trust_level": "trusted"}
    assert cfg["mcp_servers"]["mem"]["args"] == ["--store", str(store_dir.resolve()), "mcp", "--scope", "sam"]
    assert Path(cfg["mcp_servers"]["mem"]["command"]).name == "mem"
    # idempotent
    before = (agents.read_bytes(), config.read_bytes())
    assert mem(home, store_dir, "hooks", "install", "codex", "--scope", "sam", "--budget", "500")[1].count("unchanged") == 2
    assert (agents.read_bytes(), config.read_bytes()) == before
    # a new memory: refresh rewrites the section only
    assert mem(home, store_dir, "add", "--scope", "sam", "--kind", "preference", "Prefers short answers.")[0] == 0
    code, out, _ = mem(home, store_dir, "hooks", "refresh", "codex")
    assert (code, out) == (0, f"updated          {agents}\n")
    assert "Prefers short answers." in agents.read_text("utf-8")
    assert agents.read_text("utf-8").startswith(orig_agents.decode())
    code, out, _ = mem(home, store_dir, "hooks", "status", "codex", "--json")
    assert [f["installed"] for f in json.loads(out)[0]["files"]] == [True, True]
    # uninstall: both files exactly as they were
    code, out, _ = mem(home, store_dir, "hooks", "uninstall", "codex")
    assert code == 0, out
    assert (agents.read_bytes(), config.read_bytes()) == (orig_agents, orig_config)


def test_codex_refuses_a_users_own_mem_server_and_changes_nothing(home: Path, store_dir: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text("utf-8") + '\n[mcp_servers.mem]\ncommand = "other"\n', "utf-8")
    before = {p: p.read_bytes() for p in (config, home / ".codex" / "AGENTS.md")}
    code, _, err = mem(home, store_dir, "hooks", "install", "codex")
    assert code == 4 and "[mcp_servers.mem]" in err and str(config) in err
    assert {p: p.read_bytes() for p in before} == before


def test_codex_files_that_did_not_exist_are_removed_again(home: Path, store_dir: Path) -> None:
    for f in ("AGENTS.md", "config.toml"):
        (home / ".codex" / f).unlink()
    assert mem(home, store_dir, "hooks", "install", "codex")[1].count("created") == 2
    assert mem(home, store_dir, "hooks", "uninstall", "codex")[1].count("removed") == 2
    assert list((home / ".codex").iterdir()) == []
