"""The lexical index: tantivy (BM25 over stemmed content) plus a per-record state table.

A generation directory holds the tantivy files and ``state.db`` (SQLite): for every document
the index holds, the record file's (mtime_ns, size) when it was read and its body digest, with
a change sequence number. ``lexical.json`` in the index folder points at the live generation and
keeps each scope directory's mtime at which the index last matched it. See spec/index.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError, MemError, ReadOnlyStoreError
from mem.format.index.common import (
    LEXICAL_KIND,
    LEXICAL_POINTER,
    POINTER_VERSION,
    REBUILD_HINT,
    io_failure,
    read_pointer,
    write_pointer,
)
from mem.format.index.lexdocs import DocFields as DocFields
from mem.format.index.lexdocs import build_schema as build_schema
from mem.format.index.lexdocs import fast_fields as fast_fields
from mem.format.index.lexdocs import make_doc as make_doc
from mem.format.index.lexdocs import older_schema as older_schema
from mem.format.index.lexread import (
    TANTIVY_ERRORS as TANTIVY_ERRORS,  # re-exported (one definition)
)
from mem.format.index.lexread import open_index, run_query
from mem.format.index.lexstate import (
    _ANY_FIELD_MISSING,
    _META_COLUMNS,
    _META_JOIN,
    _ROW_COLUMNS,
    _ROW_MARKS,
    _doc_meta,
    _without_waiting,
)
from mem.format.index.lexstate import BUSY_TIMEOUT as BUSY_TIMEOUT
from mem.format.index.lexstate import META_COLUMNS as META_COLUMNS
from mem.format.index.lexstate import STATE_SQL as STATE_SQL
from mem.format.index.lexstate import DocMeta as DocMeta
from mem.format.index.lexstate import meta_matches as meta_matches
from mem.format.index.lexstate import open_state as open_state
from mem.format.index.lexstate import state_row as state_row
from mem.format.rules.lexicon import CONTENT_TOKENIZER, content_analyzer
from mem.format.rules.lexicon import (
    SCHEMA_VERSION as SCHEMA_VERSION,  # re-exported (one definition)
)
from mem.format.rules.lexicon import query_words as query_words  # re-exported (one definition)
from mem.format.rules.timeutil import format_time, now

if TYPE_CHECKING:
    import sqlite3


WRITER_HEAP = 64 * 1024 * 1024
#: ``scope_state`` with a pause reads this many rows between two pauses (about 2 ms of Python).
STATE_PIECE = 2048


LEXICAL_REBUILD_HINT = "run `mem rebuild --lexical`: it rebuilds the index from the records, nothing is lost"


def damaged(path: Path, exc: BaseException, what: str = "read") -> MemError:
    """The error for a tantivy (or state table) failure on the generation at ``path`` (never a
    traceback): exit 11 when the file system refused (a full disk, a read-only store), else the
    index is damaged (exit 9)."""
    refused = io_failure(exc, path, "write the lexical index" if what == "written" else "read the lexical index")
    if refused is not None:
        return refused
    return IndexUnavailableError(
        f"the lexical index folder cannot be {what}: it is damaged or incomplete ({exc})",
        path=path, hint=LEXICAL_REBUILD_HINT,
    )


@dataclass(frozen=True, slots=True)
class LexHit:
    id: str
    scope: str
    score: float
    digest: str


class LexicalIndex:
    """One open generation of the lexical index."""

    def __init__(self, index_dir: Path, manifest: dict[str, Any]) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        self.path = index_dir / str(manifest["generation"])
        self._index: Any = None
        self._copy: Path | None = None  # a read-only store's private copy of the index (_open_copy)
        self._db: sqlite3.Connection | None = None
        self._searcher: Any = None
        #: the last search's query and arguments, which ``reload(warm=True)`` runs again
        self._last_search: tuple[str, dict[str, Any]] | None = None
        # docs added - removed since the manifest was read (None: count them when saving)
        self._docs_delta: int | None = 0 if "docs" in manifest else None
        # meta_of's rows, valid while the state database is unchanged (see _meta_version)
        self._meta: dict[tuple[str, str], DocMeta | None] = {}
        self._meta_version: int | None = None
        self._has_meta = False  # set when the state is opened (see has_meta)
        self._mtimes: tuple[Any, dict[str, int]] = (None, {})  # scope_mtimes: (its source, its values)
        self._json_each = True  # whether SQLite has its JSON functions (_meta_rows)
        #: when this process last stat-ed every file of a scope, in a refresh confined to some
        #: scopes (index._auto_full; not written: the manifest's full_scan_ns is of all scopes)
        self.full_scans: dict[str, int] = {}

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, index_dir: Path) -> LexicalIndex | None:
        m = read_pointer(index_dir, LEXICAL_POINTER, LEXICAL_KIND)
        if m is None:
            return None
        if older_schema(m):
            return None  # built by an older mem: as if absent, refresh builds it anew
        if m.get("schema") != SCHEMA_VERSION:
            raise IndexUnavailableError(
                f"the lexical index has schema {m.get('schema')!r}; this mem uses {SCHEMA_VERSION}",
                path=index_dir / LEXICAL_POINTER, hint=REBUILD_HINT,
            )
        return cls(index_dir, m)

    @property
    def generation(self) -> str:
        return str(self.manifest["generation"])

    @property
    def index(self) -> Any:
        if self._index is None:
            try:
                self._index = open_index(str(self.path))
            except Exception as exc:  # tantivy raises ValueError/OSError variants
                err = damaged(self.path, exc, "opened")
                if not isinstance(err, ReadOnlyStoreError):
                    raise err from None
                self._index = self._open_copy(err)
        return self._index

    def _open_copy(self, why: ReadOnlyStoreError) -> Any:
        """The index of a read-only store: tantivy must lock a file in the index folder to open
        it, which a read-only folder refuses, so it opens a private copy of the generation's
        tantivy files in the temp folder (removed by ``close``). The state table is read in
        place (``open_sqlite``)."""
        import shutil
        import tempfile

        copy = Path(tempfile.mkdtemp(prefix="mem-read-only-index-"))
        self._copy = copy
        try:
            for p in self.path.iterdir():
                if p.is_file() and not p.name.startswith("state.db") and not p.name.endswith(".lock"):
                    shutil.copyfile(p, copy / p.name)
            return open_index(str(copy))
        except Exception as exc:  # the copy failed too: the original refusal, with why
            self._drop_copy()
            raise why from exc

    def _drop_copy(self) -> None:
        if self._copy is not None:
            import shutil

            shutil.rmtree(self._copy, ignore_errors=True)
            self._copy = None

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_state(self.path / "state.db")
            cols = {str(r[1]) for r in self._db.execute("PRAGMA table_info(records)")}
            self._has_meta = all(col in cols for col, _t in META_COLUMNS)
        return self._db

    @property
    def has_meta(self) -> bool:
        """Whether the state table has the ranking columns (an older one could not get them:
        read-only, or busy when opened); rows are then written with the first six columns."""
        _ = self.db
        return self._has_meta

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._index = None
        self._searcher = None
        self._drop_copy()

    def reload(self, warm: bool = False) -> None:
        """See the index's last commit: the next search takes a new tantivy searcher.

        ``warm`` (a long-lived searcher's background thread, after a commit or a manifest that
        moved alone): the new searcher is made here and runs the last search made through this
        object before it replaces the one the searches use, so that the first search after it
        does not open the new segments' readers and caches on its own path (it cost about 2x a
        search's median;
        bench/README.md, "Issue 21, the eighth session"). Until then the searches go on with the
        previous searcher, a consistent view of the commit before."""
        if self._index is not None:
            try:
                self._index.reload()
                if warm and self._last_search is not None:
                    fresh = self._index.searcher()
                    text, kw = self._last_search
                    run_query(lambda: self.index, lambda: fresh, text, **kw,
                              damaged=lambda exc: damaged(self.path, exc))
                    self._searcher = fresh
                    return
            except TANTIVY_ERRORS as exc:
                raise damaged(self.path, exc) from None
        self._searcher = None

    def searcher(self) -> Any:
        if self._searcher is None:
            idx = self.index
            try:
                self._searcher = idx.searcher()
            except TANTIVY_ERRORS as exc:
                raise damaged(self.path, exc) from None
        return self._searcher

    # -- manifest --------------------------------------------------------------------------

    def scope_mtimes(self) -> dict[str, int]:
        """Each scope folder's mtime as the manifest records it (a copy; read once per manifest)."""
        sc = self.manifest.get("scopes") or {}
        if self._mtimes[0] is not sc:
            self._mtimes = (sc, {str(k): int(v.get("dir_mtime_ns", -1)) for k, v in sc.items() if isinstance(v, dict)})
        return dict(self._mtimes[1])

    def save_manifest(self, scope_mtimes: dict[str, int] | None = None) -> None:
        if scope_mtimes is not None:
            self.manifest["scopes"] = {s: {"dir_mtime_ns": m} for s, m in sorted(scope_mtimes.items())}
        if self._docs_delta is None or "docs" not in self.manifest:
            self.manifest["docs"] = self.doc_count()
        else:
            self.manifest["docs"] = int(self.manifest["docs"]) + self._docs_delta
        self._docs_delta = 0
        write_pointer(self.index_dir, LEXICAL_POINTER, self.manifest)

    # -- state -----------------------------------------------------------------------------

    def doc_count(self) -> int:
        row = self.db.execute("SELECT count(*) FROM records").fetchone()
        return int(row[0])

    def scope_state(self, scope: str, pause: Callable[[], None] | None = None) -> dict[str, tuple[int, int]]:
        """Each indexed record of ``scope``: its file's (mtime_ns, size) as indexed. Tuples of
        numbers, which the garbage collector stops tracking at its first pass: a full scan holds
        one scope's state (33k rows at 100k records), and objects of a class of rows (they were
        a dataclass's) made it run full passes over everything the process holds while a
        long-lived searcher's searches waited (bench/README.md, issue 21).

        With ``pause`` (a background full scan yielding to searches), read in pieces of
        ``STATE_PIECE`` rows in id order, calling it between two: read at once, 33k rows were
        60-85 ms of Python holding the interpreter beside the searches (bench/README.md, "Issue
        21, the tenth session"). Each piece is its own read: a row may change between pieces,
        as it may once read (the scan looks again at what it found different, under the lock)."""
        if pause is None:
            return {rid: (mt, size) for rid, mt, size in self.db.execute(
                "SELECT id, mtime_ns, size FROM records WHERE scope=?", (scope,))}
        out: dict[str, tuple[int, int]] = {}
        after = ""
        while True:
            rows = self.db.execute("SELECT id, mtime_ns, size FROM records WHERE scope=? AND id>? "
                                   "ORDER BY id LIMIT ?", (scope, after, STATE_PIECE)).fetchall()
            out.update((rid, (mt, size)) for rid, mt, size in rows)
            if len(rows) < STATE_PIECE:
                return out
            after = rows[-1][0]
            pause()

    def file_state(self, scope: str, rids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """``scope_state`` of the records ``rids`` of ``scope`` alone (those indexed)."""
        out: dict[str, tuple[int, int]] = {}
        for i in range(0, len(rids), 500):  # (SQLite's bound on a statement's parameters)
            part = rids[i:i + 500]
            out.update((rid, (mt, size)) for rid, mt, size in self.db.execute(
                f"SELECT id, mtime_ns, size FROM records WHERE scope=? AND id IN ({','.join('?' * len(part))})",
                (scope, *part)))
        return out

    def scope_ids(self, scope: str) -> set[str]:
        """The ids the state holds for ``scope`` (no file state: a cheap listing)."""
        import sqlite3

        try:
            return {str(r[0]) for r in self.db.execute("SELECT id FROM records WHERE scope=?", (scope,))}
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def state_version(self) -> int:
        """A number that changes with any commit to the state, by this connection or another
        process (SQLite's data_version, and this connection's own changes)."""
        import sqlite3

        db = self.db
        try:
            return int(db.execute("PRAGMA data_version").fetchone()[0]) * 1_000_003 + int(db.total_changes)
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def meta_of(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], DocMeta]:
        """The state of these (scope, id): the ones the state knows fully (rows an older mem
        wrote have no ranking fields and are left out, as are unknown keys)."""
        _ = self.db  # opened first: opening sets _has_meta
        if not self._has_meta:
            return {}
        ver = self.state_version()
        if ver != self._meta_version or len(self._meta) > 200_000:
            self._meta, self._meta_version = {}, ver
        cache = self._meta
        out: dict[tuple[str, str], DocMeta] = {}
        ask: list[tuple[str, str]] = []
        for key in keys:
            if key in cache:
                got = cache[key]
                if got is not None:
                    out[key] = got
            else:
                ask.append(key)
        if not ask:
            return out
        rows = self._meta_rows(ask)
        for key in ask:
            cache[key] = None  # unknown or without ranking fields, unless below
        for scope, rid, *cols in rows:
            m = _doc_meta(*cols)
            if m is not None:
                cache[(scope, rid)] = out[(scope, rid)] = m
        return out

    def complete(self, scopes: Sequence[str] | None = None) -> bool:
        """Whether every state row (of these scopes) has the ranking fields: rows an older mem
        wrote do not, and ``newest`` and ``counts`` cannot answer for them."""
        import sqlite3

        if not self.has_meta:
            return False
        where, args = "", list(scopes or ())
        if scopes is not None:
            where = f" AND scope IN ({','.join('?' * len(scopes))})"
        try:
            return self.db.execute(f"SELECT 1 FROM records WHERE ({_ANY_FIELD_MISSING}){where} LIMIT 1",
                                   args).fetchone() is None
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def newest(self, statuses: Sequence[str], *, scopes: Sequence[str] | None = None,
               kinds: Sequence[str] | None = None, after: tuple[int, str, str] | None = None,
               limit: int = 100) -> list[tuple[str, str, DocMeta | None]]:
        """Up to ``limit`` state rows of these statuses (and scopes, and kinds) as (scope, id,
        DocMeta: None for a row without the ranking fields), newest first: ``Store.list``'s order
        (record time, then id; then scope), those after ``after`` (record time in ms, id, scope)
        in it. Rows without the ranking fields have no status and are never selected: see
        ``complete``."""
        import sqlite3

        def marks(n: int) -> str:
            return ",".join("?" * n)

        where, args = [f"status IN ({marks(len(statuses))})"], list[Any](statuses)
        for column, values in (("kind", kinds), ("scope", scopes)):
            if values is not None:
                where.append(f"{column} IN ({marks(len(values))})")
                args += values
        if after is not None:
            where.append("(recorded_ms, id, scope) < (?, ?, ?)")
            args += after
        try:
            return [(str(scope), str(rid), _doc_meta(*cols)) for scope, rid, *cols in self.db.execute(
                f"SELECT scope, {_META_COLUMNS} FROM records WHERE {' AND '.join(where)} "
                "ORDER BY recorded_ms DESC, id DESC, scope DESC LIMIT ?", [*args, int(limit)])]
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def counts(self) -> list[tuple[str, str, str, int]]:
        """(scope, kind, status, rows) of the state (exact when it is ``complete``)."""
        import sqlite3

        try:
            return [(str(sc), str(kind), str(status), int(n)) for sc, kind, status, n in self.db.execute(
                "SELECT scope, kind, status, count(*) FROM records WHERE status IS NOT NULL "
                "GROUP BY scope, kind, status")]
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def _meta_rows(self, keys: list[tuple[str, str]]) -> list[tuple[Any, ...]]:
        """``meta_of``'s state rows of ``keys`` (scope, id, then ``_META_COLUMNS``): one query
        joining them, given as one JSON array, to the primary key (not one query per scope the
        candidates span), or one per scope where SQLite lacks its JSON functions (built in since
        3.38)."""
        import sqlite3

        db = self.db
        try:
            if self._json_each:
                try:
                    return db.execute(_META_JOIN, [json.dumps(keys)]).fetchall()
                except sqlite3.OperationalError as exc:
                    if "json" not in str(exc):
                        raise
                    self._json_each = False
            by_scope: dict[str, list[str]] = {}
            for scope, rid in keys:
                by_scope.setdefault(scope, []).append(rid)
            rows: list[tuple[Any, ...]] = []
            for scope, rids in by_scope.items():
                for a in range(0, len(rids), 500):  # under SQLite's bound-parameter limit
                    part = rids[a:a + 500]
                    rows += db.execute(
                        f"SELECT scope, {_META_COLUMNS} FROM records WHERE scope=? AND id IN ({','.join('?' * len(part))})",
                        [scope, *part]).fetchall()
            return rows
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def fill_meta(self, items: Sequence[tuple[DocFields, int, int]]) -> int:
        """Best effort: give the ranking fields of (record, file mtime_ns, size) to their state
        rows that lack them (rows an older mem wrote), where the row still describes that file
        (same digest, mtime and size). Never waits for a writer and never fails: a locked or
        read-only state is left as it is (searches read those records' files meanwhile).
        Returns the rows filled."""
        if not items or not self.has_meta:
            return 0
        import sqlite3

        db = self.db
        with _without_waiting(db):
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error:
                return 0
            done = 0
            try:
                for rec, mt, sz in items:
                    cur = db.execute(
                        "UPDATE records SET kind=?, status=?, tags=?, confidence=?, recorded_ms=?, valid_from_ms=?, "
                        "valid_to_ms=? WHERE scope=? AND id=? AND digest=? AND mtime_ns=? AND size=? AND status IS NULL",
                        (*state_row(rec, mt, sz, 0)[6:], rec.scope, rec.id, rec.digest, mt, sz))
                    done += cur.rowcount
                db.execute("COMMIT")
            except sqlite3.Error:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                return 0
        return done

    def indexed_scopes(self) -> list[str]:
        """The scopes the state has rows of, in order: one step of the primary key per scope
        (``SELECT DISTINCT`` read every row: 13 ms at 100k records, at each full scan)."""
        return [r[0] for r in self.db.execute(
            "WITH RECURSIVE s(scope) AS (SELECT min(scope) FROM records UNION ALL "
            "SELECT (SELECT min(scope) FROM records WHERE scope > s.scope) FROM s WHERE s.scope IS NOT NULL) "
            "SELECT scope FROM s WHERE scope IS NOT NULL")]

    def max_seq(self) -> int:
        a = self.db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0]
        b = self.db.execute("SELECT coalesce(max(seq), 0) FROM gone").fetchone()[0]
        return int(max(a, b))

    # -- updates ---------------------------------------------------------------------------

    def apply(
        self,
        puts: Sequence[tuple[DocFields, int, int]],
        deletes: Sequence[tuple[str, str]],
    ) -> set[tuple[str, str]]:
        """Index ``puts`` (record, file mtime_ns, file size) and drop ``deletes`` (scope, id).

        Returns the (scope, id) of puts that replaced an indexed document (changed records).
        The tantivy commit comes first, then the state rows: after a crash between the two the
        state still shows the old file state, so the next refresh re-applies the change.
        """
        if not puts and not deletes:
            return set()
        known: set[tuple[str, str]] = set()
        for f, _m, _s in puts:
            if self.db.execute("SELECT 1 FROM records WHERE scope=? AND id=?", (f.scope, f.id)).fetchone():
                known.add((f.scope, f.id))
        gone = sum(1 for sc, rid in set(deletes)
                   if self.db.execute("SELECT 1 FROM records WHERE scope=? AND id=?", (sc, rid)).fetchone())
        idx = self.index
        try:
            writer = idx.writer(heap_size=WRITER_HEAP, num_threads=1)
        except TANTIVY_ERRORS as exc:
            raise damaged(self.path, exc, "updated") from None
        try:
            for scope, rid in deletes:
                writer.delete_documents_by_term("key", f"{scope}/{rid}")
            for rec, _mt, _sz in puts:
                writer.delete_documents_by_term("key", f"{rec.scope}/{rec.id}")
                writer.add_document(make_doc(rec))
            writer.commit()
            writer.wait_merging_threads()
        except BaseException as exc:
            with contextlib.suppress(Exception):
                writer.rollback()
            if isinstance(exc, TANTIVY_ERRORS):
                raise damaged(self.path, exc, "updated") from None
            raise
        self.reload()
        db = self.db
        seq = self.max_seq()
        db.execute("BEGIN IMMEDIATE")
        try:
            for scope, rid in deletes:
                seq += 1
                db.execute("DELETE FROM records WHERE scope=? AND id=?", (scope, rid))
                db.execute("INSERT INTO gone(id, scope, seq) VALUES (?,?,?)", (rid, scope, seq))
            for rec, mt, sz in puts:
                seq += 1
                row = state_row(rec, mt, sz, seq)
                if self._has_meta:
                    db.execute(f"INSERT OR REPLACE INTO records({_ROW_COLUMNS}) VALUES ({_ROW_MARKS})", row)
                else:
                    db.execute("INSERT OR REPLACE INTO records(id, scope, mtime_ns, size, digest, seq) "
                               "VALUES (?,?,?,?,?,?)", row[:6])
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(Exception):
                db.execute("ROLLBACK")
            refused = io_failure(exc, self.path, "write the lexical index state table")  # a full disk
            if refused is not None:
                raise refused from None
            raise
        if self._docs_delta is not None:
            self._docs_delta += len({(f.scope, f.id) for f, _m, _s in puts} - known) - gone
        return known

    # -- search ----------------------------------------------------------------------------

    def search(
        self,
        text: str,
        *,
        scopes: Sequence[str] | None,
        kinds: Sequence[str] | None,
        statuses: Sequence[str] | None,
        tags: Sequence[str] | None,
        limit: int,
        within: Sequence[tuple[int, int]] | None = None,
    ) -> list[LexHit]:
        """The best ``limit`` documents (the query is built by lexread.run_query, which the lean
        read path of ``mem search`` shares; ``within``: its ranges of ``valid_from``); tantivy
        damage raises IndexUnavailableError."""
        kw: dict[str, Any] = {"scopes": scopes, "kinds": kinds, "statuses": statuses, "tags": tags,
                              "limit": limit, "within": within}
        rows = run_query(lambda: self.index, self.searcher, text, **kw, damaged=lambda exc: damaged(self.path, exc))
        self._last_search = (text, kw)  # (a search that raised is not repeated by reload(warm=True))
        return [LexHit(*row) for row in rows]

    def stats(self) -> dict[str, Any]:
        s = self.searcher()
        docs = int(s.num_docs)
        return {"docs": docs, "segments": int(s.num_segments)}


def build_lexical(
    dest: Path,
    items: Iterable[tuple[DocFields, int, int]],
    scope_mtimes: dict[str, int],
    *,
    threads: int = 1,
) -> dict[str, Any]:
    """Write a fresh generation into ``dest`` (which must not exist); returns its manifest."""
    import tantivy

    dest.mkdir(mode=0o700)
    idx = tantivy.Index(build_schema(), path=str(dest))
    idx.register_tokenizer(CONTENT_TOKENIZER, content_analyzer())
    writer = idx.writer(heap_size=WRITER_HEAP * max(1, threads), num_threads=max(1, threads))
    db = open_state(dest / "state.db", create=True)
    rows: list[tuple[Any, ...]] = []
    add = writer.add_document
    for seq, (rec, mt, sz) in enumerate(items, 1):
        add(make_doc(rec))
        rows.append(state_row(rec, mt, sz, seq))
    # the state rows first, while tantivy's indexing thread catches up; then its commit (nothing
    # in ``dest`` is live before the swap: the order does not matter to a crash)
    db.execute("BEGIN")
    db.executemany(f"INSERT OR REPLACE INTO records({_ROW_COLUMNS}) VALUES ({_ROW_MARKS})", rows)
    db.execute("COMMIT")
    db.close()
    writer.commit()
    writer.wait_merging_threads()
    return {
        "kind": LEXICAL_KIND,
        "version": POINTER_VERSION,
        "generation": dest.name,
        "built_at": format_time(now()),
        "schema": SCHEMA_VERSION,
        "scopes": {s: {"dir_mtime_ns": m} for s, m in sorted(scope_mtimes.items())},
        "docs": len(rows),
    }


def dir_mtime(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return -1


def monotonic_ms() -> float:
    return time.perf_counter() * 1000
