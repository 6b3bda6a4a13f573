"""The lean read path of ``mem search --mode lexical``: the common case in a few imports.

A one-shot lexical search spends most of its time importing the core library (dataclasses,
pathlib, tomllib, hashlib...; see bench/README.md). When the lexical index is fresh, nothing
has to be written: the search is a tantivy query plus a re-check of every hit against its
record file and the tombstones. This module does exactly that with ``os``, tantivy, :mod:`mem.format.base.jsonlite` and
the pure text functions of :mod:`mem.format.rules.recordtext`, and gives up (returns None) whenever
it meets anything it cannot answer read-only or is not sure about:

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
9) or bad input. Every rule here is the full path's (spec/index.md); where a rule is restated
rather than shared, tests/search/test_lexfast.py checks both paths agree, negative cases
included. Hybrid and vector searches always take the full path.
"""

from __future__ import annotations

import os

from mem.format.base.errors import InvalidInputError, MemError
from mem.format.base.jsonlite import loads as _json_loads
from mem.format.rules import ids, timeutil
from mem.format.rules.recordtext import (
    _KNOWN_KEYS,
    MAX_FRONTMATTER_BYTES,
    MAX_RECORD_BYTES,
    REQUIRED_KEYS,
    STATUSES,
    _is_key,
    _parse_fast,
    canonical_body,
    split_record_text,
)

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
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

# -- constants of the store layout and the index (tests check they equal the full path's) --------

DECLARATION_FILE = "memstore.json"
CONFIG_FILE = "config.toml"
FORMAT_NAME = "mem-store"
FORMAT_VERSION = 1
CONFIG_SECTIONS = ("embedder", "verify", "search", "capture", "permissions")
RECORDS_DIR = "records"
TOMBSTONES_DIR = "tombstones"
LOCAL_DIR = ".mem"
LOCK_TIMEOUT_ENV = "MEM_LOCK_TIMEOUT"
LEXICAL_POINTER = "lexical.json"
LEXICAL_KIND = "mem-lexical-index"
POINTER_VERSION = 1
SCHEMA_VERSION = 2  # 2: the content field's own tokenizer (CONTENT_TOKENIZER); 1: tantivy's en_stem
PENDING_FILE = "lexical.pending.jsonl"
FULL_SCAN_MAX_DOCS = 2000
DEFAULT_STATUSES = ("active", "candidate")
STATUS_PRIOR = {"active": 1.0, "candidate": 0.85, "superseded": 0.7, "rejected": 0.5}

# -- the content field's words (shared with mem.format.index.derived: one implementation) ---------------

#: The tokenizer of the tantivy ``content`` field since SCHEMA_VERSION 2 (``content_analyzer``):
#: tantivy keeps only its name in the index, so every Index object that reads or writes the field
#: registers it first (``open_index``, ``lexical.build_lexical``).
CONTENT_TOKENIZER = "mem_text"
#: Chinese characters, Japanese kana and Korean syllables: the code point ranges of the CJK
#: ideograph blocks (unified, extensions A-H, compatibility), hiragana, katakana (with the
#: phonetic extensions and the half-width forms), the kana supplements and the Hangul syllables
#: (Korean writes spaces, but particles join the word before them: "서울에서", "in Seoul").
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3041, 0x309F), (0x30A1, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x1B000, 0x1B16F), (0x20000, 0x323AF),
)
_CJK = "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in CJK_RANGES)
#: A word: one letter of ``CJK_RANGES`` (Chinese and Japanese have no spaces between words; a
#: character per term is what full-text engines do without a dictionary, e.g. Lucene's standard
#: tokenizer for ideographs), or a run of any other letters and digits, as tantivy's simple tokenizer
#: (``char::is_alphanumeric``) splits the rest.
CONTENT_PATTERN = rf"[[{_CJK}]&&[\p{{Alphabetic}}\p{{N}}]]|[[\p{{Alphabetic}}\p{{N}}]--[{_CJK}]]+"
#: Words of this many bytes or more are not indexed (tantivy's en_stem drops 40, which lost
#: 40-digit git commit ids and 64-digit sha256 digests).
MAX_TERM_BYTES = 100

_ANALYZER: Any = None


def content_analyzer() -> Any:
    """The tantivy TextAnalyzer of the content field: ``CONTENT_PATTERN`` words, those of
    ``MAX_TERM_BYTES`` or more dropped, lower-cased, accents folded to ASCII where Latin letters
    have an ASCII form ("Zürich" is "zurich", "straße" "strasse": people type names without
    their accents; MiniLM's own tokenizer strips them too), English stemmer (built once)."""
    global _ANALYZER
    if _ANALYZER is None:
        import tantivy

        _ANALYZER = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(CONTENT_PATTERN))
            .filter(tantivy.Filter.remove_long(MAX_TERM_BYTES))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
    return _ANALYZER


def open_index(path: str) -> Any:
    """The tantivy index at ``path``, its content tokenizer registered."""
    import tantivy

    idx = tantivy.Index.open(path)
    idx.register_tokenizer(CONTENT_TOKENIZER, content_analyzer())
    return idx


# -- the tantivy query (shared with mem.format.index.lexical: one implementation) ----------------

#: What tantivy raises for a damaged or vanished index (it maps its errors to these).
TANTIVY_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, RuntimeError)
_OPERATORS = {"and", "or", "not", "to", "in"}


def nfc(text: str) -> str:
    """``text`` in Unicode normalization form C, as the lexical index holds it: the same word typed
    composed ("é", U+00E9) or decomposed ("e" + U+0301, as text from macOS or some PDFs comes) is
    one term. ASCII text is returned as it is, without importing unicodedata."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)


_CJK_FIRST = CJK_RANGES[0][0]


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return o >= _CJK_FIRST and any(a <= o <= b for a, b in CJK_RANGES)


def _cjk_split(word: str) -> list[str]:
    """``word`` cut before and after each of its letters of ``CJK_RANGES``."""
    if word.isascii() or not any(_is_cjk(c) for c in word):
        return [word]
    out: list[str] = []
    start = 0
    for i, c in enumerate(word):
        if _is_cjk(c):
            if start < i:
                out.append(word[start:i])
            out.append(c)
            start = i + 1
    if start < len(word):
        out.append(word[start:])
    return out


def query_words(text: str) -> list[str]:
    """The searchable words of a free-text query, lowercased: its runs of word characters, as the
    pattern ``\\w+`` finds them (a letter, digit or number of any script, or '_'), in code:
    ``import re`` costs a third of a lean ``mem search`` (ids.py). The words of ``_OPERATORS``
    are dropped, unless the query has no other word: "not" or "IN" alone is searched as the word
    it is (tantivy reads lowercase words as terms, never as operators). The text is read in NFC
    (``nfc``), and each Chinese character, kana or Hangul syllable is a word of its own
    (``CJK_RANGES``): tantivy would read a run of them, one word of the query, as a phrase."""
    text = nfc(text)
    words: list[str] = []
    start = -1
    for i, c in enumerate(text):
        if c.isalnum() or c == "_":
            if start < 0:
                start = i
        elif start >= 0:
            words.append(text[start:i])
            start = -1
    if start >= 0:
        words.append(text[start:])
    if not text.isascii():  # each letter of CJK_RANGES its own word, as the index has them
        words = [part for w in words for part in _cjk_split(w)]
    low = [m.lower() for m in words]
    return [w for w in low if w not in _OPERATORS] or low


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
) -> list[tuple[str, str, float, str]]:
    """(id, scope, BM25 score, digest) of the best ``limit`` documents for ``text``.

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
    if scopes is None:  # every scope: scored as the filter of them all would be, without its terms
        must.append((tantivy.Occur.Must, tantivy.Query.const_score_query(tantivy.Query.all_query(), 1.0)))
    for field, values in (("scope", scopes), ("kind", kinds), ("status", statuses)):
        if values is not None:
            # "any of these values", scored 1.0 like tantivy's TermSetQuery (so BM25 + 1 per
            # filter, as before) but without TermSetQuery's walk over the field's whole term
            # dictionary: 1.20 -> 0.06 ms per query at 100k (bench/README.md, "Lexical arm")
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


def _finite(v: Any) -> bool:
    """No infinite or NaN float anywhere in ``v`` (the full parser refuses to keep one)."""
    if type(v) is float:
        return v - v == 0.0
    if type(v) is dict:
        return all(_finite(x) for x in v.values())
    if type(v) is list:
        return all(_finite(x) for x in v)
    return True


def record_fields(data: dict[str, Any], body: str, scope: str, rid: str) -> LeanRecord | None:
    """The record ``scope/rid`` from fast-parsed frontmatter, or None.

    None whenever :func:`mem.format.model.record.record_from_mapping` would refuse the record, or might
    read it differently (a subset: a tag or link list written as one string, a confidence
    written as a string are left to the full parser). The property test in
    tests/search/test_lexfast.py checks that every record accepted here parses to the same values.
    """
    if not ids.is_id(rid) or not ids.is_scope(scope):
        return None
    for key, value in data.items():  # extension keys (validate_record's rule)
        if key not in _KNOWN_KEYS and (key == "content" or not _is_key(key) or not _finite(value)):
            return None
    for key in REQUIRED_KEYS:
        if key not in data or data[key] in (None, ""):
            return None
    if data["id"] != rid or data["scope"] != scope or type(data["digest"]) is not str:
        return None
    kind, status = data["kind"], data["status"]
    if type(kind) is not str or not ids.is_kind(kind) or type(status) is not str or status not in STATUSES:
        return None
    conf = data.get("confidence", 1.0)
    if type(conf) not in (int, float) or not 0.0 <= conf <= 1.0:
        return None
    tags = data.get("tags")
    if tags is None:
        tags = ()
    elif type(tags) is list and all(type(t) is str and ids.is_tag(t) for t in tags):
        tags = tuple(sorted(set(tags)))
    else:
        return None
    for key in ("supersedes", "derived_from"):
        links = data.get(key)
        if links is not None and not (
            type(links) is list and all(type(x) is str and ids.is_id(x) and x != rid for x in links)
        ):
            return None
    by = data.get("superseded_by")
    if by is not None and (type(by) is not str or not ids.is_id(by) or by == rid):
        return None
    src = data.get("source") or {}
    if type(src) is not dict or not _finite(src):
        return None
    if not all(type(k) is str and _is_key(k) for k in src):
        return None
    st = src.get("type")
    if st is not None and type(st) is not str:
        return None
    times: dict[str, Any] = {}
    for key in ("valid_from", "valid_to", "recorded_at", "updated_at", "superseded_at"):
        v = data.get(key)
        times[key] = None if v in (None, "") else timeutil.parse_time(v, key)
    if times["valid_from"] and times["valid_to"] and times["valid_to"] < times["valid_from"]:
        return None
    if not body.strip():
        return None
    if len(body) > MAX_RECORD_BYTES // 4 and len(body.encode("utf-8")) > MAX_RECORD_BYTES:
        return None
    content = canonical_body(body)
    return LeanRecord(
        rid, scope, kind, status, round(float(conf), 4), tags, times["valid_from"], times["valid_to"],
        times["recorded_at"], times["superseded_at"], content,
        "sha256:" + _sha256(canonical_body(content).encode("utf-8")).hexdigest(),
    )


def read_record(path: str, scope: str, rid: str) -> LeanRecord | None:
    """The record in the file at ``path`` when the canonical reader accepts it, else None."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) > MAX_RECORD_BYTES + MAX_FRONTMATTER_BYTES:
            return None
        fm, body, _ = split_record_text(raw.decode("utf-8"))
        return record_fields(_parse_fast(fm), body, scope, rid)
    except Exception:  # unreadable, not canonical, a bad value: the full parser decides
        return None


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


def scan_scope(d: str) -> Iterator[tuple[str, os.stat_result]]:
    """(id, lstat) of the record files of one scope folder (the index's rule: ``<ID>.md``
    regular files, no symbolic links)."""
    try:
        it = os.scandir(d)
    except (FileNotFoundError, NotADirectoryError):
        return
    with it:
        for e in it:
            name = e.name
            if not name.endswith(".md") or not ids.is_id(name[:-3]):
                continue
            try:
                if not e.is_file(follow_symlinks=False):
                    continue
                st = e.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            yield name[:-3], st


# -- opening the store and the index -------------------------------------------------------------

def config_ok(raw: bytes) -> bool:
    """Whether ``config.toml`` with these bytes opens (read_config raises nothing)."""
    from mem.format.base.tomlplain import plain_tables

    text = raw.decode("utf-8")
    if plain_tables(text) is not None:
        return True
    import tomllib

    data = tomllib.loads(text)
    return all(isinstance(data.get(name, {}), dict) for name in CONFIG_SECTIONS)


def find_root(store_path: str | None) -> str | None:
    """The store root Store.open(store_path) would use, or None when it would fail."""
    if store_path is not None:
        p = os.path.expanduser(store_path)
        if not os.path.isdir(p) or not os.path.exists(os.path.join(p, DECLARATION_FILE)):
            return None
        return os.path.realpath(p)
    d = os.path.realpath(os.getcwd())
    while True:
        if os.path.isfile(os.path.join(d, DECLARATION_FILE)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def store_ok(root: str) -> bool:
    """Whether Store(root) opens without an error (declaration, configuration, records/, env)."""
    with open(os.path.join(root, DECLARATION_FILE), "rb") as f:
        decl = _json_loads(f.read().decode("utf-8"))
    if not isinstance(decl, dict) or decl.get("format") != FORMAT_NAME:
        return False
    if type(decl.get("version")) is not int or decl["version"] != FORMAT_VERSION:
        return False
    exts = decl.get("extensions", [])
    if not isinstance(exts, list) or not all(
        isinstance(e, dict) and isinstance(e.get("name"), str) and not e.get("must_understand", True) for e in exts
    ):
        return False
    try:
        with open(os.path.join(root, CONFIG_FILE), "rb") as f:
            if not config_ok(f.read()):
                return False
    except FileNotFoundError:
        pass
    if os.path.islink(os.path.join(root, RECORDS_DIR)):
        return False
    env = os.environ.get(LOCK_TIMEOUT_ENV)
    if env:
        float(env)  # ValueError: the full path reports it
    return True


def store_scopes(records: str) -> list[str]:
    """Store.scopes(): the folders of records/ named like a scope (no symbolic links)."""
    try:
        entries = os.scandir(records)
    except FileNotFoundError:
        return []
    with entries:
        return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False) and ids.is_scope(e.name))


def _dir_mtime(path: str) -> int:
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
    if old != {s: _dir_mtime(os.path.join(records, s)) for s in scopes}:
        return None
    if int(m.get("docs", 0)) <= FULL_SCAN_MAX_DOCS and not _files_match(root, os.path.join(index_dir, gen), scopes):
        return None
    return m


def _files_match(root: str, gen_dir: str, scopes: list[str]) -> bool:
    """The full stat scan of a small store finds nothing to re-index (index/__init__._plan)."""
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
        tomb = _tombstones(root, s)
        files = {rid: (st.st_mtime_ns, st.st_size) for rid, st in scan_scope(os.path.join(records, s))
                 if rid not in tomb}
        if files != indexed.get(s, {}):
            return False
    return True


def _tombstones(root: str, scope: str) -> set[str]:
    try:
        with open(os.path.join(root, TOMBSTONES_DIR, scope + ".jsonl"), "rb") as f:
            return tombstoned_ids(f.read())
    except FileNotFoundError:
        return set()


# -- the search ----------------------------------------------------------------------------------


def prior_of(status: str, confidence: float, recorded_at: _dt.datetime,
             at: _dt.datetime) -> tuple[float, dict[str, float]]:
    """A hit's prior: status x confidence x recency, and its parts (:func:`mem.format.search.engine.prior`)."""
    s = STATUS_PRIOR.get(status, 0.5)
    c = 0.75 + 0.25 * float(confidence)
    age_days = max(0.0, (at - recorded_at).total_seconds() / 86400.0)
    r: float = 1.0 + 0.1 * 0.5 ** (age_days / 180.0)
    return s * c * r, {"status": s, "confidence": round(c, 4), "recency": round(r, 4)}


def prior_ms(status: str, confidence: float, recorded_ms: int, at_ms: int) -> float:
    """``prior_of``'s value from epoch milliseconds, without its parts: the same float when both
    times are whole milliseconds (``(at - recorded_at).total_seconds()`` is then the correctly
    rounded ``(at_ms - recorded_ms) / 1000``)."""
    age_days = max(0.0, (at_ms - recorded_ms) / 1000 / 86400.0)
    r: float = 1.0 + 0.1 * 0.5 ** (age_days / 180.0)
    return STATUS_PRIOR.get(status, 0.5) * (0.75 + 0.25 * float(confidence)) * r


def matches(rec: LeanRecord, kinds: Sequence[str] | None, statuses: Sequence[str], tags: Sequence[str] | None,
            as_of: _dt.datetime | None, known_at: _dt.datetime | None) -> bool:
    """RecordFilter.matches for the filters a search sets (``statuses``: the effective ones)."""
    if kinds is not None and rec.kind not in kinds:
        return False
    if rec.status not in statuses:
        return False
    if tags and not set(tags).issubset(rec.tags):
        return False
    if as_of is not None:
        if rec.valid_from is not None and rec.valid_from > as_of:
            return False
        if rec.valid_to is not None and rec.valid_to <= as_of:
            return False
    if known_at is not None:
        if rec.recorded_at > known_at:
            return False
        if rec.superseded_at is not None and rec.superseded_at <= known_at:
            return False
    return True


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
    k: int = 10,
) -> LeanResult | None:
    """What ``Searcher.search(query, mode="lexical", ...)`` returns on the store Store.open(store_path)
    opens, when it can be answered read-only; None otherwise (see the module docstring)."""
    try:
        return _search(store_path, query, scopes, kinds, tags, statuses, as_of, known_at, k)
    except (_GiveUp, MemError, OSError, ValueError, TypeError, AttributeError, KeyError, UnicodeError):
        return None
    except Exception:  # tantivy, sqlite3, tomllib: whatever it is, the full path reports it
        return None


def _search(store_path: str | None, query: str, scopes: Sequence[str] | None, kinds: Sequence[str] | None,
            tags: Sequence[str] | None, statuses: Sequence[str] | None, as_of: _dt.datetime | None,
            known_at: _dt.datetime | None, k: int) -> LeanResult | None:
    if not query.strip() or not 1 <= k <= 1000:
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
    if statuses is not None:
        eff = list(statuses)
    elif as_of is not None or known_at is not None:
        eff = ["active", "candidate", "superseded"]
    else:
        eff = list(DEFAULT_STATUSES)
    root = find_root(store_path)
    if root is None or not store_ok(root):
        return None
    at = timeutil.now()
    records = os.path.join(root, RECORDS_DIR)
    all_scopes = store_scopes(records)
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
                t = tomb[scope] = _tombstones(root, scope)
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
