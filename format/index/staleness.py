"""What differs between a store's records and its lexical index (and its vectors): the plan a
refresh applies (``_plan``: of every scope or of some, by folder mtimes or by a full stat scan),
and the reading of a record file's index fields."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import RecordParseError
from mem.format.index.lexread import PENDING_FILE, dir_mtime
from mem.format.model.record import Record, read_record_file
from mem.format.rules import ids
from mem.format.rules.layout import record_file, record_files, scope_mtimes

if TYPE_CHECKING:
    from mem.format.index.lexical import DocFields, LexicalIndex
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import Store


def _dir_mtime(path: Path) -> int:
    return dir_mtime(str(path))


@dataclass
class Staleness:
    """What differs between the records and the lexical index (and the vectors)."""

    scopes_changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # "<path>: <why>"
    vectors_missing: int = 0
    space_mismatch: bool = False
    lexical_missing: bool = False
    #: the store's scopes as the refresh listed them (None when it listed none); not reported
    store_scopes: list[str] | None = field(default=None, repr=False, compare=False)
    #: a refresh bounded by its ``limit`` left records unindexed: how many, as ``unindexed``
    #: counts them (-1: not counted, call it); not reported
    left: int = field(default=0, repr=False, compare=False)

    @property
    def stale(self) -> bool:
        return bool(self.added or self.changed or self.removed or self.lexical_missing)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scopes_changed": self.scopes_changed,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unreadable": self.unreadable,
            "vectors_missing": self.vectors_missing,
            "space_mismatch": self.space_mismatch,
            "lexical_missing": self.lexical_missing,
        }


@dataclass
class _Plan:
    staleness: Staleness
    puts: list[tuple[DocFields, int, int]]
    deletes: list[tuple[str, str]]
    mtimes: dict[str, int]
    #: (scope, id) of the new or changed files beyond ``read_limit``: listed, not read (in
    #: ``staleness.added``/``changed`` too; their fields are read by a plan without a limit)
    unread: list[tuple[str, str]] = field(default_factory=list)
    #: with ``_plan(keep=True)``: each scope listed, as scope -> (its folder's mtime before the
    #: listing, [(id, mtime_ns, size)]), for a later plan to reuse (``_plan(reuse=...)``)
    listed: dict[str, tuple[int, list[tuple[str, int, int]]]] = field(default_factory=dict)
    #: the scopes whose files were listed (a full plan: every scope)
    checked: list[str] = field(default_factory=list)
    #: (scope, id) of the files that could not be read (in ``staleness.unreadable`` too)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def found(self) -> set[tuple[str, str]]:
        """(scope, id) of every file this plan found different from the index: to put, to
        delete, left unread, or unreadable (what ``_recheck`` looks at again)."""
        return ({(f.scope, f.id) for f, _m, _z in self.puts} | set(self.deletes) | set(self.unread)
                | set(self.failed))

    def remove(self, scope: str, rid: str) -> None:
        """Drop the indexed record ``rid`` of ``scope`` (its file is gone, forgotten or unreadable)."""
        self.deletes.append((scope, rid))
        self.staleness.removed.append(rid)

    def differs(self, scope: str, rid: str, mtime: int, size: int, indexed: bool, folder: Path,
                done: dict[tuple[str, str, int, int], DocFields], read_limit: int | None) -> bool:
        """A record file whose (mtime, size) is not the index's (``indexed``: the index holds
        it): read and put, listed unread beyond ``read_limit``, or noted unreadable (and dropped
        when indexed); a file with the stat a plan before read is not read again (``done``).
        True when the index changes for it. A new mtime with the same content (touch, or a
        metadata change) is re-indexed too: status, tags and times are in the index; cheap."""
        st = self.staleness
        if read_limit is not None and len(self.puts) + len(st.unreadable) >= read_limit:
            self.unread.append((scope, rid))
            (st.changed if indexed else st.added).append(rid)
            return True
        rec = done.get((scope, rid, mtime, size))
        if rec is None:
            path = folder / f"{rid}.md"
            try:
                rec = _read_fields(path, scope, rid)
            except (RecordParseError, FileNotFoundError) as exc:
                st.unreadable.append(str(exc) if isinstance(exc, RecordParseError)
                                     else f"{path}: vanished while read")
                self.failed.append((scope, rid))
                if indexed:
                    self.remove(scope, rid)
                return indexed
        self.puts.append((rec, mtime, size))
        (st.changed if indexed else st.added).append(rid)
        return True


def _read_fields(path: Path, scope: str, rid: str) -> DocFields:
    """Index fields of a record file: the canonical fast path, else the full parser."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RecordParseError(f"cannot read record: {exc.strerror}", path=path) from None
    return _fields_of(raw, path, scope, rid)


def _fields_of(raw: bytes, path: str | Path, scope: str, rid: str) -> DocFields:
    """Index fields of the bytes ``raw`` of the record file ``path`` (see _read_fields)."""
    from mem.format.index.lexical import DocFields, fast_fields

    f = fast_fields(raw)
    if f is None:
        return DocFields.from_record(_read_checked(Path(path), scope, rid))
    if f.id != rid or f.scope != scope:
        raise RecordParseError(
            f"file name and frontmatter disagree (file says {scope}/{rid}, frontmatter says {f.scope}/{f.id})",
            path=path,
        )
    return f


def _read_checked(path: Path, scope: str, rid: str) -> Record:
    rec, _ = read_record_file(path)
    if rec.id != rid or rec.scope != scope:
        raise RecordParseError(
            f"file name and frontmatter disagree (file says {scope}/{rid}, frontmatter says {rec.scope}/{rec.id})",
            path=path,
        )
    return rec


def _scope_dirs(store: Store, only: Iterable[str] | None = None) -> dict[str, int]:
    """``Store.scopes()`` with each folder's mtime (``_dir_mtime``), in order: one listing and one
    stat per scope, with no Path built (Path objects were half a refresh's time on a store of
    400 scopes: bench/README.md, "Figures behind constants in the code").
    With ``only``: those of these scopes that ``Store.scopes()`` would name, without listing."""
    got: dict[str, int] = {}
    if only is not None:
        base = str(store.records_dir) + os.sep
        for name in set(only):
            if ids.is_scope(name):
                try:
                    st = os.lstat(base + name)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                if S_ISDIR(st.st_mode):  # a folder, not a symbolic link
                    got[name] = st.st_mtime_ns
        return dict(sorted(got.items()))
    return scope_mtimes(str(store.records_dir))


#: A full scan calls its ``pause`` (a background scanner yielding to searches) every this many
#: files: about 0.4 ms of work at 100k records (with 256 files, 2 ms, and a search beside the
#: scan had a p99 of 18-21 ms against 17.2-17.4 with 64: bench/README.md, "Issue 21, the tenth
#: session").
PAUSE_EVERY = 64


def _plan(store: Store, lex: LexicalIndex, full: bool, only: Iterable[str] | None = None,
          pause: Callable[[], None] | None = None, read_limit: int | None = None,
          also: Iterable[str] = (), keep: bool = False, reuse: _Plan | None = None) -> _Plan:
    """What the refresh applies: of every scope, or of the scopes ``only`` (the others, unseen,
    keep their recorded mtimes: their changes are applied by a refresh that looks at them).
    ``pause``: called every PAUSE_EVERY files looked at, between pieces of a scope's indexed
    state (``LexicalIndex.scope_state``) and after each scope. ``read_limit``: read the fields of at
    most this many new or changed files; the others are listed in ``unread`` (a plan made
    before the writer lock is taken only needs to know that there is work: a plan of 10,000
    files an import is writing read them all, seconds, before it found the lock held).
    ``also``: scopes looked at whatever their mtime (those the write journal names).
    ``keep``: keep each scope's listing in the plan (``listed``) with the fields it read;
    ``reuse``: such a plan made just before (a refresh's plan before the writer lock): a scope
    whose folder has the mtime it had before that listing is not listed again (a file added or
    removed since changes it), and a file with the stat that plan saw is not read again. At
    10,000 new files the listing was a fifth of a search's catch-up (bench/README.md, "The first
    hour on a CPU with VNNI")."""
    st = Staleness()
    old = lex.scope_mtimes()
    wanted = None if only is None else set(only)
    cur = _scope_dirs(store, wanted)
    now_scopes = list(cur)
    if wanted is None:
        st.store_scopes = now_scopes
    mtimes = dict(old)
    forced = set(also)
    check = [s for s in now_scopes if full or old.get(s) != cur[s] or s in forced]
    out = _Plan(st, [], [], mtimes, checked=check)
    vanished = [s for s in old if s not in cur and (wanted is None or s in wanted)]
    if full:
        vanished += [s for s in lex.indexed_scopes()
                     if s not in cur and s not in vanished and (wanted is None or s in wanted)]
    for s in vanished:
        for rid in lex.scope_state(s):
            out.remove(s, rid)
        mtimes.pop(s, None)
        st.scopes_changed.append(s)
    done: dict[tuple[str, str, int, int], DocFields] = {}
    if reuse is not None:
        done = {(f.scope, f.id, m, z): f for f, m, z in reuse.puts}
    for s in check:
        state = lex.scope_state(s, pause)
        seen: set[str] = set()
        matched = 0  # files of records the state holds
        tomb = store.tombstones.load(s).ids
        changed_here = False
        d = store.records_dir / s
        before = None if reuse is None else reuse.listed.get(s)
        files: Iterable[tuple[str, int, int]]
        if before is not None and before[0] == cur[s] != -1:
            files = before[1]
        else:
            # the record files as every reader lists them (layout.record_files: one rule);
            # a Path is made only for a file read (100,000 of them cost 0.5 s in a full scan)
            files = ((rid, fst.st_mtime_ns, fst.st_size) for rid, fst in record_files(str(d)))
        if keep:
            files = list(files)
            out.listed[s] = (cur[s], files)
        for n, (rid, mtime, size) in enumerate(files, 1):
            if pause is not None and n % PAUSE_EVERY == 0:
                pause()
            if rid in tomb:
                continue
            seen.add(rid)
            known = state.get(rid)
            if known is not None:
                matched += 1
                if known[0] == mtime and known[1] == size:
                    continue
            changed_here |= out.differs(s, rid, mtime, size, known is not None, d, done, read_limit)
        if matched < len(state):  # indexed records whose file is gone (a loop over 33k: 6-11 ms)
            for rid in sorted(state.keys() - seen):
                out.remove(s, rid)
                changed_here = True
        if out.unread and out.unread[-1][0] == s:
            mtimes.pop(s, None)  # files left unread: not known to match, listed again next time
        else:
            mtimes[s] = cur[s]
        if changed_here or old.get(s) != cur[s]:
            st.scopes_changed.append(s)
        if pause is not None:  # the scope's state freed between pauses (33k rows: 3-4 ms)
            pause()
            del state
            pause()
            del seen
    return out


def _recheck(store: Store, lex: LexicalIndex, found: _Plan, only: Iterable[str] | None = None,
             read_limit: int | None = None) -> _Plan:
    """The plan a full scan applies, made again under the writer lock from the scan ``found``
    (made before it, without the lock): the scopes whose folder changed since the index recorded
    them are listed, as by any refresh; of the others, only the files the scan found different
    (``_Plan.found``) are stat'ed and compared again, not every file of the store. A file the
    scan saw as indexed and that changed since is mem's write (journaled), an added or removed
    file (its folder changed), or an edit in place, which the next full scan finds as it would
    have found it made just after this one. At 100k records the whole scan again, under the
    lock and yielding to no search, held every writer for about a second after each scan
    that found a write (bench/README.md, "Issue 21, the ninth session")."""
    plan = _plan(store, lex, False, only, read_limit=read_limit)
    st = plan.staleness
    listed = set(plan.checked) | set(st.scopes_changed)
    todo: dict[str, list[str]] = {}
    for s, rid in sorted(found.found()):
        if s not in listed:
            todo.setdefault(s, []).append(rid)
    done = {(f.scope, f.id, m, z): f for f, m, z in found.puts}
    present = _scope_dirs(store, todo)
    base = store.records_dir
    for s, rids in todo.items():
        known = lex.file_state(s, rids)
        tomb = store.tombstones.load(s).ids if s in present else set()
        changed_here = False
        for rid in rids:
            k = known.get(rid)
            fst = record_file(str(base / s), rid) if s in present and rid not in tomb else None
            if fst is None:  # gone, forgotten, or no record file any more
                if k is not None:
                    plan.remove(s, rid)
                    changed_here = True
            elif k != (fst.st_mtime_ns, fst.st_size):
                changed_here |= plan.differs(s, rid, fst.st_mtime_ns, fst.st_size, k is not None, base / s,
                                             done, read_limit)
        if plan.unread and plan.unread[-1][0] == s:
            plan.mtimes.pop(s, None)  # (files left unread: listed again next time)
        if changed_here and s not in st.scopes_changed:
            st.scopes_changed.append(s)
    return plan


def unindexed(store: Store, lex: LexicalIndex | None, only: Iterable[str] | None = None) -> int:
    """How many records of the scopes ``only`` (None: all) the lexical index ``lex`` does not hold
    as they are on disk: new or changed since it was last updated, or journaled by mem's writes
    and not yet applied; every record when there is no index (``lex`` None). Listed and stat'ed,
    never read (about 4 us a file): what a search that cannot take the writer lock to index them
    says it cannot find."""
    return sum(unindexed_by_scope(store, lex, only).values())


class UnindexedCount:
    """``unindexed_by_scope`` counted again and again while a writer holds the lock (a long-lived
    searcher's background thread, once per refused round): a scope whose folder has the mtime it
    had at the last count keeps that count, and only the other scopes are listed (every file of
    a 100k store was listed each round: ~0.4 s). Counted whole again when the lexical index or
    mem's write journal changed meanwhile (another process applied or journaled writes)."""

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._scopes: dict[str, tuple[int, int]] = {}  # scope -> (its folder's mtime, count)
        #: the scopes the last call counted anew (the others kept their count)
        self.counted: list[str] = []

    def __call__(self, store: Store, lex: LexicalIndex) -> dict[str, int]:
        try:
            st = os.stat(store.index_dir / PENDING_FILE)
            journal: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            journal = None
        key = (lex.generation, lex.max_seq(), journal, tuple(sorted(lex.scope_mtimes().items())))
        if key != self._key:
            self._key, self._scopes = key, {}
        cur = _scope_dirs(store)
        again = [s for s, m in cur.items() if m == -1 or self._scopes.get(s, (None, 0))[0] != m]
        got = unindexed_by_scope(store, lex, again) if again else {}
        anew = set(again)  # (a store of 2,000 scopes: not a list's search per scope)
        self._scopes = {s: (m, got.get(s, 0) if s in anew else self._scopes[s][1]) for s, m in cur.items()}
        self.counted = again
        return {s: n for s, (_m, n) in self._scopes.items() if n}


def unindexed_by_scope(store: Store, lex: LexicalIndex | None, only: Iterable[str] | None = None) -> dict[str, int]:
    """``unindexed``, per scope (the scopes with none left out): a long-lived searcher's
    background thread counts them once per refused round (``UnindexedCount``), each search adds
    up those of its scopes."""
    from mem.format.index.session import _read_pending

    wanted = None if only is None else set(only)
    out: dict[str, int] = {}
    if lex is None:
        for s in _scope_dirs(store, wanted):
            tomb = store.tombstones.load(s).ids
            n = sum(1 for rid, _fst in record_files(str(store.records_dir / s)) if rid not in tomb)
            if n:
                out[s] = n
        return out
    # the scopes of mem's journaled writes are looked at whatever their mtime (the journal
    # advanced their recorded mtime): each journaled file not indexed as it is, is then listed
    journaled = {s for _op, s, _rid in _read_pending(store) if wanted is None or s in wanted}
    for s, _rid in _plan(store, lex, False, only, read_limit=0, also=journaled).unread:
        out[s] = out.get(s, 0) + 1
    return out


def staleness(store: Store, *, full: bool = False) -> Staleness:
    """What the lexical index lacks or holds in excess (applies nothing)."""
    from mem.format.index.lexical import LexicalIndex

    lex = LexicalIndex.open(store.index_dir)
    if lex is None:
        return Staleness(lexical_missing=True)
    try:
        st = _plan(store, lex, full).staleness
        vec = _open_vectors(store)
        if vec is not None:
            try:
                from mem.format.embed import configured_space

                st.space_mismatch = vec.space != configured_space(store.config, recorded=vec.space)
                st.vectors_missing = len(_missing_vectors(lex, vec, full=True))
            finally:
                vec.close()
        return st
    finally:
        lex.close()


def _open_vectors(store: Store) -> VectorIndex | None:
    from mem.format.index.vectors import VectorIndex

    return VectorIndex.open(store.index_dir)


def _missing_vectors(lex: LexicalIndex, vec: VectorIndex, *, full: bool = False) -> list[tuple[str, str, str]]:
    from mem.format.index.backlog import missing_vectors

    return missing_vectors(lex, vec, full=full)
