"""Reading the lexical index without the full index machinery: opening a generation with its
tokenizer, the query, and whether the index is fresh as it stands. The full path
(:mod:`mem.format.index.lexical`, :mod:`mem.format.index.derived`) and the one-shot search
(:mod:`mem.format.search.lexfast`) both call these: one implementation of each rule.

Cheap to import: ``os``, :mod:`mem.format.base.jsonlite` and the rules layer; tantivy and sqlite3
are imported when used. See spec/index.md, "Read path of a one-shot lexical search".
"""

from __future__ import annotations

import os

from mem.format.base.errors import InvalidInputError
from mem.format.base.jsonlite import loads as _json_loads
from mem.format.rules.layout import (
    LEXICAL_KIND,
    LEXICAL_POINTER,
    POINTER_VERSION,
    RECORDS_DIR,
    TOMBSTONES_DIR,
    record_files,
)
from mem.format.rules.lexicon import (
    CONTENT_TOKENIZER,
    SCHEMA_VERSION,
    content_analyzer,
    query_words,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

#: mem's own writes are journaled in this file (JSON Lines, in the index folder) and applied at
#: the next refresh; while it exists, the index is not fresh.
PENDING_FILE = "lexical.pending.jsonl"
#: Stores with at most this many records get a full stat scan on every refresh (~4 us a file).
FULL_SCAN_MAX_DOCS = 2000
#: What tantivy raises for a damaged or vanished index (it maps its errors to these).
TANTIVY_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, RuntimeError)


def open_index(path: str) -> Any:
    """The tantivy index at ``path``, its content tokenizer registered."""
    import tantivy

    idx = tantivy.Index.open(path)
    idx.register_tokenizer(CONTENT_TOKENIZER, content_analyzer())
    return idx


def run_query(
    index: Callable[[], Any],
    searcher: Callable[[], Any],
    text: str,
    *,
    scopes: Sequence[str] | None,
    kinds: Sequence[str] | None,
    statuses: Sequence[str] | None,
    tags: Sequence[str] | None,
    limit: int,
    damaged: Callable[[BaseException], Exception],
    within: Sequence[tuple[int, int]] | None = None,
) -> list[tuple[str, str, float, str]]:
    """(id, scope, BM25 score, digest) of the best ``limit`` documents for ``text``.

    ``within``: half-open ranges of ``valid_from`` (epoch ms); when given, the documents are
    those valid from a time in one of them, whether or not they hold a word of ``text``, and
    ``text``'s words only rank them (the time-drawn arm of a query that names a date).

    ``index`` and ``searcher`` give the open tantivy index and its searcher; ``damaged`` turns a
    tantivy failure while reading into the error to raise. A query without searchable words or
    that tantivy cannot parse raises InvalidInputError. ``scopes`` None is every scope: no term
    per scope (400 of them cost 1-1.5 ms a query), the same scores (the index holds the store's
    scopes only: a refresh drops a vanished scope's documents, and every hit is read from its file).
    """
    import tantivy

    words = query_words(text)
    if not words:
        raise InvalidInputError(f"the query {text!r} has no searchable words")
    idx = index()
    schema = idx.schema
    try:
        q_text = idx.parse_query(" ".join(words), ["content"])
    except ValueError as exc:
        raise InvalidInputError(f"bad query {text!r}: {exc}") from None
    must: list[tuple[Any, Any]] = [(tantivy.Occur.Must, q_text)]
    if within is not None:
        span = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.range_query(schema, "valid_from", tantivy.FieldType.Integer,
                                                               a, b, include_upper=False)) for a, b in within])
        must = [(tantivy.Occur.Must, span), (tantivy.Occur.Should, q_text)]
    if scopes is None:  # every scope: scored as the filter of them all would be, without its terms
        must.append((tantivy.Occur.Must, tantivy.Query.const_score_query(tantivy.Query.all_query(), 1.0)))
    for field, values in (("scope", scopes), ("kind", kinds), ("status", statuses)):
        if values is not None:
            # "any of these values", scored 1.0 like tantivy's TermSetQuery (so BM25 + 1 per
            # filter) but without TermSetQuery's walk over the field's whole term dictionary,
            # which dominated a filtered query at 100k (bench/README.md, "Lexical arm")
            anyof = tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, field, v)) for v in values])
            must.append((tantivy.Occur.Must, tantivy.Query.const_score_query(anyof, 1.0)))
    for t in tags or ():
        must.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "tags", t)))
    q = tantivy.Query.boolean_query(must)
    s = searcher()
    out: list[tuple[str, str, float, str]] = []
    try:
        res = s.search(q, limit=limit, count=False)
        for score, addr in res.hits:
            d = s.doc(addr)
            out.append((d["id"][0], d["scope"][0], float(score), d["digest"][0]))
    except TANTIVY_ERRORS as exc:  # e.g. a deleted or truncated segment file
        raise damaged(exc) from None
    except (KeyError, IndexError) as exc:  # a stored document without its fields
        raise damaged(exc) from None
    return out


# -- tombstones, as the index sees them ------------------------------------------------------------


def tombstoned_ids(data: bytes) -> set[str]:
    """Ids tombstoned by a ``tombstones/<scope>.jsonl`` file's bytes (TombstoneSet.load's rule:
    complete lines only, JSON objects that are not lifts and have an id and a digest)."""
    out: set[str] = set()
    cut = data.rfind(b"\n")
    for raw_b in data[: cut + 1].split(b"\n")[:-1]:
        try:
            raw = raw_b.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if not raw.strip():
            continue
        try:
            v = _json_loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(v, dict) and v.get("type") != "lift" and "id" in v and "digest" in v:
            out.add(str(v["id"]))
    return out


def scope_tombstones(root: str, scope: str) -> set[str]:
    """The ids tombstoned in ``scope`` of the store at ``root`` (``tombstoned_ids`` of its file)."""
    try:
        with open(os.path.join(root, TOMBSTONES_DIR, scope + ".jsonl"), "rb") as f:
            return tombstoned_ids(f.read())
    except FileNotFoundError:
        return set()


# -- freshness -------------------------------------------------------------------------------------


def dir_mtime(path: str) -> int:
    """A folder's mtime in nanoseconds, -1 when it does not exist (the manifest's value then)."""
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return -1


def fresh_manifest(root: str, index_dir: str, scopes: list[str]) -> dict[str, Any] | None:
    """The lexical manifest when the index is fresh and usable as it is, else None.

    Fresh: the pointer and the generation are valid (read_pointer, LexicalIndex.open), no write
    journal waits, and the refresh a one-shot search runs would find nothing to do (every scope
    folder's mtime equals the manifest's; for small stores also every file's state).
    """
    try:
        with open(os.path.join(index_dir, LEXICAL_POINTER), "rb") as f:
            m = _json_loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        return None
    if not isinstance(m, dict) or m.get("kind") != LEXICAL_KIND or not isinstance(m.get("generation"), str):
        return None
    gen = m["generation"]
    if m.get("version") != POINTER_VERSION or m.get("schema") != SCHEMA_VERSION:
        return None
    if "/" in gen or gen.startswith(".") or not os.path.isdir(os.path.join(index_dir, gen)):
        return None
    if os.path.exists(os.path.join(index_dir, PENDING_FILE)):
        return None
    old = {str(k): int(v.get("dir_mtime_ns", -1)) for k, v in (m.get("scopes") or {}).items() if isinstance(v, dict)}
    records = os.path.join(root, RECORDS_DIR)
    if old != {s: dir_mtime(os.path.join(records, s)) for s in scopes}:
        return None
    if int(m.get("docs", 0)) <= FULL_SCAN_MAX_DOCS and not _files_match(root, os.path.join(index_dir, gen), scopes):
        return None
    return m


def _files_match(root: str, gen_dir: str, scopes: list[str]) -> bool:
    """The full stat scan of a small store finds nothing to re-index (staleness._plan)."""
    import sqlite3

    db_path = os.path.join(gen_dir, "state.db")
    if not os.path.isfile(db_path):
        return False
    db = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    try:
        rows = db.execute("SELECT scope, id, mtime_ns, size FROM records").fetchall()
    finally:
        db.close()
    indexed: dict[str, dict[str, tuple[int, int]]] = {}
    for scope, rid, mt, size in rows:
        indexed.setdefault(scope, {})[rid] = (mt, size)
    if not set(indexed) <= set(scopes):
        return False
    records = os.path.join(root, RECORDS_DIR)
    for s in scopes:
        tomb = scope_tombstones(root, s)
        files = {rid: (st.st_mtime_ns, st.st_size) for rid, st in record_files(os.path.join(records, s))
                 if rid not in tomb}
        if files != indexed.get(s, {}):
            return False
    return True
