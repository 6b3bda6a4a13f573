"""The capture engine: transcripts -> candidate records, incrementally and idempotently.

For every user turn past the source's watermark, :func:`mem.format.capture.extract.extract`
proposes candidates; each one ends in exactly one outcome:

- ``captured``: a new ``candidate`` record (confidence = the pattern's measured precision,
  provenance = transcript, conversation, turn, pattern and the quoted sentence);
- ``sighting``: the scope already holds a live record with the same normalized content; that
  record's provenance gains the sighting (bounded, de-duplicated list), nothing new is added;
- ``duplicate``: this very sighting (same transcript, conversation, turn, pattern and clause) is
  already in the store (a re-run over turns past a changed watermark);
- ``suppressed-forgotten``: the content or the source item was forgotten (tombstone);
- ``suppressed-rejected``: a reviewer rejected the same content or source item before;
- ``refused-secret``: the sentence holds a secret; reported by rule name, never stored or echoed.

Watermarks live in ``state/capture/<key>.json`` (tracked, written atomically after the records
are on disk): per conversation, the highest turn index mined. For files, the size and digest of
the bytes mined are kept too: when the file was appended to, only new turns are read; when it
was rewritten (the old bytes changed), every turn is read again and de-duplication keeps the
run idempotent.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import (
    InvalidInputError,
    MemError,
    RecordParseError,
    SecretRefusedError,
    TombstonedError,
)
from mem.format.base.fsutil import atomic_write, ensure_dir
from mem.format.capture.dates import ground
from mem.format.capture.transcripts import Transcript, Turn
from mem.format.model.record import Record, match_digest
from mem.format.rules import ids
from mem.format.rules.timeutil import format_time, now, parse_time

if TYPE_CHECKING:
    from mem.format.capture.extract import Candidate
    from mem.format.store.store import Store

OUTCOMES: tuple[str, ...] = (
    "captured",
    "sighting",
    "duplicate",
    "suppressed-forgotten",
    "suppressed-rejected",
    "refused-secret",
)
MAX_SIGHTINGS = 20
WATERMARK_DIR = "capture"


@dataclass
class CaptureItem:
    outcome: str
    transcript: str
    conversation: str
    turn: int
    pattern: str
    kind: str
    scope: str
    confidence: float
    content: str | None
    quote: str | None
    id: str | None = None
    secret: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "outcome": self.outcome,
            "id": self.id,
            "scope": self.scope,
            "kind": self.kind,
            "pattern": self.pattern,
            "confidence": self.confidence,
            "content": self.content,
            "quote": self.quote,
            "transcript": self.transcript,
            "conversation": self.conversation,
            "turn": self.turn,
        }
        if self.secret is not None:
            out["secret"] = self.secret
        return out


@dataclass
class SourceReport:
    transcript: str
    format: str
    turns: int = 0
    new_turns: int = 0
    user_turns: int = 0
    skipped_non_user: int = 0
    skipped_seen: int = 0
    rewritten: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "transcript": self.transcript,
            "format": self.format,
            "turns": self.turns,
            "new_turns": self.new_turns,
            "user_turns": self.user_turns,
            "skipped_non_user": self.skipped_non_user,
            "skipped_seen": self.skipped_seen,
            "rewritten": self.rewritten,
        }


@dataclass
class CaptureReport:
    dry_run: bool
    sources: list[SourceReport] = field(default_factory=list)
    items: list[CaptureItem] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        c = dict.fromkeys(OUTCOMES, 0)
        for it in self.items:
            c[it.outcome] += 1
        c["skipped-non-user"] = sum(s.skipped_non_user for s in self.sources)
        c["skipped-seen"] = sum(s.skipped_seen for s in self.sources)
        c["user-turns"] = sum(s.user_turns for s in self.sources)
        return c

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "sources": [s.to_dict() for s in self.sources],
            "items": [i.to_dict() for i in self.items],
        }


# ---------------------------------------------------------------------------------------------
# Watermarks


def watermark_path(store: Store, source: str) -> Path:
    key = hashlib.sha256(source.encode("utf-8")).hexdigest()[:24]
    return store.state_dir / WATERMARK_DIR / f"{key}.json"


def load_watermark(store: Store, source: str) -> dict[str, Any]:
    p = watermark_path(store, source)
    try:
        raw = p.read_text("utf-8")
    except FileNotFoundError:
        return {}
    try:
        wm = json.loads(raw)
    except ValueError:
        raise InvalidInputError(
            "capture watermark is not valid JSON", path=p,
            hint="delete it to mine the transcript again (de-duplication keeps that safe)",
        ) from None
    if not isinstance(wm, dict) or wm.get("source") != source or not isinstance(wm.get("conversations"), dict):
        raise InvalidInputError(
            "capture watermark does not belong to this transcript or is malformed", path=p,
            hint="delete it to mine the transcript again (de-duplication keeps that safe)",
        )
    return wm


def save_watermark(store: Store, t: Transcript, conversations: dict[str, int],
                   old: dict[str, Any] | None = None) -> None:
    """Write the watermark (not when ``old``, the one read, already says the same)."""
    p = watermark_path(store, t.source)
    wm: dict[str, Any] = {
        "source": t.source,
        "format": t.format,
        "conversations": dict(sorted(conversations.items())),
        "size": t.size,
        "prefix": t.prefix_digest,
    }
    if t.mtime_ns is not None:
        wm["mtime_ns"] = t.mtime_ns
    if old and {k: old.get(k) for k in wm} == wm and set(old) <= set(wm) | {"updated_at"}:
        return  # nothing new: no write, no sync
    wm["updated_at"] = format_time(now())
    ensure_dir(p.parent)
    atomic_write(p, json.dumps(wm, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def unchanged_since_capture(store: Store, path: Path) -> bool:
    """Whether the file is exactly as its last capture read it (same size and modification
    time in its watermark): then there is nothing new to read in it."""
    try:
        st = path.stat()
        wm = load_watermark(store, str(path.resolve()))
    except (OSError, InvalidInputError):
        return False
    return bool(wm) and wm.get("size") == st.st_size and wm.get("mtime_ns") == st.st_mtime_ns


def _rewritten(t: Transcript, wm: dict[str, Any]) -> bool:
    """True when a file's previously mined bytes changed (not just appended to)."""
    size, prefix = wm.get("size"), wm.get("prefix")
    if not size or not prefix or t.prefix_digest is None:
        return False
    if not isinstance(size, int) or size > t.size:
        return True
    try:
        with open(t.path, "rb") as f:
            head = f.read(size)
    except OSError:
        return True
    return bool("sha256:" + hashlib.sha256(head).hexdigest() != prefix)


# ---------------------------------------------------------------------------------------------
# Per-scope index of what the store already holds


@dataclass
class _ScopeIndex:
    live: dict[str, str] = field(default_factory=dict)  # match digest -> id (active/candidate)
    rejected: set[str] = field(default_factory=set)  # match digests and source keys
    keys: dict[str, str] = field(default_factory=dict)  # source key -> id (any live record)


def _build_index(store: Store, scope: str) -> _ScopeIndex:
    from mem.format.store.store import source_key

    idx = _ScopeIndex()

    def skip(exc: RecordParseError) -> None:
        return None  # `mem verify` reports unreadable records; capture does not stop for them

    for r in store.iter_records([scope], on_error=skip):
        key = source_key(r.source)
        if r.status == "rejected":
            idx.rejected.add(r.match_digest)
            if key:
                idx.rejected.add(key)
            continue
        if key:
            idx.keys[key] = r.id
        if r.status in ("active", "candidate"):
            idx.live.setdefault(r.match_digest, r.id)
            seen = r.source.get("sightings")
            for sg in seen if isinstance(seen, list) else []:
                if isinstance(sg, dict):
                    sk = source_key({"type": "capture", **sg})
                    if sk:
                        idx.keys.setdefault(sk, r.id)
    return idx


def _sighting(src: dict[str, Any]) -> dict[str, Any]:
    keep = ("transcript", "conversation", "turn", "pattern", "host", "session")
    s: dict[str, Any] = {k: src[k] for k in keep if k in src}
    if src.get("ts"):
        s["ts"] = src["ts"]
    return s


def add_sighting(store: Store, record_id: str, src: dict[str, Any], *, reread: bool = False) -> Record | None:
    """Add a sighting to a record's provenance; None if it is already there.

    ``sightings`` keeps the first :data:`MAX_SIGHTINGS` sightings (de-duplicated by transcript,
    conversation and turn); ``sighting_count`` counts all of them. Once the list is full, a
    sighting not in it is counted only on an incremental run (``reread=False``): when turns are
    read again (``--rescan``, a rewritten file) it cannot be told from one counted before.
    """
    rec = store.get(record_id)
    new = _sighting(src)
    ident = (new.get("transcript"), new.get("conversation"), new.get("turn"))
    own = (rec.source.get("transcript"), rec.source.get("conversation"), rec.source.get("turn"))
    old = rec.source.get("sightings")
    sightings = [s for s in old if isinstance(s, dict)] if isinstance(old, list) else []
    if ident == own or any((s.get("transcript"), s.get("conversation"), s.get("turn")) == ident for s in sightings):
        return None
    update: dict[str, Any] = {}
    if len(sightings) >= MAX_SIGHTINGS:
        # the list is full: the sources it cannot hold are still kept, as a set of names, so
        # that `mem forget --source/--transcript` finds the record by every session that said it
        update = _overflow_sources(rec.source, sightings, new)
        if reread and not update:
            return None
    if not reread or len(sightings) < MAX_SIGHTINGS:
        count = rec.source.get("sighting_count")
        update["sighting_count"] = (count if isinstance(count, int) else len(sightings)) + 1
    if len(sightings) < MAX_SIGHTINGS:
        update["sightings"] = [*sightings, new]
    return store.update(
        record_id,
        source_update=update,
        op="sighting",
        detail={"transcript": new.get("transcript"), "turn": new.get("turn"), "pattern": new.get("pattern")},
    )


#: ``source`` keys of the sessions and transcripts of sightings beyond ``MAX_SIGHTINGS``.
MORE_SESSIONS, MORE_TRANSCRIPTS = "sighting_sessions", "sighting_transcripts"


def _overflow_sources(src: Mapping[str, Any], sightings: list[dict[str, Any]], new: dict[str, Any]) -> dict[str, Any]:
    """The ``source`` update that adds ``new``'s session/conversation and transcript names to
    the record's overflow lists (sorted, de-duplicated), when no capture of the record names
    them yet; empty when all are known."""
    known = [src, *sightings]
    out: dict[str, Any] = {}
    for key, fields in ((MORE_SESSIONS, ("session", "conversation")), (MORE_TRANSCRIPTS, ("transcript",))):
        have = src.get(key)
        names = {str(x) for x in have} if isinstance(have, list) else set()
        seen = names | {str(c.get(f)) for c in known for f in fields if c.get(f) is not None}
        add = {str(new[f]) for f in fields if new.get(f) is not None} - seen
        if add:
            out[key] = sorted(names | add)
    return out


# ---------------------------------------------------------------------------------------------
# The run


def _turn_time(turn: Turn) -> _dt.datetime | None:
    """The turn's own time, or None when it has none (or none that reads as a time)."""
    if not turn.ts:
        return None
    try:
        return parse_time(turn.ts, "turn time")
    except MemError:
        return None


def resolve_scope(turn: Turn, t: Transcript, scope: str | None, scope_from: str | None) -> str:
    if scope_from:
        value = turn.fields.get(scope_from)
        if value not in (None, ""):
            return ids.scope_for(str(value))  # distinct values never share a scope
        if scope:
            return ids.check_scope(scope)
        raise InvalidInputError(
            f"turn {turn.index} of conversation {turn.conversation!r} has no field {scope_from!r} "
            "to take the scope from, and no --scope fallback was given",
            path=t.path, line=turn.line,
        )
    return ids.check_scope(scope or "default")


def capture(
    store: Store,
    transcripts: Iterable[Transcript],
    *,
    scope: str | None = "default",
    scope_from: str | None = None,
    dry_run: bool = False,
    rescan: bool = False,
) -> CaptureReport:
    """Mine ``transcripts`` into ``store``. See the module docstring for the outcomes."""
    from mem.format.store.store import source_key

    report = CaptureReport(dry_run=dry_run)
    indexes: dict[str, _ScopeIndex] = {}
    pending_wm: list[tuple[Transcript, dict[str, int], dict[str, Any]]] = []

    def index(sc: str) -> _ScopeIndex:
        if sc not in indexes:
            indexes[sc] = _build_index(store, sc)
        return indexes[sc]

    def handle(t: Transcript, turn: Turn, sc: str, c: Candidate, reread: bool, repeat: bool) -> CaptureItem:
        item = CaptureItem(
            "captured", t.source, turn.conversation, turn.index, c.pattern, c.kind, sc,
            c.confidence, c.content or None, c.quote or None,
        )
        if c.secret is not None:
            item.outcome, item.secret, item.content, item.quote = "refused-secret", c.secret, None, None
            return item
        src: dict[str, Any] = {
            "type": "capture",
            "transcript": t.source,
            "conversation": turn.conversation,
            "turn": turn.index,
            "pattern": c.pattern,
            "format": t.format,
            "quote": c.quote,
        }
        if turn.ts:
            src["ts"] = turn.ts
        if t.host:
            src["host"] = t.host
        session = turn.fields.get("session") if t.host else None
        if session:
            src["session"] = str(session)
        grounded = ground(c.content, _turn_time(turn))
        content = grounded.content
        if grounded.resolved:
            src["resolved"] = [{"phrase": ph, "date": d} for ph, d in grounded.resolved]
        if repeat and c.clause:
            # a second find of the same pattern in this turn ("I love X and I love Y"): the
            # clause index makes its source key distinct; a first find keeps the plain key
            src["clause"] = c.clause
        key = source_key(src)
        digest = match_digest(content)
        item.content = content
        tomb = store.tombstones.load(sc)
        idx = index(sc)
        if digest in tomb.digests or (key is not None and key in tomb.digests):
            item.outcome = "suppressed-forgotten"
        elif digest in idx.rejected or (key is not None and key in idx.rejected):
            item.outcome = "suppressed-rejected"
        elif key is not None and key in idx.keys:
            item.outcome, item.id = "duplicate", idx.keys[key]
        elif digest in idx.live:
            item.outcome, item.id = "sighting", idx.live[digest]
            if key is not None:
                idx.keys[key] = item.id
            if not dry_run and item.id and add_sighting(store, item.id, src, reread=reread) is None:
                item.outcome = "duplicate"
        elif dry_run:
            idx.live[digest] = ""
            if key is not None:
                idx.keys[key] = ""
        else:
            try:
                rec = store.add(
                    content, scope=sc, kind=c.kind, status="candidate", confidence=c.confidence,
                    source=src, op="capture", valid_from=grounded.valid_from,
                )
            except TombstonedError:
                item.outcome = "suppressed-forgotten"
            except SecretRefusedError as exc:  # the store's policy caught what extract did not
                item.outcome, item.secret, item.content, item.quote = "refused-secret", exc.rule, None, None
            else:
                item.id = rec.id
                idx.live[digest] = rec.id
                if key is not None:
                    idx.keys[key] = rec.id
        return item

    def run() -> None:
        for t in transcripts:
            sr = SourceReport(t.source, t.format, turns=len(t.turns))
            report.sources.append(sr)
            wm = {} if rescan else load_watermark(store, t.source)
            if wm and wm.get("format") not in (None, t.format):
                wm = {}
            if wm and _rewritten(t, wm):
                sr.rewritten, wm = True, {}
            marks: dict[str, int] = {str(k): int(v) for k, v in (wm.get("conversations") or {}).items()}
            new_marks = dict(marks)
            for turn in t.turns:
                last = marks.get(turn.conversation)
                if last is not None and turn.index <= last:
                    sr.skipped_seen += 1
                    continue
                sr.new_turns += 1
                new_marks[turn.conversation] = max(new_marks.get(turn.conversation, -1), turn.index)
                if not turn.is_user:
                    sr.skipped_non_user += 1
                    continue
                sr.user_turns += 1
                from mem.format.capture.extract import (
                    extract,  # the pattern table: compiled once a turn is mined
                )

                cands = extract(turn.content)
                if not cands:
                    continue
                sc = resolve_scope(turn, t, scope, scope_from)
                patterns_seen: set[str] = set()
                for c in cands:
                    repeat = c.pattern in patterns_seen
                    patterns_seen.add(c.pattern)
                    report.items.append(handle(t, turn, sc, c, rescan or sr.rewritten, repeat))
            pending_wm.append((t, new_marks, wm))

    if dry_run:
        run()
        return report
    with store.batch():
        run()
    # Records are on disk (the batch synced them): now the watermarks may move.
    with store.lock:
        for t, marks, old in pending_wm:
            save_watermark(store, t, marks, None if rescan else old)
    return report
