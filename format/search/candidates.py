"""The candidates of a search, looked up and scored before the query's vector is needed: each
ranked from what the lexical index's state says of it (or read from its file), checked against
the filter and the tombstones, given its prior and query-term coverage; the records read for the
hits (cached per file), and the re-indexing of entries found stale."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import RecordParseError
from mem.format.model.record import Record
from mem.format.rules.ranking import prior_ms, prior_of
from mem.format.search.resources import SearcherResources
from mem.format.search.results import prior
from mem.format.store.store import RecordFilter

if TYPE_CHECKING:
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex

#: What ``Searcher._views`` says of a candidate that is not ranked.
GONE, STALE, FILTERED = "gone", "stale", "filtered"


class CandidateViews(SearcherResources):
    """A searcher's look-up of candidates and reading of records (``Searcher`` builds on it)."""

    # -- records ----------------------------------------------------------------------------

    def _record(self, scope: str, rid: str, tomb: dict[str, Any] | None = None) -> Record | None:
        """The live record (scope, id) from its file, or None (gone, forgotten, unreadable)."""
        got = self._record_digest(scope, rid, tomb)
        return None if got is None else got[0]

    def _state_fields(self, key: tuple[str, str], rec: Record) -> tuple[Any, ...]:
        """What the lexical state would keep of ``rec`` (a ``DocMeta`` without the file's mtime
        and size), computed once per record read (``_cache``)."""
        from mem.format.index.lexical import DocMeta

        got = self._fields.get(key)
        if got is None or got[0] is not rec:
            if len(self._fields) > 50_000:
                self._fields.clear()
            got = self._fields[key] = (rec, DocMeta.fields_of(rec))
        return got[1]

    def _record_digest(self, scope: str, rid: str,
                       tomb: dict[str, Any] | None = None) -> tuple[Record, str] | None:
        """``_record`` with the record's content digest (cached with it)."""
        if self._forgotten(scope, rid, tomb) if tomb is not None else self.store.is_forgotten(scope, rid):
            return None
        path = os.path.join(self._records, scope, rid + ".md")
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        key = (scope, rid)
        hit = self._cache.get(key)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2], hit[3]
        from mem.format.model.record import read_record_file

        try:
            rec, _ = read_record_file(Path(path))
        except FileNotFoundError:
            return None
        except RecordParseError as exc:
            self._unreadable.add(str(exc))  # reported with the search's warnings
            return None
        if rec.id != rid or rec.scope != scope:
            self._unreadable.add(f"{path}: holds record {rec.scope}/{rec.id}, not {scope}/{rid}")
            return None
        if len(self._cache) > 50_000:
            self._cache.clear()
        dg = rec.digest
        self._cache[key] = (st.st_mtime_ns, st.st_size, rec, dg)
        return rec, dg

    def _coverage(self, weights: dict[str, float], rec: Record, digest: str) -> float:
        """The query-term coverage of ``rec`` (its terms cached per content digest)."""
        from mem.format.index.terms import coverage, terms

        if not weights:
            return 0.0
        key = (rec.scope, rec.id)
        got = self._terms.get(key)
        if got is None or got[0] != digest:
            if len(self._terms) > 50_000:
                self._terms.clear()
            got = self._terms[key] = (digest, terms(rec.content))
        return coverage(weights, got[1])

    def _reindex(self, lex: LexicalIndex, stale: list[tuple[str, str]]) -> None:
        """Re-read records whose indexed digest disagrees with their file (in-place edits)."""
        from mem.format.index.apply import _apply
        from mem.format.index.lexical import DocFields

        puts = []
        deletes = []
        for scope, rid in stale:
            rec = self._record(scope, rid)
            if rec is None:
                deletes.append((scope, rid))
                continue
            st = os.stat(self.store.records_dir / scope / f"{rid}.md")
            puts.append((DocFields.from_record(rec), st.st_mtime_ns, st.st_size))
        with self.store.lock:
            _apply(self.store, lex, puts, deletes)

    def _inputs(self, keys: list[tuple[str, str]], views: dict[tuple[str, str], Any],
                inputs: dict[tuple[str, str], Any], mode: str, at: _dt.datetime, explain: bool,
                weights: dict[str, float] | None, vec: VectorIndex | None,
                found_by_vector: set[tuple[str, str]] | None = None) -> None:
        """Score what does not need the query's vector, for the ranked candidates ``keys`` (looked
        up in ``views``) not yet in ``inputs``: each gets (prior, its parts with ``explain``,
        query-term coverage for convex fusion (else None), and (a stack of vectors, its row) or None:
        the vector its cosine needs unless the vector arm found it (``found_by_vector``))."""
        from mem.format.index.terms import coverage
        from mem.format.rules.timeutil import epoch_ms, from_epoch_ms

        convex = mode == "hybrid" and self._fusion()[0] == "convex"
        at_ms = epoch_ms(at)
        weights = weights or {}
        total = sum(weights.values())
        todo: list[tuple[str, str, str]] = []
        for key in keys:
            view = views.get(key)
            if key in inputs or not isinstance(view, tuple):
                continue
            digest, rec, m, found = view
            parts: dict[str, float] | None = None
            if rec is not None:
                p, parts = prior(rec, at)
            elif explain:
                p, parts = prior_of(m.status, m.confidence, from_epoch_ms(m.recorded_ms), at)
            else:
                p = prior_ms(m.status, m.confidence, m.recorded_ms, at_ms)
            cov: float | None = None
            if convex:
                cov = (self._coverage(weights, rec, digest) if rec is not None
                       else coverage(weights, found or frozenset(), total))
                if found_by_vector is None or key not in found_by_vector:
                    todo.append((key[0], key[1], digest))
            inputs[key] = (p, parts, cov, None)
        if todo and vec is not None:  # the vectors a lexical-only candidate's cosine needs
            import numpy as np

            got = vec.vectors_for(todo)
            if got:  # stacked now: one product once the query's vector is there (``_cosines``)
                mat = np.stack(list(got.values()))
                for i, key in enumerate(got):
                    inputs[key] = (*inputs[key][:3], (mat, i))

    def _views(self, keys: list[tuple[str, str]], flt: RecordFilter, tomb: dict[str, Any],
               weights: dict[str, float] | None, lex: LexicalIndex | None,
               views: dict[tuple[str, str], Any]) -> None:
        """Look up the candidates ``keys`` not yet in ``views``: each gets (digest, record or
        None, DocMeta or None, query terms found or None), or GONE (file gone, unreadable or
        forgotten), STALE (the index disagrees with the file) or FILTERED (fails ``flt``). With
        ``weights``, the query terms of those ranked from the state are read from tantivy.

        A candidate is ranked from what the lexical index's state says of it (kind, status, tags,
        confidence, times, digest: ``LexicalIndex.meta_of``) and from its query terms as tantivy
        indexed them (``terms.presence``), without touching its file: the index is as true as the
        refresh keeps it (spec/index.md, "Staleness rules"), and each hit is read and checked
        before it is returned (``_fuse``). A candidate the state does not describe, or any
        candidate of a ``known_at`` search (which needs ``superseded_at``), is read from its
        file, as every candidate once was.
        """
        from mem.format.index.lexical import DocFields, meta_matches

        keys = [key for key in dict.fromkeys(keys) if key not in views]
        if not keys:
            return
        fetched = lex is not None and flt.known_at is None
        meta = lex.meta_of(keys) if fetched and lex is not None else {}
        from_state: list[tuple[tuple[str, str], str]] = []
        fill: list[tuple[Any, int, int]] = []  # records whose state rows lack ranking fields
        for key in keys:
            scope, rid = key
            m = meta.get(key)
            if m is not None and self._forgotten(scope, rid, tomb):
                views[key] = GONE
                continue
            if m is None:
                got = self._record_digest(scope, rid, tomb)
                if got is None:
                    views[key] = GONE
                    continue
                rec, digest = got
                if fetched and (st := self._cache.get(key)) is not None:
                    fill.append((DocFields.from_record(rec), st[0], st[1]))
                if (flt.scopes is not None and rec.scope not in flt.scopes) or not flt.matches(rec):
                    views[key] = FILTERED
                else:
                    views[key] = (digest, rec, None, None)
            elif not meta_matches(flt, scope, rid, m):
                views[key] = FILTERED
            else:
                views[key] = (m.digest, None, m, None)
                from_state.append((key, m.digest))
        if fill and lex is not None:  # a state an older mem wrote: rank these from it next time
            lex.fill_meta(fill)
        if weights and lex is not None and from_state:
            found, differ = self._presence(lex, weights, from_state)
            for key, terms_found in found.items():
                views[key] = (*views[key][:3], terms_found)
            for key in differ:  # tantivy holds another version than its state says
                views[key] = STALE

    def _forgotten(self, scope: str, rid: str, tomb: dict[str, Any]) -> bool:
        """Whether (scope, id) is tombstoned; ``tomb`` caches each scope's ids for one search, and
        under "" (no scope's name) which scopes have a tombstone file: one listing, instead of a
        stat per scope the candidates come from."""
        ids_ = tomb.get(scope)
        if ids_ is None:
            have = tomb.get("")
            if have is None:
                have = tomb[""] = self.store.tombstones.scopes_with_files()
            ids_ = tomb[scope] = self.store.tombstones.load(scope).ids if scope in have else ()
        return rid in ids_

    def _presence(self, lex: LexicalIndex, weights: dict[str, float], wanted: list[tuple[tuple[str, str], str]],
                  ) -> tuple[dict[tuple[str, str], frozenset[str]], set[tuple[str, str]]]:
        """The query terms each (key, digest) of ``wanted`` contains, read from tantivy (cached
        per digest), and the keys whose tantivy document has another digest than ``wanted``'s."""
        from mem.format.index.lexical import TANTIVY_ERRORS, damaged
        from mem.format.index.terms import presence

        words = list(weights)
        wordset = frozenset(words)
        out: dict[tuple[str, str], frozenset[str]] = {}
        differ: set[tuple[str, str]] = set()
        ask: list[tuple[str, str]] = []
        for key, digest in wanted:
            got = self._terms.get(key)
            if got is not None and got[0] == digest:
                out[key] = wordset & got[1]
                continue
            hit = self._present.get(key)
            if hit is not None and hit[0] == digest and wordset <= hit[1]:
                out[key] = wordset & hit[2]
                continue
            ask.append(key)
        if ask:
            try:
                res = presence(lex.searcher(), lex.index.schema, ask, words)
            except TANTIVY_ERRORS as exc:
                raise damaged(lex.path, exc) from None
            want_dg = dict(wanted)
            if len(self._present) > 50_000:
                self._present.clear()
            for key in ask:
                dg, terms_found = res.get(key, (want_dg[key], frozenset()))
                if dg != want_dg[key]:
                    differ.add(key)
                    continue
                prev = self._present.get(key)
                if prev is not None and prev[0] == dg:  # what is known of other terms stays
                    self._present[key] = (dg, prev[1] | wordset, (prev[2] - wordset) | terms_found)
                else:
                    self._present[key] = (dg, wordset, terms_found)
                out[key] = terms_found
        return out, differ
