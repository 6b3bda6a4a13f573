"""Git integration files for a store: ignore derived data, readable diffs, mergeable logs.

``setup_git(root)`` writes, at the store root:

* ``.gitignore``: ``/.mem`` (indexes, lock, clone id are local and rebuilt from the records);
* ``.gitattributes``: record files use the ``mem`` diff and merge drivers; audit logs and
  tombstones are append-only JSON Lines merged with git's built-in ``union`` driver, so two
  clones' appends merge without conflict (each clone also writes its own log file).

When the store is inside a git repository (one is created with ``init_repo=True`` if not), it
also configures the repository (``.git/config``, not versioned; once per clone) so that
``git diff`` shows record files through ``mem diff --textconv`` and ``git merge`` merges them
field by field (``mem merge-driver``, :mod:`.recordmerge`); both find ``mem`` on PATH and fall
back to plain text. With ``hook=True`` it installs a ``pre-commit`` hook that runs
``mem verify`` and ``mem log --verify`` (after a hook that was there).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from mem.format.base.fsutil import atomic_write

GITIGNORE = """\
# mem: derived and local data (indexes, lock, clone id) is rebuilt from the records
# (no trailing slash: the pattern must also match a committed symbolic link named .mem)
/.mem
"""

GITATTRIBUTES = """\
# mem: records diff as text and merge field by field (mem's merge driver); each clone appends
# to its own log file, and tombstones and logs are append-only JSON Lines, so a union merge
# keeps both sides' lines.
records/**/*.md text eol=lf diff=mem merge=mem
log/*.jsonl text eol=lf merge=union
tombstones/*.jsonl text eol=lf merge=union
"""
#: A line of older stores that the line above replaces.
_OLD_RECORDS_LINE = "records/**/*.md text eol=lf diff=mem"

HOOK_MARKER = "# installed by mem (mem init --git --hook)"
#: Where an existing pre-commit hook is moved to when mem's hook chains after it.
CHAINED_HOOK = "pre-commit.before-mem"

# git runs these with the user's PATH: `mem` found there, else the mem that configured the clone
# (while it still exists), else plain text, so that `git diff` and `git merge` never fail for
# want of the Python environment that ran `mem init`.
def _find_mem(installed: str) -> str:
    """A shell test that sets ``m`` to the mem to run, or leaves it empty."""
    return (
        "m=; if command -v mem >/dev/null 2>&1; then m=mem; "
        f"elif [ -x {shlex.quote(installed)} ]; then m={shlex.quote(installed)}; fi; "
    )


def textconv_command(installed: str) -> str:
    return (
        "sh -c '" + _find_mem(installed).replace("'", "'\\''")
        + 'if [ -n "$m" ]; then exec "$m" diff --textconv "$0"; else exec cat "$0"; fi\''
    )


def merge_command(installed: str) -> str:
    return (
        "sh -c '" + _find_mem(installed).replace("'", "'\\''")
        + 'if [ -n "$m" ]; then exec "$m" merge-driver "$0" "$1" "$2" "$3"; '
        + 'else exec git merge-file -L ours -L base -L theirs "$1" "$0" "$2"; fi\' %O %A %B %P'
    )


def mem_command() -> str:
    """The ``mem`` script of this installation (what a hook or driver falls back to when ``mem``
    is not on PATH), else ``mem``."""
    local = Path(sys.executable).parent / "mem"
    if local.is_file():
        return str(local)
    return shutil.which("mem") or "mem"


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def git_toplevel(path: Path) -> Path | None:
    """The work tree that contains ``path``, or None (not in a repository, or no git)."""
    try:
        p = _git(["rev-parse", "--show-toplevel"], path)
    except FileNotFoundError:
        return None
    return Path(p.stdout.strip()).resolve() if p.returncode == 0 else None


def hook_script(store_root: Path, top: Path, mem: str) -> str:
    rel = store_root.resolve().relative_to(top).as_posix() or "."
    return (
        "#!/bin/sh\n"
        f"{HOOK_MARKER}\n"
        "# Refuses a commit when the memory store has errors (warnings pass) or its audit log's\n"
        "# hash chain is broken. Skip once with `git commit --no-verify`. Codes:\n"
        "# spec/validation-codes.md. A hook that was here before runs first.\n"
        'hooks="$(dirname "$0")"\n'
        f'if [ -x "$hooks/{CHAINED_HOOK}" ]; then "$hooks/{CHAINED_HOOK}" "$@" || exit $?; fi\n'
        f'cd "$(git rev-parse --show-toplevel)" || exit 1\n'
        + _find_mem(mem).replace("; ", "\n").rstrip() + "\n"
        + 'if [ -z "$m" ]; then\n'
        '  echo "mem pre-commit hook: mem is not on PATH (nor where it was installed), so the memory" >&2\n'
        '  echo "store was not verified; put mem on PATH, or commit with --no-verify" >&2\n'
        "  exit 1\n"
        "fi\n"
        f'"$m" --quiet verify --no-index {shlex.quote(rel)} || exit $?\n'
        f'exec "$m" --quiet --store {shlex.quote(rel)} log --verify >/dev/null\n'
    )


def _attributes(root: Path) -> bool:
    """Add mem's lines to ``.gitattributes`` (the ones missing; an older records line is
    replaced). True when the file changed."""
    p = root / ".gitattributes"
    current = p.read_text("utf-8") if p.exists() else ""
    lines = current.split("\n") if current else []
    want = [ln for ln in GITATTRIBUTES.split("\n") if ln and not ln.startswith("#")]
    if all(w in lines for w in want):
        return False
    lines = [want[0] if ln.strip() == _OLD_RECORDS_LINE else ln for ln in lines]
    missing = [w for w in want if w not in lines]
    if missing:
        head = [ln for ln in GITATTRIBUTES.split("\n") if ln.startswith("#")]
        body = "\n".join(lines).rstrip("\n")
        text = (body + "\n\n" if body else "") + "\n".join(head + missing) + "\n"
    else:
        text = "\n".join(lines).rstrip("\n") + "\n"
    atomic_write(p, text, 0o644)
    return True


def configure_repo(root: Path) -> list[str]:
    """Set the repository's diff and merge drivers for the store (``.git/config``, not
    versioned: every clone needs this once; ``mem init --git`` and ``mem sync`` do it)."""
    top = git_toplevel(root)
    if top is None:
        return []
    done: list[str] = []
    mem = mem_command()
    for key, value in (
        ("diff.mem.textconv", textconv_command(mem)),
        ("merge.mem.name", "mem record merge (field by field)"),
        ("merge.mem.driver", merge_command(mem)),
    ):
        if _git(["config", "--local", key], top).stdout.strip() != value:
            _git(["config", "--local", key, value], top)
            done.append(f"git config {key}")
    return done


def install_hook(root: Path, top: Path) -> str:
    """Install mem's pre-commit hook; a hook that was there is kept and runs first."""
    hooks = Path(_git(["rev-parse", "--git-path", "hooks"], top).stdout.strip())
    hooks = hooks if hooks.is_absolute() else top / hooks
    hooks.mkdir(parents=True, exist_ok=True)
    path = hooks / "pre-commit"
    shown = str(path.relative_to(top)) if path.is_relative_to(top) else str(path)
    note = ""
    if path.exists() and HOOK_MARKER not in path.read_text("utf-8", "replace"):
        chained = hooks / CHAINED_HOOK
        if chained.exists():
            return f"not installed: {shown} exists and so does {CHAINED_HOOK} (merge them by hand)"
        os.replace(path, chained)
        note = f" (the hook that was there moved to {CHAINED_HOOK} and runs first)"
    atomic_write(path, hook_script(root, top, mem_command()), 0o755)
    return shown + note


def setup_git(root: Path, *, hook: bool = False, init_repo: bool = False) -> list[str]:
    """Write .gitignore and .gitattributes at the store root; configure the repository.

    Returns what was written or configured. ``init_repo`` runs ``git init`` at the store root
    when it is in no repository; ``hook`` installs the pre-commit hook (chained after a hook
    that was there). Safe to run again, and in a fresh clone of a store.
    """
    written: list[str] = []
    p = root / ".gitignore"
    current = p.read_text("utf-8") if p.exists() else ""
    # `.mem` or `/.mem` (a pattern with no trailing slash also matches a symbolic link; an older
    # store's `.mem/` does not, so it gets the new line)
    if not any(ln.strip() in (".mem", "/.mem") for ln in current.split("\n")):
        atomic_write(p, (current.rstrip("\n") + "\n\n" if current.strip() else "") + GITIGNORE, 0o644)
        written.append(".gitignore")
    if _attributes(root):
        written.append(".gitattributes")
    top = git_toplevel(root)
    if top is None and init_repo and shutil.which("git") and _git(["init", "-q"], root).returncode == 0:
        written.append("git init")
        top = git_toplevel(root)
    if top is None:
        return written
    written += configure_repo(root)
    if hook:
        written.append(install_hook(root, top))
    return written
