"""Git integration files for a store: ignore derived data, readable diffs, mergeable logs.

``setup_git(root)`` writes, at the store root:

* ``.gitignore``: ``.mem/`` (indexes, lock, clone id are local and rebuilt from the records);
* ``.gitattributes``: record files use the ``mem`` diff driver; audit logs and tombstones are
  append-only JSON Lines merged with git's built-in ``union`` driver, so two clones' appends
  merge without conflict (each clone also writes its own log file).

When the store is inside a git repository (one is created with ``init_repo=True`` if not), it
also configures the repository (``.git/config``, not versioned) so that ``git diff`` and
``git log -p`` show record files through ``mem diff --textconv``::

    git config diff.mem.textconv "mem diff --textconv"

and, with ``hook=True``, installs a ``pre-commit`` hook that runs ``mem verify``.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from .fsutil import atomic_write

GITIGNORE = """\
# mem: derived and local data (indexes, lock, clone id) is rebuilt from the records
.mem/
"""

GITATTRIBUTES = """\
# mem: records diff as text; each clone appends to its own log file, and tombstones
# and logs are append-only JSON Lines, so a union merge keeps both sides' lines.
records/**/*.md text eol=lf diff=mem
log/*.jsonl text eol=lf merge=union
tombstones/*.jsonl text eol=lf merge=union
"""

HOOK_MARKER = "# installed by mem (mem init --git --hook)"


def mem_command() -> str:
    """How git should run mem: the ``mem`` script of this installation, else ``mem`` on PATH."""
    local = Path(sys.executable).parent / "mem"
    if local.is_file():
        return shlex.quote(str(local))
    found = shutil.which("mem")
    return shlex.quote(found) if found else "mem"


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
        "# Refuses a commit when the memory store has errors (warnings pass). Skip once with\n"
        "# `git commit --no-verify`. Codes: spec/validation-codes.md.\n"
        f'cd "$(git rev-parse --show-toplevel)" || exit 1\n'
        f"exec {mem} --quiet verify --no-index {shlex.quote(rel)}\n"
    )


def setup_git(root: Path, *, hook: bool = False, init_repo: bool = False) -> list[str]:
    """Write .gitignore and .gitattributes at the store root; configure the repository.

    Returns what was written or configured. ``init_repo`` runs ``git init`` at the store root
    when it is in no repository; ``hook`` installs the pre-commit hook (an existing hook that
    mem did not write is left alone and reported as ``"kept: <path>"``).
    """
    written: list[str] = []
    for name, text in ((".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)):
        p = root / name
        if p.exists():
            current = p.read_text("utf-8")
            if text.strip() in current:
                continue
            text = current.rstrip("\n") + "\n\n" + text
        atomic_write(p, text, 0o644)
        written.append(name)
    top = git_toplevel(root)
    if top is None and init_repo and shutil.which("git") and _git(["init", "-q"], root).returncode == 0:
        written.append("git init")
        top = git_toplevel(root)
    if top is None:
        return written
    mem = mem_command()
    textconv = f"{mem} diff --textconv"
    if _git(["config", "--local", "diff.mem.textconv"], top).stdout.strip() != textconv:
        _git(["config", "--local", "diff.mem.textconv", textconv], top)
        written.append("git config diff.mem.textconv")
    if hook:
        hooks = Path(_git(["rev-parse", "--git-path", "hooks"], top).stdout.strip())
        hooks = hooks if hooks.is_absolute() else top / hooks
        hooks.mkdir(parents=True, exist_ok=True)
        path = hooks / "pre-commit"
        if path.exists() and HOOK_MARKER not in path.read_text("utf-8", "replace"):
            written.append(f"kept: {path}")
        else:
            atomic_write(path, hook_script(root, top, mem), 0o755)
            written.append(str(path.relative_to(top)) if path.is_relative_to(top) else str(path))
    return written
