"""The lean read path of ``mem search --mode lexical``: the common case in a few imports.

A one-shot lexical search spends most of its time importing the core library (dataclasses,
pathlib, tomllib, hashlib...; see bench/README.md). When the lexical index is fresh, nothing
has to be written: the search is a tantivy query plus a re-check of every hit against its
record file and the tombstones. This module does exactly that with ``os``, tantivy and the
light modules the full path shares: the rules layer (:mod:`mem.format.rules.layout`, ``lexicon``,
``ranking``, ``storefiles``, ``recordtext``) and the index's readers
(:mod:`mem.format.index.lexread`); it gives up (returns None) whenever it meets anything it cannot
answer read-only or is not sure about:

- the store cannot be opened exactly as :meth:`mem.format.store.store.Store.open` would (declaration,
  ``config.toml``, ``records/`` a symbolic link, ``MEM_LOCK_TIMEOUT``);
- the lexical index is absent, its manifest does not parse, its generation is missing, or
  tantivy fails in any way;
- the write journal (``lexical.pending.jsonl``) is not empty, or a scope directory's mtime
  differs from the manifest (or, for stores of at most ``FULL_SCAN_MAX_DOCS`` records, any
  record file's (mtime_ns, size) differs from the state table);
- a hit is stale (tombstoned, file gone, digest differs from the index's) or its file is not
  one the canonical reader accepts;
- a bad query, scope, kind, tag or status (the full path words the error).

The caller then runs the full path (:class:`mem.format.search.engine.Searcher`), which behaves exactly
as it would have: it applies the journal, refreshes or rebuilds the index, reports damage (exit
9) or bad input. Every rule here is the full path's (spec/index.md), called, not restated: the
record file is read by the rules layer's reader (:func:`mem.format.rules.recordtext.read_fast`,
``lean_fields``), the store's root found by :func:`mem.format.rules.layout.named_store` and
``store_above``, the filters applied by :func:`mem.format.rules.ranking.fields_match`: the
functions the full path calls. tests/search/test_lexfast.py checks both paths agree, negative
cases included. Hybrid and vector searches always take the full path.
"""

from __future__ import annotations

import os

from mem.format.base.errors import MemError
from mem.format.index.lexread import fresh_manifest, open_index, run_query, scope_tombstones
from mem.format.rules import ids, timeutil
from mem.format.rules.layout import (
    CONFIG_FILE,
    DECLARATION_FILE,
    LOCAL_DIR,
    LOCK_TIMEOUT_ENV,
    RECORDS_DIR,
    named_store,
    scope_names,
    store_above,
)
from mem.format.rules.ranking import effective_statuses, fields_match, prior_of
from mem.format.rules.recordtext import (
    MAX_FRONTMATTER_BYTES,
    MAX_RECORD_BYTES,
    STATUSES,
    canonical_body,
    lean_fields,
    read_fast,
)
from mem.format.rules.settings import MAX_K, value_in
from mem.format.rules.storefiles import Refusal, accept_config, accept_declaration

# SHA-256 from CPython's builtin module, because hashlib would load OpenSSL (a few ms) for one
# digest per hit. The builtin is private and was renamed: ``_sha256`` up to 3.11, ``_sha2`` from
# 3.12. hashlib is the fallback for any interpreter with neither (tests/core/test_pyversions.py
# checks that all three give the same digests, and that the lean path runs without the builtins).
try:
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]
except ImportError:
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,no-redef]
    except ImportError:
        from hashlib import sha256 as _sha256  # type: ignore[assignment]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Sequence
    from typing import Any

# -- results -------------------------------------------------------------------------------------


class LeanHit:
    """A hit with the attributes of :class:`mem.format.search.engine.Hit` that rendering uses."""

    __slots__ = ("content", "id", "kind", "scope", "score", "status")
    arms = ("lexical",)
    explain = None

    def __init__(self, rec: LeanRecord, score: float) -> None:
        self.id = rec.id
        self.score = score
        self.scope = rec.scope
        self.kind = rec.kind
        self.status = rec.status
        self.content = rec.content

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "score": round(self.score, 6), "scope": self.scope, "kind": self.kind,
                "status": self.status, "content": self.content, "arms": list(self.arms)}


class LeanResult:
    """What :class:`mem.format.search.engine.SearchResult` holds for a lexical search."""

    mode = "lexical"

    def __init__(self, hits: list[LeanHit]) -> None:
        self.hits = hits
        self.warnings: list[str] = []

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "hits": [h.to_dict() for h in self.hits], "warnings": list(self.warnings)}


# -- records and tombstones ----------------------------------------------------------------------


class LeanRecord:
    """The fields of a record that a lexical search uses (filters, prior, output)."""

    __slots__ = ("confidence", "content", "digest", "id", "kind", "recorded_at", "scope", "status",
                 "superseded_at", "tags", "valid_from", "valid_to")

    def __init__(self, id: str, scope: str, kind: str, status: str, confidence: float, tags: tuple[str, ...],
                 valid_from: _dt.datetime | None, valid_to: _dt.datetime | None, recorded_at: _dt.datetime,
                 superseded_at: _dt.datetime | None, content: str, digest: str) -> None:
        self.id = id
        self.scope = scope
        self.kind = kind
        self.status = status
        self.confidence = confidence
        self.tags = tags
        self.valid_from = valid_from
        self.valid_to = valid_to
        self.recorded_at = recorded_at
        self.superseded_at = superseded_at
        self.content = content
        self.digest = digest


def record_fields(data: dict[str, Any], body: str, scope: str, rid: str) -> LeanRecord | None:
    """The record ``scope/rid`` from fast-read frontmatter, or None: the rules layer's
    :func:`mem.format.rules.recordtext.lean_fields` (None whenever the full reader might refuse
    the record or read it differently), and the file's name and folder must be its id and scope.
    """
    f = lean_fields(data, body)
    if f is None or f[0] != rid or f[1] != scope:
        return None
    content = f[15]
    return LeanRecord(rid, scope, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[10], content,
                      "sha256:" + _sha256(canonical_body(content).encode("utf-8")).hexdigest())  # Record.digest


def read_record(path: str, scope: str, rid: str) -> LeanRecord | None:
    """The record in the file at ``path`` when the canonical reader accepts it, else None."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) > MAX_RECORD_BYTES + MAX_FRONTMATTER_BYTES:
            return None
        got = read_fast(raw.decode("utf-8"))
        return None if got is None else record_fields(got[0], got[1], scope, rid)
    except Exception:  # unreadable, not canonical, a bad value: the full parser decides
        return None


# -- opening the store and the index -------------------------------------------------------------

def config_ok(raw: bytes) -> bool:
    """Whether ``config.toml`` with these bytes opens (read_config raises nothing; undecodable
    bytes raise UnicodeDecodeError, which the caller counts as "no")."""
    return not isinstance(accept_config(raw.decode("utf-8")), Refusal)


def find_root(store_path: str | None) -> str | None:
    """The store root Store.open(store_path) would use, or None when it would fail (the rules
    layer's ``named_store`` and ``store_above``, which Store.open calls)."""
    return store_above(os.getcwd()) if store_path is None else named_store(store_path)


def store_config(root: str) -> dict[str, Any] | None:
    """The tables of the store's ``config.toml`` ({} without one) when Store(root) opens without
    an error (declaration, configuration, records/, env), else None."""
    with open(os.path.join(root, DECLARATION_FILE), "rb") as f:
        if isinstance(accept_declaration(f.read()), Refusal):
            return None
    data: dict[str, Any] = {}
    try:
        with open(os.path.join(root, CONFIG_FILE), "rb") as f:
            got = accept_config(f.read().decode("utf-8"))
        if isinstance(got, Refusal):
            return None
        data = got
    except FileNotFoundError:
        pass
    if os.path.islink(os.path.join(root, RECORDS_DIR)):
        return None
    env = os.environ.get(LOCK_TIMEOUT_ENV)
    if env:
        float(env)  # ValueError: the full path reports it
    return data


def store_ok(root: str) -> bool:
    """Whether Store(root) opens without an error (declaration, configuration, records/, env)."""
    return store_config(root) is not None


# -- the search ----------------------------------------------------------------------------------


def matches(rec: LeanRecord, kinds: Sequence[str] | None, statuses: Sequence[str], tags: Sequence[str] | None,
            as_of: _dt.datetime | None, known_at: _dt.datetime | None) -> bool:
    """RecordFilter.matches for the filters a search sets (``statuses``: the effective ones): the
    rules layer's ``fields_match``, which RecordFilter calls."""
    return fields_match(rec.kind, rec.status, rec.tags, rec.valid_from, rec.valid_to, rec.recorded_at,
                        rec.superseded_at, kinds=kinds, statuses=statuses, want_tags=tags, as_of=as_of,
                        known_at=known_at)


class _GiveUp(Exception):
    """Something the lean path does not handle: the full path answers."""


def _give_up(exc: BaseException) -> Exception:
    return _GiveUp()


def lexical_search(
    store_path: str | None,
    query: str,
    *,
    scopes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    statuses: Sequence[str] | None = None,
    as_of: _dt.datetime | None = None,
    known_at: _dt.datetime | None = None,
    k: int | None = None,
) -> LeanResult | None:
    """What ``Searcher.search(query, mode="lexical", ...)`` returns on the store Store.open(store_path)
    opens, when it can be answered read-only; None otherwise (see the module docstring). ``k``:
    None for the store's ``[search] default_k``."""
    try:
        return _search(store_path, query, scopes, kinds, tags, statuses, as_of, known_at, k)
    except (_GiveUp, MemError, OSError, ValueError, TypeError, AttributeError, KeyError, UnicodeError):
        return None
    except Exception:  # tantivy, sqlite3, tomllib: whatever it is, the full path reports it
        return None


def _search(store_path: str | None, query: str, scopes: Sequence[str] | None, kinds: Sequence[str] | None,
            tags: Sequence[str] | None, statuses: Sequence[str] | None, as_of: _dt.datetime | None,
            known_at: _dt.datetime | None, k: int | None) -> LeanResult | None:
    if not query.strip() or (k is not None and not 1 <= k <= MAX_K):
        return None
    if not query.isascii():
        try:
            query.encode("utf-8")
        except UnicodeEncodeError:  # the full path words the error
            return None
    scopes = None if scopes is None else [ids.check_scope(s) for s in scopes]
    kinds = None if kinds is None else [ids.check_kind(x) for x in kinds]
    tags = None if tags is None else [ids.check_tag(t) for t in tags]
    if statuses is not None and not all(s in STATUSES for s in statuses):
        return None
    eff = list(effective_statuses(statuses, as_of is not None or known_at is not None))
    root = find_root(store_path)
    conf = None if root is None else store_config(root)
    if root is None or conf is None:
        return None
    if k is None:
        k = value_in(conf, "search", "default_k")  # a bad value (MemError): the full path reports it
    at = timeutil.now()
    records = os.path.join(root, RECORDS_DIR)
    all_scopes = scope_names(records)
    index_dir = os.path.join(root, LOCAL_DIR, "index")
    m = fresh_manifest(root, index_dir, all_scopes)
    if m is None:
        return None
    gen_dir = os.path.join(index_dir, m["generation"])

    opened: list[Any] = []

    def index() -> Any:
        if not opened:
            opened.append(open_index(gen_dir))
        return opened[0]

    def searcher() -> Any:
        if len(opened) < 2:
            opened.append(index().searcher())
        return opened[1]

    tomb: dict[str, set[str]] = {}
    fetch = max(2 * k, 20)
    hits: list[LeanHit] = []
    for _attempt in range(4):
        rows = run_query(index, searcher, query, scopes=scopes, kinds=kinds, statuses=eff, tags=tags,
                         limit=fetch, damaged=_give_up)
        cands: dict[tuple[str, str], tuple[float, str]] = {}
        for rid, scope, score, digest in rows:
            cands[(scope, rid)] = (score, digest)
        hits = []
        for (scope, rid), (score, digest) in cands.items():
            if not ids.is_scope(scope) or not ids.is_id(rid):
                return None
            t = tomb.get(scope)
            if t is None:
                t = tomb[scope] = scope_tombstones(root, scope)
            if rid in t:
                return None  # stale: the full path drops it from the index
            rec = read_record(os.path.join(records, scope, rid + ".md"), scope, rid)
            if rec is None or rec.digest != digest:
                return None  # gone, edited in place, or not canonical: the full path decides
            if (scopes is not None and rec.scope not in scopes) or not matches(rec, kinds, eff, tags, as_of, known_at):
                continue
            hits.append(LeanHit(rec, score * prior_of(rec.status, rec.confidence, rec.recorded_at, at)[0]))
        if len(hits) >= k or len(rows) < fetch:
            break
        fetch *= 4
    hits.sort(key=lambda h: (-h.score, h.id))
    return LeanResult(hits[:k])
