"""The vector index: per-scope float32 matrices (+ usearch HNSW graphs for big scopes), a delta
side table for vectors added since the build, and the embedding-space manifest.

Layout of a generation (spec/index.md): ``<scope>.npy`` (one L2-normalized row per record),
``<scope>.rows`` (JSON list of [id, digest] in row order), ``<scope>.usearch`` (HNSW graph over
the same rows, only when the scope has at least ``HNSW_MIN_ROWS`` rows), ``<scope>.q8.npy`` and
``<scope>.q8scale.npy`` (the rows quantized to int8 with a scale per row, for pruned exact search,
see ``QUANT_MIN_ROWS``; the manifest's scope entry then has ``"q8": {"norm": N}``), ``vectors.db``
(SQLite: ``delta`` vectors added since the build, ``dead`` main rows no longer valid, ``meta``).

Each scope has its own matrix and graph, so a search in one scope cannot see another's vectors.
A search (``VectorIndex.prepare``, ``VectorQuery.run``) computes the exact top k of each scope in
a ``Scan``: the scopes' products in parts that one or two threads take from one queue.
Importing this module does not import numpy, numkong or usearch; their use is inside functions.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError, InvalidInputError
from mem.format.embed import EmbeddingSpace
from mem.format.index.common import (
    POINTER_VERSION,
    REBUILD_HINT,
    VECTORS_KIND,
    VECTORS_POINTER,
    create_private,
    io_failure,
    open_sqlite,
    read_pointer,
    write_pointer,
)
from mem.format.rules.timeutil import format_time, now

#: One BLAS thread: on a busy 2-core machine, waking BLAS worker threads for each small product
#: costs more than it saves (bench/README.md, "Figures behind constants in the code"). Set before numpy loads;
#: an explicit OPENBLAS_NUM_THREADS wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    import sqlite3
    from concurrent.futures import Executor

    import numpy as np
    import numpy.typing as npt


def usearch_index_class() -> Any:
    """``usearch.index.Index``, imported after onnxruntime.

    With usearch 2.26 and onnxruntime 1.32 installed side by side, importing usearch's
    extension first makes a later ``import onnxruntime`` crash the process (SIGSEGV); the other
    order is fine. A long-lived process (the MCP server, a batch search) may need both, so
    onnxruntime, when installed, is always loaded first.
    """
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401
    from usearch.index import Index

    return Index


#: Scopes with at least this many rows get an HNSW graph (used by long-lived searchers);
#: below it, and in one-shot CLI calls, exact search (plain or pruned) is used. On real MiniLM
#: embeddings (bench/hnsw_recall.py, bench/README.md) a graph recalled less of the exact top 10
#: than the vector arm must return (at least 0.98), and more slowly than pruned exact search, so
#: exact search is used up to this size.
HNSW_MIN_ROWS = 200_000
#: Exact products costing at least this many int8 rows (a float32 row costs four) are shared
#: between two threads (when given a pool): for the int8 products of pruned search, about
#: where two threads break even (bench/README.md, "Figures behind constants in the code").
SPLIT_MIN_ROWS = 16_384
#: The products are computed in parts of this many int8 rows (a quarter as many float32 rows):
#: the unit of the two threads' shares, and the unit rows are packed in (``pack_rows``).
PIECE_ROWS = 8_192
#: Scopes with at least this many rows (and no graph) get an int8 copy of their rows for pruned
#: exact search (``quantize``, ``exact_top``): a SIMD int8 product over all rows (numkong), a
#: rigorous bound on its error, and the float32 product only for the rows the bound cannot rule
#: out. The result is the exact top k (spec/index.md, "Exact search with int8 bounds").
#: The crossover with the plain numpy product: from this size the int8 copy wins with hot and
#: cold caches; below it either wins by little, and the copy (a quarter of the matrix) is not
#: worth its space (bench/README.md, "Figures behind constants in the code").
QUANT_MIN_ROWS = 8_192
#: When more than this fraction of the rows pass the bound, the plain product is used instead.
QUANT_MAX_FRACTION = 1 / 3
#: Stacks of scopes' rows a ``VectorIndex`` keeps (``_stack``): one per set of scopes searched.
_STACKS_KEPT = 2
HNSW_PARAMS: dict[str, int] = {"connectivity": 16, "expansion_add": 128, "expansion_search": 160}

VEC_SQL = """
CREATE TABLE IF NOT EXISTS delta(scope TEXT NOT NULL, id TEXT NOT NULL, digest TEXT NOT NULL,
  vec BLOB NOT NULL, PRIMARY KEY(scope, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dead(scope TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(scope, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _open_db(path: Path, create: bool = False) -> sqlite3.Connection:
    import sqlite3
    if not create and not path.is_file():
        raise IndexUnavailableError("the vector index table is missing", path=path, hint="run `mem rebuild --vectors`")
    try:
        if create:
            create_private(path)
            db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(VEC_SQL)
        else:
            db, _read_only = open_sqlite(path, 30)
        db.execute("SELECT 1 FROM delta LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise io_failure(exc, path, "open the vector index table") or IndexUnavailableError(
            f"the vector index table is corrupt: {exc}", path=path, hint="run `mem rebuild --vectors`") from None
    return db


@dataclass(frozen=True, slots=True)
class VecHit:
    scope: str
    id: str
    digest: str
    similarity: float


@dataclass(frozen=True, slots=True)
class Quantized:
    """A scope's rows quantized for ``exact_top``: ``z`` int8 [n, dim], ``scale`` float32 [n]
    (row j is ``scale[j] * (z[j] + e)`` with every ``|e_i| <= 1/2``), ``norm`` >= every row's
    L2 norm; ``packed``, when set, the rows of ``z`` also packed for numkong's packed product, as
    (first row, end row, packed rows) parts covering them in order (``pack_rows``)."""

    z: Any
    scale: Any
    norm: float
    packed: tuple[tuple[int, int, Any], ...] | None = None


#: ``build_vectors`` writes a rows file as ``json.dumps([[id, digest], ...])``: with 26-character
#: ids and 71-character digests (``sha256:`` and 64 hex digits), every row takes 107 bytes,
#: ``["<id>", "<digest>"], `` (the last one without its separator, between ``[`` and ``]``).
_ROW_BYTES = 107
_ROW_TEMPLATE = b'["' + b"." * 26 + b'", "sha256:' + b"." * 64 + b'"]'
_ROW_CONST = [i for i, c in enumerate(_ROW_TEMPLATE) if c != ord(".")]


class FixedRows(Sequence[tuple[str, str]]):
    """The (id, digest) rows of a rows file of the layout ``build_vectors`` writes, read from its
    text by offset instead of parsed (``read_rows``): parsing a large rows file into tuples was a
    one-shot search's longest step after loading the model (bench/README.md, "Figures behind constants in the code")."""

    __slots__ = ("_data", "_keys", "_n", "_text")

    def __init__(self, data: bytes, n: int) -> None:
        self._data, self._text, self._n = data, data.decode("ascii"), n
        self._keys: Any = None  # the ids as a numpy bytes array when in order; False when not

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> tuple[str, str]:  # type: ignore[override]
        if not -self._n <= i < self._n:
            raise IndexError("row index out of range")
        o = 1 + _ROW_BYTES * (i % self._n)
        t = self._text
        return t[o + 2:o + 28], t[o + 32:o + 103]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(self.ids(), (self._text[o:o + 71] for o in range(33, _ROW_BYTES * self._n, _ROW_BYTES)),
                   strict=True)

    def ids(self) -> list[str]:
        t = self._text
        return [t[o:o + 26] for o in range(3, _ROW_BYTES * self._n, _ROW_BYTES)]

    def sorted_ids(self) -> Any:
        """The ids as a numpy array of 26-byte strings when they are in strictly increasing order
        (``build_vectors`` writes them sorted; checked once, ≈ 2 ms for 60,000), else None."""
        if self._keys is None:
            import numpy as np

            a = np.frombuffer(self._data, dtype=np.uint8)
            view = np.lib.stride_tricks.as_strided(a[3:], shape=(self._n, 26), strides=(_ROW_BYTES, 1))
            keys = np.ascontiguousarray(view).view("S26").reshape(self._n)
            self._keys = keys if bool((keys[1:] > keys[:-1]).all()) else False
        return None if self._keys is False else self._keys


#: Fewer rows than this are parsed as JSON (``read_rows``): the checks in place cost some 60 us
#: a file whatever its size, JSON a few for a few rows (a one-shot search of 2,000 small scopes).
_FIXED_ROWS_MIN = 64
#: A scope's matrix of at most this many bytes is read whole by a one-shot search
#: (``_read_small_matrix``) instead of memory-mapped by np.load.
_READ_WHOLE_BYTES = 1 << 20


def _read_small_matrix(path: Path, shape: tuple[int, int]) -> Any:
    """The float32 matrix of ``shape`` in the .npy file ``path``, read whole; None when its
    header is not exactly the one np.save writes for it (then np.load reads it and decides).
    np.load's memory map and header parser (a Python literal, compiled) cost about 0.3 ms a
    file: most of a one-shot search of 2,000 small scopes."""
    import io

    import numpy as np

    data = path.read_bytes()
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f4", "fortran_order": False, "shape": shape})
    want = head.getvalue()
    if not data.startswith(want) or len(data) != len(want) + 4 * shape[0] * shape[1]:
        return None
    return np.frombuffer(data, dtype="<f4", offset=len(want)).reshape(shape)


def read_rows(data: bytes) -> Sequence[tuple[str, str]]:
    """The rows of a ``<scope>.rows`` file's bytes: exactly what ``json.loads`` gives, as
    (id, digest) pairs. A file of ``_FIXED_ROWS_MIN`` rows or more of the layout ``build_vectors``
    writes is checked in place (every byte outside the ids and digests as written, nothing that
    JSON would read otherwise: no escape, no control character, no non-ASCII byte) and read by
    offset; any other file is parsed. Raises ValueError or TypeError for a file that is not a
    list of [id, digest] strings."""
    n, rem = divmod(len(data), _ROW_BYTES)
    if not rem and n >= max(1, _FIXED_ROWS_MIN) and data[:1] == b"[" and data[-1:] == b"]" and data.isascii() \
            and b"\\" not in data and data.count(b'"') == 4 * n:
        import numpy as np

        a = np.frombuffer(data, dtype=np.uint8)
        rows = np.lib.stride_tricks.as_strided(a[1:], shape=(n, len(_ROW_TEMPLATE)), strides=(_ROW_BYTES, 1))
        seps = np.lib.stride_tricks.as_strided(a[1 + len(_ROW_TEMPLATE):], shape=(n - 1, 2), strides=(_ROW_BYTES, 1))
        want = np.frombuffer(_ROW_TEMPLATE, dtype=np.uint8)[_ROW_CONST]
        if int(a.min()) >= 0x20 and bool((rows[:, _ROW_CONST] == want).all()) and bool((seps == np.frombuffer(b", ", np.uint8)).all()):
            return FixedRows(data, n)
    got = json.loads(data.decode("utf-8"))
    if not isinstance(got, list) or not all(
            isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and isinstance(r[1], str) for r in got):
        raise TypeError("the rows are not a list of [id, digest] strings")
    return [(r[0], r[1]) for r in got]


#: Lookups by id a scope answers by binary search before it builds its id -> row map.
_FIND_BEFORE_POS = 256


class _ScopeMain:
    """The built (main) vectors of one scope: matrix, rows, optional graph."""

    def __init__(self, base: Path, scope: str) -> None:
        self.base = base
        self.scope = scope
        self._rows: Sequence[tuple[str, str]] | None = None
        self._pos: dict[str, int] | None = None
        self._finds = 0
        self._matrix: Any = None
        self._graph: Any = None
        self._graph_checked = False
        self._q8: Quantized | None = None

    @property
    def rows(self) -> Sequence[tuple[str, str]]:
        if self._rows is None:
            p = self.base / f"{self.scope}.rows"
            try:
                self._rows = read_rows(p.read_bytes())
            except FileNotFoundError:
                self._rows = []
            except (OSError, ValueError, TypeError) as exc:
                raise IndexUnavailableError(f"the vector rows file is corrupt: {exc}", path=p,
                                            hint="run `mem rebuild --vectors`") from None
        return self._rows

    def rows_in_memory(self) -> Sequence[tuple[str, str]]:
        """``rows`` as a list of tuples, for a long-lived searcher: a row of a list is read in
        0.05 us, one read by offset in about 0.8 (each search reads some 40-130 after its scan)."""
        rows = self.rows
        if isinstance(rows, FixedRows):
            self._rows = rows = list(rows)
        return rows

    def find(self, rid: str) -> int | None:
        """The row of ``rid``, or None. In rows read by offset, whose ids are sorted, the first
        ``_FIND_BEFORE_POS`` lookups are binary searches (a one-shot search makes a few dozen);
        past them, or for other rows, the id -> row map ``pos`` is built once (60,000 ids:
        12-19 ms)."""
        if self._pos is None and self._finds < _FIND_BEFORE_POS:
            rows = self.rows
            keys = rows.sorted_ids() if isinstance(rows, FixedRows) else None
            if keys is not None:
                import numpy as np

                self._finds += 1
                key = rid.encode("utf-8")
                j = int(np.searchsorted(keys, key))
                return j if j < len(keys) and len(key) == 26 and keys[j] == key else None
        return self.pos.get(rid)

    @property
    def pos(self) -> dict[str, int]:
        if self._pos is None:
            rows = self.rows
            ids = rows.ids() if isinstance(rows, FixedRows) else [rid for rid, _d in rows]
            self._pos = {rid: i for i, rid in enumerate(ids)}
        return self._pos

    def matrix(self, dim: int, in_memory: bool = False) -> npt.NDArray[np.float32]:
        """The rows as a matrix: memory-mapped (one-shot use) or read into memory (long-lived:
        products over an in-memory array are several times faster than over a mapping)."""
        import numpy as np

        if in_memory and isinstance(self._matrix, np.memmap):
            self._matrix = np.array(self._matrix)
        if self._matrix is None:
            p = self.base / f"{self.scope}.npy"
            if not self.rows:
                self._matrix = np.zeros((0, dim), dtype=np.float32)
            else:
                try:
                    n = len(self.rows)
                    m = _read_small_matrix(p, (n, dim)) if 4 * n * dim <= _READ_WHOLE_BYTES else None
                    if m is None:
                        m = np.load(p, mmap_mode="r")
                except (OSError, ValueError) as exc:
                    raise IndexUnavailableError(f"the vector matrix cannot be read: {exc}", path=p,
                                                hint="run `mem rebuild --vectors`") from None
                if m.dtype != np.float32 or m.ndim != 2 or m.shape != (len(self.rows), dim):
                    raise IndexUnavailableError(
                        f"the vector matrix has shape {m.shape} ({m.dtype}); expected ({len(self.rows)}, {dim}) float32",
                        path=p, hint="run `mem rebuild --vectors`",
                    )
                self._matrix = np.array(m) if in_memory else m
        return self._matrix  # type: ignore[no-any-return]

    def quantized(self, dim: int, norm: float, in_memory: bool = False) -> Quantized:
        """The rows quantized to int8 and their scales (``<scope>.q8.npy``, ``<scope>.q8scale.npy``):
        memory-mapped (one-shot use) or read into memory (long-lived)."""
        import numpy as np

        q8_kernel()  # a bad MEM_Q8_KERNEL is an error for one-shot searches too (they never pack)
        if in_memory and self._q8 is not None and self._q8.packed is None and isinstance(self._q8.z, np.memmap):
            self._q8 = None
        if self._q8 is None:
            n = len(self.rows)
            arrays = []
            for name, dtype, shape in (("q8", np.int8, (n, dim)), ("q8scale", np.float32, (n,))):
                p = self.base / f"{self.scope}.{name}.npy"
                try:
                    a = np.load(p, mmap_mode="r")
                except (OSError, ValueError) as exc:
                    raise IndexUnavailableError(f"the quantized vectors cannot be read: {exc}", path=p,
                                                hint="run `mem rebuild --vectors`") from None
                if a.dtype != dtype or a.shape != shape:
                    raise IndexUnavailableError(
                        f"the quantized vectors have shape {a.shape} ({a.dtype}); expected {shape} {np.dtype(dtype)}",
                        path=p, hint="run `mem rebuild --vectors`",
                    )
                arrays.append(np.array(a) if in_memory else a)
            z, scale = arrays
            # a NaN, negative or infinite scale would void the bound (one pass over n floats)
            if not bool(((scale >= 0) & (scale < np.inf)).all()):
                raise IndexUnavailableError("the quantized vectors' scales are not finite and non-negative",
                                            path=self.base / f"{self.scope}.q8scale.npy",
                                            hint="run `mem rebuild --vectors`")
            packed = packed_rows(z) if in_memory else None
            if packed is not None:  # the packed rows replace the in-memory copy
                z = np.load(self.base / f"{self.scope}.q8.npy", mmap_mode="r")
            self._q8 = Quantized(z, scale, norm, packed)
        return self._q8

    def graph(self) -> Any:
        if not self._graph_checked:
            self._graph_checked = True
            p = self.base / f"{self.scope}.usearch"
            if p.is_file():
                Index = usearch_index_class()
                try:
                    g = Index.restore(str(p), view=True)
                except Exception as exc:
                    raise IndexUnavailableError(f"the HNSW graph cannot be opened: {exc}", path=p,
                                                hint="run `mem rebuild --vectors`") from None
                if g is None or len(g) != len(self.rows):
                    raise IndexUnavailableError("the HNSW graph does not match its rows file", path=p,
                                                hint="run `mem rebuild --vectors`")
                self._graph = g
        return self._graph


class VectorIndex:
    """One open generation of the vector index."""

    def __init__(self, index_dir: Path, manifest: dict[str, Any]) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        self.path = index_dir / str(manifest["generation"])
        try:
            self.space = EmbeddingSpace.from_dict(manifest["space"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IndexUnavailableError(f"the vector manifest's embedding space is invalid: {exc}",
                                        path=index_dir / VECTORS_POINTER, hint="run `mem rebuild --vectors`") from None
        self._db: sqlite3.Connection | None = None
        self._mains: dict[str, _ScopeMain] = {}
        self._cache_version: int | None = None
        self._delta: dict[str, dict[str, tuple[str, Any]]] = {}
        self._dead: dict[str, set[str]] = {}
        self._layouts: dict[tuple[str, bool], tuple[int, Any, Any, Quantized | None]] = {}  # _layout
        self._stacks: dict[tuple[str, ...], tuple[Any, Any]] = {}  # _stack
        self._delta_stacks: dict[str, tuple[list[str], list[str], Any]] = {}  # _delta_stack
        self._dead_idx: dict[str, Any] = {}  # _dead_index

    @classmethod
    def open(cls, index_dir: Path) -> VectorIndex | None:
        m = read_pointer(index_dir, VECTORS_POINTER, VECTORS_KIND)
        return None if m is None else cls(index_dir, m)

    @property
    def generation(self) -> str:
        return str(self.manifest["generation"])

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = _open_db(self.path / "vectors.db")
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._mains.clear()

    def scopes(self) -> list[str]:
        return sorted((self.manifest.get("scopes") or {}).keys())

    def main(self, scope: str) -> _ScopeMain:
        m = self._mains.get(scope)
        if m is None:
            m = self._mains[scope] = _ScopeMain(self.path, scope)
        return m

    # -- side tables ------------------------------------------------------------------------

    def _refresh_cache(self) -> None:
        ver = int(self.db.execute("PRAGMA data_version").fetchone()[0])
        ver = ver * 1_000_003 + int(self.db.total_changes)
        if ver == self._cache_version:
            return
        import numpy as np

        delta: dict[str, dict[str, tuple[str, Any]]] = {}
        for scope, rid, dg, blob in self.db.execute("SELECT scope, id, digest, vec FROM delta"):
            delta.setdefault(scope, {})[rid] = (dg, np.frombuffer(blob, dtype=np.float32))
        dead: dict[str, set[str]] = {}
        for scope, rid in self.db.execute("SELECT scope, id FROM dead"):
            dead.setdefault(scope, set()).add(rid)
        self._delta, self._dead, self._cache_version = delta, dead, ver
        self._delta_stacks = {}
        self._dead_idx = {}

    def _live(self, scope: str, rid: str) -> tuple[str, Any] | None:
        """(digest of the content it was computed from, vector) of the live vector of (scope,
        id), if any; the caller has run ``_refresh_cache``."""
        d = self._delta.get(scope, {}).get(rid)
        if d is not None:
            return d
        if rid in self._dead.get(scope, set()):
            return None
        m = self.main(scope)
        i = m.find(rid)
        return None if i is None else (m.rows[i][1], m.matrix(self.space.dim)[i])

    def _dead_rows(self, scope: str) -> int:
        """How many of the scope's main rows are dead (its dead entries may also name ids with no
        main row: ``drop`` does not look); the caller has run ``_refresh_cache``."""
        idx = self._dead_index(scope)
        return 0 if idx is None else len(idx)

    def valid_digests(self, scope: str) -> dict[str, str]:
        self._refresh_cache()
        m = self.main(scope)
        dead = self._dead.get(scope, set())
        out = {rid: dg for rid, dg in m.rows if rid not in dead}
        for rid, (dg, _v) in self._delta.get(scope, {}).items():
            out[rid] = dg
        return out

    def vector_of(self, scope: str, rid: str) -> npt.NDArray[np.float32] | None:
        """The live vector of (scope, id), whatever content it was computed from."""
        self._refresh_cache()
        live = self._live(scope, rid)
        return None if live is None else live[1]  # type: ignore[no-any-return]

    def vector_for(self, scope: str, rid: str, digest: str) -> npt.NDArray[np.float32] | None:
        """The live vector of (scope, id) if it was computed from the content of ``digest``."""
        self._refresh_cache()
        live = self._live(scope, rid)
        return None if live is None or live[0] != digest else live[1]  # type: ignore[no-any-return]

    def fill_scope(self, scope: str, rows: Sequence[tuple[str, str]], mat: Any) -> list[tuple[str, str]]:
        """Write into ``mat``'s first rows the live vectors of ``rows`` ((id, digest) sorted by id)
        that were computed from that digest, in order; returns those (id, digest). The same
        vectors as ``vector_for``, but this scope's delta is read from SQLite in id order as it
        goes, not loaded whole into memory (a merge of 100k delta rows held them all)."""
        dim = self.space.dim
        dead = {r[0] for r in self.db.execute("SELECT id FROM dead WHERE scope = ?", (scope,))}
        main = self.main(scope)
        matrix = main.matrix(dim) if main.rows else None
        cur = self.db.execute("SELECT id, digest, vec FROM delta WHERE scope = ? ORDER BY id", (scope,))
        pending = cur.fetchone()  # SQLite's BINARY order of UTF-8 = Python's order of str
        kept: list[tuple[str, str]] = []
        import numpy as np

        for rid, dg in rows:
            while pending is not None and pending[0] < rid:
                pending = cur.fetchone()
            if pending is not None and pending[0] == rid:
                if pending[1] == dg:
                    mat[len(kept)] = np.frombuffer(pending[2], dtype=np.float32)
                    kept.append((rid, dg))
                continue
            if rid in dead or matrix is None:
                continue
            i = main.find(rid)
            if i is not None and main.rows[i][1] == dg:
                mat[len(kept)] = matrix[i]
                kept.append((rid, dg))
        cur.close()
        return kept

    def vectors_for(self, items: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], Any]:
        """The live vector of each (scope, id, digest) that was computed from that digest (others
        are left out): ``vector_for`` for many, with one cache check. A vector computed from a
        given content stays valid in this space whatever happens to the record later."""
        self._refresh_cache()
        out: dict[tuple[str, str], Any] = {}
        for scope, rid, digest in items:
            live = self._live(scope, rid)
            if live is not None and live[0] == digest:
                out[(scope, rid)] = live[1]
        return out

    def drop(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Invalidate the vectors of (scope, id) pairs (record changed, moved or forgotten)."""
        pairs = list(pairs)
        if not pairs:
            return
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for scope, rid in pairs:
                # no lookup of the main rows (that would read the scope's rows file): a dead
                # entry for an id without a main row is harmless and dropped by compact
                db.execute("DELETE FROM delta WHERE scope=? AND id=?", (scope, rid))
                db.execute("INSERT OR IGNORE INTO dead(scope, id) VALUES (?,?)", (scope, rid))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def add(self, items: Sequence[tuple[str, str, str, Any]], meta: dict[str, str] | None = None) -> None:
        """Add (scope, id, digest, vector) to the delta side table (O(1) each, no re-save)."""
        import numpy as np

        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for scope, rid, dg, vec in items:
                blob = np.ascontiguousarray(vec, dtype=np.float32).tobytes()
                db.execute("INSERT OR REPLACE INTO delta(scope, id, digest, vec) VALUES (?,?,?,?)",
                           (scope, rid, dg, blob))
                if self.main(scope).find(rid) is not None:
                    db.execute("INSERT OR IGNORE INTO dead(scope, id) VALUES (?,?)", (scope, rid))
            for k, v in (meta or {}).items():
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (k, v))
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(Exception):
                db.execute("ROLLBACK")
            refused = io_failure(exc, self.path, "write the vector index")  # a full disk: exit 11
            if refused is not None:
                raise refused from None
            raise

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, values: dict[str, str]) -> None:
        for k, v in values.items():
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (k, v))

    # -- search -----------------------------------------------------------------------------

    def search(
        self,
        query: npt.NDArray[np.float32],
        scopes: Sequence[str],
        k: int,
        *,
        use_graph: bool = False,
        expansion: int | None = None,
        pool: Executor | None = None,
        keep: dict[str, Any] | None = None,
        delta_keep: dict[str, Any] | None = None,
    ) -> list[VecHit]:
        """Top ``k`` by cosine similarity within each of ``scopes``, merged (``keep``,
        ``delta_keep``: as ``prepare``'s).

        With ``pool``, the exact products of all the scopes are computed by two threads at once
        (``Scan``; numkong and BLAS release the GIL).
        """
        return self.prepare(scopes, k, use_graph=use_graph, expansion=expansion, keep=keep,
                            delta_keep=delta_keep).run(query, pool)

    def prepare(self, scopes: Sequence[str], k: int, *, use_graph: bool = False,
                expansion: int | None = None, keep: dict[str, Any] | None = None,
                delta_keep: dict[str, Any] | None = None) -> VectorQuery:
        """``search`` before the query's vector is known: the scopes' rows, graphs and delta
        vectors, and the ``Scan`` of their exact products (a thread may start it as soon as the
        vector is there: ``Scan.start``).
        ``keep``: per scope, a boolean mask of the main rows a search's filters may accept
        (``vfilter.Columns.keep``): the others are left out of the tops like dead rows (a graph
        is not masked: its hits are filtered after); ``delta_keep``: the same for each scope's
        delta rows, in the order of ``_delta_stack``."""
        self._refresh_cache()
        graphs: list[tuple[str, Any, int]] = []
        exact: list[tuple[str, Any, Quantized | None, int, Any]] = []  # scope, matrix, q8, want, dead rows
        small: list[tuple[str, Any, Any]] = []  # scope, matrix, dead rows: of the plain products
        deltas: list[tuple[str, list[str], list[str], Any, Any]] = []  # scope, ids, digests, matrix, mask
        for scope in scopes:
            n, g, mat, qz = self._layout(scope, use_graph)
            if n:
                if g is not None:  # a graph cannot leave rows out: it is asked for k + dead rows
                    want = min(n, k + self._dead_rows(scope))
                    g.expansion_search = max(expansion or HNSW_PARAMS["expansion_search"], want)
                    graphs.append((scope, g, want))
                else:
                    left_out = self._excluded(scope, keep)
                    if left_out is not None and left_out.dtype == bool and bool(left_out.all()):
                        pass  # the filters accept none of its rows: no product at all
                    elif qz is None and mat is not None:
                        small.append((scope, mat, left_out))
                    else:
                        exact.append((scope, mat, qz, min(n, k), left_out))
            if self._delta.get(scope):
                deltas.append((scope, *self._delta_stack(scope), None if delta_keep is None else delta_keep.get(scope)))
        stacked = None
        if len(small) == 1:
            scope, mat, dead = small[0]
            exact.append((scope, mat, None, min(len(mat), k), dead))
        elif small:  # one product over their rows stacked, its top k
            import numpy as np

            names = tuple(scope for scope, _m, _d in small)
            mat, offsets = self._stack(names, [m for _s, m, _d in small], in_memory=use_graph)
            excl: Any = None
            if keep is not None:  # masks: one of the stack's rows, each scope's rows in place
                excl = np.zeros(len(mat), dtype=bool)
                for i, (*_r, d) in enumerate(small):
                    if d is not None:
                        excl[offsets[i]:offsets[i + 1]][d] = True
            else:
                dead = [offsets[i] + d for i, (*_r, d) in enumerate(small) if d is not None]
                excl = np.concatenate(dead) if dead else None
            stacked = (names, offsets, mat, min(len(mat), k), excl)
        return VectorQuery(self, k, graphs, exact, deltas, stacked)

    def exact_rows(self, scope: str, use_graph: bool = False) -> int:
        """How many main rows of ``scope`` a search computes exactly (0: none, or a graph's)."""
        n, g, _mat, _qz = self._layout(scope, use_graph)
        return n if g is None else 0

    def delta_ids(self, scope: str) -> list[str]:
        """The ids of the scope's delta rows, in the order ``prepare``'s ``delta_keep`` masks use."""
        self._refresh_cache()
        return self._delta_stack(scope)[0] if self._delta.get(scope) else []

    def _excluded(self, scope: str, keep: dict[str, Any] | None) -> Any:
        """The main rows of ``scope`` a search never chooses: its dead rows (an index array, or
        None), and with ``keep`` those its mask rejects (then a boolean mask of all its rows)."""
        dead = self._dead_index(scope)
        mask = None if keep is None else keep.get(scope)
        if mask is None:
            return dead
        excl = ~mask
        if dead is not None:
            excl[dead] = True
        return excl

    def _dead_index(self, scope: str) -> Any:
        """The scope's dead main rows (superseded by a delta vector or dropped) as a sorted index
        array, or None: once per state of the dead table (``_refresh_cache``). A search leaves
        them out of its products' tops (``_Exact``) instead of asking each scope for k more rows
        per dead one: after 1,500 updates of a 6,000-row scope, 1,631 rows were turned into
        candidates and sorted at every search."""
        if scope not in self._dead_idx:
            import numpy as np

            dead = self._dead.get(scope)
            got = None
            if dead:
                m = self.main(scope)
                rows = sorted(i for i in (m.find(rid) for rid in dead) if i is not None)
                got = np.asarray(rows, dtype=np.intp) if rows else None
            self._dead_idx[scope] = got
        return self._dead_idx[scope]

    def _delta_stack(self, scope: str) -> tuple[list[str], list[str], Any]:
        """The scope's delta vectors (added since the build) as (ids, digests, matrix), stacked
        once per state of the delta table (``_refresh_cache``), not at every search: stacking
        them each time grew with every ``mem add`` since a build (bench/README.md, "Figures behind constants in the code")."""
        got = self._delta_stacks.get(scope)
        if got is None:
            import numpy as np

            delta = self._delta[scope]
            ids = list(delta)
            got = self._delta_stacks[scope] = (ids, [delta[r][0] for r in ids],
                                               np.stack([delta[r][1] for r in ids]))
        return got

    def _layout(self, scope: str, use_graph: bool) -> tuple[int, Any, Any, Quantized | None]:
        """(rows, graph or None, matrix or None, int8 rows or None) of the scope's main vectors, as
        ``prepare`` searches them: fixed for a generation, so looked up once per way of searching
        (on a store of many scopes the lookups were a large share of a search: bench/README.md, "Figures behind constants in the code")."""
        got = self._layouts.get((scope, use_graph))
        if got is None:
            m = self.main(scope)
            n = len(m.rows if not use_graph else m.rows_in_memory())
            g = m.graph() if n and use_graph and n >= HNSW_MIN_ROWS else None
            mat = qz = None
            if n and g is None:
                mat = m.matrix(self.space.dim, in_memory=use_graph)
                qz = self.quantized(scope, in_memory=use_graph)
            got = self._layouts[(scope, use_graph)] = (n, g, mat, qz)
        return got

    def _stack(self, names: tuple[str, ...], mats: list[Any], in_memory: bool) -> tuple[Any, Any]:
        """The rows of these scopes' plain products as one matrix, and where each scope's rows
        start in it (with the total last): one product, one top and one merge instead of one
        each per scope (on many small scopes the per-scope work dominated: bench/README.md, "Figures behind constants in the code"). Kept for the last
        ``_STACKS_KEPT`` sets of scopes; in a long-lived searcher the first stack also holds
        the scopes' matrices (theirs become views of it: no row is kept twice)."""
        import numpy as np

        got = self._stacks.get(names)
        if got is None:
            offsets = np.zeros(len(mats) + 1, dtype=np.int64)
            np.cumsum([len(m) for m in mats], out=offsets[1:])
            mat = np.concatenate(mats)
            if in_memory and not self._stacks:
                for i, scope in enumerate(names):
                    view = mat[offsets[i]:offsets[i + 1]]
                    self.main(scope)._matrix = view
                    n, g, _m, qz = self._layouts[(scope, True)]
                    self._layouts[(scope, True)] = (n, g, view, qz)
            while len(self._stacks) >= _STACKS_KEPT:
                del self._stacks[next(iter(self._stacks))]
            got = self._stacks[names] = (mat, offsets)
        return got

    def quantized(self, scope: str, in_memory: bool = False) -> Quantized | None:
        """The scope's int8 rows for pruned exact search, or None (a small scope, a scope with a
        graph, or a generation built before them: its ``proj`` entries are ignored and the plain
        product is used)."""
        entry = (self.manifest.get("scopes") or {}).get(scope) or {}
        q8 = entry.get("q8") if isinstance(entry, dict) else None
        if q8 is None:
            return None
        norm = q8.get("norm") if isinstance(q8, dict) else None
        if isinstance(norm, bool) or not isinstance(norm, int | float) or not 0 <= norm < float("inf"):
            raise IndexUnavailableError(f"the vector manifest's q8 entry of scope {scope!r} is invalid: {q8!r}",
                                        path=self.index_dir / VECTORS_POINTER, hint="run `mem rebuild --vectors`")
        return self.main(scope).quantized(self.space.dim, float(norm), in_memory=in_memory)

    def _live_rows(self, out: list[tuple[float, str, str, str]], scope: str, rows: Any, sims: Any) -> None:
        """Append (similarity, scope, id, digest) for the live main rows ``rows`` (indexes) of
        ``scope``, with their similarities ``sims`` (sequences or arrays, in the same order)."""
        main = self.main(scope).rows
        dead = self._dead.get(scope)
        if not isinstance(rows, list):
            rows, sims = rows.tolist(), sims.tolist()  # numpy: Python ints and floats, the same values
        for i, sim in zip(rows, sims, strict=True):
            rid, dg = main[i]
            if not dead or rid not in dead:
                out.append((sim, scope, rid, dg))

    def _stacked_rows(self, out: list[tuple[float, str, str, str]], names: tuple[str, ...], offsets: Any,
                      rows: Any, sims: Any) -> None:
        """``_live_rows`` for rows of a stack (``_stack``): each row is mapped to its scope's row."""
        import numpy as np

        rows = np.asarray(rows)
        which = np.searchsorted(offsets, rows, side="right") - 1
        for j, i, sim in zip(which.tolist(), (rows - offsets[which]).tolist(), np.asarray(sims).tolist(), strict=True):
            scope = names[j]
            rid, dg = self.main(scope).rows[i]
            dead = self._dead.get(scope)
            if not dead or rid not in dead:
                out.append((sim, scope, rid, dg))

    # -- stats ------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        main = sum(len(self.main(s).rows) for s in self.scopes())
        delta = int(self.db.execute("SELECT count(*) FROM delta").fetchone()[0])
        dead = sum(1 for sc, rid in self.db.execute("SELECT scope, id FROM dead") if self.main(sc).find(rid) is not None)
        return {"main": main, "delta": delta, "dead": dead, "vectors": main - dead + delta}


class VectorQuery:
    """A vector search prepared by ``VectorIndex.prepare``; ``run`` answers it for one query."""

    def __init__(self, index: VectorIndex, k: int, graphs: list[tuple[str, Any, int]],
                 exact: list[tuple[str, Any, Quantized | None, int, Any]],
                 deltas: list[tuple[str, list[str], list[str], Any, Any]],
                 stacked: tuple[tuple[str, ...], Any, Any, int, Any] | None = None) -> None:
        """``exact``: (scope, matrix, int8 rows, want, dead rows); ``stacked``: (scopes, offsets,
        matrix, want, dead rows) of the plain products stacked (``_stack``)."""
        self.index, self.k, self.graphs, self.exact, self.deltas = index, k, graphs, exact, deltas
        self.stacked = stacked
        jobs: list[tuple[Any, ...]] = [(mat, qz, want, dead) for _s, mat, qz, want, dead in exact]
        if stacked is not None:
            jobs.append((stacked[2], None, stacked[3], stacked[4]))
        self.scan = Scan(jobs)

    def run(self, query: Any, pool: Executor | None = None, helper: Any = None) -> list[VecHit]:
        """The top ``k`` for ``query``; with ``pool`` the scan is shared with one pool thread,
        or with ``helper``, the future of a thread that started it (``Scan``)."""
        import numpy as np

        q = np.asarray(query, dtype=np.float32).reshape(-1)
        idx, k = self.index, self.k
        self.scan.start(q)
        found = run_scan(self.scan, pool, helper)
        # every candidate as (similarity, scope, id, digest): the graphs' and the deltas' rows, and
        # each exact job's top ``want`` (which holds at least k live rows: ``want`` counts the
        # scope's dead main rows); the best k live ones, ties broken by id, as one sort of plain
        # tuples (simpler than a similarity floor computed per scope; as fast inside a search)
        cands: list[tuple[float, str, str, str]] = []
        for scope, g, want in self.graphs:
            res = g.search(q, want, threads=1)
            pairs = list(zip(res.keys, res.distances, strict=False))
            idx._live_rows(cands, scope, [int(key) for key, _d in pairs], [1.0 - float(d) for _k, d in pairs])
        for scope, ids, digests, mat, keep in self.deltas:  # all live: the best k, and any tied with the kth
            sims = np.asarray(mat @ q)
            if keep is not None:
                sims[~keep] = -np.inf
            sel: Sequence[int] = range(len(ids))
            if len(ids) > k:
                sel = np.flatnonzero(sims >= np.partition(sims, len(sims) - k)[len(sims) - k]).tolist()
            cands.extend((float(sims[j]), scope, ids[j], digests[j]) for j in sel)
        for (scope, *_rest), (rows, sims) in zip(self.exact, found[:len(self.exact)], strict=True):
            idx._live_rows(cands, scope, np.asarray(rows), np.asarray(sims))
        if self.stacked is not None:
            idx._stacked_rows(cands, self.stacked[0], self.stacked[1], *found[-1])
        cands.sort(key=lambda c: (-c[0], c[2]))
        # a row left out (dead, or rejected by a mask) has -inf: it only filled a top of too few
        return [VecHit(scope, rid, dg, sim) for sim, scope, rid, dg in cands[:k] if sim != -np.inf]


class _Query:
    """The query rounded to int8 for the bounds of ``q8_candidates`` (once per query, whatever the
    scopes): ``w = round(c q)`` with ``c = 127 / max_i |q_i|`` (``wi``, all the products need),
    and, computed when first asked (``terms``: only the bounds need them), ``a = 1/2 (1 + 1e-9)
    |w|_1``, ``|d|_2`` and ``|q|_2`` (float64)."""

    __slots__ = ("_terms", "c", "q64", "w", "wi")

    def __init__(self, c: float, q64: Any, w: Any) -> None:
        self.c, self.q64, self.w, self.wi = c, q64, w, w.astype("int8")
        self._terms: tuple[float, float, float] | None = None

    @classmethod
    def of(cls, q: Any) -> _Query | None:
        """None for a zero or non-finite query (the plain product is used)."""
        import numpy as np

        q64 = np.asarray(q, dtype=np.float64).reshape(-1)
        top = float(np.abs(q64).max()) if len(q64) else 0.0
        if not 0.0 < top < np.inf or not 127.0 / top < np.inf:
            return None
        c = 127.0 / top
        return cls(c, q64, np.rint(q64 * c))

    def terms(self) -> tuple[float, float, float]:
        """(a, |d|_2, |q|_2); any thread may ask, and the answer is always the same."""
        import numpy as np

        if self._terms is None:
            d = self.q64 * self.c - self.w
            self._terms = (0.5 * (1.0 + 1e-9) * float(np.abs(self.w).sum()), float(np.sqrt(d @ d)),
                           float(np.sqrt(self.q64 @ self.q64)))
        return self._terms

    @property
    def a(self) -> float:
        return self.terms()[0]


def _rows(mat: Any, quant: Quantized | None) -> int:
    return len(mat) if mat is not None else len(quant.z) if quant is not None else 0


def _pruned(quant: Quantized | None, want: int, n: int) -> bool:
    """Whether a job of ``want`` of ``n`` rows is computed from its int8 rows (``q8_candidates``)."""
    return quant is not None and 0 < want < n


class _Exact:
    """One job of ``exact_tops``: the exact top ``want`` rows of ``mat`` (None: only the int8
    candidates are wanted, ``q8_candidates``) by inner product with ``q``.

    Its products are computed part by part (``parts``, ``fill``), on any thread, then ``finish``
    chooses. With int8 rows the parts hold the lower bounds ``L_j`` of ``q8_candidates``, else the
    float32 products.
    """

    def __init__(self, mat: Any, want: int, quant: Quantized | None, pruned: bool = True, dead: Any = None) -> None:
        """Before the query is known (``set_query``); ``pruned``: whether the int8 rows may be
        used (not for a zero or non-finite query); ``dead``: the rows never to choose, as
        indexes or a boolean mask (their products count as -inf: they may fill a top only where
        too few others are left)."""
        import numpy as np

        self.mat, self.want, self.dead = mat, want, dead
        self.n = _rows(mat, quant)
        self.quant = quant if pruned and _pruned(quant, want, self.n) else None
        self.q: Any = None
        self.qq: _Query | None = None
        self.b = self.margin = 0.0
        self.out: Any = None
        self.raw: list[tuple[int, Any]] = []  # (first row, packed product) parts not yet in ``out``
        self.bounded = False  # ``out`` holds the lower bounds (``bounds``)
        if self.quant is not None:
            # the int8 products are integers of at most 127^2 dim: exact in float32 up to dim 1040
            dim = self.quant.z.shape[1]
            self.out = np.empty(self.n, dtype=np.float32 if 127 * 127 * dim < 2 ** 24 else np.float64)
        self.per_row = 1 if self.quant is not None or mat is None else int(mat.dtype.itemsize)

    def set_query(self, q: Any, qq: _Query | None) -> None:
        """The query (``qq``: rounded to int8, None only when ``pruned`` was false)."""
        import numpy as np

        self.q, self.qq = q, qq
        if self.quant is None and self.mat is not None:
            self.out = np.empty(self.n, dtype=np.result_type(self.mat.dtype, q.dtype))

    def _slacks(self) -> None:
        """``b`` and ``margin`` (``q8_candidates``), once the query is known."""
        assert self.quant is not None and self.qq is not None
        qq, norm, dim = self.qq, self.quant.norm, self.quant.z.shape[1]
        a, dnorm, qnorm = qq.terms()
        # |d| in float64 and the rounding of c q: both far below the slack added
        self.b = (dnorm * (1.0 + 1e-9) + dim * 1e-14) * norm
        eps = (a * norm / 127.0 + self.b) / qq.c
        self.margin = qq.c * ((2 * dim + 16) * 2.0 ** -24 * (qnorm * norm + 3.0 * eps) + dim * 2.0 ** -140)

    def parts(self) -> Sequence[tuple[int, int, Any]]:
        """(first row, end row, packed rows or None): about ``PIECE_ROWS`` int8 rows' worth each."""
        if self.quant is not None and self.quant.packed:
            return self.quant.packed
        step = max(1, PIECE_ROWS // self.per_row)
        return [(lo, min(self.n, lo + step), None) for lo in range(0, self.n, step)]

    def fill(self, lo: int, hi: int, packed: Any) -> None:
        part = self.out[lo:hi]
        if self.quant is None:
            part[...] = self.mat[lo:hi] @ self.q
            return
        import numkong

        assert self.qq is not None
        if packed is None:
            numkong.inner(self.quant.z[lo:hi], self.qq.wi, out=part)
        else:  # the same exact integers, from the packed rows (int32), copied in by ``bounds``
            self.raw.append((lo, numkong.dots_packed(self.qq.wi.reshape(1, -1), packed)))

    def bounds(self) -> Any:
        """After every part is filled, with int8 rows: the lower bounds ``L_j = s_j (w.z_j - a)``
        of all rows (the parts hold the integers ``w.z_j``: one thread's few whole-array steps
        here, not several small ones per part on two threads contending for the GIL)."""
        import numpy as np

        assert self.quant is not None and self.qq is not None
        low = self.out
        if not self.bounded:
            for lo, got in self.raw:
                part = np.asarray(got).reshape(-1)
                low[lo:lo + len(part)] = part
            self.raw = []
            low -= self.qq.a
            low *= self.quant.scale
            self.bounded = True
        return low

    def candidates(self) -> Any:
        """After every part is filled, with int8 rows: the rows that may be in the top ``want``."""
        import numpy as np

        assert self.quant is not None and self.qq is not None
        low, n, want = self.bounds(), self.n, self.want
        if self.dead is not None:
            low[self.dead] = -np.inf
        self._slacks()
        if n >= 64 * want:
            # T, the want-th largest L, among the rows at or above t0, the want-th largest of
            # every 16th row: t0 <= T (want rows of a subset reach it), so those rows hold every
            # row at or above T, and T is their want-th largest
            sample = low[::16]
            t0 = float(np.partition(sample, len(sample) - want)[len(sample) - want])
            top = low[low >= t0]
            t = float(np.partition(top, len(top) - want)[len(top) - want])
        else:
            t = float(np.partition(low, n - want)[n - want])
        a2, scale = 2.0 * self.qq.a, self.quant.scale
        thr = t - 2.0 * (self.b + self.margin)
        # the rows whose upper bound L_j + 2 a s_j reaches thr: among those with L_j at least
        # thr - 2 a max(s) (less a hair for float rounding), the same float32 test as one pass
        # over all rows would make
        reach = a2 * float(scale.max()) if n else 0.0
        rough = np.flatnonzero(low >= thr - reach - 1e-5 * (abs(thr) + reach))
        return rough[low[rough] + a2 * scale[rough] >= thr]

    def finish(self) -> tuple[Any, Any]:
        """After every part is filled: (row indexes, products) of the top ``want``. Not sorted."""
        import numpy as np

        n, want = self.n, self.want
        if self.quant is not None:
            cand = self.candidates()
            if self.mat is None:  # only the candidates are wanted (``q8_candidates``)
                return cand, None
            if len(cand) <= n * QUANT_MAX_FRACTION:
                sims = np.asarray(self.mat[cand] @ self.q)
                if len(cand) > want:
                    sel = np.argpartition(-sims, want - 1)[:want]
                    return cand[sel], sims[sel]
                return cand, sims
            self.out = np.asarray(self.mat @ self.q)  # more than a third pass: a plain scan is cheaper
        if self.dead is not None:
            self.out[self.dead] = -np.inf
        if want >= n:
            return np.arange(n), self.out
        idx = np.argpartition(-self.out, want - 1)[:want]
        return idx, self.out[idx]


class Scan:
    """The exact tops of several jobs (matrix, quantized rows or None, want) for one query, computed
    by one or two threads at once (``exact_tops``; the searcher starts it on the thread that
    embedded the query, before this one joins).

    ``start(q)`` cuts every job in parts (``_Exact.parts``: about ``PIECE_ROWS`` int8 rows' worth
    each) into one queue; each thread in ``work`` takes the next part and fills it, and the thread
    that fills a job's last part finishes that job. No thread waits for another until the queue
    is empty, however late one of them joins.
    """

    def __init__(self, jobs: Sequence[tuple[Any, ...]]) -> None:
        """``jobs``: (matrix, int8 rows or None, want[, dead rows]) each (``_Exact``)."""
        import threading
        from collections import deque

        self.jobs = [(j[0], j[1], j[2], j[3] if len(j) > 3 else None) for j in jobs]
        self._lock = threading.Lock()
        self._started = False
        self._queue: deque[tuple[_Exact, int, int, Any]] = deque()
        self._left: dict[int, int] = {}
        self._done: dict[int, tuple[Any, Any]] = {}
        # the plans and their parts, ready before the query is known
        self._plans = self._plan(pruned=True)
        #: what the products cost, in int8 rows (a float32 row costs four)
        self.cost = sum(_rows(mat, qz) * (1 if _pruned(qz, want, _rows(mat, qz)) else int(mat.dtype.itemsize))
                        for mat, qz, want, _dead in self.jobs)

    def _plan(self, pruned: bool) -> list[_Exact]:
        plans = [_Exact(mat, want, quantized, pruned, dead) for mat, quantized, want, dead in self.jobs]
        self._queue.clear()
        for plan in plans:
            parts = plan.parts()
            self._left[id(plan)] = len(parts)
            self._queue.extend((plan, *part) for part in parts)
        return plans

    def start(self, q: Any) -> None:
        """Give the parts query ``q`` (the first call; later calls do nothing)."""
        with self._lock:
            if self._started:
                return
            qq = _Query.of(q) if any(p.quant is not None for p in self._plans) else None
            if qq is None and any(p.quant is not None for p in self._plans):
                self._plans = self._plan(pruned=False)  # a zero or non-finite query: plain products
            for plan in self._plans:
                plan.set_query(q, qq)
            self._started = True

    def shared(self) -> bool:
        """Whether two threads are worth it (``SPLIT_MIN_ROWS``)."""
        return self.cost >= SPLIT_MIN_ROWS

    def work(self) -> None:
        """Fill parts until none is left, finishing each job whose last part this thread filled
        (after ``start``)."""
        assert self._started
        while True:
            try:
                plan, lo, hi, packed = self._queue.popleft()
            except IndexError:
                return
            plan.fill(lo, hi, packed)
            with self._lock:
                self._left[id(plan)] -= 1
                last = self._left[id(plan)] == 0
            if last:
                self._done[id(plan)] = plan.finish()

    def results(self) -> list[tuple[Any, Any]]:
        """Each job's (row indexes, products), in order, once every ``work`` has returned."""
        assert self._started
        return [self._done[id(p)] if id(p) in self._done else p.finish() for p in self._plans]  # or no rows


def exact_tops(jobs: Sequence[tuple[Any, Quantized | None, int]], q: Any,
               pool: Executor | None = None) -> list[tuple[Any, Any]]:
    """``exact_top`` for each (matrix, quantized rows or None, want), in order: a ``Scan``, with
    ``pool`` one pool thread working with this one when the products cost at least
    ``SPLIT_MIN_ROWS`` int8 rows (a float32 row costs four). Two threads, never more: on two cores
    a third would only wait for its turn."""
    scan = Scan(jobs)
    scan.start(q)
    return run_scan(scan, pool)


def run_scan(scan: Scan, pool: Executor | None, helper: Any = None) -> list[tuple[Any, Any]]:
    """``scan.work()`` here and, unless ``helper`` (a future of a thread already working on it)
    is given, on one ``pool`` thread when ``scan.shared()``; then its results (an error of the
    other thread is raised)."""
    from concurrent.futures import wait

    other = helper if helper is not None else (
        pool.submit(scan.work) if pool is not None and scan.shared() else None)
    try:
        scan.work()
    finally:
        if other is not None:
            wait([other])
    if other is not None:
        other.result()
    return scan.results()


def exact_top(mat: Any, q: Any, want: int, *, pool: Executor | None = None,
              quantized: Quantized | None = None) -> tuple[Any, Any]:
    """The exact top ``want`` rows of ``mat`` by inner product with ``q``: (row indexes, products).

    With ``quantized`` (the rows in int8, see ``QUANT_MIN_ROWS``) most rows are ruled out by a
    bound computed from the int8 product (``q8_candidates``) and only the others are computed in
    float32; the rows returned are the same (up to ties) as without it, and so are their products
    (float32, as the plain product computes them, up to its rounding). Not sorted.
    """
    return exact_tops([(mat, quantized, want)], q, pool)[0]


def q8_candidates(quant: Quantized, q: Any, want: int, pool: Executor | None = None) -> Any:
    """The rows that may be among the top ``want`` by inner product with ``q`` (sorted indexes,
    at least ``want`` of them; ``want`` at most the number of rows), by a bound computed
    from the int8 rows; None for a zero or non-finite query.

    The bound. Row j was stored as ``z_j = round(x_j / s_j)`` with ``s_j >= max_i |x_ji| / 127``
    (``quantize``), so ``x_j = s_j (z_j + e_j)`` exactly, with every ``|e_ji| <= 1/2 + 127 * 2^-53``
    (the float64 division's rounding; ``1/2 (1 + 1e-9)`` below). The query is scaled by
    ``c = 127 / max_i |q_i|`` and rounded: ``w = round(c q)``, ``d = c q - w``, ``|d_i| <= 1/2``.
    Then ``c q.x_j = s_j w.z_j + s_j w.e_j + d.x_j``, where ``w.z_j`` is the exact integer the
    SIMD int8 product returns, ``|w.e_j| <= a = 1/2 (1 + 1e-9) |w|_1`` and ``|d.x_j| <= b =
    |d|_2 N`` (Cauchy-Schwarz; ``N`` >= every row's norm, stored rounded up). So, scaled by c,
    ``lo_j = s_j (w.z_j - a) - b <= c q.x_j <= s_j (w.z_j + a) + b = hi_j``.

    ``T``, the ``want``-th largest ``L_j = s_j (w.z_j - a)``, gives ``want`` rows whose products
    are at least ``(T - b) / c``; a row with ``hi_j < T - b`` cannot be among the top ``want``
    (ties included), so only the rows with ``L_j + 2 a s_j >= T - 2 b`` are computed in float32,
    and the top ``want`` of those is the exact top. Float rounding: ``L_j`` and the sums above are
    float32 (a few roundings of numbers at most ``c (|q| N + 3 eps)``, with eps the largest
    ``(a s_j + b) / c``, ``s_j <= N / 127``), and the float32 products of the rows (this one and the
    plain product it must agree with) are within ``dim * 2^-24 |q| N`` of the real ones. A margin
    ``m = (2 dim + 16) 2^-24 (|q| N + 3 eps)`` on each side covers both: a row is dropped only
    when its float32 product is strictly below ``want`` others'.
    """
    import numpy as np

    if _Query.of(q) is None:
        return None
    if not _pruned(quant, want, len(quant.z)):  # want >= the rows: all of them
        return np.arange(len(quant.z))
    scan = Scan([(None, quant, want)])
    scan.start(q)
    return run_scan(scan, pool)[0][0]


#: Which int8 product ``q8_candidates`` uses for rows held in memory (long-lived searchers):
#: "packed" (numkong's ``dots_packed`` over the rows packed once, ``pack_rows``), "inner"
#: (numkong's row-by-row ``inner``) or "auto" (packed where it is the faster: ``packed_faster``).
#: Environment: ``MEM_Q8_KERNEL``. Memory-mapped rows (one-shot searches) always use ``inner``:
#: packing 100k rows takes about 30 ms, more than it saves.
Q8_KERNELS = ("auto", "packed", "inner")


def q8_kernel() -> str:
    """``MEM_Q8_KERNEL`` (one of ``Q8_KERNELS``; default auto), checked by every search that
    uses int8 rows, memory-mapped or not, so a bad value is an error wherever it is set."""
    how = os.environ.get("MEM_Q8_KERNEL", "auto").strip().lower() or "auto"
    if how not in Q8_KERNELS:
        raise InvalidInputError(f"MEM_Q8_KERNEL={how!r} is not one of {', '.join(Q8_KERNELS)}")
    return how


def packed_rows(z: Any) -> tuple[tuple[int, int, Any], ...] | None:
    """``z``'s rows packed for ``q8_candidates`` (``pack_rows``), or None for ``inner``, as
    ``MEM_Q8_KERNEL`` says (default auto: ``packed_faster``)."""
    how = q8_kernel()
    if how == "inner" or len(z) == 0 or (how == "auto" and not packed_faster(z.shape[1])):
        return None
    return pack_rows(z)


_PACKED_FASTER: dict[int, bool] = {}


def packed_faster(dim: int) -> bool:
    """Whether numkong's packed int8 product beats its row-by-row product on this machine, for
    rows of ``dim``; decided once per process and dimension, and kept.

    On CPUs with int8 dot-product instructions (AVX-512 VNNI, AVX-VNNI: ``INT8_DOT_CAPABILITIES``)
    it does; on AVX2 alone it is slower (bench/README.md, "Figures behind constants in the code"). Elsewhere it is
    measured: 65,536 random rows in the parts a search uses, best of 7 passes each, interleaved.
    A measurement is at the mercy of what else runs (a searcher loads its rows while its other
    thread embeds the query), so it can choose the slower product; either way the products are
    the same integers.
    """
    got = _PACKED_FASTER.get(dim)
    if got is None:
        got = _PACKED_FASTER[dim] = _has_int8_dot() or _measure_packed(dim)
    return got


#: numkong's names of x86 CPU generations with int8 dot-product instructions (AVX-512 VNNI or
#: AVX-VNNI), where its packed product is the faster: no measurement needed there.
INT8_DOT_CAPABILITIES = ("icelake", "alder", "sierra", "sapphire", "sapphireamx", "genoa", "turin",
                         "graniteamx", "diamond")


def _has_int8_dot() -> bool:
    import numkong

    try:
        caps = numkong.get_capabilities()
    except Exception:  # an older numkong: measure instead
        return False
    return any(bool(caps.get(name)) for name in INT8_DOT_CAPABILITIES)


def _measure_packed(dim: int, rows: int = 65_536, rounds: int = 7) -> bool:
    import time

    import numkong
    import numpy as np

    rng = np.random.default_rng(0)
    z = np.frombuffer(rng.bytes(rows * dim), dtype=np.int8).reshape(rows, dim)  # any int8 values do
    w = rng.integers(-127, 128, size=dim, dtype=np.int8)
    packed = pack_rows(z)
    out = np.empty(rows, dtype=np.float32)
    best = [np.inf, np.inf]
    for _ in range(rounds):
        t = time.perf_counter()
        for lo, hi, _p in packed:
            numkong.inner(z[lo:hi], w, out=out[lo:hi])
        best[0] = min(best[0], time.perf_counter() - t)
        t = time.perf_counter()
        for _lo, _hi, part in packed:
            numkong.dots_packed(w.reshape(1, dim), part)
        best[1] = min(best[1], time.perf_counter() - t)
    return bool(best[1] < best[0])


def pack_rows(z: Any) -> tuple[tuple[int, int, Any], ...]:
    """``z``'s rows packed for ``numkong.dots_packed``, as (first row, end row, packed rows), in
    pieces of ``PIECE_ROWS`` rows (the parts ``exact_tops`` shares between threads)."""
    import numkong

    n = len(z)
    return tuple((lo, min(n, lo + PIECE_ROWS), numkong.dots_pack(z[lo:min(n, lo + PIECE_ROWS)]))
                 for lo in range(0, n, PIECE_ROWS))


def quantize(mat: Any) -> Quantized | None:
    """Row j as ``z_j = round(x_j / s_j)`` in int8 with ``s_j = max_i |x_ji| / 127`` rounded up to
    float32 (0 and ``z_j = 0`` for a zero row), and ``norm``, the largest row norm rounded up
    (see ``q8_candidates``). None when a row is not finite."""
    import numpy as np

    n, dim = mat.shape
    z = np.empty((n, dim), dtype=np.int8)
    scale = np.empty(n, dtype=np.float32)
    norm = 0.0
    for a in range(0, n, 8192):
        block = np.asarray(mat[a:a + 8192], dtype=np.float64)
        if not np.isfinite(block).all():
            return None
        s64 = np.abs(block).max(axis=1) / 127.0
        s = s64.astype(np.float32)
        up = s < s64
        s[up] = np.nextafter(s[up], np.float32(np.inf))
        q = np.rint(block / np.where(s > 0, s, 1).astype(np.float64)[:, None])
        z[a:a + 8192] = np.clip(q, -127, 127, out=q)
        scale[a:a + 8192] = s
        norm = max(norm, float(np.sqrt(np.einsum("ij,ij->i", block, block)).max()))
    return Quantized(z, scale, norm * (1.0 + 1e-9))  # rounded up: float64 sums of dim squares


def build_vectors(
    dest: Path,
    space: EmbeddingSpace,
    per_scope: dict[str, list[tuple[str, str, Any]]],
    *,
    lex_generation: str | None,
    lex_seq: int,
    hnsw_min_rows: int = HNSW_MIN_ROWS,
    quant_min_rows: int | None = None,
) -> dict[str, Any]:
    """Write a generation from ready vectors: ``per_scope[scope] = [(id, digest, vector)]``."""
    import numpy as np

    def scopes() -> Iterator[tuple[str, list[tuple[str, str]], Any]]:
        for scope in sorted(per_scope):
            items = sorted(per_scope[scope], key=lambda t: t[0])
            mat = (np.stack([np.asarray(v, dtype=np.float32) for _i, _d, v in items]) if items
                   else np.zeros((0, space.dim), dtype=np.float32))
            yield scope, [(i, d) for i, d, _v in items], mat

    return build_vectors_from(dest, space, scopes(), lex_generation=lex_generation, lex_seq=lex_seq,
                              hnsw_min_rows=hnsw_min_rows, quant_min_rows=quant_min_rows)


def build_vectors_from(
    dest: Path,
    space: EmbeddingSpace,
    scopes: Iterable[tuple[str, list[tuple[str, str]], Any]],
    *,
    lex_generation: str | None,
    lex_seq: int,
    hnsw_min_rows: int = HNSW_MIN_ROWS,
    quant_min_rows: int | None = None,
) -> dict[str, Any]:
    """Write a generation one scope at a time: ``scopes`` yields (scope, [(id, digest)] sorted by
    id, float32 matrix of their vectors in that order), so that a caller holds one scope's
    matrix at a time (a merge of 100k vectors does not hold them all)."""
    import numpy as np

    dest.mkdir(mode=0o700)
    scopes_meta: dict[str, Any] = {}
    for scope, rows, mat in scopes:
        np.save(dest / f"{scope}.npy", np.ascontiguousarray(mat, dtype=np.float32))
        (dest / f"{scope}.rows").write_text(json.dumps([[i, d] for i, d in rows]), "utf-8")
        hnsw = len(rows) >= hnsw_min_rows
        if hnsw:
            Index = usearch_index_class()
            g = Index(ndim=space.dim, metric="cos", dtype="f32",
                      connectivity=HNSW_PARAMS["connectivity"], expansion_add=HNSW_PARAMS["expansion_add"])
            g.add(np.arange(len(rows), dtype=np.uint64), mat, threads=1)
            g.save(str(dest / f"{scope}.usearch"))
            del g
        q8: dict[str, float] | None = None
        if not hnsw and len(rows) >= (QUANT_MIN_ROWS if quant_min_rows is None else quant_min_rows):
            got = quantize(mat)
            if got is not None:
                np.save(dest / f"{scope}.q8.npy", got.z)
                np.save(dest / f"{scope}.q8scale.npy", got.scale)
                q8 = {"norm": got.norm}
        scopes_meta[scope] = {"rows": len(rows), "hnsw": hnsw, "q8": q8}
        del mat
    db = _open_db(dest / "vectors.db", create=True)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lex_generation', ?)", (lex_generation or "",))
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lex_seq', ?)", (str(lex_seq),))
    db.close()
    return {
        "kind": VECTORS_KIND,
        "version": POINTER_VERSION,
        "generation": dest.name,
        "built_at": format_time(now()),
        "space": space.to_dict(),
        "scopes": scopes_meta,
        "hnsw": dict(HNSW_PARAMS, min_rows=hnsw_min_rows),
    }


def write_vectors_pointer(index_dir: Path, manifest: dict[str, Any]) -> None:
    write_pointer(index_dir, VECTORS_POINTER, manifest)


__all__ = ["HNSW_MIN_ROWS", "HNSW_PARAMS", "PIECE_ROWS", "QUANT_MIN_ROWS", "REBUILD_HINT", "Quantized",
           "Scan", "VecHit", "VectorIndex", "VectorQuery", "build_vectors", "build_vectors_from", "exact_top", "exact_tops",
           "pack_rows", "packed_rows", "q8_candidates", "q8_kernel", "quantize", "run_scan"]
