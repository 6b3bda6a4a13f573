"""Applying import items to a store: idempotent, tombstone-respecting, lineage-mapping, atomic.

:func:`import_entries` takes the entries a reader produced (:mod:`mem.format.interchange.importers`) and
decides an outcome for each item (``spec/cli/import.md``):

- ``created``: written as a new record (``store.put(op="import")``, atomic per record);
- ``unchanged``: already in the store: the same id with identical content (full export shape),
  or the same source item (``source_key``: system + original id);
- ``duplicate``: an item without an id of its own whose normalized content is already a live
  record of the same scope (its lineage maps to that record);
- ``conflict``: a different record with the same id is already in the store;
- ``refused_forgotten``: its id, content or source item is tombstoned in the scope, or it is
  derived from a forgotten item; not a failure;
- ``refused_secret``: its text holds a secret (:mod:`.secretpolicy`) and ``allow_secret`` is
  off; a failure (exit 4), reported by rule name, never with the text;
- ``invalid`` / ``skipped_not_memory`` / ``skipped_empty``: reported by the reader.

Records are applied before the tombstones and lifts of the same input (an export's tombstones
describe the exporting store after its records were written). Items are applied sources first (lineage: a derived record is written after the records it was
derived from, and its ``derived_from`` names their mem ids). A derived record whose sources are
missing keeps the ones that exist and reports the others as a warning. All writes go through
``store.batch()`` (one lock, deferred fsync, one index update); an interrupted import leaves
whole records only and can be run again. ``dry_run`` computes the same plan and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import (
    ConflictError,
    MemError,
    SecretRefusedError,
    TombstonedError,
    ValidationError,
)
from mem.format.interchange.importers.base import (
    OUTCOMES,
    Entry,
    ImportItem,
    Problem,
    Tombstoneish,
    Where,
)
from mem.format.model.record import Record, dump_record, make_record, match_digest
from mem.format.model.tombstones import Tombstone
from mem.format.rules import ids
from mem.format.rules.secretpolicy import check_record
from mem.format.rules.timeutil import format_time, now
from mem.format.store.store import Store, source_key


@dataclass
class ImportOptions:
    scope: str | None = None  # everything into this scope
    scope_map: dict[str, str] = field(default_factory=dict)  # source scope/user/character -> scope
    default_scope: str = "default"
    dry_run: bool = False
    keep_items: bool = False  # list every item's outcome in the summary (dry runs)
    #: import ``lift`` lines that do not accompany their record (an explicit, logged override)
    allow_forgotten: bool = False
    allow_secret: bool = False  # store items whose text holds a secret (logged per record)


@dataclass
class ItemResult:
    outcome: str
    where: Where
    id: str | None = None
    scope: str | None = None
    kind: str | None = None
    original_id: str | None = None
    content: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "id": self.id,
            "scope": self.scope,
            "kind": self.kind,
            "original_id": self.original_id,
            "file": self.where.file,
            "line": self.where.line,
            "content": self.content,
        }


@dataclass
class ImportSummary:
    system: str
    path: str
    dry_run: bool
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    tombstones: dict[str, int] = field(
        default_factory=lambda: {"added": 0, "unchanged": 0, "conflict": 0, "invalid": 0, "refused": 0}
    )
    problems: list[Problem] = field(default_factory=list)
    items: list[ItemResult] = field(default_factory=list)
    warnings: int = 0

    @property
    def failed(self) -> bool:
        """True when some input could not be imported (invalid lines, id conflicts, secrets)."""
        c = self.counts
        return bool(
            c["invalid"] or c["conflict"] or c["refused_secret"]
            or self.tombstones["invalid"] or self.tombstones["conflict"]
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "path": self.path,
            "dry_run": self.dry_run,
            "counts": dict(self.counts),
            "tombstones": dict(self.tombstones),
            "warnings": self.warnings,
            "problems": [p.to_dict() for p in self.problems],
        }
        if self.items:
            out["items"] = [i.to_dict() for i in self.items]
        return out


def _writer() -> str:
    from mem import __version__

    return f"mem {__version__}"


class _State:
    """What the store holds, plus what this run has created (so dry runs plan like real ones)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.live: dict[str, str] = {}  # id -> scope
        self.keys: dict[str, str] = {}  # source key -> id
        self.digests: dict[tuple[str, str], str] = {}  # (scope, match digest) -> id
        self.pending_tomb: dict[str, set[str]] = {}  # scope -> tombstone ids planned (dry runs)
        self.planned: dict[str, Record] = {}  # id -> record a dry run would have written
        self.logged_forgotten: set[str] | None = None  # ids of the log's forget events (read once)
        self.superseded: set[str] = set()  # ids superseded already (no second successor)
        self.input_ids: set[str] = set()  # ids of the records in the input (the export shape)
        for r in store.iter_records(on_error=lambda e: None):
            self.note(r)
            if r.status == "superseded":
                self.superseded.add(r.id)

    def note(self, r: Record) -> None:
        self.live[r.id] = r.scope
        k = source_key(r.source)
        if k is not None:
            self.keys.setdefault(k, r.id)
        self.digests.setdefault((r.scope, r.match_digest), r.id)

    def forgotten(self, scope: str, *values: str | None) -> str | None:
        """The tombstone id blocking any of ``values`` (id, digest, source key) in ``scope``."""
        t = self.store.tombstones.load(scope)
        pend = self.pending_tomb.get(scope, set())
        for v in values:
            if v is None:
                continue
            if v in t.ids:
                return v
            if v in t.digests:
                return t.digests[v]
            if v in pend:
                return v
        return None

    def id_forgotten(self, rid: str) -> bool:
        """Tombstoned, about to be (a dry run), or forgotten by the audit log's word (its
        tombstone deleted by hand: an old export must not bring the record back)."""
        if self.logged_forgotten is None:
            self.logged_forgotten = self.store.log.forgotten_ids()
        return (
            self.store.tombstones.find_id(rid) is not None
            or any(rid in s for s in self.pending_tomb.values())
            or rid in self.logged_forgotten
        )


def _order(items: list[ImportItem]) -> list[ImportItem]:
    """Items with sources before the items derived from them (stable otherwise)."""
    ref: dict[str, int] = {}
    for i, it in enumerate(items):
        if it.record is not None:
            ref.setdefault(it.record.id, i)
        elif it.original_id is not None:
            ref.setdefault(f"{it.system}\x00{it.original_id}", i)

    def deps(it: ImportItem) -> list[int]:
        out = [ref[d] for d in it.derived_from if d in ref]
        if it.record is not None:
            out += [ref[d] for d in it.record.derived_from if d in ref]
        out += [ref[k] for d in it.derived_from_original if (k := f"{it.system}\x00{d}") in ref]
        return out

    if not any(it.derived_from or it.derived_from_original or (it.record and it.record.derived_from) for it in items):
        return items
    done = [False] * len(items)
    out: list[ImportItem] = []
    for start in range(len(items)):
        if done[start]:
            continue
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            i, expanded = stack.pop()
            if done[i]:
                continue
            if expanded:
                done[i] = True
                out.append(items[i])
                continue
            stack.append((i, True))
            for d in reversed(deps(items[i])):
                if not done[d] and d != i:
                    stack.append((d, False))
        # a cycle (malformed input) is broken where it closes: each item is still placed once
    return out


def _resolve_scope(item: ImportItem, opts: ImportOptions) -> str:
    if opts.scope:
        return ids.check_scope(opts.scope)
    raw = item.scope if item.scope is not None else item.scope_hint
    if raw is not None and raw in opts.scope_map:
        return ids.check_scope(opts.scope_map[raw])
    if item.scope is not None:
        return ids.check_scope(item.scope)
    if item.scope_hint is not None:
        return ids.scope_for(item.scope_hint)
    return ids.check_scope(opts.default_scope)


def _source(item: ImportItem, foreign: bool, writer: str, scope: str) -> dict[str, Any]:
    """Provenance of a new record. Every import names ``system`` and ``original_id`` (spec/format.md
    section 5.3): an item that does not say what it is in its system (a minimal JSON Lines object)
    is identified by its scope and normalized content, ``<scope>:<match digest>``."""
    if foreign:
        src: dict[str, Any] = {"type": "import", "writer": writer, "system": item.system}
        src["original_id"] = item.original_id
        for k, v in item.source.items():
            src.setdefault(k, v)
        return src
    src = dict(item.source)
    src.setdefault("type", "import")
    if src["type"] != "import":
        return src
    src.setdefault("writer", writer)
    src.setdefault("system", item.system)
    if src.get("original_id") is None:
        src["original_id"] = f"{scope}:{match_digest(item.content)}"
    if not item.source:
        src["file"] = os.path.basename(item.where.file)
        src["line"] = item.where.line
    return src


def import_entries(
    store: Store,
    entries: Iterable[Entry],
    *,
    system: str,
    path: str,
    options: ImportOptions | None = None,
    foreign: bool | None = None,
    progress: Callable[[list[ImportItem]], Iterable[ImportItem]] | None = None,
) -> ImportSummary:
    """Apply a reader's entries to ``store``; returns the summary (see the module text)."""
    opts = options or ImportOptions()
    if opts.scope:
        ids.check_scope(opts.scope)
    for v in opts.scope_map.values():
        ids.check_scope(v)
    if foreign is None:
        from mem.format.interchange.importers import FOREIGN

        foreign = system in FOREIGN
    summary = ImportSummary(system=system, path=path, dry_run=opts.dry_run)
    items: list[ImportItem] = []
    tombs: list[Tombstoneish] = []
    for e in entries:
        if isinstance(e, ImportItem):
            items.append(e)
        elif isinstance(e, Tombstoneish):
            tombs.append(e)
        else:
            _problem(summary, e)
    state = _State(store)
    state.input_ids = {it.record.id for it in items if it.record is not None}
    writer = _writer()
    ctx = store.batch() if not opts.dry_run else _NoBatch()
    with ctx:
        if not opts.dry_run:  # a torn audit chain refuses the import before its first write
            store.check_appendable()
        ordered = _order(items)
        try:
            for item in progress(ordered) if progress is not None else ordered:
                _apply_item(store, state, item, opts, summary, foreign, writer)
            # Tombstones of an export come after its records: the exporting store may hold a
            # live record whose content equals a forgotten one's (the other copy was forgotten);
            # that record was live there and stays live here. The store's own tombstones apply
            # first.
            for t in tombs:
                _apply_tombstone(store, state, t, opts, summary)
        except MemError as exc:
            # each record is written whole or not at all; say what is in, and that a re-run
            # completes the import without duplicates (items are matched by their source)
            done = summary.counts["created"] + summary.tombstones["added"]
            if done and not opts.dry_run:
                exc.message += (
                    f"; {summary.counts['created']} record(s) and {summary.tombstones['added']} "
                    "tombstone(s) were imported before this error, the rest were not "
                    "(run the import again to complete it: nothing is duplicated)"
                )
            raise
    return summary


class _NoBatch:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _problem(summary: ImportSummary, p: Problem) -> None:
    if p.outcome == "warning":
        summary.warnings += 1
    else:
        summary.counts[p.outcome] = summary.counts.get(p.outcome, 0) + 1
    summary.problems.append(p)


def _result(
    summary: ImportSummary,
    opts: ImportOptions,
    outcome: str,
    item: ImportItem,
    rec: Record | None = None,
    rid: str | None = None,
    message: str | None = None,
) -> None:
    summary.counts[outcome] += 1
    if message is not None:
        summary.problems.append(Problem(outcome, message, item.where, item.original_id))
    if opts.keep_items:
        summary.items.append(
            ItemResult(
                outcome,
                item.where,
                id=rid or (rec.id if rec else None),
                scope=rec.scope if rec else None,
                kind=rec.kind if rec else item.kind,
                original_id=item.original_id,
                content=None if outcome == "refused_secret" else (rec.content if rec else item.content)[:200],
            )
        )


def _warn(summary: ImportSummary, item: ImportItem, message: str) -> None:
    summary.warnings += 1
    summary.problems.append(Problem("warning", message, item.where, item.original_id))


def _apply_tombstone(
    store: Store, state: _State, t: Tombstoneish, opts: ImportOptions, summary: ImportSummary
) -> None:
    obj = t.obj
    try:
        if "scope" not in obj and t.scope_hint is not None:
            scope = _resolve_scope(ImportItem("", "", t.where, scope_hint=t.scope_hint), opts)
        else:
            raw_scope = str(obj.get("scope", ""))
            scope = (
                ids.check_scope(opts.scope)
                if opts.scope
                else ids.check_scope(opts.scope_map.get(raw_scope, raw_scope))
            )
        digest = obj.get("digest")
        if not isinstance(digest, str) or not digest.startswith("sha256:"):
            raise ValidationError("a tombstone needs a digest (sha256:...)")
        rid = ids.check_id(obj.get("id"))
    except ValidationError as exc:
        summary.tombstones["invalid"] += 1
        summary.problems.append(Problem("invalid", exc.message, t.where))
        return
    cur = store.tombstones.load(scope)
    if obj.get("type") == "lift":
        if digest in cur.lifted and digest not in cur.digests:
            summary.tombstones["unchanged"] += 1
            return
        _apply_lift(store, state, scope, digest, rid, obj, t, opts, summary)
        return
    if rid in cur.ids or rid in state.pending_tomb.get(scope, set()):
        summary.tombstones["unchanged"] += 1
        return
    if rid in state.live:
        summary.tombstones["conflict"] += 1
        summary.problems.append(
            Problem(
                "conflict",
                f"record {rid} is live in this store; its tombstone was not imported "
                f"(run `mem forget {rid}` if it should be forgotten here)",
                t.where,
                rid,
            )
        )
        return
    sk = obj.get("source_key")
    tomb = Tombstone(
        id=rid,
        scope=scope,
        digest=digest,
        forgotten_at=str(obj.get("forgotten_at", "")),
        reason=str(obj.get("reason", "")),
        actor=str(obj.get("actor", "")),
        cascade_of=obj.get("cascade_of") if isinstance(obj.get("cascade_of"), str) else None,
        source_key=sk if isinstance(sk, str) else None,
    )
    if opts.dry_run:
        state.pending_tomb.setdefault(scope, set()).update(v for v in (rid, digest, tomb.source_key) if v)
    else:
        with store.writing([scope]):
            store.tombstones.add(tomb, sync=False)
            store.log.append(
                "import",
                id=rid,
                scope=scope,
                detail={"tombstone": True, "reason": tomb.reason},
                sync=False,
            )
    summary.tombstones["added"] += 1


def _lift_accompanied(store: Store, state: _State, scope: str, digest: str, rid: str) -> bool:
    """Whether the lift's record is here (imported by this input or before): live in ``scope``
    with the content the lift let in. Such a lift is the history of an admission that happened
    (an export's round trip); any other lift would un-forget content."""
    rec = state.planned.get(rid)
    if rec is None and state.live.get(rid) == scope:
        try:
            rec = store.get(rid, scope)
        except MemError:
            rec = None
    return rec is not None and rec.scope == scope and rec.match_digest == digest


def _apply_lift(store: Store, state: _State, scope: str, digest: str, rid: str, obj: dict[str, Any],
                t: Tombstoneish, opts: ImportOptions, summary: ImportSummary) -> None:
    """A ``lift`` line: kept when it accompanies its record, else only with ``allow_forgotten``
    (then dated now and attributed to this import); audited either way."""
    accompanied = _lift_accompanied(store, state, scope, digest, rid)
    if not accompanied and not opts.allow_forgotten:
        summary.tombstones["refused"] += 1
        summary.problems.append(Problem(
            "refused_forgotten",
            f"a lift of forgotten content in scope {scope} (for record {rid}, which this import "
            "did not bring) was not imported: it would let forgotten content back in "
            "(pass --allow-forgotten to import it, logged)",
            t.where,
        ))
        return
    reason = str(obj.get("reason", ""))
    if accompanied:
        at, actor = str(obj.get("lifted_at") or format_time(now())), str(obj.get("actor", store.actor))
    else:  # an override made here and now, by whoever runs the import
        at, actor = format_time(now()), store.actor
        reason = f"imported with --allow-forgotten: {reason}" if reason else "imported with --allow-forgotten"
    if not opts.dry_run:
        with store.writing([scope]):
            store.tombstones.lift(scope, digest, rid, at, reason, actor)
            store.log.append(
                "lift-tombstone", id=rid, scope=scope, after=digest,
                detail={"reason": reason, "imported": True, **({} if accompanied else {"override": True})},
                sync=False,
            )  # fmt: skip
    summary.tombstones["added"] += 1


def _apply_item(
    store: Store,
    state: _State,
    item: ImportItem,
    opts: ImportOptions,
    summary: ImportSummary,
    foreign: bool,
    writer: str,
) -> None:
    try:
        scope = _resolve_scope(item, opts)
        if item.record is not None:
            rec = item.record if item.record.scope == scope else item.record.with_changes(scope=scope)
            _apply_record(store, state, item, rec, opts, summary)
            return
        src = _source(item, foreign, writer, scope)
        key = source_key(src)
        if key is not None and key in state.keys:
            _result(summary, opts, "unchanged", item, rid=state.keys[key])
            return
        derived: list[str] = []
        for d in item.derived_from:
            if d in state.live:
                derived.append(d)
            elif state.id_forgotten(d):
                _result(summary, opts, "refused_forgotten", item, message=f"derived from {d}, which was forgotten")
                return
            else:
                _warn(summary, item, f"derived_from names {d}, which is not in the store: dropped")
        missing: list[str] = []
        for orig in item.derived_from_original:
            k = source_key({"system": item.system, "original_id": orig})
            assert k is not None
            if k in state.keys:
                derived.append(state.keys[k])
            elif state.forgotten(scope, k):
                _result(summary, opts, "refused_forgotten", item, message=f"derived from {orig}, which was forgotten")
                return
            else:
                missing.append(orig)
        if missing:
            _warn(
                summary,
                item,
                f"{len(missing)} of {len(item.derived_from_original)} source item(s) are not in the "
                f"source or the store (kept the lineage that exists): {', '.join(missing[:5])}"
                + (" ..." if len(missing) > 5 else ""),
            )
            src.setdefault("missing_sources", len(missing))
        rec = make_record(
            scope=scope,
            kind=item.kind,
            content=item.content,
            status=item.status,
            confidence=item.confidence,
            tags=list(item.tags),
            valid_from=item.valid_from,
            valid_to=item.valid_to,
            recorded_at=item.recorded_at,
            updated_at=item.updated_at,
            derived_from=derived,
            source=src,
            extra=item.extra,
        )
    except MemError as exc:
        _result(summary, opts, "invalid", item, message=exc.message)
        return
    hit = state.forgotten(rec.scope, rec.match_digest, key)
    if hit is not None:
        _result(summary, opts, "refused_forgotten", item, rec, message=f"forgotten in scope {rec.scope} (tombstone {hit})")
        return
    dup = state.digests.get((rec.scope, rec.match_digest))
    if dup is not None and item.supersedes_original is not None and dup in state.superseded:
        dup = None  # a later version that returns to an earlier text is a version of its own
    if dup is not None:
        if key is None:  # an item identified by its content only: it is already here
            _result(summary, opts, "unchanged", item, rid=dup)
            return
        state.keys.setdefault(key, dup)
        _result(summary, opts, "duplicate", item, rid=dup)
        return
    if item.supersedes_original is not None:
        old_key = source_key({"system": item.system, "original_id": item.supersedes_original})
        old_id = state.keys.get(old_key) if old_key is not None else None
        if old_id is not None and state.live.get(old_id) == rec.scope and old_id not in state.superseded:
            rec = rec.with_changes(supersedes=(old_id,))
    _write(store, state, item, rec, opts, summary)


def _apply_record(
    store: Store, state: _State, item: ImportItem, rec: Record, opts: ImportOptions, summary: ImportSummary
) -> None:
    """A record with its own id (the full export shape)."""
    if rec.id in state.live:
        existing = state.planned.get(rec.id)
        if existing is None:
            try:
                existing = store.get(rec.id)
            except MemError:
                existing = None
        if existing is not None and dump_record(existing) == dump_record(rec):
            _result(summary, opts, "unchanged", item, rec)
        else:
            _result(
                summary, opts, "conflict", item, rec,
                message=f"a different record with id {rec.id} is already in the store",
            )  # fmt: skip
        return
    if state.id_forgotten(rec.id):
        _result(summary, opts, "refused_forgotten", item, rec, message=f"record {rec.id} was forgotten")
        return
    sb = rec.superseded_by
    if sb is not None and sb not in state.live and sb not in state.input_ids \
            and store.tombstones.find_id(sb) is None:
        _result(
            summary, opts, "invalid", item, rec,
            message=f"superseded_by names {sb}, which is neither in the store nor in the input [E207]",
        )  # fmt: skip
        return
    key = source_key(rec.source)
    hit = state.forgotten(rec.scope, rec.match_digest, key)
    if hit is not None:
        _result(summary, opts, "refused_forgotten", item, rec, message=f"forgotten in scope {rec.scope} (tombstone {hit})")
        return
    if key is not None and key in state.keys:
        _result(
            summary, opts, "duplicate", item, rid=state.keys[key],
            message=f"its source item is already in the store as {state.keys[key]}",
        )  # fmt: skip
        return
    keep: list[str] = []
    for d in rec.derived_from:
        if d in state.live:
            keep.append(d)
        elif state.id_forgotten(d):
            _result(summary, opts, "refused_forgotten", item, rec, message=f"derived from {d}, which was forgotten")
            return
        else:
            _warn(summary, item, f"derived_from names {d}, which is neither in the store nor in the input: dropped")
    if len(keep) != len(rec.derived_from):
        rec = rec.with_changes(derived_from=tuple(keep))
    _write(store, state, item, rec, opts, summary)


def _write(
    store: Store, state: _State, item: ImportItem, rec: Record, opts: ImportOptions, summary: ImportSummary
) -> None:
    try:  # before the dry-run split, so that a dry run reports what a real run would
        check_record(rec, allow=opts.allow_secret)
    except SecretRefusedError as exc:
        _result(summary, opts, "refused_secret", item, rec, message=exc.message)
        return
    if not opts.dry_run:
        detail: dict[str, Any] = {"system": item.system}
        if item.original_id is not None and item.record is None:
            detail["original_id"] = item.original_id
        try:
            if rec.supersedes:
                rec, _ = store.put_superseding(
                    rec, op="import", detail=detail, allow_secret=opts.allow_secret
                )
            else:
                rec = store.put(rec, op="import", detail=detail, allow_secret=opts.allow_secret)
        except TombstonedError as exc:
            _result(summary, opts, "refused_forgotten", item, rec, message=exc.message)
            return
        except ConflictError as exc:
            _result(summary, opts, "conflict", item, rec, message=exc.message)
            return
        except ValidationError as exc:
            _result(summary, opts, "invalid", item, rec, message=exc.message)
            return
    else:
        state.planned[rec.id] = rec
    state.superseded.update(rec.supersedes)
    state.note(rec)
    _result(summary, opts, "created", item, rec)


def import_path(
    store: Store,
    path: Path,
    system: str,
    *,
    options: ImportOptions | None = None,
    timezone: str | None = None,
    display: str | None = None,
    progress: Callable[[list[ImportItem]], Iterable[ImportItem]] | None = None,
) -> ImportSummary:
    """Read ``path`` as ``system`` and import it (the library form of ``mem import``)."""
    from mem.format.interchange.importers import ReadOptions, get_timezone, read_source

    entries = read_source(path, system, ReadOptions(timezone=get_timezone(timezone), display=display))
    return import_entries(
        store, entries, system=system, path=display or str(path), options=options, progress=progress
    )
