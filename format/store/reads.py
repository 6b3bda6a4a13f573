"""Reading a store: its record files and live records (a tombstoned id is never read as live),
by id, by filter, by lineage, by session or transcript, by content (``live_with_content``)."""

from __future__ import annotations

import builtins
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from mem.format.base.errors import MemError, NotFoundError, RecordParseError, ValidationError
from mem.format.model.record import Record, match_digest, read_record_file
from mem.format.rules import ids, layout
from mem.format.store.filters import RecordFilter
from mem.format.store.opening import StoreBase
from mem.format.store.sourcekey import source_key

if TYPE_CHECKING:
    from mem.format.store.store import Store


class StoreReads(StoreBase):
    """A store's reads (no lock needed)."""

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
            from mem.format.index.session import same_content_candidates

            cands = same_content_candidates(cast("Store", self), scope, content)  # every StoreReads is a Store
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
