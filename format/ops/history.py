"""Forgotten records in places mem does not own: the git history of a store.

A forget removes a record's file, its index documents and its draft, but a store kept in git
still holds the text in every commit made while the file existed. :func:`forgotten_in_history`
finds those commits (``mem verify --forgotten --history``); :data:`PURGE_RECIPE` is the
documented way to rewrite them away (spec/format.md §8, "Copies outside the records").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import StoreIOError
from mem.format.ops.gitsetup import _git, git_toplevel
from mem.format.store.store import RECORDS_DIR, Store

#: How to remove forgotten records from a git history; ``{paths}`` is replaced by one
#: ``--path P`` per file. git filter-repo rewrites every commit, so every clone must re-clone.
PURGE_RECIPE = (
    "git filter-repo --invert-paths {paths}   # rewrites every commit that holds these files\n"
    "git push --force --all && git push --force --tags   # then every clone must clone anew\n"
    "(without git-filter-repo: git filter-branch --index-filter "
    "'git rm --cached --ignore-unmatch <path>...' -- --all)"
)

_CHUNK = 200  # paths per git log call (a command line holds far more; this keeps each call short)


@dataclass
class HistoryHit:
    """A forgotten record's file, and the commits that wrote it (added or changed)."""

    scope: str
    id: str
    path: str  # relative to the repository's top
    commits: list[dict[str, str]] = field(default_factory=list)  # {commit, date, subject}

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "id": self.id, "path": self.path, "commits": self.commits}


def forgotten_in_history(store: Store) -> tuple[Path | None, list[HistoryHit]]:
    """(the repository's top, the forgotten records whose file some commit holds); (None, [])
    when the store is not in a git work tree."""
    top = git_toplevel(store.root)
    if top is None:
        return None, []
    rel = store.root.resolve().relative_to(top).as_posix()
    prefix = "" if rel == "." else rel + "/"
    wanted = {f"{prefix}{RECORDS_DIR}/{t.scope}/{t.id}.md": (t.scope, t.id) for t in store.tombstones}
    hits: dict[str, HistoryHit] = {}
    paths = sorted(wanted)
    for i in range(0, len(paths), _CHUNK):
        chunk = paths[i:i + _CHUNK]
        p = _git(["log", "--all", "--diff-filter=AM", "--format=%x00%H%x09%aI%x09%s", "--name-only",
                  "--", *chunk], top)
        if p.returncode != 0:
            raise StoreIOError(f"git log failed: {p.stderr.strip()}", path=top)
        for block in p.stdout.split("\x00")[1:]:
            head, _, names = block.partition("\n")
            commit, date, subject = [*head.split("\t", 2), "", ""][:3]
            for name in names.split("\n"):
                name = name.strip()
                if name in wanted:
                    scope, rid = wanted[name]
                    hit = hits.setdefault(name, HistoryHit(scope, rid, name))
                    hit.commits.append({"commit": commit, "date": date, "subject": subject})
    return top, [hits[k] for k in sorted(hits)]


def purge_command(hits: list[HistoryHit]) -> str:
    """The recipe with these files' paths filled in."""
    return PURGE_RECIPE.format(paths=" ".join(f"--path {h.path}" for h in hits))


__all__ = ["PURGE_RECIPE", "HistoryHit", "forgotten_in_history", "purge_command"]
