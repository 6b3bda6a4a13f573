"""The built (main) vectors of one scope in a generation: its rows file (``<scope>.rows``, read
by offset when it has the layout ``build_vectors`` writes), its matrix (``<scope>.npy``), its int8
rows (``<scope>.q8.npy``, ``<scope>.q8scale.npy``) and its HNSW graph (``<scope>.usearch``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError
from mem.format.index.vecquant import packed_rows, q8_kernel
from mem.format.index.vecscan import Quantized

if TYPE_CHECKING:
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
HNSW_PARAMS: dict[str, int] = {"connectivity": 16, "expansion_add": 128, "expansion_search": 160}


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


class ScopeMain:
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
