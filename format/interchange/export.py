"""Export: JSON Lines (lossless, ``spec/export.md``), CSV (spreadsheets) and a Markdown bundle.

JSON Lines: a header line (``{"type": "header", "format": "mem-export", "version": 1,
"declaration": <memstore.json>, ...}``), then one ``{"type": "record", ...Record.to_dict()}`` per
record, by scope then id, then the tombstones and lifts of the exported scopes as stored.
Importing it into an empty store gives byte-identical record files.

Filters (scope, kind, status, record time) choose records; tombstones follow the scope filter
only (they guard the exported scopes against resurrection whatever else was filtered).
By default every status is exported (superseded and rejected records too).
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as _dt
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mem.format.base.csvcell import neutralize
from mem.format.base.errors import RecordParseError
from mem.format.base.fsutil import atomic_write, ensure_dir, remove_file
from mem.format.base.jsonl import read_jsonl
from mem.format.interchange.importers.jsonl import EXPORT_FORMAT, EXPORT_VERSION
from mem.format.model.record import STATUSES, Record
from mem.format.rules import ids
from mem.format.rules.timeutil import format_time, now
from mem.format.store.store import RecordFilter, Store

CSV_COLUMNS: tuple[str, ...] = (
    "id", "scope", "kind", "status", "confidence", "tags", "valid_from", "valid_to",
    "recorded_at", "updated_at", "superseded_at", "supersedes", "superseded_by", "derived_from",
    "source", "extra", "digest", "content",
)  # fmt: skip


@dataclass
class ExportFilter:
    scopes: Sequence[str] | None = None
    kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = None  # None: every status
    since: _dt.datetime | None = None  # recorded_at >= since
    until: _dt.datetime | None = None  # recorded_at < until
    #: where a record file that cannot be read goes (then it is left out); None: it raises
    on_error: Callable[[RecordParseError], None] | None = field(default=None, compare=False)

    def record_filter(self) -> RecordFilter:
        return RecordFilter(
            scopes=self.scopes,
            kinds=self.kinds,
            statuses=tuple(self.statuses) if self.statuses else STATUSES,
            recorded_after=self.since,
            recorded_before=self.until,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "scopes": list(self.scopes) if self.scopes else None,
            "kinds": list(self.kinds) if self.kinds else None,
            "statuses": list(self.statuses) if self.statuses else None,
            "since": format_time(self.since) if self.since else None,
            "until": format_time(self.until) if self.until else None,
        }


@dataclass
class ExportCounts:
    records: int = 0
    tombstones: int = 0
    lifts: int = 0
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: files an earlier export wrote into the same folder that this one no longer would (a
    #: forgotten scope's document): removed, so a re-run leaves no forgotten text behind
    removed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "records": self.records,
            "tombstones": self.tombstones,
            "lifts": self.lifts,
            "warnings": self.warnings,
        }
        if self.files:
            out["files"] = self.files
        if self.removed:
            out["removed"] = self.removed
        return out


def _dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def header(store: Store, flt: ExportFilter) -> dict[str, Any]:
    from mem import __version__

    decl = json.loads(store.declaration.to_json())
    return {
        "type": "header",
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "declaration": decl,
        "exported_at": format_time(now()),
        "writer": f"mem {__version__}",
        "filter": flt.to_dict(),
    }


def iter_records(store: Store, flt: ExportFilter) -> Iterator[Record]:
    """Records chosen by ``flt``, by scope then id. An unreadable record file raises, or goes
    to ``flt.on_error`` and is left out."""
    rf = flt.record_filter()
    for r in store.iter_records(rf.scopes, on_error=flt.on_error):
        if rf.matches(r):
            yield r


def iter_tombstone_objects(store: Store, flt: ExportFilter, counts: ExportCounts) -> Iterator[dict[str, Any]]:
    """Tombstone and lift objects of the chosen scopes, as stored (file order)."""
    scopes = store.tombstones.scopes()
    if flt.scopes is not None:
        scopes = [s for s in scopes if s in flt.scopes]
    for scope in scopes:
        path = store.tombstones.path(scope)
        lines, tail = read_jsonl(path)
        if tail:
            counts.warnings.append(f"{path}: the last line is incomplete and was not exported")
        for ln in lines:
            v = ln.value
            if v is None:
                counts.warnings.append(f"{path}:{ln.lineno}: {ln.error}; not exported")
                continue
            typ = v.get("type", "tombstone")
            if typ not in ("tombstone", "lift"):
                counts.warnings.append(f"{path}:{ln.lineno}: unknown entry type {typ!r}; not exported")
                continue
            obj = dict(v)
            obj["type"] = typ
            obj.setdefault("scope", scope)
            if typ == "tombstone":
                counts.tombstones += 1
            else:
                counts.lifts += 1
            yield obj


def record_object(r: Record) -> dict[str, Any]:
    return {"type": "record", **r.to_dict()}


def write_jsonl(store: Store, out: IO[str], flt: ExportFilter, *, tombstones: bool = True) -> ExportCounts:
    counts = ExportCounts()
    out.write(_dumps(header(store, flt)) + "\n")
    for r in iter_records(store, flt):
        out.write(_dumps(record_object(r)) + "\n")
        counts.records += 1
    if tombstones:
        for obj in iter_tombstone_objects(store, flt, counts):
            out.write(_dumps(obj) + "\n")
    return counts


def csv_row(r: Record) -> list[str]:
    d = r.to_dict()
    row: list[str] = []
    for col in CSV_COLUMNS:
        v = d.get(col)
        if v is None:
            row.append("")
        elif col in ("tags", "supersedes", "derived_from"):
            row.append(",".join(v))
        elif col in ("source", "extra"):
            row.append(json.dumps(v, ensure_ascii=False, sort_keys=False) if v else "")
        elif isinstance(v, float):
            row.append(repr(v))
        else:
            row.append(str(v))
    return row


def write_csv(store: Store, out: IO[str], flt: ExportFilter) -> ExportCounts:
    """One row per record (tombstones are not in CSV); re-importable with ``mem import --from csv``.

    Cells a spreadsheet would run as formulas are neutralized (:mod:`.csvcell`)."""
    counts = ExportCounts()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in iter_records(store, flt):
        w.writerow([neutralize(cell) for cell in csv_row(r)])  # no cell runs as a formula
        counts.records += 1
    return counts


# ---------------------------------------------------------------------------------------------
# Markdown bundle: one readable document per scope (not meant to be imported again)

_KIND_TITLES = {
    "fact": "Facts", "preference": "Preferences", "instruction": "Instructions", "event": "Events",
    "episode": "Episodes", "summary": "Summaries", "action_item": "Action items",
    "contact": "Contacts", "note": "Notes",
}  # fmt: skip


def _title(content: str) -> str:
    first = next((ln.strip() for ln in content.split("\n") if ln.strip()), "")
    first = first.lstrip("#>*- ").strip() or "(untitled)"
    return first if len(first) <= 80 else first[:77].rstrip() + "..."


def _date(t: _dt.datetime | None) -> str:
    return "" if t is None else format_time(t)[:10]


def scope_document(scope: str, records: list[Record], exported_at: str) -> str:
    lines = [f"# Memory: {scope}", ""]
    lines.append(f"{len(records)} record(s), exported {exported_at} by mem.")
    by_kind: dict[str, list[Record]] = {}
    for r in records:
        by_kind.setdefault(r.kind, []).append(r)
    order = [k for k in _KIND_TITLES if k in by_kind] + sorted(k for k in by_kind if k not in _KIND_TITLES)
    for kind in order:
        recs = sorted(by_kind[kind], key=lambda r: (r.recorded_at, r.id))
        lines += ["", f"## {_KIND_TITLES.get(kind, kind)} ({len(recs)})"]
        for r in recs:
            lines += ["", f"### {_title(r.content)}", ""]
            meta = [f"`{r.id}`", r.status, f"confidence {r.confidence:g}", f"recorded {_date(r.recorded_at)}"]
            if r.tags:
                meta.append("tags: " + ", ".join(r.tags))
            lines.append("- " + " · ".join(meta))
            if r.valid_from or r.valid_to:
                lines.append(f"- valid: {_date(r.valid_from) or '…'} → {_date(r.valid_to) or 'now'}")
            if r.derived_from:
                lines.append("- derived from: " + ", ".join(f"`{d}`" for d in r.derived_from))
            if r.superseded_by:
                lines.append(f"- superseded by `{r.superseded_by}`")
            src = r.source
            if src.get("system"):
                lines.append(f"- imported from {src['system']} ({src.get('original_id', '?')})")
            lines.append("")
            lines += [("> " + ln) if ln else ">" for ln in r.content.rstrip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def noting_unread(flt: ExportFilter) -> tuple[ExportFilter, set[str]]:
    """``flt``, also noting the scope of each record file it cannot read, and the set it notes
    them in: an export keeps such a scope's earlier documents (a record left out is not a record
    removed). The file is then reported or raised as ``flt.on_error`` says."""
    unread: set[str] = set()

    def note(exc: RecordParseError) -> None:
        if exc.path:
            unread.add(Path(exc.path).parent.name)
        if flt.on_error is None:
            raise exc
        flt.on_error(exc)

    return dataclasses.replace(flt, on_error=note), unread


def write_markdown(store: Store, out_dir: Path, flt: ExportFilter) -> ExportCounts:
    """``<dir>/<scope>.md`` per scope and ``<dir>/_index.md`` (no scope can have that name)."""
    counts = ExportCounts()
    ensure_dir(out_dir, 0o700)
    by_scope: dict[str, list[Record]] = {}
    noting, unread = noting_unread(flt)  # scopes with a record left out: their old document is kept
    for r in iter_records(store, noting):
        by_scope.setdefault(r.scope, []).append(r)
        counts.records += 1
    at = format_time(now())
    index = ["# Memory export", "", f"Exported {at} from `{store.root}` by mem.", ""]
    for scope in sorted(by_scope):
        name = f"{scope}.md"
        atomic_write(out_dir / name, scope_document(scope, by_scope[scope], at), 0o600)
        counts.files.append(str(out_dir / name))
        index.append(f"- [{scope}]({name}): {len(by_scope[scope])} record(s)")
    if not by_scope:
        index.append("(no records matched)")
    atomic_write(out_dir / "_index.md", "\n".join(index) + "\n", 0o600)
    counts.files.append(str(out_dir / "_index.md"))
    counts.removed = _remove_stale_documents(out_dir, set(by_scope) | unread, flt)
    return counts


def _is_scope_document(path: Path) -> bool:
    """Whether ``path`` is a scope document a markdown export of mem wrote (its first lines say
    so: ``# Memory: <scope>``, a blank line, ``N record(s), exported <time> by mem.``)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace").split("\n")
    except OSError:
        return False
    return (len(head) >= 3 and head[0] == f"# Memory: {path.stem}" and head[1] == ""
            and " record(s), exported " in head[2] and head[2].endswith(" by mem."))


def _remove_stale_documents(out_dir: Path, written: set[str], flt: ExportFilter) -> list[str]:
    """Remove the scope documents an earlier export wrote here for scopes this export covers but
    no longer writes (forgotten, or with nothing left that matches): a re-run into the same
    folder keeps no forgotten text. Only mem's own scope documents are touched; files of other
    scopes than a ``--scope`` export's, and every other file, are left alone."""
    removed: list[str] = []
    for p in sorted(out_dir.glob("*.md")):
        scope = p.stem
        if scope in written or not ids.is_scope(scope) or p.is_symlink() or not p.is_file():
            continue
        if flt.scopes is not None and scope not in flt.scopes:
            continue
        if _is_scope_document(p):
            remove_file(p)
            removed.append(str(p))
    return removed
