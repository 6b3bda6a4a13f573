"""``mem export --format basic-memory -o DIR``: a basic-memory project folder.

Per scope a folder ``DIR/<scope>/``; in it, one note per kind (``facts.md``, ``preferences.md``
…) whose observations are the records of that kind, ``- [kind] text #tag1 #tag2 (mem <id>,
recorded <time>)``. A record an observation line cannot hold exactly (several lines, a ``[[``
link, text ending in ``#word`` or ``(…)``, a leading ``[``) gets a note of its own,
``DIR/<scope>/<id>.md``, with the text as its body and ``type`` = its kind. ``mem import --from
basic-memory`` reads both back (the ``(mem …)`` context gives back the record time). Files mem
wrote before are replaced; other files in DIR are left alone. Each note names its scope in the
frontmatter key ``mem_scope``, which the import reads back.

A re-run into the same folder removes the notes an earlier run wrote (recognized by their
frontmatter: ``permalink`` and ``mem_scope`` as this module writes them, in the folder of that
scope) that this run, for the scopes and kinds it covers, no longer writes: a forgotten record's
or scope's note does not outlive the forget. A file mem did not write is never removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path

from mem.format.base.fsutil import atomic_write, ensure_dir, remove_file
from mem.format.interchange.export import ExportCounts, ExportFilter, noting_unread
from mem.format.interchange.exporters import peer_records, tombstone_warning
from mem.format.model.record import Record
from mem.format.rules import ids
from mem.format.rules.timeutil import format_time
from mem.format.store.store import Store

KIND_TITLES = {
    "fact": "Facts", "preference": "Preferences", "instruction": "Instructions", "event": "Events",
    "episode": "Episodes", "summary": "Summaries", "action_item": "Action items",
    "contact": "Contacts", "note": "Notes",
}  # fmt: skip
#: An observation line holds the text exactly unless the text would be read back differently.
_UNSAFE = re.compile(r"\n|\[\[|#[^\s#()\[\]]+\s*$|\)\s*$|^\s*\[|^\s*$")


def fits_observation(text: str) -> bool:
    return _UNSAFE.search(text.rstrip("\n")) is None


def _yaml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _frontmatter(title: str, typ: str, permalink: str, tags: list[str], created: str | None, scope: str) -> str:
    lines = ["---", f"title: {_yaml_str(title)}", f"type: {typ}", f"permalink: {permalink}", f"mem_scope: {scope}"]
    if tags:
        lines.append("tags: [" + ", ".join(_yaml_str(t) for t in tags) + "]")
    if created:
        lines.append(f"created: {created}")
    return "\n".join([*lines, "---", ""])


def observation(r: Record) -> str:
    tags = "".join(f" #{t}" for t in r.tags)
    return f"- [{r.kind}] {r.content.rstrip(chr(10))}{tags} (mem {r.id}, recorded {format_time(r.recorded_at)})"


def own_note(r: Record) -> str:
    first = r.content.strip().split("\n", 1)[0].lstrip("#").strip()
    title = (first[:77] + "...") if len(first) > 80 else first or r.id
    if r.content.lstrip().startswith("#"):
        title = f"{title} ({r.id[-6:]})"
    fm = _frontmatter(title, r.kind, f"{r.scope}-{r.id.lower()}", list(r.tags), format_time(r.recorded_at), r.scope)
    return fm + "\n" + r.content.rstrip("\n") + "\n"


def write(store: Store, out_dir: Path, flt: ExportFilter) -> ExportCounts:
    counts = ExportCounts()
    ensure_dir(out_dir, 0o700)
    by_scope: dict[str, dict[str, list[Record]]] = {}
    noting, unread = noting_unread(flt)  # scopes with a record left out: their earlier notes are kept
    for r in peer_records(store, noting, counts, "basic-memory"):
        counts.records += 1
        if fits_observation(r.content):
            by_scope.setdefault(r.scope, {}).setdefault(r.kind, []).append(r)
        else:
            by_scope.setdefault(r.scope, {})
            path = out_dir / r.scope / f"{r.id}.md"
            ensure_dir(path.parent, 0o700)
            atomic_write(path, own_note(r), 0o600)
            counts.files.append(str(path))
    for scope, kinds in sorted(by_scope.items()):
        for kind, recs in sorted(kinds.items()):
            title = f"{KIND_TITLES.get(kind, kind)} ({scope})"
            body = [f"# {title}", "", "## Observations"]
            body += [observation(r) for r in sorted(recs, key=lambda r: (r.recorded_at, r.id))]
            text = _frontmatter(title, "note", f"{scope}-{kind.replace('_', '-')}", [], None, scope) + "\n" + "\n".join(body) + "\n"
            path = out_dir / scope / f"{kind}.md"
            ensure_dir(path.parent, 0o700)
            atomic_write(path, text, 0o600)
            counts.files.append(str(path))
    tombstone_warning(store, flt, counts, "basic-memory")
    counts.removed = _remove_stale_notes(out_dir, {Path(f) for f in counts.files}, unread, flt)
    return counts


def _frontmatter_of(path: Path) -> dict[str, str] | None:
    """The ``key: value`` lines of the frontmatter at the top of ``path`` (None: none, or not a
    regular file). Only the plain lines this module writes are read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        lines = f.read(4096).decode("utf-8", "replace").split("\n")
    if not lines or lines[0] != "---":
        return None
    out: dict[str, str] = {}
    for ln in lines[1:]:
        if ln == "---":
            return out
        key, sep, value = ln.partition(": ")
        if sep:
            out.setdefault(key, value)
    return None


def _written_kind(path: Path, scope: str) -> str | None:
    """The kind of the note at ``DIR/<scope>/<name>.md`` if this exporter wrote it (its
    ``permalink`` and ``mem_scope`` are the ones :func:`write` gives that name), else None."""
    fm = _frontmatter_of(path)
    if fm is None or fm.get("mem_scope") != scope:
        return None
    name = path.stem
    if ids.is_id(name):  # a record's own note: type is its kind
        kind = fm.get("type", "")
        return kind if fm.get("permalink") == f"{scope}-{name.lower()}" and ids.is_kind(kind) else None
    if ids.is_kind(name) and fm.get("type") == "note" and fm.get("permalink") == f"{scope}-{name.replace('_', '-')}":
        return name
    return None


def _remove_stale_notes(out_dir: Path, written: set[Path], unread: set[str], flt: ExportFilter) -> list[str]:
    """Remove the notes an earlier basic-memory export wrote into ``out_dir`` for the scopes and
    kinds this export covers (all, or its ``--scope``/``--kind``) that it did not write now; a
    scope folder left empty by that goes too. Scopes with an unreadable record keep theirs."""
    removed: list[str] = []
    try:
        entries = sorted(out_dir.iterdir())
    except OSError:
        return removed
    for folder in entries:
        scope = folder.name
        if not ids.is_scope(scope) or scope in unread or folder.is_symlink() or not folder.is_dir():
            continue
        if flt.scopes is not None and scope not in flt.scopes:
            continue
        before = len(removed)
        for p in sorted(folder.glob("*.md")):
            if p in written or p.is_symlink():
                continue
            kind = _written_kind(p, scope)
            if kind is None or (flt.kinds is not None and kind not in flt.kinds):
                continue
            remove_file(p)
            removed.append(str(p))
        if len(removed) > before:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty: a file mem did not write keeps its folder
    return removed
