"""Planning an import: what the store already holds, the order of the items (sources first), the scope and provenance of each."""

from __future__ import annotations

import os
from typing import Any

from mem.format.interchange.importers.base import ImportItem
from mem.format.interchange.migrate.outcomes import ImportOptions
from mem.format.model.record import Record, match_digest
from mem.format.rules import ids
from mem.format.store.store import Store, source_key


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


def _links(it: ImportItem) -> tuple[str | None, list[str]]:
    """What an item is known by to the items derived from it (its record's id, else its
    system's original id), and what it derives from, in that order: ids, its record's lineage,
    original ids. The import orders its items by these alone (it does not hold the items)."""
    own = it.record.id if it.record is not None else (
        f"{it.system}\x00{it.original_id}" if it.original_id is not None else None)
    needs = list(it.derived_from)
    if it.record is not None:
        needs += it.record.derived_from
    needs += [f"{it.system}\x00{d}" for d in it.derived_from_original]
    return own, needs


def _order(refs: dict[str, int], needs: dict[int, list[str]], n: int) -> list[int] | None:
    """The order of ``n`` items (by their index in the input) that puts sources before the
    items derived from them, stable otherwise; None: the input's own order. ``refs``: what each
    item is known by -> the index of the first item known so; ``needs``: index -> what the item
    derives from (``_links``)."""
    if not needs:
        return None

    def deps(i: int) -> list[int]:
        return [refs[d] for d in needs.get(i, ()) if d in refs]

    done = [False] * n
    out: list[int] = []
    for start in range(n):
        if done[start]:
            continue
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            i, expanded = stack.pop()
            if done[i]:
                continue
            if expanded:
                done[i] = True
                out.append(i)
                continue
            stack.append((i, True))
            for d in reversed(deps(i)):
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
