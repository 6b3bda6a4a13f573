"""Derived indexes of a store: keeping them true, building them, swapping them in.

See spec/index.md for the layout, the manifests and the staleness rules. Importing this
package is cheap (no tantivy, numpy, usearch or model); those load only when used.

This module keeps the lexical index true to the records (``refresh``: changes made outside mem;
``build_if_absent``), and keeps the names of the index's other concepts importable from here:
``staleness`` (what differs, the plan a refresh applies), ``apply`` (changes applied to both
indexes), ``session`` (mem's own writes journaled and applied; ``attach``), ``reading`` (the record
files read for a build), ``build`` (build, swap, ``rebuild``, ``compact``), ``stats``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import MemError
from mem.format.index.apply import _apply, secure
from mem.format.index.build import BuiltIndexes, build_indexes, compact, rebuild, swap_in
from mem.format.index.build import create_empty_vectors as create_empty_vectors
from mem.format.index.common import LEXICAL_KIND, LEXICAL_POINTER, new_build_dir, read_pointer

# mem's own writes are journaled in PENDING_FILE and applied at the next refresh; stores with at
# most FULL_SCAN_MAX_DOCS records get a full stat scan on every refresh. Both are defined once,
# beside the freshness check of the one-shot search that must agree with them.
from mem.format.index.lexread import FULL_SCAN_MAX_DOCS as FULL_SCAN_MAX_DOCS
from mem.format.index.lexread import PENDING_FILE as PENDING_FILE
from mem.format.index.reading import POOL_MIN_RECORDS as POOL_MIN_RECORDS
from mem.format.index.reading import Progress as Progress
from mem.format.index.session import IndexSession, _apply_pending_locked, _session_of, attach
from mem.format.index.session import purge_now as purge_now
from mem.format.index.session import same_content_candidates as same_content_candidates
from mem.format.index.staleness import Staleness, _plan, _recheck, staleness
from mem.format.index.stats import IndexStats, cleanup_garbage, index_stats
from mem.format.rules.settings import default

if TYPE_CHECKING:
    from mem.format.embed import Embedder
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import Store


#: Stores bigger than FULL_SCAN_MAX_DOCS get a full scan at most this often unless ``[search]
#: full_scan_seconds`` says otherwise (seconds; the setting's default, rules/config.py).
FULL_SCAN_SECONDS: float = default("search", "full_scan_seconds")

#: The most new or changed record files a refresh reads before it takes the writer lock (it
#: reads them again under the lock, where it applies them): enough for the usual few writes,
#: and a search started while another process writes thousands does not read them all only to
#: find the lock held (bench/README.md, "The first search during an import").
READ_BEFORE_LOCK = 64

#: The most records a search indexes before it answers (``refresh(limit=...)``): write-journal
#: entries applied plus new or changed record files read. The rest (a `mem import --no-embed`
#: of thousands, a `git pull` of a big folder) is left to the next searches (each indexes this
#: many more) or to `mem embed` (which indexes and embeds it all): meanwhile a search answers
#: from the index as it is and counts what it cannot find (``staleness.unindexed``). A store of
#: at most this many records (a few hundred added by hand) is indexed whole by its first search.
#: bench/README.md, "A search never waits on a backlog of indexing".
SEARCH_INDEX_LIMIT = 1000


def _auto_full(store: Store, lex: LexicalIndex, periodic: bool = True, only: Sequence[str] | None = None) -> bool:
    """Whether this refresh should stat every file (to catch in-place edits); of the scopes
    ``only``, counting the full scans this process made of each (``LexicalIndex.full_scans``)."""
    if int(lex.manifest.get("docs", 0)) <= FULL_SCAN_MAX_DOCS:
        return True
    if not periodic:
        return False
    every = float(store.config.value("search", "full_scan_seconds"))
    last = int(lex.manifest.get("full_scan_ns", 0))
    if only is not None:
        last = min((max(last, lex.full_scans.get(s, 0)) for s in only), default=time.time_ns())
    return every >= 0 and time.time_ns() - last > every * 1e9


def refresh(store: Store, *, full: bool | None = False, lex: LexicalIndex | None = None,
            periodic: bool = True, only: Sequence[str] | None = None,
            pause: Callable[[], None] | None = None, limit: int | None = None) -> Staleness:
    """Apply changes made outside mem to the lexical index (and drop their stale vectors).

    Builds the lexical index when it does not exist. Takes the store's writer lock while it
    writes. Cost: one stat per scope when nothing changed. ``full=True`` stats every file
    (catches in-place edits that keep the directory mtime); ``full=None`` decides by policy:
    always for stores of at most FULL_SCAN_MAX_DOCS records, else (when ``periodic``: long-lived
    searchers) once per FULL_SCAN_SECONDS. ``only``: the scopes a search is confined to, the
    only ones looked at (a store of 2,000 scopes: one stat instead of 2,000). ``pause``: see
    ``_plan`` (the background full scan of a long-lived searcher, ``format/index/follower.py``).
    ``limit``: index at most this many records (journal entries and files read; a search's
    SEARCH_INDEX_LIMIT), leaving the rest for the next refresh; the result's ``left`` then
    counts them as ``staleness.unindexed`` does (-1: not counted, call it). With no index, one is built whole for a store
    of at most ``limit`` records, else started empty and given ``limit`` of them.
    """
    from mem.format.index.lexical import LexicalIndex

    own = lex is None
    if lex is None:
        lex = LexicalIndex.open(store.index_dir)
    if lex is None:
        if limit is None or not _more_records_than(store, limit) or not start_empty(store):
            # (an older mem's index is rebuilt whole, as is one another process built meanwhile)
            build_if_absent(store)
            return Staleness(lexical_missing=True)
        lex = LexicalIndex.open(store.index_dir)
        if lex is None:
            from mem.format.base.errors import IndexUnavailableError

            raise IndexUnavailableError("the lexical index could not be started", path=store.index_dir)
    try:
        left = limit
        if (store.index_dir / PENDING_FILE).exists():
            applied, kept = _apply_pending_locked(store, lex, limit=limit)
            if left is not None:
                left -= applied
                if kept:  # the budget went to the journal: the folders are looked at next time
                    return Staleness(left=-1)
        if full is None:
            full = _auto_full(store, lex, periodic, only)
        # before the lock, the plan only finds whether there is work: it reads at most
        # READ_BEFORE_LOCK files (the plan made under the lock reads what it applies)
        first = plan = _plan(store, lex, full, only, pause, read_limit=READ_BEFORE_LOCK, keep=not full)
        work = bool(plan.puts or plan.deletes or plan.unread)
        scanned_at = None  # a big store's full scan of every scope: when (written with the manifest)
        if full and int(lex.manifest.get("docs", 0)) > FULL_SCAN_MAX_DOCS:
            if only is not None:  # this process's own record of the scopes it scanned
                lex.full_scans.update(dict.fromkeys(only, time.time_ns()))
            else:
                scanned_at = lex.manifest["full_scan_ns"] = time.time_ns()
                if not work:
                    with contextlib.suppress(MemError):
                        _save_full_scan(store, lex)
        if plan.mtimes == lex.scope_mtimes() and not work:
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
            if scanned_at is not None:  # (else the next round finds the scan due, and runs it again)
                m["full_scan_ns"] = scanned_at
            # again, under the lock, from the manifest on disk; a scope with files left unread
            # keeps no recorded mtime (``_plan``): the next refresh lists it again. A scope whose
            # folder did not change since the plan above is not listed again, nor a file it read;
            # of a full scan, only what it found is looked at again (``_recheck``)
            if full:
                plan = _recheck(store, lex, first, only, read_limit=left)
            else:
                plan = _plan(store, lex, full, only, read_limit=left, reuse=first)
            _apply(store, lex, plan.puts, plan.deletes)
            lex.save_manifest(plan.mtimes)
        sess = _session_of(store)
        if sess is not None:
            sess.mark_clean(plan.mtimes, only)
        # (the journal is applied: what the plan left is what ``unindexed`` would count)
        plan.staleness.left = len(plan.unread)
        return plan.staleness
    finally:
        if own:
            lex.close()


def _save_full_scan(store: Store, lex: LexicalIndex) -> None:
    """Write the time of the full scan just made into ``lexical.json``, under the writer lock and
    over the manifest as it is now. A write journaled during the scan advanced its scope's mtime
    there; the manifest read before the scan does not hold it, and writing that one back made the
    next refresh list the whole scope (0.5-1.7 s at 33k records; bench/README.md)."""
    at = lex.manifest["full_scan_ns"]
    with store.lock:
        m = read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is None or m["generation"] != lex.generation:
            return
        m["full_scan_ns"] = at
        lex.manifest = m
        lex._docs_delta = 0 if "docs" in m else None
        lex.save_manifest()


def _more_records_than(store: Store, n: int) -> bool:
    """Whether the store holds more than ``n`` record files (listed, never read or stat'ed)."""
    from mem.format.rules.layout import record_ids, scope_names

    seen = 0
    for s in scope_names(str(store.records_dir)):
        seen += len(record_ids(str(store.records_dir / s)))
        if seen > n:
            return True
    return False


def start_empty(store: Store) -> bool:
    """Make an empty lexical index live when there is none (under the writer lock, the pointer
    read again there); it records no scope, so the next refresh lists every scope and indexes
    what it finds. False when an index (of any schema) exists meanwhile: nothing is done."""
    from mem.format.index.common import new_generation
    from mem.format.index.lexical import build_lexical

    with store.lock:
        if read_pointer(store.index_dir, LEXICAL_POINTER, LEXICAL_KIND) is not None:
            return False
        dest = new_build_dir(store.index_dir)
        try:
            manifest = build_lexical(dest / new_generation("lexical"), (), {})
            swap_in(store, BuiltIndexes(dest, lexical=manifest))
        except BaseException:
            from mem.format.index.common import remove_tree

            remove_tree(dest)
            raise
        return True


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


# -- vectors backfill: format/index/backlog.py ----------------------------------------------


def backfill(store: Store, lex: LexicalIndex, vec: VectorIndex, embedder: Embedder, **kw: Any) -> tuple[int, int]:
    """A search's catch-up on records without a vector: ``backlog.backfill``."""
    from mem.format.index.backlog import backfill as _backfill

    return _backfill(store, lex, vec, embedder, **kw)


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
    "start_empty",
    "swap_in",
]
