"""Semantic diff of two states of a store: two directories, or git revisions of one.

A state is read as a :class:`Snapshot`: record files (by id) and tombstones (by id). Two
snapshots compare as records added, removed (forgotten, with the tombstone that forgets them,
or removed without one), and changed field by field (content, status, confidence, scope,
validity, lineage, tags, ...). Records whose bytes (or git blob ids) are equal are not parsed,
so the cost grows with the change, not with the store.

Git revisions are read from git objects (``git ls-tree`` and one ``git cat-file --batch``),
without a checkout; the store may be a subdirectory of the repository.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import (
    MemError,
    NotFoundError,
    RecordParseError,
    StoreInvalidError,
    StoreNotFoundError,
    UnsupportedFormatError,
)
from mem.format.model.record import Record, parse_record
from mem.format.rules import ids
from mem.format.rules.config import DECLARATION_FILE, FORMAT_NAME, FORMAT_VERSION

#: Fields compared, in the order a change lists them (``id`` and ``digest`` are not fields).
FIELDS: tuple[str, ...] = (
    "scope",
    "kind",
    "status",
    "confidence",
    "content",
    "tags",
    "valid_from",
    "valid_to",
    "supersedes",
    "superseded_by",
    "superseded_at",
    "derived_from",
    "source",
    "extra",
    "recorded_at",
    "updated_at",
)


@dataclass
class Entry:
    """One record file of a snapshot: where it is and how to get its bytes."""

    id: str
    scope: str
    key: str  # equal keys mean equal bytes (a git blob id, or a digest of the bytes)
    load: Callable[[], bytes]
    _record: Record | None = None
    _error: str | None = None
    _parsed: bool = False

    def record(self) -> Record | None:
        """The parsed record, or None (then :attr:`error` says why)."""
        if not self._parsed:
            self._parsed = True
            raw = self.load()
            try:
                self._record = parse_record(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                self._error = f"not valid UTF-8 (byte {exc.start})"
            except RecordParseError as exc:
                self._error = exc.message
        return self._record

    @property
    def error(self) -> str | None:
        self.record()
        return self._error


@dataclass
class Snapshot:
    label: str
    records: dict[str, Entry] = field(default_factory=dict)
    tombstones: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: reads the bytes of many entries at once (git: one cat-file call), before they are parsed
    prefetch: Callable[[list[Entry]], None] | None = None


# ---------------------------------------------------------------------------------------------
# Reading a snapshot


def _check_declaration(raw: bytes | None, where: str) -> None:
    if raw is None:
        raise StoreNotFoundError(f"no mem store (no {DECLARATION_FILE})", path=where)
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise StoreInvalidError(f"{DECLARATION_FILE} is not valid JSON", path=where) from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT_NAME:
        raise UnsupportedFormatError(f"{DECLARATION_FILE} does not declare a mem store", path=where)
    if obj.get("version") != FORMAT_VERSION:
        raise UnsupportedFormatError(
            f"format version {obj.get('version')!r} is not supported (this mem reads "
            f"version {FORMAT_VERSION})",
            path=where,
        )


def _add_tombstones(snap: Snapshot, raw: bytes) -> None:
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # a torn or broken line; `mem verify` reports it
        if isinstance(obj, dict) and obj.get("type", "tombstone") == "tombstone" and ids.is_id(
            obj.get("id")
        ):
            snap.tombstones[str(obj["id"])] = obj


def _record_name(rel_parts: tuple[str, ...]) -> tuple[str, str] | None:
    """(scope, id) when ``records/<scope>/<ID>.md`` names a record file."""
    if len(rel_parts) != 3 or rel_parts[0] != "records" or not rel_parts[2].endswith(".md"):
        return None
    scope, rid = rel_parts[1], rel_parts[2][:-3]
    if not ids.is_scope(scope) or not ids.is_id(rid):
        return None
    return scope, rid


def blob_id(data: bytes) -> str:
    """git's object id of a file's bytes, so working files and revisions compare by key."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _const(data: bytes) -> Callable[[], bytes]:
    return lambda: data


def read_dir(root: Path, label: str | None = None) -> Snapshot:
    """A snapshot of the store in directory ``root`` (its working files)."""
    root = Path(root)
    if not root.is_dir():
        raise StoreNotFoundError("no such directory", path=root)
    try:
        decl = (root / DECLARATION_FILE).read_bytes()
    except FileNotFoundError:
        decl = None
    _check_declaration(decl, str(root))
    snap = Snapshot(label or str(root))
    rdir = root / "records"
    for scope in sorted(os.listdir(rdir)) if rdir.is_dir() and not rdir.is_symlink() else []:
        sdir = rdir / scope
        if not sdir.is_dir() or sdir.is_symlink():
            continue
        for name in sorted(os.listdir(sdir)):
            hit = _record_name(("records", scope, name))
            p = sdir / name
            if hit is None or hit[1] in snap.records or not p.is_file() or p.is_symlink():
                continue
            data = p.read_bytes()
            snap.records[hit[1]] = Entry(hit[1], scope, blob_id(data), _const(data))
    tdir = root / "tombstones"
    if tdir.is_dir():
        for p in sorted(tdir.glob("*.jsonl")):
            _add_tombstones(snap, p.read_bytes())
    return snap


def _git(args: list[str], cwd: Path, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, input=input, capture_output=True, check=False
        )
    except FileNotFoundError:
        raise NotFoundError("git is not installed (needed to diff revisions)") from None


class GitRepo:
    """The git repository that holds a store, read through git's plumbing commands."""

    def __init__(self, store_root: Path) -> None:
        store_root = Path(store_root).resolve()
        p = _git(["rev-parse", "--show-toplevel"], store_root)
        if p.returncode != 0:
            raise NotFoundError(
                "not inside a git repository: give two store directories to compare",
                path=store_root,
            )
        self.top = Path(p.stdout.decode().strip()).resolve()
        self.store_root = store_root
        rel = store_root.relative_to(self.top).as_posix()
        self.prefix = "" if rel == "." else rel + "/"

    def resolve(self, rev: str) -> str:
        """The commit id a revision names; a clear error (exit 3) when it names none."""
        if not rev or rev.startswith("-"):
            raise NotFoundError(f"{rev!r} is not a revision")
        p = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], self.top)
        if p.returncode != 0:
            raise NotFoundError(
                f"unknown revision {rev!r} in the git repository {self.top}",
                hint="use a branch, tag or commit (see `git log`)",
            )
        return p.stdout.decode().strip()

    def cat(self, shas: list[str]) -> dict[str, bytes]:
        """The contents of blobs, read with one ``git cat-file --batch``."""
        if not shas:
            return {}
        p = _git(["cat-file", "--batch"], self.top, input="".join(s + "\n" for s in shas).encode())
        if p.returncode != 0:
            raise StoreInvalidError(f"git cat-file failed: {p.stderr.decode(errors='replace').strip()}")
        out: dict[str, bytes] = {}
        data, pos = p.stdout, 0
        for _ in shas:
            nl = data.index(b"\n", pos)
            header = data[pos:nl].decode().split()
            pos = nl + 1
            if len(header) < 3 or header[1] == "missing":
                continue
            size = int(header[2])
            out[header[0]] = data[pos : pos + size]
            pos += size + 1
        return out

    def snapshot(self, rev: str) -> Snapshot:
        commit = self.resolve(rev)
        p = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", self.prefix or "."], self.top)
        if p.returncode != 0:
            raise NotFoundError(f"cannot list {rev}: {p.stderr.decode(errors='replace').strip()}")
        decl_sha: str | None = None
        records: list[tuple[str, str, str]] = []
        tombs: list[str] = []
        n = len(self.prefix)
        for item in p.stdout.split(b"\0"):
            if not item:
                continue
            meta, _, path_b = item.partition(b"\t")
            mode, kind, sha = meta.decode().split()
            path = path_b.decode("utf-8", "replace")
            if kind != "blob" or not path.startswith(self.prefix) or mode == "120000":
                continue
            rel = path[n:]
            if rel == DECLARATION_FILE:
                decl_sha = sha
            elif rel.startswith("tombstones/") and rel.endswith(".jsonl") and rel.count("/") == 1:
                tombs.append(sha)
            else:
                hit = _record_name(tuple(rel.split("/")))
                if hit is not None:
                    records.append((hit[0], hit[1], sha))
        where = f"{self.prefix or './'} at {rev}"
        blobs = self.cat([s for s in (decl_sha, *tombs) if s])
        _check_declaration(blobs.get(decl_sha) if decl_sha else None, where)
        snap = Snapshot(rev)
        for sha in tombs:
            _add_tombstones(snap, blobs.get(sha, b""))
        cache: dict[str, bytes] = {}

        def load(sha: str) -> bytes:
            if sha not in cache:
                cache.update(self.cat([sha]))
            return cache.get(sha, b"")

        def prefetch(entries: list[Entry]) -> None:
            cache.update(self.cat(sorted({e.key for e in entries} - set(cache))))

        snap.prefetch = prefetch
        for scope, rid, sha in records:
            if rid not in snap.records:
                snap.records[rid] = Entry(rid, scope, sha, functools.partial(load, sha))
        return snap


# ---------------------------------------------------------------------------------------------
# Comparing


@dataclass
class RecordChange:
    id: str
    scope: str
    changes: list[tuple[str, Any, Any]]  # (field, old, new) in the order of FIELDS

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scope": self.scope,
            "changes": [{"field": f, "old": o, "new": n} for f, o, n in self.changes],
        }


@dataclass
class StoreDiff:
    a: str
    b: str
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[RecordChange] = field(default_factory=list)
    tombstones: list[dict[str, Any]] = field(default_factory=list)  # new in b

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed or self.tombstones)

    def stat(self) -> dict[str, Any]:
        scopes: dict[str, dict[str, int]] = {}

        def bump(scope: str, key: str) -> None:
            s = scopes.setdefault(scope, {"added": 0, "removed": 0, "changed": 0})
            s[key] += 1

        for r in self.added:
            bump(r["scope"], "added")
        for r in self.removed:
            bump(r["scope"], "removed")
        for c in self.changed:
            bump(c.scope, "changed")
        transitions: dict[str, int] = {}
        for c in self.changed:
            for f, o, n in c.changes:
                if f == "status":
                    key = f"{o} -> {n}"
                    transitions[key] = transitions.get(key, 0) + 1
        return {
            "added": len(self.added),
            "removed": len(self.removed),
            "forgotten": sum(1 for r in self.removed if r.get("tombstone")),
            "changed": len(self.changed),
            "tombstones": len(self.tombstones),
            "status_changes": dict(sorted(transitions.items())),
            "by_scope": dict(sorted(scopes.items())),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.a,
            "to": self.b,
            "identical": self.identical,
            "stat": self.stat(),
            "added": self.added,
            "removed": self.removed,
            "changed": [c.to_dict() for c in self.changed],
            "tombstones": self.tombstones,
        }


def _broken(e: Entry) -> dict[str, Any]:
    return {"id": e.id, "scope": e.scope, "error": e.error}


def diff_snapshots(a: Snapshot, b: Snapshot) -> StoreDiff:
    out = StoreDiff(a.label, b.label)
    both = set(a.records) & set(b.records)
    changed_ids = [i for i in both if a.records[i].key != b.records[i].key]
    if a.prefetch is not None:
        a.prefetch([a.records[i] for i in (*(set(a.records) - set(b.records)), *changed_ids)])
    if b.prefetch is not None:
        b.prefetch([b.records[i] for i in (*(set(b.records) - set(a.records)), *changed_ids)])
    for rid in sorted(set(b.records) - set(a.records)):
        e = b.records[rid]
        rec = e.record()
        out.added.append(rec.to_dict() if rec is not None else _broken(e))
    for rid in sorted(set(a.records) - set(b.records)):
        e = a.records[rid]
        tomb = b.tombstones.get(rid)
        rec = e.record()
        if tomb is not None:
            # forgotten: the diff does not repeat what was forgotten, only that it was
            item: dict[str, Any] = {"id": rid, "scope": e.scope, "forgotten": True, "tombstone": tomb}
            if rec is not None:
                item.update(kind=rec.kind, status=rec.status, digest=rec.digest)
        else:
            item = rec.to_dict() if rec is not None else _broken(e)
            item.update(forgotten=False, tombstone=None)
        out.removed.append(item)
    for rid in sorted(changed_ids):
        ea, eb = a.records[rid], b.records[rid]
        ra, rb = ea.record(), eb.record()
        if ra is None or rb is None:
            old = ra.to_dict() if ra is not None else {"error": ea.error}
            new = rb.to_dict() if rb is not None else {"error": eb.error}
            out.changed.append(RecordChange(rid, eb.scope, [("file", old, new)]))
            continue
        da, db = ra.to_dict(), rb.to_dict()
        da.setdefault("extra", {})
        db.setdefault("extra", {})
        changes = [(f, da[f], db[f]) for f in FIELDS if da[f] != db[f]]
        out.changed.append(
            RecordChange(rid, rb.scope, changes or [("layout", "as stored", "re-serialized")])
        )
    removed = {r["id"] for r in out.removed}
    for rid in sorted(set(b.tombstones) - set(a.tombstones)):
        t = b.tombstones[rid]
        if rid not in removed:
            out.tombstones.append(t)
    return out


def diff_dirs(a: Path, b: Path) -> StoreDiff:
    return diff_snapshots(read_dir(a), read_dir(b))


def diff_git(store_root: Path, rev_a: str, rev_b: str | None = None) -> StoreDiff:
    """Compare the store at ``rev_a`` with ``rev_b`` (or with its working files when None)."""
    repo = GitRepo(store_root)
    a = repo.snapshot(rev_a)
    b = repo.snapshot(rev_b) if rev_b is not None else read_dir(store_root, "working tree")
    return diff_snapshots(a, b)


# ---------------------------------------------------------------------------------------------
# Text rendering (shared by the CLI and the git textconv helper)


def _show(v: Any) -> str:
    if v is None or v == [] or v == {}:
        return "-"
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False, sort_keys=True)
    return str(v)


def _one_line(text: str, width: int = 72) -> str:
    t = " ".join(text.split())
    return t if len(t) <= width else t[: width - 1] + "…"


def render(d: StoreDiff) -> Iterator[str]:
    """Human-readable lines of a diff."""
    yield f"diff {d.a} -> {d.b}"
    for r in d.added:
        if "error" in r:
            yield f"+ {r['id']} [{r['scope']}] (unparseable: {r['error']})"
        else:
            yield f"+ {r['id']} [{r['scope']}] {r['kind']} {r['status']}: {_one_line(r['content'])}"
    for r in d.removed:
        t = r.get("tombstone")
        if t:
            why = f", reason: {t['reason']}" if t.get("reason") else ""
            yield f"- {r['id']} [{r['scope']}] forgotten {t.get('forgotten_at', '?')}{why}"
        elif "error" in r:
            yield f"- {r['id']} [{r['scope']}] removed without a tombstone (unparseable)"
        else:
            yield (
                f"- {r['id']} [{r['scope']}] removed without a tombstone: "
                f"{r['kind']} {r['status']}: {_one_line(r['content'])}"
            )
    for c in d.changed:
        yield f"~ {c.id} [{c.scope}]"
        for f, old, new in c.changes:
            if f == "content":
                yield "    content:"
                for ln in difflib.unified_diff(
                    str(old).splitlines(), str(new).splitlines(), lineterm="", n=1
                ):
                    if not ln.startswith(("---", "+++", "@@")):
                        yield "      " + ln
            else:
                yield f"    {f}: {_show(old)} -> {_show(new)}"
    for t in d.tombstones:
        why = f", reason: {t['reason']}" if t.get("reason") else ""
        yield f"x {t['id']} [{t.get('scope', '?')}] tombstone added {t.get('forgotten_at', '?')}{why}"


def render_stat(d: StoreDiff) -> Iterator[str]:
    s = d.stat()
    # aligned like `git diff --stat`: scope names padded, each count right-aligned in its column
    rows = [(scope, f"+{c['added']}", f"-{c['removed']}", f"~{c['changed']}") for scope, c in s["by_scope"].items()]
    if rows:
        w = [max(len(r[i]) for r in rows) for i in range(4)]
        for scope, a, r, c in rows:
            yield f" {scope.ljust(w[0])} | {a.rjust(w[1])} {r.rjust(w[2])} {c.rjust(w[3])}"
    parts = [
        f"{s['added']} added",
        f"{s['removed']} removed ({s['forgotten']} forgotten)",
        f"{s['changed']} changed",
    ]
    if s["tombstones"]:
        parts.append(f"{s['tombstones']} other tombstones")
    line = ", ".join(parts)
    if s["status_changes"]:
        line += "; status: " + ", ".join(f"{k} x{v}" for k, v in s["status_changes"].items())
    yield line


def textconv(raw: bytes) -> str:
    """A record file as git should diff it: one fact per line, lists one item per line.

    The ``digest:`` line (which changes with any content change) is left out; an unparseable
    file is shown as it is, so ``git diff`` never fails because of a broken record.
    """
    try:
        rec = parse_record(raw.decode("utf-8"))
    except (UnicodeDecodeError, MemError):
        return raw.decode("utf-8", "replace")
    d = rec.to_dict()
    lines: list[str] = []
    for key in ("id", *FIELDS):
        if key == "content":
            continue
        v = d.get(key)
        if v is None or v == [] or v == {}:
            continue
        if isinstance(v, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {x}" for x in v)
        elif isinstance(v, dict):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {_show(x)}" for k, x in sorted(v.items()))
        else:
            lines.append(f"{key}: {v}")
    return "\n".join(lines) + "\n---\n" + rec.content
