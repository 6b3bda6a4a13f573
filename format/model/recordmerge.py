"""Three-way merge of one record file, by field (git's merge driver for ``records/**/*.md``).

Given the common ancestor (``base``, None when both sides added the file) and the two versions
(``ours``, ``theirs``), each field is merged on its own (spec/format.md, "Merging records"):

- a field changed on one side only takes that side's value;
- ``tags`` merge as sets: what either side added is in, what either side removed is out;
- ``updated_at`` is the later of the two;
- a field changed on both sides to different values takes the value of the *later version*
  (the one with the later ``updated_at``, ties broken by the larger serialized record, so that
  every clone resolves a conflict the same way), and nothing of the other is lost: when the two
  contents differ, the earlier version is kept as a new ``candidate`` record derived from the
  merged one (``source.type: merge``), for ``mem review``; a value of another field that lost
  is reported (and logged by ``mem sync``, without content).

The result is deterministic and symmetric: merging (base, A, B) and (base, B, A) gives the same
record and the same kept versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mem.format.model.record import Record, dump_record, make_record
from mem.format.rules import ids
from mem.format.rules.timeutil import epoch_ms

#: The fields merged one by one (``id`` and ``scope`` are the file's name and place; ``digest``
#: follows the content; ``updated_at`` is the later of the two).
FIELDS: tuple[str, ...] = (
    "kind", "content", "status", "confidence", "tags", "valid_from", "valid_to", "recorded_at",
    "superseded_at", "supersedes", "superseded_by", "derived_from", "source", "extra",
)  # fmt: skip


@dataclass
class FieldConflict:
    """A field both sides changed to different values: which value was kept."""

    field: str
    kept: Any
    dropped: Any

    def to_dict(self) -> dict[str, Any]:
        def show(v: Any) -> Any:
            if isinstance(v, tuple):
                return list(v)
            if isinstance(v, Mapping):
                return dict(v)
            return v if v is None or isinstance(v, (str, int, float, bool, list)) else str(v)

        return {"field": self.field, "kept": show(self.kept), "dropped": show(self.dropped)}


@dataclass
class MergeResult:
    record: Record
    conflicts: list[FieldConflict] = field(default_factory=list)
    #: versions whose content lost a conflict, to be written as candidate records
    kept_versions: list[Record] = field(default_factory=list)


def _later(a: Record, b: Record) -> tuple[Record, Record]:
    """(winner, loser): the later version; ties by the serialized bytes (the same on every clone)."""
    ka = (a.updated_at or a.recorded_at, dump_record(a))
    kb = (b.updated_at or b.recorded_at, dump_record(b))
    return (a, b) if ka >= kb else (b, a)


def _merge_tags(base: tuple[str, ...], ours: tuple[str, ...], theirs: tuple[str, ...]) -> tuple[str, ...]:
    b, o, t = set(base), set(ours), set(theirs)
    keep = (o & t) | (o - b) | (t - b)
    return tuple(sorted(keep))


def merge_records(base: Record | None, ours: Record, theirs: Record) -> MergeResult:
    """Merge two versions of one record (see the module text)."""
    if dump_record(ours) == dump_record(theirs):
        return MergeResult(ours)
    winner, loser = _later(ours, theirs)
    changes: dict[str, Any] = {}
    conflicts: list[FieldConflict] = []
    for name in FIELDS:
        o, t = getattr(ours, name), getattr(theirs, name)
        if o == t:
            continue
        b = getattr(base, name) if base is not None else None
        if name == "tags" and base is not None:
            changes[name] = _merge_tags(base.tags, o, t)
        elif base is not None and o == b:
            changes[name] = t
        elif base is not None and t == b:
            changes[name] = o
        else:
            won, lost = getattr(winner, name), getattr(loser, name)
            changes[name] = won
            conflicts.append(FieldConflict(name, won, lost))
    stamps = [t for t in (ours.updated_at, theirs.updated_at) if t is not None]
    changes["updated_at"] = max(stamps) if stamps else None
    merged = ours.with_changes(**changes)
    kept: list[Record] = []
    if any(c.field == "content" for c in conflicts):
        kept.append(kept_version(loser, merged))
    return MergeResult(merged, conflicts, kept)


def kept_version(loser: Record, merged: Record) -> Record:
    """The losing side's version as a new candidate record derived from the merged one (so
    that forgetting the record forgets it too). Its id is made from the two versions, so two
    clones that resolve the same conflict write the same file."""
    at = loser.updated_at or loser.recorded_at
    seed = hashlib.sha256((merged.id + "\x00" + dump_record(loser)).encode("utf-8")).digest()
    return make_record(
        id=ids.id_from(epoch_ms(at), int.from_bytes(seed[:10], "big")),
        scope=merged.scope,
        kind=loser.kind,
        content=loser.content,
        status="candidate",
        confidence=loser.confidence,
        tags=list(loser.tags),
        valid_from=loser.valid_from,
        valid_to=loser.valid_to,
        recorded_at=at,
        derived_from=(merged.id,),
        source={"type": "merge", "conflict_of": merged.id, "writer": "mem merge driver"},
    )
