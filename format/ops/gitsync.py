"""``mem sync``: one memory on many machines, through any git remote (spec/format.md §21).

One run: commit the store's pending changes with a generated message; fetch; merge with mem's
merge drivers (records merge by field, :mod:`.recordmerge`; tombstones and logs by union); make
every forget win (a record tombstoned on any clone is removed everywhere, with what derives
from it, and never comes back); file the versions that lost a conflict as candidates; refresh
the indexes; push, and start over when another machine pushed first. A conflict that is not in
a record file (``config.toml``, ``memstore.json``) aborts the merge and leaves the repository
as it was, with an error naming the files.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import (
    ConflictError,
    MemError,
    NotFoundError,
    RecordParseError,
    StoreIOError,
)
from mem.format.base.fsutil import append_line, atomic_write, remove_file
from mem.format.model.record import Record, dump_record, parse_record
from mem.format.model.recordmerge import merge_records
from mem.format.ops.gitsetup import configure_repo, git_toplevel
from mem.format.rules import ids
from mem.format.store.store import Store

#: Where the merge driver leaves what mem sync files after a merge (local, not versioned).
PENDING = "merge-pending.jsonl"
#: How often a push is tried when another machine pushed first.
MAX_ATTEMPTS = 5


class GitError(MemError):
    exit_code = StoreIOError.exit_code

    def __init__(self, args: list[str], out: str) -> None:
        super().__init__(f"git {' '.join(args)} failed: {out.strip() or 'no message'}")


@dataclass
class Changes:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "changed": self.changed, "removed": self.removed}


@dataclass
class SyncReport:
    remote: str | None
    branch: str
    committed: str | None = None  # the commit of local changes, if any
    incoming: Changes = field(default_factory=Changes)
    outgoing: Changes = field(default_factory=Changes)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    kept_versions: list[str] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    pushed: bool = False
    attempts: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "branch": self.branch,
            "committed": self.committed,
            "incoming": self.incoming.to_dict(),
            "outgoing": self.outgoing.to_dict(),
            "conflicts": self.conflicts,
            "kept_versions": self.kept_versions,
            "forgotten": self.forgotten,
            "pushed": self.pushed,
            "attempts": self.attempts,
        }


class Git:
    """The git commands of one work tree (identity filled in when the user has none)."""

    def __init__(self, top: Path, actor: str) -> None:
        self.top = top
        self.env = dict(os.environ)
        for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            self.env.pop(key, None)
        if not self.ok(["config", "user.email"]):
            name, _, host = actor.partition("@")
            self.env.setdefault("GIT_AUTHOR_NAME", name or "mem")
            self.env.setdefault("GIT_COMMITTER_NAME", name or "mem")
            self.env.setdefault("GIT_AUTHOR_EMAIL", actor if "@" in actor else f"{actor}@{host or 'localhost'}")
            self.env.setdefault("GIT_COMMITTER_EMAIL", self.env["GIT_AUTHOR_EMAIL"])

    def run(self, args: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        try:
            p = subprocess.run(["git", *args], cwd=self.top, capture_output=True, text=True, env=self.env, check=False)
        except FileNotFoundError:
            raise NotFoundError("git is not installed (mem sync runs git)") from None
        if check and p.returncode != 0:
            raise GitError(args, p.stderr or p.stdout)
        return p

    def out(self, args: list[str]) -> str:
        return self.run(args).stdout.strip()

    def ok(self, args: list[str]) -> bool:
        return self.run(args, check=False).returncode == 0


# -- the merge driver --------------------------------------------------------------------------


def store_root_of(record_path: Path) -> Path | None:
    """The store a record file path (``.../records/<scope>/<id>.md``) belongs to."""
    parts = record_path.parts
    if len(parts) >= 3 and parts[-3] == "records":
        return Path(*parts[:-3]) if len(parts) > 3 else Path(".")
    return None


def _read(path: Path) -> Record | None:
    text = path.read_text("utf-8")
    return parse_record(text, str(path)) if text.strip() else None


def merge_driver(base: Path, ours: Path, theirs: Path, name: str) -> int:
    """git's merge driver for record files: merge ``base``/``ours``/``theirs`` into ``ours``.

    Returns 0 when merged. A version that is not a readable record leaves the file conflicted
    (1) for ``mem sync`` to resolve (it keeps the later readable version)."""
    try:
        o, t = _read(ours), _read(theirs)
        b = _read(base)
    except (RecordParseError, MemError, OSError, ValueError):
        return 1
    if o is None or t is None:
        return 1
    result = merge_records(b, o, t)
    atomic_write(ours, dump_record(result.record), ours.stat().st_mode & 0o777)
    if result.conflicts or result.kept_versions:
        root = store_root_of(Path(name))
        if root is not None and (root / "memstore.json").exists():
            entry = {
                "id": result.record.id,
                "scope": result.record.scope,
                "conflicts": [c.to_dict() for c in result.conflicts if c.field != "content"],
                "content_conflict": any(c.field == "content" for c in result.conflicts),
                "kept": [dump_record(r) for r in result.kept_versions],
            }
            (root / ".mem").mkdir(exist_ok=True)
            append_line(root / ".mem" / PENDING, json.dumps(entry, ensure_ascii=False), 0o600)
    return 0


# -- mem sync ----------------------------------------------------------------------------------


def _changes(git: Git, rel: str, a: str, b: str) -> Changes:
    """Record files added, changed and removed between two commits (ids)."""
    ch = Changes()
    if a == b:
        return ch
    prefix = f"{rel}/records/" if rel != "." else "records/"
    out = git.out(["diff", "--no-renames", "--name-status", a, b, "--", prefix])
    for line in out.splitlines():
        status, _, path = line.partition("\t")
        rid = Path(path).stem
        if not ids.is_id(rid):
            continue
        {"A": ch.added, "D": ch.removed}.get(status[:1], ch.changed).append(rid)
    return ch


def _commit_message(ch: Changes, store: Store, what: str) -> str:
    host = socket.gethostname() or "unknown host"
    return (
        f"mem sync: {what} {len(ch.added)} added, {len(ch.changed)} changed, {len(ch.removed)} removed\n\n"
        f"by {store.actor} on {host}"
    )


def _remote_of(git: Git, remote: str | None, branch: str) -> str | None:
    if remote:
        if not git.ok(["remote", "get-url", remote]):
            raise NotFoundError(f"no git remote named {remote!r}", hint="git remote -v lists them")
        return remote
    up = git.run(["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"], check=False)
    if up.returncode == 0 and "/" in up.stdout:
        return up.stdout.strip().split("/", 1)[0]
    remotes = git.out(["remote"]).split()
    if "origin" in remotes:
        return "origin"
    return remotes[0] if len(remotes) == 1 else None


def commit_pending(git: Git, store: Store, rel: str, what: str = "local") -> str | None:
    """Stage the store's files and commit them; the new commit, or None when nothing changed."""
    git.run(["add", "-A", "--", rel])
    if git.ok(["diff", "--cached", "--quiet"]):
        return None
    ch = Changes()
    prefix = f"{rel}/records/" if rel != "." else "records/"
    for line in git.out(["diff", "--cached", "--no-renames", "--name-status", "--", prefix]).splitlines():
        status, _, path = line.partition("\t")
        if ids.is_id(Path(path).stem):
            {"A": ch.added, "D": ch.removed}.get(status[:1], ch.changed).append(Path(path).stem)
    git.run(["commit", "-q", "--no-verify", "-m", _commit_message(ch, store, what)])
    return git.out(["rev-parse", "HEAD"])


def _unmerged(git: Git) -> list[str]:
    return [p for p in git.out(["diff", "--name-only", "--diff-filter=U"]).splitlines() if p]


def _stages(git: Git, path: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for line in git.out(["ls-files", "-u", "--", path]).splitlines():
        meta, _, _p = line.partition("\t")
        _mode, sha, stage = meta.split()
        out[int(stage)] = sha
    return out


def _tombstoned(store: Store, scope: str, rid: str) -> bool:
    return rid in store.tombstones.load(scope).ids


def _resolve(git: Git, store: Store, rel: str, report: SyncReport) -> None:
    """Resolve what the merge left conflicted, or abort it (never a conflict in a record file)."""
    unmerged = _unmerged(git)
    prefix = f"{rel}/records/" if rel != "." else "records/"
    others = [p for p in unmerged if not p.startswith(prefix)]
    if others:
        git.run(["merge", "--abort"], check=False)
        raise ConflictError(
            "the merge conflicts in files that are not records: " + ", ".join(others)
            + "; nothing was changed (merge them by hand with git, then run mem sync again)"
        )
    for path in unmerged:
        p = Path(path)
        scope, rid = p.parent.name, p.stem
        st = _stages(git, path)
        if 2 not in st or 3 not in st:  # deleted on one side, changed on the other
            if _tombstoned(store, scope, rid):
                git.run(["rm", "-q", "--cached", "--ignore-unmatch", "--", path])
                remove_file(git.top / path)
                report.conflicts.append({"id": rid, "scope": scope, "resolution": "forget wins over an edit"})
            else:
                git.run(["checkout", "--ours" if 2 in st else "--theirs", "--", path])
                git.run(["add", "--", path])
                report.conflicts.append({"id": rid, "scope": scope, "resolution": "the edited version is kept"})
            continue
        versions: list[Record] = []
        for stage in (2, 3):
            try:
                versions.append(parse_record(git.out(["cat-file", "-p", st[stage]]) + "\n", path))
            except (RecordParseError, MemError, ValueError):
                continue
        if not versions:
            git.run(["merge", "--abort"], check=False)
            raise ConflictError(f"{path}: neither version is a readable record; nothing was changed")
        best = max(versions, key=lambda r: (r.updated_at or r.recorded_at, dump_record(r)))
        atomic_write(git.top / path, dump_record(best), store.config.file_mode)
        git.run(["add", "--", path])
        report.conflicts.append({"id": rid, "scope": scope, "resolution": "the later readable version is kept"})


def _file_pending(store: Store, report: SyncReport) -> None:
    """File what the merge driver kept: losing versions as candidates, field conflicts in the log."""
    path = store.local_dir / PENDING
    try:
        lines = path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        for text in entry.get("kept", []):
            try:
                rec = parse_record(text)
            except (RecordParseError, MemError):
                continue
            if store.find_path(rec.id) is not None or store.tombstones.find_id(rec.id) is not None:
                continue
            if any(store.find_path(d) is None for d in rec.derived_from):
                continue  # the record it belongs to is gone (forgotten): so is this version
            try:
                store.put(rec, op="merge", detail={"conflict_of": entry.get("id")})
            except MemError:
                continue
            report.kept_versions.append(rec.id)
        if entry.get("conflicts") or entry.get("content_conflict"):
            fields = [c.get("field") for c in entry.get("conflicts", [])]
            if entry.get("content_conflict"):
                fields.append("content")
            # values of the plain fields only: content, source and extension values may hold text
            detail = {"fields": fields, "resolved": [c for c in entry.get("conflicts", [])
                                                     if c.get("field") not in ("source", "extra")]}
            store.log.append("merge", id=str(entry.get("id")), scope=str(entry.get("scope")), detail=detail)
            report.conflicts.append({"id": entry.get("id"), "scope": entry.get("scope"), "fields": fields,
                                     "resolution": "field by field; the later version wins a field both changed"})
    remove_file(path)


def _enforce_forgets(store: Store, candidates: Iterable[str], report: SyncReport) -> None:
    """Forget every live record that a tombstone of the merged store covers (its id, its
    content, or a source it derives from): a forget made on any clone wins."""
    doomed: list[str] = []
    checked: set[str] = set()
    for rid in candidates:
        if rid in checked:
            continue
        checked.add(rid)
        path = store.find_path(rid)
        if path is None:
            continue
        try:
            rec = store.read_path(path)
        except MemError:
            continue
        t = store.tombstones.load(rec.scope)
        if (
            rec.id in t.ids
            or (rec.match_digest in t.digests and rec.match_digest not in t.lifted)
            or any(store.tombstones.find_id(d) is not None for d in rec.derived_from)
        ):
            doomed.append(rec.id)
    if doomed:
        plan = store.forget(doomed, reason="forgotten on another clone (mem sync)")
        report.forgotten += [r.id for r in plan.records]


def _new_tombstone_ids(git: Git, rel: str, a: str, b: str) -> list[str]:
    prefix = f"{rel}/tombstones/" if rel != "." else "tombstones/"
    out = git.run(["diff", "--no-ext-diff", "-U0", a, b, "--", prefix], check=False).stdout
    found: list[str] = []
    for line in out.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            try:
                obj = json.loads(line[1:])
            except ValueError:
                continue
            if isinstance(obj, dict) and ids.is_id(obj.get("id")) and obj.get("type", "tombstone") == "tombstone":
                found.append(obj["id"])
    return found


def _merge(git: Git, store: Store, rel: str, upstream: str, report: SyncReport) -> None:
    head = git.out(["rev-parse", "HEAD"])
    theirs = git.out(["rev-parse", upstream])
    if git.ok(["merge-base", "--is-ancestor", theirs, head]):
        return  # nothing new there
    remove_file(store.local_dir / PENDING)
    if git.ok(["merge-base", "--is-ancestor", head, theirs]):
        git.run(["merge", "-q", "--ff-only", upstream])
    else:
        p = git.run(["merge", "-q", "--no-ff", "--no-commit", upstream], check=False)
        if p.returncode != 0 and not _unmerged(git):
            raise GitError(["merge", upstream], p.stderr or p.stdout)
        _resolve(git, store, rel, report)
    incoming = _changes(git, rel, head, "HEAD" if not _in_merge(git) else _index_tree(git))
    report.incoming.added += incoming.added
    report.incoming.changed += incoming.changed
    report.incoming.removed += incoming.removed
    _file_pending(store, report)  # (the same Store object: it holds the writer lock)
    # a forget made anywhere wins: records named by new tombstones, records that arrived or
    # changed (their content or lineage may be forgotten here), and what derives from them
    new_tombs = _new_tombstone_ids(git, rel, head, _index_tree(git))
    suspects = [*incoming.added, *incoming.changed, *new_tombs, *_changes(git, rel, theirs, _index_tree(git)).added]
    if new_tombs:
        gone = set(new_tombs)
        suspects += [r.id for r in store.iter_records() if gone.intersection(r.derived_from)]
    _enforce_forgets(store, suspects, report)
    if _in_merge(git):
        git.run(["add", "-A", "--", rel])
        git.run(["commit", "-q", "--no-verify", "--no-edit"])
    else:
        commit_pending(git, store, rel, "after merge:")


def _in_merge(git: Git) -> bool:
    return git.ok(["rev-parse", "-q", "--verify", "MERGE_HEAD"])


def _index_tree(git: Git) -> str:
    """The tree of what is staged (the merge result before it is committed)."""
    return git.out(["write-tree"])


def sync(store: Store, remote: str | None = None, *, push: bool = True) -> SyncReport:
    """Run one sync of ``store`` (see the module text)."""
    top = git_toplevel(store.root)
    if top is None:
        raise NotFoundError(
            "the store is not in a git repository", path=store.root,
            hint="run `mem init --git` in the store, add a remote (git remote add origin URL), then mem sync",
        )  # fmt: skip
    rel = store.root.resolve().relative_to(top).as_posix() or "."
    git = Git(top, store.actor)
    configure_repo(store.root)
    branch = git.run(["symbolic-ref", "--short", "-q", "HEAD"], check=False).stdout.strip()
    if not branch:
        raise ConflictError("the repository is not on a branch (detached HEAD); check out a branch first")
    report = SyncReport(remote=None, branch=branch)
    report.remote = _remote_of(git, remote, branch)
    if report.remote is None and push:  # before anything is committed: a failed sync changes nothing
        raise NotFoundError(
            "no git remote to sync with", path=top,
            hint="git remote add origin URL (a bare repository is enough), or --no-push",
        )  # fmt: skip
    with store.lock:
        _file_pending(store, report)  # left by a plain `git pull` since the last sync
        report.committed = commit_pending(git, store, rel)
        if report.remote is None:
            return report
        upstream = f"{report.remote}/{branch}"
        for attempt in range(1, MAX_ATTEMPTS + 1):
            report.attempts = attempt
            git.run(["fetch", "-q", report.remote])
            has_remote = git.ok(["rev-parse", "-q", "--verify", f"refs/remotes/{upstream}"])
            if has_remote:
                _merge(git, store, rel, upstream, report)
            base = git.out(["rev-parse", upstream]) if has_remote else None
            if not push:
                break
            p = git.run(["push", "-q", "-u", report.remote, f"HEAD:{branch}"], check=False)
            if p.returncode == 0:
                report.pushed = True
                out = _changes(git, rel, base or _empty_tree(git), "HEAD")
                report.outgoing = out
                break
            if attempt == MAX_ATTEMPTS:
                raise GitError(["push", report.remote, branch], p.stderr)
    _refresh(store)
    return report


def _empty_tree(git: Git) -> str:
    return git.out(["hash-object", "-t", "tree", os.devnull])


def _refresh(store: Store) -> None:
    """Bring the indexes up to date with the merged records (only the scopes that changed are
    read again: the lexical index notices them by their folders)."""
    from mem.format.index.derived import refresh

    with contextlib.suppress(MemError):  # the next search refreshes (or says what is wrong)
        refresh(Store.open(store.root))
