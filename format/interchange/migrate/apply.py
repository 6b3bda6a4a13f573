"""Applying one item: a record (created, unchanged, duplicate, conflict, refused), a tombstone or a lift."""

from __future__ import annotations

from typing import Any

from mem.format.base.errors import (
    ConflictError,
    MemError,
    SecretRefusedError,
    TombstonedError,
    ValidationError,
)
from mem.format.interchange.importers.base import ImportItem, Problem, Tombstoneish
from mem.format.interchange.migrate.outcomes import ImportOptions, ImportSummary, ItemResult
from mem.format.interchange.migrate.plan import _resolve_scope, _source, _State
from mem.format.model.record import Record, dump_record, make_record
from mem.format.model.tombstones import Tombstone
from mem.format.rules import ids
from mem.format.rules.secretpolicy import check_record
from mem.format.rules.timeutil import format_time, now
from mem.format.store.store import Store, source_key


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
