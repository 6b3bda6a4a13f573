"""The write listener: mem's own writes to a store, journaled (``PENDING_FILE``) by the
``IndexSession`` that ``attach`` registers, and applied to the index by the next refresh (a forget's
removals at once: ``purge_now``); the candidates an idempotent add compares with."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from mem.format.base.errors import MemError, RecordParseError
from mem.format.index.apply import _apply
from mem.format.index.common import (
    LEXICAL_KIND,
    LEXICAL_POINTER,
    read_pointer,
    write_pointer,
)
from mem.format.index.lexread import PENDING_FILE
from mem.format.index.staleness import _dir_mtime, _read_fields
from mem.format.rules import ids

if TYPE_CHECKING:
    from mem.format.index.lexical import DocFields, LexicalIndex
    from mem.format.store.store import Change, Store


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


def _apply_pending(store: Store, lex: LexicalIndex, *, deletes_only: bool = False,
                   limit: int | None = None) -> tuple[int, int]:
    """Apply the write journal to the index (under the writer lock); returns how many records
    were put into the index, and how many entries stay journaled.

    ``deletes_only`` (a forget): apply the removals now and keep the other entries journaled for
    the next search, which applies them with their vectors (their embedding is not a forget's
    work, and must not become a backlog). ``limit``: put at most this many records (removals are
    all applied), keeping the rest journaled, in order, for the next refresh (a search's
    budget, ``derived.SEARCH_INDEX_LIMIT``)."""
    import json

    from mem.format.base.fsutil import atomic_write, remove_file

    entries = _read_pending(store)
    if not entries:
        return 0, 0
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
        if deletes_only or (limit is not None and len(puts) >= limit):
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
    return len(puts), len(kept)


def _apply_pending_locked(store: Store, lex: LexicalIndex, *, deletes_only: bool = False,
                          limit: int | None = None) -> tuple[int, int]:
    """Take the writer lock and apply the write journal to ``lex`` if it is still the current
    generation (a swap meanwhile deleted the journal with the old generation); returns what
    ``_apply_pending`` returns ((0, 0) when it did not run)."""
    with store.lock:
        m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is not None and m["generation"] == lex.generation:
            lex.manifest = m
            lex._docs_delta = 0 if "docs" in m else None
            return _apply_pending(store, lex, deletes_only=deletes_only, limit=limit)
    return 0, 0


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
