"""Shell completion: checked-in scripts current, a real completion through bash, dynamic values
from the store, `mem completion install`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mem.cli.commands.completion import command_tree, render
from mem.format.ops.completion import vocabulary
from mem.format.rules.ids import KNOWN_KINDS
from mem.format.store.store import Store
from tests.conftest import MEM_EXE, run_mem

ROOT = Path(__file__).resolve().parents[2]
COMPLETIONS = ROOT / "completions"
FILES = {"bash": "mem.bash", "zsh": "_mem", "fish": "mem.fish"}


@pytest.fixture(scope="module")
def scripts() -> dict[str, str]:
    tree = command_tree()
    return {shell: render(shell, tree) for shell in FILES}


@pytest.mark.parametrize("shell", sorted(FILES))
def test_checked_in_scripts_are_current(shell: str, scripts: dict[str, str]) -> None:
    path = COMPLETIONS / FILES[shell]
    assert path.read_text("utf-8") == scripts[shell], (
        f"{path} is stale: run `.venv/bin/python completions/generate.py` and commit it"
    )


def test_mem_completion_prints_the_same_script(scripts: dict[str, str]) -> None:
    r = run_mem("completion", "bash")
    assert r.returncode == 0 and r.stdout == scripts["bash"]
    assert run_mem("completion", "tcsh").returncode == 2


def test_scripts_know_every_command(scripts: dict[str, str]) -> None:
    names = [c.name for c in command_tree().commands]
    assert {"add", "list", "mcp", "completion"} <= set(names)
    assert "__complete-values" not in names  # hidden
    for shell, text in scripts.items():
        for name in names:
            assert name in text, (shell, name)


@pytest.fixture
def populated(store: Store) -> Store:
    store.add("Alice drinks tea", scope="alice", kind="preference", tags=["drink", "morning"])
    store.add("Bob plays chess", scope="bob-work", kind="hobby_x", tags=["games"])
    return store


def bash_complete(words: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """Complete the last word of ``words`` with the checked-in bash script; returns COMPREPLY."""
    assert MEM_EXE
    script = (
        f"source {COMPLETIONS / 'mem.bash'}\n"
        f"COMP_WORDS=({' '.join(_sh(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_mem_completion\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    full_env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    full_env["PATH"] = f"{Path(MEM_EXE).parent}{os.pathsep}{full_env.get('PATH', '')}"
    full_env.update(env or {})
    p = subprocess.run(["bash", "--norc", "-c", script], cwd=cwd, capture_output=True, text=True,
                       env=full_env, timeout=60)
    assert p.returncode == 0, p.stderr
    return [ln for ln in p.stdout.splitlines() if ln]


def _sh(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def test_bash_completes_commands_and_options(tmp_path: Path) -> None:
    assert bash_complete(["mem", "sup"], tmp_path) == ["supersede"]
    assert set(bash_complete(["mem", "l"], tmp_path)) == {"list", "log"}
    assert bash_complete(["mem", "--no-color", "compl"], tmp_path) == ["completion"]
    assert "--no-color" in bash_complete(["mem", "--no"], tmp_path)
    assert bash_complete(["mem", "list", "--sta"], tmp_path) == ["--status"]
    assert bash_complete(["mem", "list", "--status", "ca"], tmp_path) == ["candidate"]
    assert bash_complete(["mem", "completion", "f"], tmp_path) == ["fish"]
    # an option of another command is not offered
    assert bash_complete(["mem", "show", "--allow"], tmp_path) == []


def test_bash_completes_scopes_kinds_and_tags_from_the_store(populated: Store, tmp_path: Path) -> None:
    root = str(populated.root)
    assert bash_complete(["mem", "--store", root, "add", "--scope", ""], tmp_path) == ["alice", "bob-work"]
    assert bash_complete(["mem", "--store", root, "list", "--scope", "b"], tmp_path) == ["bob-work"]
    assert bash_complete(["mem", "--store", root, "add", "--kind", "ho"], tmp_path) == ["hobby_x"]
    assert bash_complete(["mem", "--store", root, "add", "--tag", "m"], tmp_path) == ["morning"]
    # found from the current directory, like every command; --store after the command too
    assert bash_complete(["mem", "add", "--scope", "a"], populated.root / "records") == ["alice"]
    assert bash_complete(["mem", "mcp", "--store", root, "--scope", "a"], tmp_path) == ["alice"]
    # no store: scopes are empty, kinds still complete
    assert bash_complete(["mem", "add", "--scope", ""], tmp_path) == []
    assert bash_complete(["mem", "add", "--kind", "pref"], tmp_path) == ["preference"]


def test_complete_values_command(populated: Store, tmp_path: Path) -> None:
    r = run_mem("--store", str(populated.root), "__complete-values", "tags")
    assert (r.returncode, r.stdout) == (0, "drink\ngames\nmorning\n")
    r = run_mem("__complete-values", "scopes", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert run_mem("__complete-values", "ids", cwd=tmp_path).returncode == 4
    assert "__complete-values" not in run_mem("--help").stdout


def test_vocabulary_cache_follows_changes(populated: Store) -> None:
    v = vocabulary(populated)
    assert v["scopes"] == ["alice", "bob-work"]
    assert set(KNOWN_KINDS) | {"hobby_x"} == set(v["kinds"])
    assert (populated.local_dir / "completion.json").exists()
    rec = populated.add("Alice reads", scope="alice", tags=["books"])
    assert "books" in vocabulary(populated)["tags"]
    populated.forget([rec.id])
    assert "books" not in vocabulary(populated)["tags"]
    # a corrupt cache is rebuilt, not trusted
    (populated.local_dir / "completion.json").write_text("{not json", "utf-8")
    assert vocabulary(populated)["tags"] == ["drink", "games", "morning"]


@pytest.mark.parametrize(
    ("shell", "relpath"),
    [
        ("bash", ".local/share/bash-completion/completions/mem"),
        ("zsh", ".zfunc/_mem"),
        ("fish", ".config/fish/completions/mem.fish"),
    ],
)
def test_install_puts_the_script_where_the_shell_looks(tmp_path: Path, shell: str, relpath: str) -> None:
    env = {"HOME": str(tmp_path), "SHELL": f"/usr/bin/{shell}", "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": ""}
    r = run_mem("completion", "install", env=env)
    assert r.returncode == 0, r.stderr
    target = tmp_path / relpath
    assert r.stdout.strip() == str(target)
    assert str(target) in r.stderr  # says where
    assert target.read_text("utf-8") == (COMPLETIONS / FILES[shell]).read_text("utf-8")


def test_install_needs_a_known_shell(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "SHELL": "/bin/tcsh"}
    r = run_mem("completion", "install", env=env)
    assert r.returncode == 4 and "--shell" in r.stderr
    r = run_mem("completion", "install", "--shell", "fish", env={**env, "XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert r.returncode == 0
    assert (tmp_path / "cfg" / "fish" / "completions" / "mem.fish").exists()


ZSH_HARNESS = r"""
compadd() { while [[ $# -gt 0 && $1 != -- ]]; do shift; done; shift
            local v; for v in "$@"; do [[ $v == ${words[CURRENT]}* ]] && print -r -- $v; done }
_describe() { local v; for v in "${(@P)4}"; do v=${v%%:*}
              [[ $v == ${words[CURRENT]}* ]] && print -r -- $v; done }
_files() { print -r -- "<files>" }
compdef() { : }
source "$MEM_ZSH_SCRIPT"
words=("$@"); CURRENT=$#
_mem
"""


def shell_env() -> dict[str, str]:
    assert MEM_EXE
    env = {k: v for k, v in os.environ.items() if k != "MEM_STORE"}
    env["PATH"] = f"{Path(MEM_EXE).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_completes(populated: Store, tmp_path: Path) -> None:
    """The zsh function run with stand-ins for compadd/_describe/_files (zsh filters by prefix)."""
    p = subprocess.run(["zsh", "-n", str(COMPLETIONS / "_mem")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    harness = tmp_path / "harness.zsh"
    harness.write_text(ZSH_HARNESS, "utf-8")
    env = {**shell_env(), "MEM_ZSH_SCRIPT": str(COMPLETIONS / "_mem")}

    def complete(*words: str) -> list[str]:
        r = subprocess.run(["zsh", "-f", str(harness), *words], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=60)
        assert r.returncode in (0, 1), r.stderr
        return r.stdout.split()

    assert complete("mem", "sup") == ["supersede"]
    assert complete("mem", "--store", str(populated.root), "add", "--scope", "") == ["alice", "bob-work"]
    assert complete("mem", "--store", str(populated.root), "add", "--tag", "g") == ["games"]
    assert complete("mem", "list", "--status", "c") == ["candidate"]
    assert complete("mem", "add", "--file", "x") == ["<files>"]
    assert complete("mem", "--no-c") == ["--no-color"]
    assert complete("mem", "--no") == ["--no-color", "--no-pager"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes(populated: Store, tmp_path: Path) -> None:
    script = COMPLETIONS / "mem.fish"
    p = subprocess.run(["fish", "--no-execute", str(script)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr

    def complete(line: str) -> list[str]:
        r = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C {_sh(line)}"],
                           capture_output=True, text=True, env=shell_env(), cwd=tmp_path, timeout=60)
        assert r.returncode == 0, r.stderr
        return [ln.split("\t")[0] for ln in r.stdout.splitlines()]

    assert complete("mem sup") == ["supersede"]
    assert complete(f"mem --store {populated.root} add --scope ") == ["alice", "bob-work"]
    assert complete(f"mem --store {populated.root} add --kind hob") == ["hobby_x"]
    assert complete("mem list --status ca") == ["candidate"]
    assert complete("mem add --reason ") == []  # a free value: no file names offered


def test_fixed_values_of_one_command(tmp_path: Path) -> None:
    """`import --from` and `export --format` offer their values; `capture --format` its own
    (the same option name means different things in different commands; issue 26)."""
    from mem.format.interchange.importers import SYSTEMS

    assert sorted(bash_complete(["mem", "import", "--from", ""], tmp_path)) == sorted(SYSTEMS)
    assert bash_complete(["mem", "import", "--from", "w"], tmp_path) == ["windieos"]
    assert sorted(bash_complete(["mem", "export", "--format", "c"], tmp_path)) == ["claude-md", "csv"]
    assert "markdown" in bash_complete(["mem", "export", "-f", ""], tmp_path)
    assert sorted(bash_complete(["mem", "capture", "--format", "c"], tmp_path)) == ["chatgpt", "claude-code", "codex"]
