"""``mem export --format claude-md``: a ``CLAUDE.md`` document (for ``~/.claude/CLAUDE.md`` or a
project's), the records of each scope under ``## Instructions``, ``## Preferences``,
``## Facts`` … as bullets (a record of several lines continues indented under its bullet).
``mem import --from claude-code`` reads it back, the section giving the kind. A CLAUDE.md has
no place for ids, tags, times, scopes (each scope is a ``# Memory: <scope>`` heading) or
tombstones: they are not carried (the warnings say how many tombstones).
"""

from __future__ import annotations

from typing import IO

from mem.format.interchange.export import ExportCounts, ExportFilter
from mem.format.interchange.exporters import peer_records, tombstone_warning
from mem.format.interchange.exporters.basicmemory import KIND_TITLES
from mem.format.model.record import Record
from mem.format.store.store import Store

#: Kinds in the order a prompt wants them: standing instructions and preferences first.
ORDER = ("instruction", "preference", "fact", "contact", "event", "action_item", "summary", "episode", "note")


def bullet(r: Record) -> str:
    lines = r.content.rstrip("\n").split("\n")
    return "\n".join(["- " + lines[0], *(("  " + ln) if ln.strip() else "" for ln in lines[1:])])


def write(store: Store, out: IO[str], flt: ExportFilter) -> ExportCounts:
    counts = ExportCounts()
    by_scope: dict[str, dict[str, list[Record]]] = {}
    for r in peer_records(store, flt, counts, "claude-md"):
        by_scope.setdefault(r.scope, {}).setdefault(r.kind, []).append(r)
        counts.records += 1
    parts: list[str] = []
    for scope in sorted(by_scope):
        parts.append(f"# Memory: {scope}")
        kinds = by_scope[scope]
        for kind in [k for k in ORDER if k in kinds] + sorted(k for k in kinds if k not in ORDER):
            parts += ["", f"## {KIND_TITLES.get(kind, kind)}", ""]
            parts += [bullet(r) for r in sorted(kinds[kind], key=lambda r: (r.recorded_at, r.id))]
        parts.append("")
    out.write("\n".join(parts) if parts else "")
    tombstone_warning(store, flt, counts, "claude-md")
    return counts
