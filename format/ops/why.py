"""``mem why ID``: a record's story, to answer "why did the agent think that?".

From what the store already keeps: the record (where it came from: its ``source``, e.g. the host,
session, turn and quoted sentence of a capture, and its ``derived_from``), the audit log's events
for its id (added or captured, sightings, reviews, updates, supersession, forgetting: who and
when), the records it superseded and the one that superseded it, and, when the read log is on
(``[audit] reads = true``), every time it was served to an agent. A forgotten record's story is
told from its tombstone and the log alone: its content is gone and is not shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import NotFoundError
from mem.format.rules import ids, patternids
from mem.format.store.readlog import enabled as reads_enabled
from mem.format.store.readlog import reads_of

if TYPE_CHECKING:
    from mem.format.model.record import Record
    from mem.format.store.store import Store


@dataclass
class Story:
    id: str
    record: Record | None
    forgotten: dict[str, Any] | None
    events: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)  # records this one replaced
    superseded_by: str | None = None
    served: list[dict[str, Any]] | None = None  # None: the read log is off

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "record": None if self.record is None else self.record.to_dict(),
            "forgotten": self.forgotten,
            "events": self.events,
            "supersedes": self.superseded,
            "superseded_by": self.superseded_by,
            "served": self.served,
            "read_log": self.served is not None,
        }


def _find(store: Store, rid: str) -> Record | None:
    path = store.find_path(rid)
    if path is None or store.tombstones.is_id_tombstoned(path.parent.name, rid):
        return None
    return store.read_path(path)


def story(store: Store, record_id: str) -> Story:
    """The story of ``record_id`` (raises :class:`NotFoundError` when the store never knew it)."""
    rid = ids.parse_id(record_id)
    rec = _find(store, rid)
    tomb = store.tombstones.find_id(rid)
    forgotten = None
    if rec is None and tomb is not None:
        forgotten = {"scope": tomb.scope, "forgotten_at": tomb.forgotten_at, "reason": tomb.reason}
    events = [
        {k: ev.get(k) for k in ("ts", "actor", "op", "scope", "detail") if ev.get(k) is not None}
        for ev in store.log.iter_events()
        if ev.get("id") == rid
    ]
    if rec is None and forgotten is None and not events:
        raise NotFoundError(f"no record {rid}, and none was ever logged or forgotten")
    st = Story(rid, rec, forgotten, events)
    if rec is not None:
        st.superseded = list(rec.supersedes)
        st.superseded_by = rec.superseded_by
    st.served = reads_of(store, rid) if reads_enabled(store) else None
    return st


def render(st: Story) -> str:
    """The story as text for a terminal (``mem why``)."""
    out: list[str] = []
    r = st.record
    if r is not None:
        out.append(f"{st.id}  {r.scope}  {r.kind}  {r.status}  confidence {r.confidence:g}")
        out.append(f"  {' '.join(r.content.split())}")
    elif st.forgotten is not None:
        f = st.forgotten
        out.append(f"{st.id}  {f['scope']}  forgotten on {f['forgotten_at']}"
                   + (f" ({f['reason']})" if f.get("reason") else "") + "; its content is gone")
    else:
        out.append(f"{st.id}  no longer in the store (only its log events remain)")
    if r is not None:
        src = r.source
        out.append("where it came from:")
        kind = src.get("type", "?")
        if kind == "capture":
            host = src.get("host") or src.get("format") or "transcript"
            out.append(f"  captured from {host} session {src.get('session') or src.get('conversation') or '-'}, "
                       f"turn {src.get('turn')}" + (f", said {src['ts']}" if src.get("ts") else ""))
            out.append(f"  transcript {src.get('transcript')}")
            if src.get("quote"):
                out.append(f"  quote: {src['quote']}")
            pattern = src.get("pattern")
            out.append(f"  pattern {patternids.describe(pattern) if isinstance(pattern, str) else pattern}"
                       + (f", seen {src['sighting_count']} more time(s)" if src.get("sighting_count") else ""))
            for res in src.get("resolved") or []:
                if isinstance(res, dict):
                    out.append(f"  '{res.get('phrase')}' read as {res.get('date')}")
        elif kind == "import":
            out.append(f"  imported from {src.get('system')} (original id {src.get('original_id')})")
        else:
            detail = ", ".join(f"{k} {v}" for k, v in sorted(src.items()) if k in ("command", "client", "writer"))
            out.append(f"  {kind}" + (f" ({detail})" if detail else ""))
        if r.derived_from:
            out.append(f"  derived from {', '.join(r.derived_from)}")
        if r.valid_from is not None:
            out.append(f"  true from {r.to_dict()['valid_from']}")
    if st.superseded:
        out.append(f"replaced: {', '.join(st.superseded)}")
    if st.superseded_by:
        out.append(f"superseded by: {st.superseded_by}")
    out.append("history:")
    for ev in st.events:
        info = ev.get("detail")
        extra = ""
        if isinstance(info, dict):
            bits = [f"{k}={info[k]}" for k in ("reason", "by", "status", "transcript", "turn") if info.get(k) is not None]
            extra = ("  " + " ".join(bits)) if bits else ""
        out.append(f"  {ev.get('ts')}  {ev.get('op'):<12} {ev.get('actor', '')}{extra}")
    if not st.events:
        out.append("  (no log events)")
    if st.served is None:
        out.append("served: not recorded (the read log is off; set [audit] reads = true in config.toml)")
    elif not st.served:
        out.append("served: never (since the read log was turned on)")
    else:
        out.append(f"served {len(st.served)} time(s):")
        for s in st.served:
            score = "" if s.get("score") is None else f" score {s['score']}"
            sess = f" session {s['session']}" if s.get("session") else ""
            out.append(f"  {s.get('ts')}  {s.get('via'):<12} rank {s.get('rank')}{score}{sess}")
    return "\n".join(out) + "\n"
