"""``mem export --format basic-memory -o DIR``: a basic-memory project folder.

Per scope a folder ``DIR/<scope>/``; in it, one note per kind (``facts.md``, ``preferences.md``
…) whose observations are the records of that kind, ``- [kind] text #tag1 #tag2 (mem <id>,
recorded <time>)``. A record an observation line cannot hold exactly (several lines, a ``[[``
link, text ending in ``#word`` or ``(…)``, a leading ``[``) gets a note of its own,
``DIR/<scope>/<id>.md``, with the text as its body and ``type`` = its kind. ``mem import --from
basic-memory`` reads both back (the ``(mem …)`` context gives back the record time). Files mem
wrote before are replaced; other files in DIR are left alone. Each note names its scope in the
frontmatter key ``mem_scope``, which the import reads back.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..export import ExportCounts, ExportFilter
from ..fsutil import atomic_write, ensure_dir
from ..record import Record
from ..store import Store
from ..timeutil import format_time
from . import peer_records, tombstone_warning

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
    for r in peer_records(store, flt, counts, "basic-memory"):
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
    return counts
