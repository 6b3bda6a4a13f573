"""Derived indexes of a store: keeping them true, building them, swapping them in.

See spec/index.md for the layout, the manifests and the staleness rules. Importing this
package is cheap (no tantivy, numpy, usearch or model); those load only when used.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR
from typing import TYPE_CHECKING, Any, TypeVar

from mem.format.base.errors import MemError, RecordParseError, StoreIOError
from mem.format.index.common import (
    LEXICAL_KIND,
    LEXICAL_POINTER,
    VECTORS_KIND,
    VECTORS_POINTER,
    build_failure,
    garbage,
    new_build_dir,
    read_pointer,
    remove_tree,
    tree_bytes,
    write_pointer,
)

# mem's own writes are journaled in PENDING_FILE and applied at the next refresh; stores with at
# most FULL_SCAN_MAX_DOCS records get a full stat scan on every refresh. Both are defined once,
# beside the freshness check of the one-shot search that must agree with them.
from mem.format.index.lexread import FULL_SCAN_MAX_DOCS as FULL_SCAN_MAX_DOCS
from mem.format.index.lexread import PENDING_FILE as PENDING_FILE
from mem.format.index.lexread import dir_mtime
from mem.format.model.record import Record, read_record_file
from mem.format.rules import ids
from mem.format.rules.layout import record_files, record_ids, scope_mtimes

if TYPE_CHECKING:
    from mem.format.embed import Embedder
    from mem.format.index.lexical import DocFields, LexicalIndex
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import Change, Store

T = TypeVar("T")
Progress = Callable[[Iterable[Any], int | None, str], Iterable[Any]]


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


#: A full scan calls its ``pause`` (a background scanner yielding to searches) every this many files.
PAUSE_EVERY = 256


def _plan(store: Store, lex: LexicalIndex, full: bool, only: Iterable[str] | None = None,
          pause: Callable[[], None] | None = None) -> _Plan:
    """What the refresh applies: of every scope, or of the scopes ``only`` (the others, unseen,
    keep their recorded mtimes: their changes are applied by a refresh that looks at them).
    ``pause``: called every PAUSE_EVERY files looked at."""
    st = Staleness()
    old = lex.scope_mtimes()
    wanted = None if only is None else set(only)
    cur = _scope_dirs(store, wanted)
    now_scopes = list(cur)
    if wanted is None:
        st.store_scopes = now_scopes
    mtimes = dict(old)
    puts: list[tuple[DocFields, int, int]] = []
    deletes: list[tuple[str, str]] = []
    check = [s for s in now_scopes if full or old.get(s) != cur[s]]
    vanished = [s for s in old if s not in cur and (wanted is None or s in wanted)]
    if full:
        vanished += [s for s in lex.indexed_scopes()
                     if s not in cur and s not in vanished and (wanted is None or s in wanted)]
    for s in vanished:
        for rid in lex.scope_state(s):
            deletes.append((s, rid))
            st.removed.append(rid)
        mtimes.pop(s, None)
        st.scopes_changed.append(s)
    for s in check:
        state = lex.scope_state(s)
        seen: set[str] = set()
        tomb = store.tombstones.load(s).ids
        changed_here = False
        d = store.records_dir / s
        # the record files as every reader lists them (layout.record_files: one rule);
        # a Path is made only for a file read (100,000 of them cost 0.5 s in a full scan)
        for n, (rid, fst) in enumerate(record_files(str(d)), 1):
            if pause is not None and n % PAUSE_EVERY == 0:
                pause()
            if rid in tomb:
                continue
            seen.add(rid)
            known = state.get(rid)
            if known is not None and known.mtime_ns == fst.st_mtime_ns and known.size == fst.st_size:
                continue
            path = d / f"{rid}.md"
            try:
                rec = _read_fields(path, s, rid)
            except (RecordParseError, FileNotFoundError) as exc:
                st.unreadable.append(str(exc) if isinstance(exc, RecordParseError) else f"{path}: vanished while read")
                if known is not None:
                    deletes.append((s, rid))
                    st.removed.append(rid)
                    changed_here = True
                continue
            if known is not None and known.digest == rec.digest:
                # same content, new mtime (touch, or a metadata change): re-index anyway since
                # status, tags and times are in the index; cheap.
                pass
            puts.append((rec, fst.st_mtime_ns, fst.st_size))
            (st.changed if known is not None else st.added).append(rid)
            changed_here = True
        for rid in state:
            if rid not in seen:
                deletes.append((s, rid))
                st.removed.append(rid)
                changed_here = True
        mtimes[s] = cur[s]
        if changed_here or old.get(s) != cur[s]:
            st.scopes_changed.append(s)
    return _Plan(st, puts, deletes, mtimes)


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

                st.space_mismatch = vec.space != configured_space(store.config)
                st.vectors_missing = len(_missing_vectors(lex, vec, full=True))
            finally:
                vec.close()
        return st
    finally:
        lex.close()


def _open_vectors(store: Store) -> VectorIndex | None:
    from mem.format.index.vectors import VectorIndex

    return VectorIndex.open(store.index_dir)


#: Stores bigger than FULL_SCAN_MAX_DOCS get a full scan at most this often (seconds;
#: config.toml [search] full_scan_seconds).
FULL_SCAN_SECONDS = 60.0


def _auto_full(store: Store, lex: LexicalIndex, periodic: bool = True, only: Sequence[str] | None = None) -> bool:
    """Whether this refresh should stat every file (to catch in-place edits); of the scopes
    ``only``, counting the full scans this process made of each (``LexicalIndex.full_scans``)."""
    if int(lex.manifest.get("docs", 0)) <= FULL_SCAN_MAX_DOCS:
        return True
    if not periodic:
        return False
    try:
        every = float(store.config.search.get("full_scan_seconds", FULL_SCAN_SECONDS))
    except (TypeError, ValueError):
        every = FULL_SCAN_SECONDS
    last = int(lex.manifest.get("full_scan_ns", 0))
    if only is not None:
        last = min((max(last, lex.full_scans.get(s, 0)) for s in only), default=time.time_ns())
    return every >= 0 and time.time_ns() - last > every * 1e9


def refresh(store: Store, *, full: bool | None = False, lex: LexicalIndex | None = None,
            periodic: bool = True, only: Sequence[str] | None = None,
            pause: Callable[[], None] | None = None) -> Staleness:
    """Apply changes made outside mem to the lexical index (and drop their stale vectors).

    Builds the lexical index when it does not exist. Takes the store's writer lock while it
    writes. Cost: one stat per scope when nothing changed. ``full=True`` stats every file
    (catches in-place edits that keep the directory mtime); ``full=None`` decides by policy:
    always for stores of at most FULL_SCAN_MAX_DOCS records, else (when ``periodic``: long-lived
    searchers) once per FULL_SCAN_SECONDS. ``only``: the scopes a search is confined to, the
    only ones looked at (a store of 2,000 scopes: one stat instead of 2,000). ``pause``: see
    ``_plan`` (the background full scan of a long-lived searcher, ``format/index/fullscan.py``).
    """
    from mem.format.index.lexical import LexicalIndex

    own = lex is None
    if lex is None:
        lex = LexicalIndex.open(store.index_dir)
    if lex is None:
        build_if_absent(store)
        return Staleness(lexical_missing=True)
    try:
        if (store.index_dir / PENDING_FILE).exists():
            _apply_pending_locked(store, lex)
        if full is None:
            full = _auto_full(store, lex, periodic, only)
        plan = _plan(store, lex, full, only, pause)
        if full and int(lex.manifest.get("docs", 0)) > FULL_SCAN_MAX_DOCS:
            if only is not None:  # this process's own record of the scopes it scanned
                lex.full_scans.update(dict.fromkeys(only, time.time_ns()))
            else:
                lex.manifest["full_scan_ns"] = time.time_ns()
                if not plan.puts and not plan.deletes:
                    with contextlib.suppress(MemError):
                        lex.save_manifest()
        if plan.mtimes == lex.scope_mtimes() and not plan.puts and not plan.deletes:
            sess = _session_of(store)
            if sess is not None and sess.clean != plan.mtimes:
                sess.mark_clean(plan.mtimes, only)
            return plan.staleness
        with store.lock:
            m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
            if m is None or m["generation"] != lex.generation:
                return plan.staleness  # rebuilt meanwhile: the caller reopens the new one
            lex.manifest = m
            lex._docs_delta = 0 if "docs" in m else None
            plan = _plan(store, lex, full, only)  # again, under the lock, from the manifest on disk
            _apply(store, lex, plan.puts, plan.deletes)
            lex.save_manifest(plan.mtimes)
        sess = _session_of(store)
        if sess is not None:
            sess.mark_clean(plan.mtimes, only)
        return plan.staleness
    finally:
        if own:
            lex.close()


def build_if_absent(store: Store) -> bool:
    """Build the lexical index when there is none, or when it has an older schema than this
    mem's (``lexical.older_schema``: derived data, rebuilt once after an upgrade); True when this
    call built it.

    Serialized by the store's writer lock (the same lock every index write and swap takes), and
    the pointer is checked again once the lock is held: of several first searches started at
    once, one builds and the others find its index and use it (none deletes another's).
    """
    from mem.format.index.lexical import older_schema

    with store.lock:
        m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is not None and not older_schema(m):
            return False  # built by another process while this one waited for the lock
        rebuild(store, lexical=True, vectors=False)
        return True


def secure(store: Store, path: Path | None = None) -> None:
    """Give the index files the store's modes (config.toml [permissions], owner-only by default).

    tantivy and numpy create files with the process umask; every index write ends with this
    (a walk of the changed generation: tens of files). Best effort: a failure to chmod never
    fails the write (the index folder itself is created owner-only).
    """
    from mem.format.index.common import secure_tree

    with contextlib.suppress(OSError):
        secure_tree(path or store.index_dir, store.config.file_mode, store.config.dir_mode)


def _apply(store: Store, lex: LexicalIndex, puts: list[tuple[DocFields, int, int]],
           deletes: list[tuple[str, str]]) -> None:
    try:
        _apply_both(store, lex, puts, deletes)
    finally:
        secure(store, lex.path)


def _apply_both(store: Store, lex: LexicalIndex, puts: list[tuple[DocFields, int, int]],
                deletes: list[tuple[str, str]]) -> None:
    changed = lex.apply(puts, deletes)
    if not (changed or deletes) or not (store.index_dir / VECTORS_POINTER).exists():
        return  # a new record has no vector to invalidate: the vector index is not even opened
    vec = _open_vectors(store)
    if vec is None:
        return
    try:
        drop = list(deletes)
        digests = {(f.scope, f.id): f.digest for f, _m, _s in puts}
        vec._refresh_cache()
        for key in changed:
            d = vec._delta.get(key[0], {}).get(key[1])
            if d is not None and d[0] == digests[key]:
                continue  # same content (a status/tag change): the vector stays valid
            if d is None and _main_digest(vec, key) == digests[key]:
                continue
            drop.append(key)
        vec.drop(drop)
    finally:
        vec.close()


def _main_digest(vec: VectorIndex, key: tuple[str, str]) -> str | None:
    m = vec.main(key[0])
    if key[1] in vec._dead.get(key[0], set()):
        return None
    i = m.find(key[1])
    return None if i is None else m.rows[i][1]


# -- the write listener ----------------------------------------------------------------------


class IndexSession:
    """Keeps the indexes of one open Store current with mem's own writes (see attach)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.errors: list[str] = []
        self.clean: dict[str, int] = {}
        self.active = False
        self.existing: set[str] = set()
        try:
            m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        except MemError as exc:
            self.errors.append(str(exc))
            return
        if m is None:
            return
        self.active = True
        recorded = {str(k): int(v.get("dir_mtime_ns", -1)) for k, v in (m.get("scopes") or {}).items()
                    if isinstance(v, dict)}
        for s in store.scopes():
            if recorded.get(s) == _dir_mtime(store.records_dir / s):
                self.clean[s] = recorded[s]
        # scopes that neither exist nor are known now: a write that creates one is ours
        self.existing = set(store.scopes()) | set(recorded)

    def is_clean(self, scope: str) -> bool:
        return scope in self.clean

    def mark_clean(self, mtimes: dict[str, int], only: Iterable[str] | None = None) -> None:
        """This process has just made the index match these scope directory mtimes (of the
        scopes ``only`` alone, when given: the others' were not looked at)."""
        self.active = True
        if only is None:
            self.clean = dict(mtimes)
            self.existing = set(self.store.scopes()) | set(mtimes)
            return
        for s in only:
            if s in mtimes:
                self.clean[s] = mtimes[s]
                self.existing.add(s)
            else:
                self.clean.pop(s, None)

    def __call__(self, changes: list[Change]) -> None:
        if not changes:
            return
        if not self.active:
            # the index may have been created after attach (by another process): apply the
            # change, but advance no scope mark (nothing was verified fresh here)
            self.active = (self.store.index_dir / LEXICAL_POINTER).exists()
            self.existing = set(self.store.scopes())
            if not self.active:
                return
        try:
            self._on_changes(changes)
            if any(c.op == "delete" for c in changes):
                purge_now(self.store)  # forgotten: out of every index before the forget returns
        except Exception as exc:  # the record is stored; the index heals at the next refresh
            self.errors.append(f"index update failed: {exc}")

    def _on_changes(self, changes: list[Change]) -> None:
        """Journal the changes (O(1): no tantivy, no SQLite); the next refresh applies them.

        A search applies the journal before it queries (one commit for any number of writes),
        so `mem add` stays cheap and a script adding many records pays one index commit.
        """
        import json

        from mem.format.base.fsutil import append_line

        store = self.store
        lines: list[str] = []
        touched: set[str] = set()
        for c in changes:
            touched.add(c.scope)
            if c.old_scope and c.old_scope != c.scope:
                lines.append(json.dumps({"op": "delete", "scope": c.old_scope, "id": c.id}))
                touched.add(c.old_scope)
            lines.append(json.dumps({"op": "delete" if c.op == "delete" else "put", "scope": c.scope, "id": c.id}))
        with store.lock:
            m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
            if m is None:
                return
            append_line(store.index_dir / PENDING_FILE, "\n".join(lines), store.config.file_mode)
            recorded = {str(k): int(v.get("dir_mtime_ns", -1)) for k, v in (m.get("scopes") or {}).items()
                        if isinstance(v, dict)}
            changed = False
            for s in touched:
                before = self.clean.get(s)
                if before is None and s not in self.existing:
                    before = self.clean[s] = -1
                # advance the scope's mark only if this process saw it fresh (or absent) and
                # nobody else advanced it since: an earlier external change stays visible
                if before is not None and recorded.get(s, -1) == before:
                    cur = _dir_mtime(store.records_dir / s)
                    if cur >= 0:
                        recorded[s] = cur
                    else:
                        recorded.pop(s, None)
                    self.clean[s] = cur
                    changed = True
            if changed:
                m["scopes"] = {k: {"dir_mtime_ns": v} for k, v in sorted(recorded.items())}
                write_pointer(store.index_dir, LEXICAL_POINTER, m)


def _read_pending(store: Store) -> list[tuple[str, str, str]]:
    """(op, scope, id) journaled by mem's writes and not yet applied to the index."""
    import json

    path = store.index_dir / PENDING_FILE
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return []
    out = []
    for line in text.splitlines():
        try:
            o = json.loads(line)
            out.append((str(o["op"]), str(o["scope"]), str(o["id"])))
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line: the scope scan catches what it named
    return out


def _apply_pending(store: Store, lex: LexicalIndex, *, deletes_only: bool = False) -> int:
    """Apply the write journal to the index (under the writer lock); returns entries applied.

    ``deletes_only`` (a forget): apply the removals now and keep the other entries journaled for
    the next search, which applies them with their vectors (their embedding is not a forget's
    work, and must not become a backlog)."""
    import json

    from mem.format.base.fsutil import atomic_write, remove_file

    entries = _read_pending(store)
    if not entries:
        return 0
    latest: dict[tuple[str, str], str] = {}
    for op, scope, rid in entries:
        latest[(scope, rid)] = op
    puts: list[tuple[DocFields, int, int]] = []
    deletes: list[tuple[str, str]] = []
    kept: list[tuple[str, str, str]] = []
    for (scope, rid), op in latest.items():
        path = store.records_dir / scope / f"{rid}.md"
        if op == "delete" or store.is_forgotten(scope, rid):
            deletes.append((scope, rid))
            continue
        if deletes_only:
            kept.append((op, scope, rid))
            continue
        try:
            fst = os.stat(path)
            puts.append((_read_fields(path, scope, rid), fst.st_mtime_ns, fst.st_size))
        except (FileNotFoundError, RecordParseError):
            deletes.append((scope, rid))
    _apply(store, lex, puts, deletes)
    lex.save_manifest()
    if kept:
        lines = "".join(json.dumps({"op": op, "scope": sc, "id": rid}) + "\n" for op, sc, rid in kept)
        atomic_write(store.index_dir / PENDING_FILE, lines, store.config.file_mode)
    else:
        remove_file(store.index_dir / PENDING_FILE)
    return len(entries) - len(kept)


def _apply_pending_locked(store: Store, lex: LexicalIndex, *, deletes_only: bool = False) -> None:
    """Take the writer lock and apply the write journal to ``lex`` if it is still the current
    generation (a swap meanwhile deleted the journal with the old generation)."""
    with store.lock:
        m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is not None and m["generation"] == lex.generation:
            lex.manifest = m
            lex._docs_delta = 0 if "docs" in m else None
            _apply_pending(store, lex, deletes_only=deletes_only)


def purge_now(store: Store) -> None:
    """Apply the journal's removals now: after a forget, the forgotten records' lexical documents
    are deleted and their vectors marked dead before the forget returns (spec/format.md §17), not
    at the next search (a copy of ``.mem/`` taken in between would hold them live). The other
    journaled writes stay for the next search."""
    from mem.format.index.lexical import LexicalIndex

    if not (store.index_dir / PENDING_FILE).exists():
        return
    lex = LexicalIndex.open(store.index_dir)
    if lex is None:
        return
    try:
        _apply_pending_locked(store, lex, deletes_only=True)
    finally:
        lex.close()


def same_content_candidates(store: Store, scope: str, content: str, limit: int = 20) -> list[str] | None:
    """Ids of ``scope`` that may hold ``content``: the lexical index's best matches for its words,
    then the records mem wrote since the index last caught up (the write journal). Each is only a
    candidate: the caller reads it and compares match digests. None when there is no lexical
    index to ask, or ``content`` has no searchable words: the caller reads the scope instead.

    Record files written around mem (a hand-written file, a git pull) are candidates too: when
    the scope's folder changed since the index (or mem's own journaled writes) last caught up
    with it (its mtime is not the one the index recorded), every ``<ID>.md`` name in it that
    neither the index state nor the journal knows is one. When nothing changed around mem this
    costs one stat; when something did, a listing of the folder and of the state's ids (no stat
    per file, no index write: about 90 ms for a scope of 60,000 records on a loaded machine,
    bench/README.md), so ``mem add`` stays cheap in a big store. A record edited in place around
    mem is seen once the index catches up (the next search)."""
    from mem.format.base.errors import InvalidInputError
    from mem.format.index.lexical import LexicalIndex

    lex = LexicalIndex.open(store.index_dir)
    if lex is None:
        return None
    pending = _read_pending(store)
    try:
        hits = lex.search(content, scopes=[scope], kinds=None, statuses=None, tags=None, limit=limit)
        out = [h.id for h in hits]
        folder = store.records_dir / scope
        if lex.scope_mtimes().get(scope, -1) != _dir_mtime(folder):
            known = lex.scope_ids(scope) | {rid for _op, s, rid in pending if s == scope}
            with contextlib.suppress(OSError):
                out += [n[:-3] for n in os.listdir(folder)
                        if n.endswith(".md") and n[:-3] not in known and ids.is_id(n[:-3])]
    except InvalidInputError:
        return None
    finally:
        lex.close()
    out += [rid for op, s, rid in pending if s == scope and op == "put"]
    return out


def _session_of(store: Store) -> IndexSession | None:
    for fn in store.listeners:
        if isinstance(fn, IndexSession):
            return fn
    return None


def attach(store: Store) -> IndexSession:
    """Register the index listener on ``store`` (idempotent). Cheap: no index is opened."""
    for fn in store.listeners:
        if isinstance(fn, IndexSession):
            return fn
    sess = IndexSession(store)
    store.listeners.append(sess)
    return sess


# -- building, swapping ----------------------------------------------------------------------


@dataclass
class BuiltIndexes:
    build_dir: Path
    lexical: dict[str, Any] | None = None
    vectors: dict[str, Any] | None = None
    records: int = 0
    embedded: int = 0
    reused: int = 0
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "lexical": None if self.lexical is None else {"generation": self.lexical["generation"],
                                                          "docs": self.lexical["docs"]},
            "vectors": None if self.vectors is None else {"generation": self.vectors["generation"],
                                                          "space": self.vectors["space"],
                                                          "embedded": self.embedded,
                                                          "reused": self.reused},
            "records": self.records,
            "skipped": self.skipped,
        }


#: From this many record files on, a build reads and parses them in forked worker processes
#: (one per CPU) while this process feeds tantivy; below it, starting the pool costs more than
#: it saves (on 2 CPUs: a loss at 2,000, even at 4,000, 5% faster at 10k, 10-25% at 100k;
#: bench/README.md, "Rebuild (lexical)").
POOL_MIN_RECORDS = 5000
#: Record files per task of a worker: small, so that tantivy gets its first documents early.
READ_CHUNK = 500
_O_READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class _ReadJob:
    """The record files a build reads: per scope, the ids to read, in order (a worker's job)."""

    rdir: str
    scopes: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def total(self) -> int:
        return sum(len(ids) for _s, ids in self.scopes)


#: One record file read for a build: the values of its DocFields, then the file's mtime_ns and
#: size; a str: why it is skipped (the error, naming the file); None: it vanished meanwhile.
#: Plain tuples and strings: this is what a worker sends back (a named tuple pickles 3x slower).
_Read = tuple[Any, ...] | str | None


def _record_ids(d: str) -> list[str]:
    """The record ids of a scope folder, in order: the files Store.iter_paths lists."""
    return record_ids(d)


def _read_file(path: str) -> tuple[bytes, int, int]:
    """The bytes of a record file and its (mtime_ns, size): one open, the stat of that file."""
    try:
        fd = os.open(path, _O_READ)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RecordParseError(f"cannot read record: {exc.strerror}", path=path) from None
    try:
        st = os.fstat(fd)
        size = st.st_size
        raw = os.read(fd, size + 1)
        if len(raw) != size:  # changed while read, or a short read: read on to the end
            parts = [raw]
            while b := os.read(fd, 1 << 20):
                parts.append(b)
            raw = b"".join(parts)
    except OSError as exc:
        raise RecordParseError(f"cannot read record: {exc.strerror}", path=path) from None
    finally:
        os.close(fd)
    return raw, st.st_mtime_ns, size


def _read_tasks(job: _ReadJob, chunk: int) -> list[tuple[int, int, int]]:
    """(scope index, start, stop): runs of at most ``chunk`` files of one scope, in file order."""
    return [(si, start, min(start + chunk, len(ids)))
            for si, (_s, ids) in enumerate(job.scopes) for start in range(0, len(ids), chunk)]


def _read_task(job: _ReadJob, task: tuple[int, int, int]) -> list[_Read]:
    """Read and parse the record files of one task (in a worker process, or in this one).

    All the files first, then all the parsing: interleaved, each file's system calls left the
    parser's code and data cold (bench/README.md, "Figures behind constants in the code").
    """
    from mem.format.index.lexical import fast_fields

    si, start, stop = task
    scope, ids = job.scopes[si]
    sdir = os.path.join(job.rdir, scope, "")
    files: list[tuple[bytes, int, int] | str | None] = []
    for rid in ids[start:stop]:
        try:
            files.append(_read_file(sdir + rid + ".md"))
        except FileNotFoundError:
            files.append(None)
        except RecordParseError as exc:
            files.append(str(exc))
    out: list[_Read] = []
    for rid, got in zip(ids[start:stop], files, strict=True):
        if got is None or isinstance(got, str):
            out.append(got)
            continue
        raw, mtime, size = got
        try:
            f = fast_fields(raw)
            if f is None or f.id != rid or f.scope != scope:
                # the full parser, or the error naming the file
                f = _fields_of(raw, sdir + rid + ".md", scope, rid)
        except FileNotFoundError:  # the full parser reads the file again: gone meanwhile
            out.append(None)
            continue
        except RecordParseError as exc:
            out.append(str(exc))
            continue
        out.append((*f, mtime, size))
    return out


class _Records:
    """The records of a build in file order: iterate once for (DocFields, mtime_ns, size).

    ``skipped`` fills with the errors of the files that cannot be read, as they are met; the
    progress bar (if any) advances file by file.
    """

    def __init__(self, results: Iterable[_Read], total: int, mtimes: dict[str, int],
                 progress: Progress | None) -> None:
        self.mtimes = mtimes
        self.total = total
        self.skipped: list[str] = []
        self._results = results
        self._progress = progress

    def __iter__(self) -> Iterator[tuple[DocFields, int, int]]:
        from mem.format.index.lexical import DocFields

        fields = DocFields._make
        it = self._results
        if self._progress is not None:
            it = self._progress(it, self.total, "reading records")
        skipped = self.skipped
        for r in it:
            if r is None:
                continue
            if isinstance(r, str):
                skipped.append(r)
                continue
            yield fields(r[:11]), r[11], r[12]


@contextlib.contextmanager
def _reading(store: Store, progress: Progress | None, workers: int | None = None) -> Iterator[_Records]:
    """The records of ``store`` for a build (see _Records).

    From POOL_MIN_RECORDS files on (or when ``workers`` asks for it) forked worker processes
    read and parse them, task by task, and this process takes their results in file order as
    they come; the pool forks here, before the caller starts tantivy's threads or a progress
    bar. Otherwise this process reads them as they are iterated. The result is the same.
    """
    from mem.format.base.workers import pool_size, worker_pool

    mtimes: dict[str, int] = {}
    scopes: list[tuple[str, tuple[str, ...]]] = []
    rdir = str(store.records_dir)
    for s in store.scopes():
        mtimes[s] = _dir_mtime(store.records_dir / s)  # before listing: later changes show
        tomb = store.tombstones.load(s).ids
        scopes.append((s, tuple(r for r in _record_ids(os.path.join(rdir, s)) if r not in tomb)))
    job = _ReadJob(rdir, tuple(scopes))
    lock_fd = store.lock.fileno()
    with worker_pool(job, pool_size(job.total, workers, POOL_MIN_RECORDS),
                     close_fds=() if lock_fd is None else (lock_fd,)) as pool:
        results = pool.map(_read_task, _read_tasks(job, READ_CHUNK))
        yield _Records(itertools.chain.from_iterable(results), job.total, mtimes, progress)


def _kept(items: Iterable[T], into: list[T]) -> Iterator[T]:
    for x in items:
        into.append(x)
        yield x


def _reuse_vectors(
    store: Store, items: list[tuple[DocFields, int, int]], space: Any, scopes: dict[str, int], reuse: bool,
) -> tuple[dict[str, list[tuple[str, str, Any]]], list[DocFields], int]:
    """(per-scope reused vectors, records to embed, how many reused).

    Only vectors of the same embedding space computed from the same content (digest) are reused.
    A live vector index that is damaged in any way (manifest, rows, matrix, side table) is never
    trusted: nothing is reused and every record is embedded again (derived data is disposable).
    """
    per_scope: dict[str, list[tuple[str, str, Any]]] = {s: [] for s in scopes}
    everything = [rec for rec, _m, _s in items]
    if not reuse:
        return per_scope, everything, 0
    todo: list[DocFields] = []
    reused = 0
    old = None
    try:
        old = _open_vectors(store)
        if old is None or old.space != space:
            return per_scope, everything, 0
        for rec in everything:
            v = old.vector_for(rec.scope, rec.id, rec.digest)
            if v is not None and _plausible(v, space):
                per_scope.setdefault(rec.scope, []).append((rec.id, rec.digest, v.copy()))
                reused += 1
            else:
                todo.append(rec)
    except (MemError, OSError, ValueError):
        return {s: [] for s in scopes}, everything, 0
    finally:
        if old is not None:
            old.close()
    return per_scope, todo, reused


def _plausible(v: Any, space: Any) -> bool:
    """A stored vector worth reusing: right length, finite, unit length when the space is L2-normalized."""
    import numpy as np

    if v.shape != (space.dim,) or not bool(np.isfinite(v).all()):
        return False
    return space.normalization != "l2" or abs(float(np.linalg.norm(v)) - 1.0) < 1e-3


def build_indexes(
    store: Store,
    dest: Path,
    *,
    lexical: bool = True,
    vectors: bool = True,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    reuse_vectors: bool = True,
    batch: int = 256,
    workers: int | None = None,
) -> BuiltIndexes:
    """Build fresh index generations from the records alone into ``dest`` (see spec/index.md).

    ``workers``: processes that read the record files (None: one per CPU from POOL_MIN_RECORDS
    files on, else this process alone; 1: this process alone).
    """
    from mem.format.index.common import new_generation

    built = BuiltIndexes(dest)
    lex_gen = new_generation("lexical")
    items: list[tuple[DocFields, int, int]] = []
    with _reading(store, progress, workers) as recs:
        if lexical:
            from mem.format.index.lexical import build_lexical

            # tantivy indexes the records as they are read (by the workers, on a large store)
            built.lexical = build_lexical(dest / lex_gen, _kept(recs, items) if vectors else recs, recs.mtimes)
            built.records = int(built.lexical["docs"])
        else:
            items = list(recs)
            built.records = len(items)
    built.skipped, mtimes = recs.skipped, recs.mtimes
    if vectors:
        from mem.format.embed import load_embedder
        from mem.format.index.lexical import LexicalIndex
        from mem.format.index.vectors import build_vectors

        emb = embedder or load_embedder(config=store.config)
        space = emb.space
        per_scope, todo, built.reused = _reuse_vectors(store, items, space, mtimes, reuse_vectors)
        # shortest first within windows (less padding, index/backlog.py), large batches
        from mem.format.index.backlog import BULK_WINDOW

        for w in range(0, len(todo), BULK_WINDOW):
            todo[w:w + BULK_WINDOW] = sorted(todo[w:w + BULK_WINDOW], key=lambda r: len(r.content))
        starts = list(range(0, len(todo), batch))
        it: Iterable[int] = starts if progress is None else progress(starts, len(starts), f"embedding {len(todo)} records")
        for start in it:
            chunk = todo[start:start + batch]
            vecs = emb.embed([r.content for r in chunk])
            for r, v in zip(chunk, vecs, strict=True):
                per_scope.setdefault(r.scope, []).append((r.id, r.digest, v))
            built.embedded += len(chunk)
        if lexical:
            lg: str | None = lex_gen
            seq = len(items)
        else:
            lg, seq = None, 0
            try:
                cur = LexicalIndex.open(store.index_dir)
                if cur is not None:
                    try:
                        lg, seq = cur.generation, cur.max_seq()
                    finally:
                        cur.close()
            except MemError:
                pass  # a damaged lexical index: the vectors resync by full comparison later
        built.vectors = build_vectors(dest / new_generation("vectors"), space, per_scope,
                                      lex_generation=lg, lex_seq=seq)
    secure(store, dest)
    return built


def swap_in(store: Store, built: BuiltIndexes) -> None:
    """Make built generations live: rename into place, replace the pointer atomically, drop the old."""
    idx = store.index_dir
    old: list[str] = []
    for pointer, kind, manifest in ((LEXICAL_POINTER, LEXICAL_KIND, built.lexical),
                                    (VECTORS_POINTER, VECTORS_KIND, built.vectors)):
        if manifest is None:
            continue
        gen = str(manifest["generation"])
        os.replace(built.build_dir / gen, idx / gen)
        try:
            prev = read_pointer(idx, pointer, kind)
        except MemError:
            prev = None
        write_pointer(idx, pointer, manifest)
        if pointer == LEXICAL_POINTER:
            from mem.format.base.fsutil import remove_file

            remove_file(idx / PENDING_FILE)  # the new generation was built from the records
        if prev is not None and prev["generation"] != gen:
            old.append(str(prev["generation"]))
    for g in old:
        remove_tree(idx / g)
    remove_tree(built.build_dir)
    secure(store)
    sess = _session_of(store)
    if sess is not None and built.lexical is not None:
        sess.mark_clean({str(k): int(v["dir_mtime_ns"]) for k, v in built.lexical["scopes"].items()})


def rebuild(
    store: Store,
    *,
    lexical: bool = True,
    vectors: bool = True,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    reuse_vectors: bool = False,
    workers: int | None = None,
) -> BuiltIndexes:
    """Rebuild the chosen indexes from the records and swap them in, under the writer lock."""
    with store.lock:
        dest = new_build_dir(store.index_dir)
        try:
            built = build_indexes(store, dest, lexical=lexical, vectors=vectors, embedder=embedder,
                                  progress=progress, reuse_vectors=reuse_vectors, workers=workers)
            swap_in(store, built)
        except BaseException as exc:
            remove_tree(dest)
            refused = build_failure(exc, dest)
            if refused is not None:
                raise refused from None
            raise
        if lexical and vectors is False and (store.index_dir / VECTORS_POINTER).exists():
            # the vectors now follow a new lexical generation: resync them by full comparison
            with contextlib.suppress(MemError):
                v = _open_vectors(store)
                if v is not None:
                    v.set_meta({"lex_generation": "", "lex_seq": "0"})
                    v.close()
        return built


def compact(store: Store, *, progress: Progress | None = None) -> dict[str, Any]:
    """Merge the vector delta, drop dead vectors, merge tantivy segments; swap atomically."""
    before = index_stats(store).to_dict()
    vec_present = before["vectors"]["present"] and before["vectors"]["space_matches"]
    emb = None
    if vec_present:
        from mem.format.embed import choose, load_embedder

        # reuse every valid vector: the embedder is loaded only for records that lack one
        if before["vectors"]["missing"]:
            emb = load_embedder(choose(store.config).provider, threads=choose(store.config).threads)
        else:
            emb = _SpaceOnly(_open_space(store), store)
    built = None
    with store.lock:
        dest = new_build_dir(store.index_dir)
        try:
            built = build_indexes(store, dest, lexical=True, vectors=bool(vec_present), embedder=emb,
                                  progress=progress, reuse_vectors=True)
            swap_in(store, built)
        except BaseException as exc:
            remove_tree(dest)
            refused = build_failure(exc, dest)
            if refused is not None:
                raise refused from None
            raise
    after = index_stats(store).to_dict()
    return {
        "lexical": {"docs": after["lexical"]["docs"],
                    "deleted_docs_dropped": before["lexical"].get("deleted_docs", 0),
                    "segments_before": before["lexical"].get("segments", 0),
                    "segments_after": after["lexical"].get("segments", 0)},
        "vectors": None if not vec_present else {
            "vectors": after["vectors"]["vectors"],
            "dead_dropped": before["vectors"]["dead"],
            "delta_merged": before["vectors"]["delta"],
            "embedded": built.embedded if built else 0,
        },
    }


def _open_space(store: Store) -> Any:
    v = _open_vectors(store)
    assert v is not None
    try:
        return v.space
    finally:
        v.close()


class _SpaceOnly:
    """The embedder for a compact that expects to reuse every vector: it loads the real model
    only if a record turns out to need one after all (e.g. a change applied from the write
    journal during the compaction), and only when the model is of the index's space."""

    def __init__(self, space: Any, store: Store) -> None:
        self.space = space
        self._store = store
        self._real: Any = None

    def embed(self, texts: Any) -> Any:
        if self._real is None:
            from mem.format.embed import choose, load_embedder

            cfg = choose(self._store.config)
            real = load_embedder(cfg.provider, threads=cfg.threads)
            if real.space != self.space:
                raise MemError(
                    "compact needs to embed a record, but the configured embedder's space differs "
                    "from the index's; run `mem rebuild --vectors`"
                )
            self._real = real
        return self._real.embed(texts)


# -- vectors backfill: format/index/backlog.py ----------------------------------------------


def _missing_vectors(lex: LexicalIndex, vec: VectorIndex, *, full: bool = False) -> list[tuple[str, str, str]]:
    from mem.format.index.backlog import missing_vectors

    return missing_vectors(lex, vec, full=full)


def backfill(store: Store, lex: LexicalIndex, vec: VectorIndex, embedder: Embedder, **kw: Any) -> tuple[int, int]:
    """A search's catch-up on records without a vector: ``backlog.backfill``."""
    from mem.format.index.backlog import backfill as _backfill

    return _backfill(store, lex, vec, embedder, **kw)


def create_empty_vectors(store: Store, embedder: Embedder) -> None:
    """Start a vector index with no vectors (they are backfilled); lexical must exist."""
    from mem.format.index.common import new_generation
    from mem.format.index.vectors import build_vectors, write_vectors_pointer

    with store.lock:
        if (store.index_dir / VECTORS_POINTER).exists():
            return
        dest = store.index_dir / new_generation("vectors")
        m = build_vectors(dest, embedder.space, {}, lex_generation="", lex_seq=0)
        write_vectors_pointer(store.index_dir, m)
        secure(store)


# -- stats ----------------------------------------------------------------------------------


@dataclass
class IndexStats:
    lexical: dict[str, Any]
    vectors: dict[str, Any]
    #: build folders and generations no pointer names (left by an interrupted rebuild/compact)
    garbage: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"lexical": self.lexical, "vectors": self.vectors, "garbage": self.garbage}


def index_stats(store: Store) -> IndexStats:
    """Counts, sizes and staleness of both indexes (never loads the model)."""
    from mem.format.index.lexical import LexicalIndex

    lexd: dict[str, Any] = {"present": False, "generation": None, "docs": 0, "deleted_docs": 0, "pending": 0,
                            "segments": 0, "bytes": 0, "stale_scopes": [], "corrupt": None}
    vecd: dict[str, Any] = {"present": False, "generation": None, "space": None, "space_matches": None,
                            "vectors": 0, "delta": 0, "dead": 0, "missing": 0, "bytes": 0, "corrupt": None}
    lex = None
    try:
        lex = LexicalIndex.open(store.index_dir)
        if lex is None:  # none, or one of an older schema (not present: the next refresh rebuilds it)
            m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
            lexd["generation"] = None if m is None else m["generation"]
        else:
            lexd.update(present=True, generation=lex.generation, bytes=tree_bytes(lex.path))
            ts = lex.stats()
            docs = lex.doc_count()
            lexd.update(docs=docs, segments=ts["segments"], deleted_docs=_deleted_docs(lex),
                        pending=len(_read_pending(store)))
            st = _plan(store, lex, False)
            lexd["stale_scopes"] = sorted(set(st.staleness.scopes_changed))
    except StoreIOError:
        raise  # the file system refused (a full disk): the truth, never "corrupt"
    except MemError as exc:
        lexd["corrupt"] = str(exc)
    try:
        vec = _open_vectors(store)
        if vec is not None:
            try:
                from mem.format.embed import configured_space

                c = vec.counts()
                vecd.update(present=True, generation=vec.generation, space=vec.space.to_dict(),
                            vectors=c["vectors"], delta=c["delta"], dead=c["dead"],
                            bytes=tree_bytes(vec.path))
                try:
                    vecd["space_matches"] = vec.space == configured_space(store.config)
                except MemError:
                    vecd["space_matches"] = False
                if lex is not None and lexd["corrupt"] is None:
                    vecd["missing"] = len(_missing_vectors(lex, vec, full=True))
            finally:
                vec.close()
    except StoreIOError:
        if lex is not None:
            lex.close()
        raise
    except MemError as exc:
        vecd["corrupt"] = str(exc)
    if lex is not None:
        lex.close()
    live = {str(g) for g in (lexd["generation"], vecd["generation"]) if g}
    if lexd["corrupt"] or vecd["corrupt"]:
        garb: list[str] = []  # which generation a damaged pointer meant is unknown: name none
    else:
        garb = sorted(p.name for p in garbage(store.index_dir, live))
    return IndexStats(lexd, vecd, garb)


def _deleted_docs(lex: LexicalIndex) -> int:
    """Documents tantivy still stores but marked deleted (dropped by compact)."""
    import json

    try:
        meta = json.loads((lex.path / "meta.json").read_text("utf-8"))
    except (OSError, ValueError):
        return 0
    total = 0
    for seg in meta.get("segments", []):
        d = seg.get("deletes")
        if isinstance(d, dict):
            total += int(d.get("num_deleted_docs", 0))
    return total


def cleanup_garbage(store: Store) -> list[str]:
    """Remove generation/build directories no manifest names (left by a crash)."""
    live: set[str] = set()
    for pointer, kind in ((LEXICAL_POINTER, LEXICAL_KIND), (VECTORS_POINTER, VECTORS_KIND)):
        with contextlib.suppress(MemError):
            m = read_pointer(store.index_dir, pointer, kind)
            if m is not None:
                live.add(str(m["generation"]))
    out = []
    with store.lock:
        for p in garbage(store.index_dir, live):
            remove_tree(p)
            out.append(p.name)
    return out


__all__ = [
    "BuiltIndexes",
    "IndexSession",
    "IndexStats",
    "Staleness",
    "attach",
    "backfill",
    "build_if_absent",
    "build_indexes",
    "cleanup_garbage",
    "compact",
    "index_stats",
    "new_build_dir",
    "rebuild",
    "refresh",
    "secure",
    "staleness",
    "swap_in",
]
