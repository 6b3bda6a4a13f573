"""The store: a directory of records, tombstones and an audit log, plus derived indexes.

Layout (``spec/format.md``, "Store layout")::

    memstore.json            declaration: format name, version, extensions
    config.toml              optional settings
    records/<scope>/<id>.md  one record per file (the source of truth)
    tombstones/<scope>.jsonl what was forgotten (never the content)
    log/<clone-id>.jsonl     hash-chained audit log, one chain per clone
    state/                   tracked progress markers (capture and consolidation watermarks)
    .mem/                    local and derived: lock, clone id, indexes (git-ignored)

Write order (a crash at any point loses no reported record): record file (atomic rename,
fsync), then the audit event, then derived indexes. Forget writes the tombstone first, then
removes the file, then logs; a record whose id is tombstoned is treated as forgotten by every
read path, so an interrupted forget can never resurface.
"""

from __future__ import annotations

import builtins
import contextlib
import datetime as _dt
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import (
    ConflictError,
    MemError,
    NotFoundError,
    RecordParseError,
    StoreInvalidError,
    StoreNotFoundError,
    TombstonedError,
    ValidationError,
)
from mem.format.base.fsutil import atomic_write, ensure_dir, remove_file, undoable
from mem.format.base.jsonl import TornTailError, has_torn_tail
from mem.format.base.lock import WriterLock
from mem.format.model.audit import AuditLog, default_actor
from mem.format.model.record import (
    STATUSES,
    Record,
    canonical_body,
    dump_record,
    make_record,
    match_digest,
    read_record_file,
    validate_record,
)
from mem.format.model.tombstones import Tombstone, TombstoneSet
from mem.format.rules import ids, layout, patternids
from mem.format.rules.config import (
    CONFIG_FILE,
    DECLARATION_FILE,
    DEFAULT_CONFIG,
    FORMAT_NAME,
    FORMAT_VERSION,
    Config,
    Declaration,
    read_config,
    read_declaration,
)
from mem.format.rules.layout import LOCAL_DIR as LOCAL_DIR
from mem.format.rules.layout import LOCK_TIMEOUT_ENV as LOCK_TIMEOUT_ENV
from mem.format.rules.layout import LOG_DIR as LOG_DIR
from mem.format.rules.layout import RECORDS_DIR as RECORDS_DIR
from mem.format.rules.layout import STATE_DIR as STATE_DIR
from mem.format.rules.layout import STORE_ENV as STORE_ENV
from mem.format.rules.layout import TOMBSTONES_DIR as TOMBSTONES_DIR
from mem.format.rules.layout import named_store, store_above
from mem.format.rules.ranking import DEFAULT_STATUSES as DEFAULT_STATUSES
from mem.format.rules.ranking import effective_statuses, fields_match
from mem.format.rules.secretpolicy import check_record
from mem.format.rules.timeutil import format_time, now, parse_time


def _writer() -> str:
    from mem import __version__

    return f"mem {__version__}"


def source_key(source: Mapping[str, Any]) -> str | None:
    """A digest that identifies the outside item a record came from (import or capture).

    Imports are identified by (system, original_id); captures by (transcript, conversation,
    turn, pattern; a renamed pattern by its former id, see ``rules.patternids``). Tombstones
    keep this key so that a forgotten item is not brought back by re-importing or re-capturing
    its source, even if the source's wording changed.
    """
    system, orig = source.get("system"), source.get("original_id")
    if system and orig is not None:
        basis = f"import\x00{system}\x00{orig}"
    elif source.get("type") == "capture" and source.get("turn") is not None:
        pattern = source.get("pattern", "")
        basis = "capture\x00{}\x00{}\x00{}\x00{}".format(
            source.get("transcript", ""),
            source.get("conversation", ""),
            source.get("turn"),
            # a renamed pattern hashes its former id, so keys stored before the rename still match
            patternids.key_id(pattern) if isinstance(pattern, str) else pattern,
        )
        if source.get("clause") not in (None, 0):
            # a second find of the same pattern in one turn (e.g. "I love X and I love Y")
            basis += "\x00{}".format(source.get("clause"))
    else:
        return None
    return "sha256:" + hashlib.sha256(basis.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Change:
    """One committed change, as given to index listeners."""

    op: str  # "put" (added or rewritten) or "delete"
    id: str
    scope: str
    record: Record | None = None
    old_scope: str | None = None


@dataclass
class RecordFilter:
    """Which records a listing (or search) considers. ``None`` means "no restriction"."""

    scopes: Sequence[str] | None = None
    kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = None  # None: the default for the time filters used
    tags: Sequence[str] | None = None  # all of these
    as_of: _dt.datetime | None = None  # world time: valid_from <= t < valid_to
    known_at: _dt.datetime | None = None  # record time: recorded_at <= t < superseded_at
    recorded_after: _dt.datetime | None = None
    recorded_before: _dt.datetime | None = None
    ids: Sequence[str] | None = None

    def effective_statuses(self) -> tuple[str, ...]:
        return effective_statuses(self.statuses, self.as_of is not None or self.known_at is not None)

    def matches(self, r: Record) -> bool:
        if self.ids is not None and r.id not in self.ids:
            return False
        if not fields_match(r.kind, r.status, r.tags, r.valid_from, r.valid_to, r.recorded_at, r.superseded_at,
                            kinds=self.kinds, statuses=self.effective_statuses(), want_tags=self.tags,
                            as_of=self.as_of, known_at=self.known_at):
            return False
        if self.recorded_after is not None and r.recorded_at < self.recorded_after:
            return False
        return not (self.recorded_before is not None and r.recorded_at >= self.recorded_before)

    def matches_fields(self, rid: str, kind: str, status: str, tags: Sequence[str],
                       valid_from: _dt.datetime | None, valid_to: _dt.datetime | None) -> bool:
        """``matches`` for the id, kind, status, tags and world time (``as_of``) alone: all of
        it when the filter has no ``known_at``, ``recorded_after`` or ``recorded_before``."""
        if self.ids is not None and rid not in self.ids:
            return False
        return fields_match(kind, status, tags, valid_from, valid_to, None, None, kinds=self.kinds,
                            statuses=self.effective_statuses(), want_tags=self.tags, as_of=self.as_of,
                            known_at=None)


@dataclass
class ForgetPlan:
    """What a forget removes: the requested records and everything derived from them."""

    requested: list[Record] = field(default_factory=list)
    cascade: list[tuple[Record, str]] = field(default_factory=list)  # (record, derived from id)
    #: records a forgotten record had superseded: they become current again, as they were
    #: before the supersession (the forgotten record is as if it had never been learned)
    restored: list[Record] = field(default_factory=list)

    @property
    def records(self) -> list[Record]:
        return self.requested + [r for r, _ in self.cascade]

    def to_dict(self) -> dict[str, Any]:
        return {
            "requested": [_brief(r) for r in self.requested],
            "cascade": [dict(_brief(r), derived_from=src) for r, src in self.cascade],
            "restored": [_brief(r) for r in self.restored],
            "count": len(self.records),
        }


def superseded_version(old: Record, by_id: str, at: _dt.datetime, valid_from: _dt.datetime) -> Record:
    """``old`` as it is once ``by_id`` supersedes it at record time ``at``, from ``valid_from``.

    Its world time ends where the new record's begins (an earlier end is kept), never before
    its own start."""
    valid_to = old.valid_to if old.valid_to and old.valid_to <= valid_from else valid_from
    if old.valid_from and valid_to < old.valid_from:
        valid_to = old.valid_from
    return old.with_changes(
        status="superseded", superseded_by=by_id, superseded_at=at, valid_to=valid_to, updated_at=at
    )


def _secret_detail(detail: Mapping[str, Any] | None, allowed: str | None) -> dict[str, Any]:
    """The audit detail of a write, with ``allow_secret: <rule>`` when the secrets policy was
    overridden (the rule's name only, never the text)."""
    out = dict(detail or {})
    if allowed is not None:
        out["allow_secret"] = allowed
    return out


def check_supersession_fields(rec: Record) -> None:
    """Refuse a record whose status and ``superseded_by`` disagree (``mem verify``'s E208):
    writers refuse what verify rejects."""
    if rec.status == "superseded" and rec.superseded_by is None:
        raise ValidationError(
            f"record {rec.id} has status superseded but no superseded_by [E208]",
            hint="set superseded_by to the record that replaced it, or use `mem supersede`",
        )
    if rec.superseded_by is not None and rec.status != "superseded":
        raise ValidationError(
            f"record {rec.id} names superseded_by {rec.superseded_by} but its status is "
            f"{rec.status} [E208]",
            hint="a record with a successor has status superseded",
        )


def _brief(r: Record) -> dict[str, Any]:
    return {"id": r.id, "scope": r.scope, "kind": r.kind, "status": r.status, "content": r.content}


def _leaves_first(records: Sequence[Record]) -> list[Record]:
    """``records`` ordered so that each comes after every record derived from it."""
    by_id = {r.id: r for r in records}
    children: dict[str, list[str]] = {}
    for r in records:
        for src in r.derived_from:
            if src in by_id and src != r.id:
                children.setdefault(src, []).append(r.id)
    out: list[Record] = []
    done: set[str] = set()
    for start in by_id:
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            rid, k = stack.pop()
            if rid in done:
                continue
            kids = children.get(rid, [])
            if k < len(kids):
                stack.append((rid, k + 1))
                if kids[k] not in done:
                    stack.append((kids[k], 0))
            else:
                done.add(rid)
                out.append(by_id[rid])
    return out


def find_store_root(start: Path | None = None) -> Path:
    """The store containing ``start`` (default: ``$MEM_STORE`` or the current directory)."""
    env = os.environ.get(STORE_ENV)
    if start is None and env:
        p = Path(env).expanduser()
        if not (p / DECLARATION_FILE).exists():
            raise StoreNotFoundError(
                f"{STORE_ENV} names {p}, which is not a mem store",
                path=p,
                hint="run `mem init` there, or unset MEM_STORE",
            )
        return p
    here = (start or Path.cwd()).resolve()
    found = store_above(str(here))  # the rule the one-shot search applies too
    if found is not None:
        return Path(found)
    raise StoreNotFoundError(
        "no mem store here or in any parent directory",
        path=here,
        hint="run `mem init`, pass --store DIR, or set MEM_STORE",
    )


class Store:
    """An open store. Reads need no lock; every write takes the store-wide writer lock."""

    def __init__(self, root: Path, *, lock_timeout: float | None = None, actor: str | None = None):
        self.root = root
        self.declaration: Declaration = read_declaration(root)
        self.config: Config = read_config(root)
        rec_dir = root / RECORDS_DIR
        if rec_dir.is_symlink():
            raise StoreInvalidError("records/ is a symbolic link; refusing to follow it", path=rec_dir)
        if lock_timeout is None:
            env = os.environ.get(LOCK_TIMEOUT_ENV)
            try:
                lock_timeout = float(env) if env else 10.0
            except ValueError:
                raise ValidationError(f"{LOCK_TIMEOUT_ENV}={env!r} is not a number") from None
        # .mem/ is created when the lock is first taken, not here: a reader of a read-only store
        # (a read-only mount, another user's checkout) never needs to write anything
        self.lock = WriterLock(self.root / LOCAL_DIR / "lock", timeout=lock_timeout, check=self._before_lock)
        self._actor = actor
        self.tombstones = TombstoneSet(root / TOMBSTONES_DIR)
        self._log: AuditLog | None = None
        self.listeners: builtins.list[Callable[[builtins.list[Change]], None]] = []
        self._batch: builtins.list[Change] | None = None
        self._batch_ids: set[str] | None = None  # ids of record files, known inside a batch
        self._batch_depth = 0

    @property
    def actor(self) -> str:
        """Who the audit log names for this store's writes (``MEM_ACTOR`` or user@host)."""
        if self._actor is None:
            self._actor = default_actor()
        return self._actor

    @actor.setter
    def actor(self, value: str) -> None:
        self._actor = value

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        *,
        lock_timeout: float | None = None,
        actor: str | None = None,
    ) -> Store:
        """Open the store at ``path``, or the one found from the current directory upward."""
        if path is not None:
            named = named_store(str(path))  # the rule the one-shot search applies too
            if named is None:
                root = Path(path).expanduser()
                if not root.is_dir():
                    raise StoreNotFoundError("no such directory", path=root)
                raise StoreNotFoundError(
                    "not a mem store (no memstore.json)", path=root, hint="run `mem init` there"
                )
            root = Path(named)
        else:
            root = find_store_root()
        return cls(root.resolve(), lock_timeout=lock_timeout, actor=actor)

    @classmethod
    def init(cls, path: str | Path, *, actor: str | None = None, exist_ok: bool = False) -> Store:
        """Create a new, empty store at ``path`` (the directory may exist and be empty)."""
        root = Path(path).expanduser()
        decl_path = root / DECLARATION_FILE
        if decl_path.exists():
            if exist_ok:
                return cls.open(root, actor=actor)
            raise ConflictError("a mem store already exists here", path=root)
        ensure_dir(root)
        root = root.resolve()
        for sub in (RECORDS_DIR, TOMBSTONES_DIR, LOG_DIR, STATE_DIR, LOCAL_DIR):
            ensure_dir(root / sub)
        for sub in (RECORDS_DIR, TOMBSTONES_DIR, LOG_DIR, STATE_DIR):
            keep = root / sub / ".gitkeep"
            if not keep.exists():
                atomic_write(keep, b"")
        atomic_write(root / LOCAL_DIR / ".gitignore", "# local and derived data: never commit\n*\n")
        if not (root / CONFIG_FILE).exists():
            atomic_write(root / CONFIG_FILE, DEFAULT_CONFIG)
        decl = Declaration(FORMAT_NAME, FORMAT_VERSION, (), format_time(now()))
        atomic_write(decl_path, decl.to_json())
        store = cls(root, actor=actor)
        with store.lock:
            store.log.append("init", detail={"format": FORMAT_NAME, "version": FORMAT_VERSION})
        return store

    # -- paths and local state ------------------------------------------------------------------

    @property
    def records_dir(self) -> Path:
        return self.root / RECORDS_DIR

    @property
    def local_dir(self) -> Path:
        d = self.root / LOCAL_DIR
        if d.is_symlink():  # indexes, lock and drafts would be written outside the store
            raise StoreInvalidError(
                f"{LOCAL_DIR}/ is a symbolic link; refusing to follow it out of the store",
                path=d,
                hint=f"remove the link (`rm {d}`): {LOCAL_DIR}/ holds only local, derived data",
            )
        if not d.is_dir():
            ensure_dir(d)
            atomic_write(d / ".gitignore", "# local and derived data: never commit\n*\n")
        return d

    @property
    def drafts_dir(self) -> Path:
        """``.mem/drafts/``: ``mem edit`` keeps a draft here (``<ID>.md``) when the edited text
        cannot be saved; forgetting the record removes it."""
        return self.local_dir / "drafts"

    @property
    def index_dir(self) -> Path:
        return self.local_dir / "index"

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def clone_id(self) -> str:
        p = self.local_dir / "clone-id"
        try:
            cid = p.read_text("utf-8").strip()
            if cid and all(c in "0123456789abcdef" for c in cid):
                return cid
        except FileNotFoundError:
            pass
        cid = os.urandom(8).hex()
        atomic_write(p, cid + "\n")
        return cid

    @property
    def log(self) -> AuditLog:
        if self._log is None:
            self._log = AuditLog(self.root / LOG_DIR, self.clone_id, self.actor)
        return self._log

    def record_path(self, scope: str, record_id: str) -> Path:
        d = self.records_dir / ids.check_scope(scope)
        if d.is_symlink():
            raise StoreInvalidError(
                f"records/{scope} is a symbolic link; refusing to follow it out of the store", path=d
            )
        return d / f"{ids.check_id(record_id)}.md"

    def scopes(self) -> builtins.list[str]:
        """Scopes that have a records folder."""
        return layout.scope_names(str(self.records_dir))

    # -- reading ------------------------------------------------------------------------------

    def iter_paths(self, scopes: Iterable[str] | None = None) -> Iterator[tuple[str, str, Path]]:
        """(scope, id, path) of every record file, in id order within each scope.

        Files that are not named like a record (``<ID>.md``) are skipped here; ``verify``
        reports them. Symbolic links are never followed.
        """
        for scope in self.scopes() if scopes is None else [ids.check_scope(s) for s in scopes]:
            d = self.records_dir / scope
            for rid in layout.record_ids(str(d)):
                yield scope, rid, d / f"{rid}.md"

    def is_forgotten(self, scope: str, record_id: str) -> bool:
        return self.tombstones.is_id_tombstoned(scope, record_id)

    def read_path(self, path: Path) -> Record:
        rec, _ = read_record_file(path)
        return rec

    def iter_records(
        self,
        scopes: Iterable[str] | None = None,
        *,
        on_error: Callable[[RecordParseError], None] | None = None,
    ) -> Iterator[Record]:
        """Every live record (optionally of some scopes).

        A record that cannot be parsed raises, unless ``on_error`` is given (then it is passed
        there and skipped). Records whose id is tombstoned are never yielded.
        """
        for scope, rid, path in self.iter_paths(scopes):
            if self.tombstones.is_id_tombstoned(scope, rid):
                continue
            try:
                rec = self.read_path(path)
            except FileNotFoundError:
                continue  # removed while we listed
            except RecordParseError as exc:
                if on_error is None:
                    raise
                on_error(exc)
                continue
            if rec.id != rid or rec.scope != scope:
                exc2 = RecordParseError(
                    f"file name and frontmatter disagree (file says {scope}/{rid}, "
                    f"frontmatter says {rec.scope}/{rec.id})",
                    path=path,
                )
                if on_error is None:
                    raise exc2
                on_error(exc2)
                continue
            yield rec

    def find_path(self, record_id: str, scope: str | None = None) -> Path | None:
        rid = ids.check_id(record_id)
        for s in [scope] if scope else self.scopes():
            p = self.records_dir / s / f"{rid}.md"
            if p.is_file() and not p.is_symlink() and not p.parent.is_symlink():
                return p
        return None

    def get(self, record_id: str, scope: str | None = None) -> Record:
        """The live record with this id (optionally required to be in ``scope``)."""
        rid = ids.parse_id(record_id)
        if scope is not None:
            ids.check_scope(scope)
        p = self.find_path(rid, scope)
        if p is None or self.tombstones.is_id_tombstoned(p.parent.name, rid):
            t = self.tombstones.find_id(rid)
            if t is not None and (scope is None or t.scope == scope):
                raise NotFoundError(f"record {rid} was forgotten on {t.forgotten_at}")
            where = f" in scope {scope!r}" if scope else ""
            raise NotFoundError(f"no record {rid}{where}")
        rec = self.read_path(p)
        if rec.id != rid or rec.scope != p.parent.name:
            raise RecordParseError("file name and frontmatter disagree", path=p)
        return rec

    def list(
        self,
        flt: RecordFilter | None = None,
        *,
        limit: int | None = None,
        on_error: Callable[[RecordParseError], None] | None = None,
    ) -> builtins.list[Record]:
        """Records matching ``flt``, newest first (by record time, then id). A record that cannot
        be read raises, unless ``on_error`` is given (see :meth:`iter_records`)."""
        flt = flt or RecordFilter()
        out = [r for r in self.iter_records(flt.scopes, on_error=on_error) if flt.matches(r)]
        out.sort(key=lambda r: (r.recorded_at, r.id), reverse=True)
        return out[:limit] if limit is not None else out

    def derived_index(self, scopes: Iterable[str] | None = None) -> dict[str, builtins.list[Record]]:
        """source id -> records that list it in ``derived_from``."""
        out: dict[str, builtins.list[Record]] = {}
        for r in self.iter_records(scopes):
            for src in r.derived_from:
                out.setdefault(src, []).append(r)
        return out

    def select_records(
        self, *, scope: str | None = None, session: str | None = None, transcript: str | None = None
    ) -> builtins.list[Record]:
        """Live records (any status) chosen by what people think in, for ``mem forget``: every
        record of ``scope``; with ``session``, those captured from that session or conversation
        (``source.session`` or ``source.conversation``); with ``transcript``, those captured
        from that transcript file (``source.transcript``, as given or as the same file). Every
        capture of a record counts: the session it was first captured from and each later
        sighting (``source.sightings``), so content said in a session goes with it even when
        another session said it first."""
        want_file = None
        if transcript is not None:
            with contextlib.suppress(OSError):
                want_file = os.path.realpath(transcript)

        def from_transcript(got: object) -> bool:
            return isinstance(got, str) and (got == transcript or os.path.realpath(got) == want_file)

        out: builtins.list[Record] = []
        for r in self.iter_records([scope] if scope else None, on_error=lambda e: None):
            src = r.source
            seen = src.get("sightings")
            captures = [src, *(s for s in seen if isinstance(s, dict))] if isinstance(seen, list) else [src]
            # sightings beyond the list's 20 keep only their names (capture's sighting_sessions
            # and sighting_transcripts)
            more_sessions = src.get("sighting_sessions")
            more_files = src.get("sighting_transcripts")
            if session is not None and not any(session in (c.get("session"), c.get("conversation")) for c in captures) \
                    and not (isinstance(more_sessions, list) and session in more_sessions):
                continue
            if transcript is not None and not any(from_transcript(c.get("transcript")) for c in captures) \
                    and not (isinstance(more_files, list) and any(from_transcript(t) for t in more_files)):
                continue
            out.append(r)
        return out

    def live_with_content(self, content: str, scope: str) -> Record | None:
        """A live record (active or candidate) of ``scope`` whose content is ``content`` once
        normalized (the same match digest), or None. ``mem add`` and MCP ``remember`` call it
        under the writer lock and report that record instead of writing a second one.

        The lexical index names candidates when there is one (each is read from its file and
        checked; the scope is refreshed first when it changed around mem, so a record a git pull
        or a hand-written file brought is found too); without one, every record of the scope is
        read."""
        ids.check_scope(scope)
        md = match_digest(content)
        try:
            from mem.format.index.derived import same_content_candidates

            cands = same_content_candidates(self, scope, content)
        except MemError:  # an index that cannot answer: read the scope
            cands = None
        if cands is None:
            recs: Iterable[Record] = self.iter_records([scope], on_error=lambda e: None)
        else:
            recs = self._readable(dict.fromkeys(cands), scope)
        for r in recs:
            if r.status in ("active", "candidate") and r.match_digest == md:
                return r
        return None

    def _readable(self, record_ids: Iterable[str], scope: str) -> Iterator[Record]:
        """The live records of these ids in ``scope``; the others (gone, unreadable) skipped."""
        for rid in record_ids:
            try:
                yield self.get(rid, scope)
            except (NotFoundError, RecordParseError, ValidationError):
                continue

    def source_keys(self, scopes: Iterable[str] | None = None) -> dict[str, str]:
        """source key (see :func:`source_key`) -> record id, over all live records."""
        out: dict[str, str] = {}
        for r in self.iter_records(scopes):
            k = source_key(r.source)
            if k is not None:
                out[k] = r.id
        return out

    # -- write machinery ------------------------------------------------------------------------

    @contextlib.contextmanager
    def batch(self) -> Iterator[Store]:
        """Group many writes: one lock, deferred fsync and one index update at the end."""
        self.lock.acquire()
        outer = self._batch is None
        if outer:
            self._batch = []
        self._batch_depth += 1
        try:
            yield self
        finally:
            self._batch_depth -= 1
            changes: builtins.list[Change] = []
            if outer:
                changes, self._batch = self._batch or [], None
                self._batch_ids = None
            try:
                if outer and changes:
                    os.sync()
                    self.log.sync()
            finally:
                self.lock.release()
            if outer and changes:
                self._notify(changes)

    def _id_exists(self, record_id: str) -> bool:
        """Whether a record file with this id exists in any scope.

        Inside a batch, one listing of the store answers every question (a 100k-record import
        must not list every scope folder once per record)."""
        if self._batch is None:
            return self.find_path(record_id) is not None
        if self._batch_ids is None:
            self._batch_ids = {rid for _, rid, _ in self.iter_paths()}
        return record_id in self._batch_ids

    @contextlib.contextmanager
    def writing(self, scopes: Iterable[str] = ()) -> Iterator[None]:
        """One write of the store: every precondition checked before its first change, and
        every change undone if a later step fails (a full disk, a torn line, an interrupt), so a
        failed write leaves nothing and a retry makes no duplicate (``spec/format.md``).

        Call it with the writer lock held; ``scopes`` are those whose tombstone file the
        write may append to."""
        self.check_appendable(scopes)
        with undoable():
            yield

    def _before_lock(self) -> None:
        self.check_no_symlinks()
        _ = self.local_dir  # created (owner-only, with its .gitignore) for the lock file

    def check_no_symlinks(self) -> None:
        """Refuse to write (exit 5) when a folder mem writes to is a symbolic link: the audit log,
        tombstones, capture state or indexes would be written outside the store."""
        for name in (LOCAL_DIR, LOG_DIR, TOMBSTONES_DIR, STATE_DIR, RECORDS_DIR):
            p = self.root / name
            if p.is_symlink():
                raise StoreInvalidError(
                    f"{name}/ is a symbolic link; refusing to write through it out of the store",
                    path=p,
                    hint=f"replace the link by a real folder (e.g. copy the target's files into {name}/)",
                )

    def check_appendable(self, scopes: Iterable[str] = ()) -> None:
        """Refuse (exit 5) before any change when the audit chain, or a tombstone file this write
        would append to, ends in a torn line: appending would build on it."""
        paths = [self.log.path, *(self.tombstones.path(s) for s in scopes)]
        for p in paths:
            if has_torn_tail(p):
                raise TornTailError(
                    "refusing to write: the last line of this file is incomplete (a write was "
                    "interrupted); nothing was changed",
                    path=p,
                    hint="run `mem repair` to move the torn line aside, then run the command again",
                )

    @property
    def _sync(self) -> bool:
        return self._batch is None

    def _notify(self, changes: builtins.list[Change]) -> None:
        if self._batch is not None:
            self._batch.extend(changes)
            return
        for fn in list(self.listeners):
            fn(changes)

    def _write_file(self, rec: Record) -> Path:
        path = self.record_path(rec.scope, rec.id)
        d = path.parent
        if not d.is_dir():
            ensure_dir(d, self.config.dir_mode)
        atomic_write(path, dump_record(rec), self.config.file_mode, sync=self._sync)
        return path

    def check_not_tombstoned(self, rec: Record) -> None:
        """Refuse a record whose id or normalized content (or source item) was forgotten."""
        t = self.tombstones.load(rec.scope)
        if rec.id in t.ids:
            raise TombstonedError(
                f"record id {rec.id} was forgotten in scope {rec.scope!r}; it cannot come back"
            )
        hit = t.digests.get(rec.match_digest)
        if hit is not None:
            raise TombstonedError(
                f"this content was forgotten in scope {rec.scope!r} (tombstone {hit})",
                hint="pass --allow-forgotten (logged) if you really mean to store it again",
            )
        key = source_key(rec.source)
        if key is not None and key in t.digests:
            raise TombstonedError(
                f"the source item of this record was forgotten in scope {rec.scope!r} "
                f"(tombstone {t.digests[key]})"
            )

    def _admit(self, rec: Record, allow_tombstoned: bool, reason: str | None) -> None:
        try:
            self.check_not_tombstoned(rec)
        except TombstonedError:
            t = self.tombstones.load(rec.scope)
            if not allow_tombstoned or rec.id in t.ids:
                raise
            key = source_key(rec.source)
            digest = rec.match_digest if rec.match_digest in t.digests or key is None else key
            if key is not None and key in t.digests and rec.match_digest in t.digests:
                self.tombstones.lift(
                    rec.scope, key, rec.id, format_time(now()), reason or "explicit override", self.actor
                )
            self.tombstones.lift(
                rec.scope, digest, rec.id, format_time(now()), reason or "explicit override", self.actor
            )
            self.log.append(
                "lift-tombstone",
                id=rec.id,
                scope=rec.scope,
                after=digest,
                detail={"reason": reason or "explicit override"},
            )

    # -- writes ---------------------------------------------------------------------------------

    def put(
        self,
        rec: Record,
        *,
        op: str = "add",
        detail: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
        allow_secret: bool = False,
    ) -> Record:
        """Write a new record (already built). Refuses an existing id, forgotten content and
        (unless ``allow_secret``) text that holds a secret (:mod:`.secretpolicy`)."""
        rec = validate_record(rec)
        detail = _secret_detail(detail, check_record(rec, allow=allow_secret))
        check_supersession_fields(rec)
        with self.lock:
            if self._id_exists(rec.id):
                raise ConflictError(f"a record with id {rec.id} already exists")
            with self.writing([rec.scope]):
                self._admit(rec, allow_tombstoned, override_reason)
                self._write_file(rec)
                self.log.append(
                    op, id=rec.id, scope=rec.scope, after=rec.digest, detail=dict(detail or {}), sync=self._sync
                )
            if self._batch_ids is not None:
                self._batch_ids.add(rec.id)
        self._notify([Change("put", rec.id, rec.scope, rec)])
        return rec

    def add(
        self,
        content: str,
        *,
        scope: str,
        kind: str = "note",
        status: str = "active",
        confidence: float = 1.0,
        tags: Iterable[str] = (),
        derived_from: Iterable[str] = (),
        valid_from: object = None,
        valid_to: object = None,
        recorded_at: object = None,
        source: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
        op: str = "add",
        allow_secret: bool = False,
    ) -> Record:
        """Create a record. ``derived_from`` ids must exist (lineage is never dangling)."""
        src = dict(source or {"type": "api"})
        src.setdefault("type", "api")
        src.setdefault("writer", _writer())
        derived = tuple(ids.parse_id(d, "derived_from id") for d in derived_from)
        rec = make_record(
            scope=scope,
            kind=kind,
            content=content,
            status=status,
            confidence=confidence,
            tags=list(tags),
            valid_from=valid_from,
            valid_to=valid_to,
            recorded_at=recorded_at,
            derived_from=derived,
            source=src,
            extra=extra,
        )
        with self.lock:
            # under the lock: a forget of a source cannot slip in between the check and the write
            self._check_lineage(derived)
            return self.put(
                rec, op=op, allow_tombstoned=allow_tombstoned, override_reason=override_reason,
                allow_secret=allow_secret,
            )  # fmt: skip

    def _check_lineage(self, derived: Iterable[str]) -> None:
        """Refuse ``derived_from`` ids that are not live records (call it under the lock)."""
        for d in derived:
            p = self.find_path(d)
            if p is None or self.is_forgotten(p.parent.name, d):
                raise NotFoundError(f"derived_from names {d}, which is not a live record")

    def _rewrite(
        self,
        old: Record,
        new: Record,
        op: str,
        detail: Mapping[str, Any] | None = None,
        admit: tuple[bool, str | None] | None = None,
    ) -> Record:
        """Write a changed version of an existing record (same id), moving it if the scope changed.

        ``admit`` = (allow_tombstoned, reason): check the new content against the tombstones
        first (lifting one when allowed), as part of the same undoable write."""
        new = validate_record(new)
        if new.id != old.id:
            raise ValidationError("a record's id cannot change")
        moved = new.scope != old.scope
        with self.writing([new.scope]):
            if admit is not None:
                self._admit(new, *admit)
            self._write_file(new)
            if moved:
                remove_file(self.record_path(old.scope, old.id), sync=self._sync)
            self.log.append(
                op,
                id=new.id,
                scope=new.scope,
                before=old.digest,
                after=new.digest,
                detail=dict(detail or {}, **({"from_scope": old.scope} if moved else {})),
                sync=self._sync,
            )
        self._notify([Change("put", new.id, new.scope, new, old.scope if moved else None)])
        return new

    def update(
        self,
        record_id: str,
        *,
        content: str | None = None,
        kind: str | None = None,
        scope: str | None = None,
        confidence: float | None = None,
        tags: Iterable[str] | None = None,
        add_tags: Iterable[str] = (),
        remove_tags: Iterable[str] = (),
        valid_from: object = ...,
        valid_to: object = ...,
        source_update: Mapping[str, Any] | None = None,
        allow_tombstoned: bool = False,
        override_reason: str | None = None,
        detail: Mapping[str, Any] | None = None,
        op: str = "update",
        allow_secret: bool = False,
    ) -> Record:
        """Change fields of a record in place (content corrections, tags, validity...).

        Use :meth:`supersede` when the world changed (a new fact replaces an old one); use
        ``update`` when the record was wrong or incomplete.
        """
        with self.lock:
            old = self.get(record_id)
            t = set(old.tags) if tags is None else set(tags)
            t |= set(add_tags)
            t -= set(remove_tags)
            changes: dict[str, Any] = {"tags": tuple(t), "updated_at": now()}
            if content is not None:
                changes["content"] = canonical_body(content)
            if kind is not None:
                changes["kind"] = ids.check_kind(kind)
            if scope is not None:
                changes["scope"] = ids.check_scope(scope)
            if confidence is not None:
                changes["confidence"] = confidence
            if valid_from is not ...:
                changes["valid_from"] = parse_time(valid_from, "valid_from") if valid_from else None
            if valid_to is not ...:
                changes["valid_to"] = parse_time(valid_to, "valid_to") if valid_to else None
            if source_update:
                changes["source"] = {**old.source, **source_update}
            new = validate_record(old.with_changes(**changes))
            if new == old.with_changes(updated_at=new.updated_at):
                return old  # nothing changed: no write, no git diff
            detail = _secret_detail(detail, check_record(new, old=old, allow=allow_secret))
            if scope is not None and scope != old.scope and self.find_path(old.id, scope):
                raise ConflictError(f"record {old.id} already exists in scope {scope!r}")
            admit = (allow_tombstoned, override_reason) if content is not None or new.scope != old.scope else None
            return self._rewrite(old, new, op, detail, admit)

    def replace(self, new: Record, *, op: str = "update", detail: Mapping[str, Any] | None = None,
                allow_tombstoned: bool = False, allow_secret: bool = False) -> Record:
        """Replace a record by an edited version of it (``mem edit``); id must be unchanged."""
        with self.lock:
            old = self.get(new.id)
            new = validate_record(new.with_changes(updated_at=now()))
            if new.with_changes(updated_at=None) == old.with_changes(updated_at=None):
                return old
            detail = _secret_detail(detail, check_record(new, old=old, allow=allow_secret))
            check_supersession_fields(new)
            sb = new.superseded_by
            if sb is not None and sb != old.superseded_by and self.find_path(sb) is None \
                    and self.tombstones.find_id(sb) is None:
                raise ValidationError(
                    f"superseded_by names {sb}, which is not in the store [E207]",
                    hint="name the record that replaced this one, or use `mem supersede`",
                )
            admit = (allow_tombstoned, None) if new.match_digest != old.match_digest or new.scope != old.scope else None
            return self._rewrite(old, new, op, detail, admit)

    def set_status(
        self, record_id: str, status: str, *, reason: str | None = None, scope: str | None = None
    ) -> Record:
        """Accept (-> active), reject (-> rejected) or reopen (-> candidate, e.g. undo in review).

        With ``scope``, the record is looked up in that scope only (an id present in two scopes
        resolves to that copy)."""
        if status not in ("active", "rejected", "candidate"):
            raise ValidationError(
                "set_status takes 'active', 'rejected' or 'candidate'; use supersede for superseded"
            )
        op = {"active": "accept", "rejected": "reject", "candidate": "reopen"}[status]
        with self.lock:
            old = self.get(record_id, scope)
            if old.status == status:
                return old
            allowed = {
                "active": ("candidate", "rejected"),
                "rejected": ("candidate", "active"),
                "candidate": ("active", "rejected"),
            }
            if old.status not in allowed[status]:
                raise ConflictError(
                    f"record {old.id} is {old.status}; it cannot be {op}ed "
                    f"(only a {' or '.join(allowed[status])} record can)"
                )
            new = old.with_changes(status=status, updated_at=now())
            return self._rewrite(old, new, op, {"reason": reason} if reason else None)

    def accept(self, record_id: str, *, reason: str | None = None, scope: str | None = None) -> Record:
        return self.set_status(record_id, "active", reason=reason, scope=scope)

    def reject(self, record_id: str, *, reason: str | None = None, scope: str | None = None) -> Record:
        return self.set_status(record_id, "rejected", reason=reason, scope=scope)

    def reopen(self, record_id: str, *, reason: str | None = None, scope: str | None = None) -> Record:
        """Put an accepted or rejected record back to ``candidate`` (logged as ``reopen``)."""
        return self.set_status(record_id, "candidate", reason=reason, scope=scope)

    def supersede(
        self,
        old_id: str,
        content: str,
        *,
        kind: str | None = None,
        tags: Iterable[str] | None = None,
        confidence: float | None = None,
        valid_from: object = None,
        reason: str | None = None,
        source: Mapping[str, Any] | None = None,
        status: str = "active",
        derived_from: Iterable[str] = (),
        scope: str | None = None,
        allow_secret: bool = False,
    ) -> tuple[Record, Record]:
        """Record that ``content`` replaces the record ``old_id`` from ``valid_from`` (default now).

        The new record is written first (``supersedes: [old]``), then the old one becomes
        ``superseded`` with ``superseded_by``, ``superseded_at`` and ``valid_to``. Returns
        (new, old). The new record inherits the old one's ``derived_from``; ``derived_from``
        adds more sources (e.g. the episodes a consolidation read), which must be live records.
        With ``scope``, ``old_id`` is looked up in that scope only.
        """
        with self.lock:
            old = self.get(old_id, scope)
            if old.status not in ("active", "candidate"):
                raise ConflictError(f"record {old.id} is {old.status}; only an active or candidate record can be superseded")
            extra_lineage = tuple(ids.parse_id(d, "derived_from id") for d in derived_from)
            self._check_lineage(extra_lineage)
            t = now()
            vf = parse_time(valid_from, "valid_from") if valid_from else t
            src = dict(source or {"type": "api"})
            src.setdefault("writer", _writer())
            new = make_record(
                scope=old.scope,
                kind=kind or old.kind,
                content=content,
                status=status,
                confidence=old.confidence if confidence is None else confidence,
                tags=list(old.tags if tags is None else tags),
                valid_from=vf,
                recorded_at=t,
                supersedes=(old.id,),
                derived_from=(*old.derived_from, *extra_lineage),
                source=src,
            )
            allowed = check_record(new, old=old, allow=allow_secret)
            new, old_new = self._commit_supersession(
                old, new, "supersede", reason, _secret_detail(None, allowed)
            )
        self._notify([Change("put", new.id, new.scope, new), Change("put", old.id, old.scope, old_new)])
        return new, old_new

    def put_superseding(
        self, new: Record, *, op: str = "supersede", detail: Mapping[str, Any] | None = None,
        allow_secret: bool = False,
    ) -> tuple[Record, Record]:
        """Write a prebuilt record that supersedes ``new.supersedes[0]`` (an import of another
        system's history): as :meth:`supersede`, with the new record's own ``recorded_at`` as
        the record time and its ``valid_from`` (else ``recorded_at``) as the world time of the
        change. Returns (new, old)."""
        new = validate_record(new)
        if len(new.supersedes) != 1:
            raise ValidationError("put_superseding takes a record that supersedes exactly one record")
        with self.lock:
            if self._id_exists(new.id):
                raise ConflictError(f"a record with id {new.id} already exists")
            old = self.get(new.supersedes[0], new.scope)
            if old.status not in ("active", "candidate"):
                raise ConflictError(f"record {old.id} is {old.status}; only an active or candidate record can be superseded")
            detail = _secret_detail(detail, check_record(new, old=old, allow=allow_secret))
            new, old_new = self._commit_supersession(old, new, op, None, detail)
        self._notify([Change("put", new.id, new.scope, new), Change("put", old.id, old.scope, old_new)])
        return new, old_new

    def _commit_supersession(
        self, old: Record, new: Record, op: str, reason: str | None,
        detail: Mapping[str, Any] | None = None,
    ) -> tuple[Record, Record]:
        """Write ``new`` (which supersedes ``old``), then ``old`` as superseded by it; the caller
        holds the lock and notifies the listeners after it."""
        if new.match_digest == old.match_digest:
            raise ConflictError("the new content is the same as the old record's")
        why = {"reason": reason} if reason else {}
        with self.writing([new.scope, old.scope]):
            self._admit(new, False, None)
            self._write_file(new)
            self.log.append(
                op,
                id=new.id,
                scope=new.scope,
                after=new.digest,
                detail={"supersedes": old.id, **why, **dict(detail or {})},
                sync=self._sync,
            )
            old_new = superseded_version(old, new.id, new.recorded_at, new.valid_from or new.recorded_at)
            self._write_file(old_new)
            self.log.append(
                "update",
                id=old.id,
                scope=old.scope,
                before=old.digest,
                after=old_new.digest,
                detail={"superseded_by": new.id, "previous_status": old.status, **why},
                sync=self._sync,
            )
        return new, old_new

    # -- forgetting -----------------------------------------------------------------------------

    def plan_forget(
        self, record_ids: Iterable[str], scope: str | Sequence[str] | None = None
    ) -> ForgetPlan:
        """The records a forget of ``record_ids`` removes, with the cascade through lineage.

        ``scope`` (one scope, or several tried in order) is where the ids are looked up: an id
        present in two scopes resolves to the copy there."""
        plan = ForgetPlan()
        seen: set[str] = set()
        for rid in record_ids:
            rec = self._get_in(rid, scope)
            if rec.id not in seen:
                seen.add(rec.id)
                plan.requested.append(rec)
        derived = self.derived_index()
        queue = [r.id for r in plan.requested]
        while queue:
            src = queue.pop(0)
            children: builtins.list[Record] = derived.get(src, [])
            for child in sorted(children, key=lambda r: r.id):
                if child.id in seen:
                    continue
                seen.add(child.id)
                plan.cascade.append((child, src))
                queue.append(child.id)
        plan.restored = self._restorations(plan.records, seen)
        return plan

    def _get_in(self, record_id: str, scope: str | Sequence[str] | None) -> Record:
        """``get`` in one scope, or in the first of several scopes that holds the id."""
        if scope is None or isinstance(scope, str):
            return self.get(record_id, scope)
        first: NotFoundError | None = None
        for s in scope:
            try:
                return self.get(record_id, s)
            except NotFoundError as exc:
                first = first or exc
        raise first or NotFoundError(f"no record {record_id}")

    def _superseded_copy(self, old_id: str, by: Record) -> Record | None:
        """The record ``old_id`` that ``by`` superseded: the copy in ``by``'s scope first (an id
        present in two scopes resolves to the one that names ``by`` as its successor)."""
        for s in [by.scope, *(x for x in self.scopes() if x != by.scope)]:
            try:
                old = self.get(old_id, s)
            except (NotFoundError, RecordParseError):
                continue
            if old.status == "superseded" and old.superseded_by == by.id:
                return old
        return None

    def _restorations(self, forgotten: Iterable[Record], gone: set[str]) -> builtins.list[Record]:
        """Records superseded by a record that is being forgotten, as they will be restored."""
        out: builtins.list[Record] = []
        prior: dict[str, str] | None = None
        for r in forgotten:
            for old_id in r.supersedes:
                if old_id in gone:
                    continue
                old = self._superseded_copy(old_id, r)
                if old is None:
                    continue
                if prior is None:
                    prior = {
                        str(e["id"]): str((e.get("detail") or {}).get("previous_status", "active"))
                        for e in self.log.iter_events()
                        if e.get("op") in ("update", "repair") and (e.get("detail") or {}).get("superseded_by")
                    }
                status = prior.get(old.id, "active")
                ended_by_it = old.valid_to is not None and old.valid_to in (r.valid_from, r.recorded_at)
                out.append(
                    old.with_changes(
                        status=status if status in ("active", "candidate") else "active",
                        superseded_by=None,
                        superseded_at=None,
                        valid_to=None if ended_by_it else old.valid_to,
                        updated_at=now(),
                    )
                )
        return out

    def forget(
        self,
        record_ids: Iterable[str],
        *,
        reason: str = "",
        scope: str | Sequence[str] | None = None,
        dry_run: bool = False,
        check: Callable[[ForgetPlan], None] | None = None,
    ) -> ForgetPlan:
        """Forget records and everything derived from them; returns what was (or would be) removed.

        For each record: the tombstone is appended and synced, then the file is removed, then
        the event is logged, then the indexes drop it. Content never reaches the tombstone or
        the log. ``check`` sees the plan under the writer lock before anything is written (and
        may refuse it by raising): what it approved is what is forgotten.
        """
        with self.lock:
            plan = self.plan_forget(record_ids, scope)
            if check is not None:
                check(plan)
            if dry_run:
                return plan
            with self.writing({r.scope for r in plan.records}):
                at = format_time(now())
                changes: builtins.list[Change] = []
                cascade_src = {r.id: src for r, src in plan.cascade}
                # derived records go before their sources: a crash part-way never leaves a live
                # record whose source is already forgotten (re-running the forget completes it)
                for rec in _leaves_first(plan.records):
                    self.tombstones.add(
                        Tombstone(
                            id=rec.id,
                            scope=rec.scope,
                            digest=rec.match_digest,
                            forgotten_at=at,
                            reason=reason,
                            actor=self.actor,
                            cascade_of=cascade_src.get(rec.id),
                            source_key=source_key(rec.source),
                        ),
                        sync=self._sync,
                    )
                    remove_file(self.record_path(rec.scope, rec.id), sync=self._sync)
                    detail: dict[str, Any] = {"reason": reason}
                    if rec.id in cascade_src:
                        detail["cascade_of"] = cascade_src[rec.id]
                    self.log.append(
                        "forget", id=rec.id, scope=rec.scope, before=rec.digest, detail=detail, sync=self._sync
                    )
                    changes.append(Change("delete", rec.id, rec.scope))
                for restored in plan.restored:
                    was = self.get(restored.id, restored.scope)
                    self._write_file(restored)
                    self.log.append(
                        "update",
                        id=restored.id,
                        scope=restored.scope,
                        before=was.digest,
                        after=restored.digest,
                        detail={"restored": True, "superseded_by_forgotten": was.superseded_by},
                        sync=self._sync,
                    )
                    changes.append(Change("put", restored.id, restored.scope, restored))
            # copies mem keeps outside the records go too: the draft of a failed `mem edit`
            for rec in plan.records:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.drafts_dir / f"{rec.id}.md")
        self._notify(changes)
        return plan

    def complete_interrupted_forgets(self) -> builtins.list[str]:
        """Remove record files whose id is tombstoned (a forget that crashed before removal)."""
        done: builtins.list[str] = []
        with self.lock:
            for scope in self.tombstones.scopes():
                for rid in list(self.tombstones.load(scope).ids):
                    p = self.records_dir / scope / f"{rid}.md"
                    if p.exists():
                        before = None
                        with contextlib.suppress(RecordParseError, OSError):
                            before = self.read_path(p).digest
                        remove_file(p)
                        self.log.append(
                            "forget", id=rid, scope=scope, before=before,
                            detail={"reason": "completing an interrupted forget"},
                        )
                        done.append(rid)
                        self._notify([Change("delete", rid, scope)])
        return done

    # -- summaries ------------------------------------------------------------------------------

    def stats(self, counts: Iterable[tuple[str, str, str, int]] | None = None) -> dict[str, Any]:
        """Records by scope, kind and status, and tombstones. Every record is read (those that
        cannot be are left out), unless ``counts`` gives (scope, kind, status, records) already
        (``listing.stats``: from the lexical index's state)."""
        if counts is None:
            counts = ((r.scope, r.kind, r.status, 1) for r in self.iter_records(on_error=lambda e: None))
        by_scope: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        by_status: dict[str, int] = dict.fromkeys(STATUSES, 0)
        total = 0
        for scope, kind, status, n in counts:
            total += n
            by_scope[scope] = by_scope.get(scope, 0) + n
            by_kind[kind] = by_kind.get(kind, 0) + n
            by_status[status] = by_status.get(status, 0) + n
        tomb = sum(1 for _ in self.tombstones)
        return {
            "store": str(self.root),
            "format": self.declaration.format,
            "version": self.declaration.version,
            "records": total,
            "by_scope": dict(sorted(by_scope.items())),
            "by_kind": dict(sorted(by_kind.items())),
            "by_status": by_status,
            "tombstones": tomb,
        }


def open_store(path: str | Path | None = None, **kwargs: Any) -> Store:
    """Open a store (see :meth:`Store.open`)."""
    return Store.open(path, **kwargs)


__all__ = [
    "Change",
    "ForgetPlan",
    "RecordFilter",
    "Store",
    "find_store_root",
    "match_digest",
    "open_store",
    "source_key",
]
