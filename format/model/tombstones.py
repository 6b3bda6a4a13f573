"""Tombstones: what was forgotten, without what it said.

One append-only JSON Lines file per scope, ``tombstones/<scope>.jsonl``. A tombstone holds the
record id, its scope, the digest of its normalized content (see
:func:`mem.format.model.record.normalize_for_match`), when, why and who, and never the content. A
"lift" entry records an explicit, logged override that lets the same content in again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mem.format.base.fsutil import ensure_dir
from mem.format.base.jsonl import append_object, read_jsonl
from mem.format.rules import ids


@dataclass(frozen=True, slots=True)
class Tombstone:
    id: str
    scope: str
    digest: str
    forgotten_at: str
    reason: str
    actor: str
    cascade_of: str | None = None
    source_key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "tombstone",
            "id": self.id,
            "scope": self.scope,
            "digest": self.digest,
            "forgotten_at": self.forgotten_at,
            "reason": self.reason,
            "actor": self.actor,
            "cascade_of": self.cascade_of,
        }
        if self.source_key:
            out["source_key"] = self.source_key
        return out


@dataclass
class ScopeTombstones:
    ids: dict[str, Tombstone]
    digests: dict[str, str]  # match digest -> id of the tombstone (lifted digests removed)
    lifted: set[str]


class TombstoneSet:
    """Reads and appends the tombstones of a store, with a per-scope cache keyed on file size."""

    def __init__(self, root: Path) -> None:
        self.dir = root
        self._cache: dict[str, tuple[int, ScopeTombstones]] = {}

    def path(self, scope: str) -> Path:
        return self.dir / f"{ids.check_scope(scope)}.jsonl"

    def scopes(self) -> list[str]:
        """``scopes_with_files``, sorted."""
        return sorted(self.scopes_with_files())

    def scopes_with_files(self) -> frozenset[str]:
        """The names of the scopes that have a tombstone file, in one listing (``load`` of any
        other scope is empty: a search touching many scopes skips a stat of each)."""
        try:
            entries = os.scandir(self.dir)
        except (FileNotFoundError, NotADirectoryError):
            return frozenset()
        with entries:
            return frozenset(e.name[:-6] for e in entries if e.name.endswith(".jsonl") and not e.name.startswith("."))

    def load(self, scope: str) -> ScopeTombstones:
        p = self.path(scope)
        try:
            size = p.stat().st_size
        except FileNotFoundError:
            size = -1
        hit = self._cache.get(scope)
        if hit is not None and hit[0] == size:
            return hit[1]
        st = ScopeTombstones({}, {}, set())
        if size > 0:
            lines, _ = read_jsonl(p)
            for ln in lines:
                v = ln.value
                if v is None:
                    continue
                if v.get("type") == "lift":
                    lifted = str(v.get("digest", ""))
                    st.lifted.add(lifted)
                    st.digests.pop(lifted, None)
                    continue
                try:
                    t = Tombstone(
                        id=str(v["id"]),
                        scope=str(v.get("scope", scope)),
                        digest=str(v["digest"]),
                        forgotten_at=str(v.get("forgotten_at", "")),
                        reason=str(v.get("reason", "")),
                        actor=str(v.get("actor", "")),
                        cascade_of=v.get("cascade_of"),
                        source_key=v.get("source_key"),
                    )
                except KeyError:
                    continue
                st.ids[t.id] = t
                for d in (t.digest, t.source_key):
                    if d:
                        st.digests[d] = t.id
                        st.lifted.discard(d)
        self._cache[scope] = (size, st)
        return st

    def is_id_tombstoned(self, scope: str, record_id: str) -> bool:
        return record_id in self.load(scope).ids

    def find_id(self, record_id: str) -> Tombstone | None:
        for scope in self.scopes():
            t = self.load(scope).ids.get(record_id)
            if t is not None:
                return t
        return None

    def digest_tombstoned(self, scope: str, digest: str) -> str | None:
        """The id of the tombstone that blocks this content digest in this scope, if any."""
        return self.load(scope).digests.get(digest)

    def add(self, t: Tombstone, *, sync: bool = True) -> None:
        ensure_dir(self.dir)
        append_object(self.path(t.scope), t.to_dict(), sync=sync)

    def lift(self, scope: str, digest: str, by_id: str, at: str, reason: str, actor: str) -> None:
        ensure_dir(self.dir)
        append_object(
            self.path(scope),
            {
                "type": "lift",
                "scope": scope,
                "digest": digest,
                "id": by_id,
                "lifted_at": at,
                "reason": reason,
                "actor": actor,
            },
        )

    def __iter__(self) -> Iterator[Tombstone]:
        for scope in self.scopes():
            yield from self.load(scope).ids.values()
