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

One concept a module: ``vecdb`` (the side tables), ``vecmain`` (a scope's main rows, matrix, int8
rows and graph), ``vecscan`` (the exact search: ``VectorQuery``, ``Scan``), ``vecquant`` (the int8
rows and the product used on them), ``vecbuild`` (writing a generation); this module holds the
open generation (``VectorIndex``) and keeps their public names importable from here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError
from mem.format.embed import EmbeddingSpace
from mem.format.index.common import (
    REBUILD_HINT,
    VECTORS_KIND,
    VECTORS_POINTER,
    io_failure,
    read_pointer,
)
from mem.format.index.vecbuild import build_vectors, build_vectors_from
from mem.format.index.vecbuild import write_vectors_pointer as write_vectors_pointer
from mem.format.index.vecdb import Side, install_log, open_db, read_changes, read_side
from mem.format.index.vecmain import HNSW_MIN_ROWS, HNSW_PARAMS, ScopeMain
from mem.format.index.vecmain import FixedRows as FixedRows
from mem.format.index.vecmain import read_rows as read_rows
from mem.format.index.vecmain import usearch_index_class as usearch_index_class
from mem.format.index.vecquant import QUANT_MIN_ROWS, packed_rows, q8_kernel, quantize
from mem.format.index.vecscan import (
    PIECE_ROWS,
    Quantized,
    Scan,
    VecHit,
    VectorQuery,
    exact_top,
    exact_tops,
    pack_rows,
    q8_candidates,
    run_scan,
)
from mem.format.rules.embedtext import manifest_recipe

if TYPE_CHECKING:
    import sqlite3
    from concurrent.futures import Executor

    import numpy as np
    import numpy.typing as npt

#: Stacks of scopes' rows a ``VectorIndex`` keeps (``_stack``): one per set of scopes searched.
_STACKS_KEPT = 2


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
        self._mains: dict[str, ScopeMain] = {}
        self._cache_version: int | None = None
        self._side: Side | None = None  # _refresh_cache: the side tables as last read
        self._delta: dict[str, dict[str, tuple[str, Any]]] = {}  # (its parts)
        self._dead: dict[str, frozenset[str]] = {}
        self._log_ready = False  # _write_db: the side tables' log is installed
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
    def text_recipe(self) -> int:
        """The recipe of the text its vectors were made from (``rules.embedtext.manifest_recipe``)."""
        return manifest_recipe(self.manifest.get("text_recipe"))

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_db(self.path / "vectors.db")
        return self._db

    def _write_db(self) -> sqlite3.Connection:
        """``db``, for a write of ``delta`` or ``dead``: their log installed first (``vecdb``)."""
        db = self.db
        if not self._log_ready:
            install_log(db)
            self._log_ready = True
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._mains.clear()

    def scopes(self) -> list[str]:
        return sorted((self.manifest.get("scopes") or {}).keys())

    def main(self, scope: str) -> ScopeMain:
        m = self._mains.get(scope)
        if m is None:
            m = self._mains[scope] = ScopeMain(self.path, scope)
        return m

    # -- side tables ------------------------------------------------------------------------

    def _refresh_cache(self) -> None:
        """Bring the in-memory side tables (``vecdb.Side``) up to the table's state: once per
        state (SQLite's ``data_version`` and this connection's changes), and then by the keys
        logged since (``vecdb.read_changes``) when it can. Of what was derived from a scope's
        entries, a changed scope's delta stack grows when its change only added rows
        (``_grown``) and is dropped otherwise; its dead rows are dropped when its dead set changed."""
        ver = int(self.db.execute("PRAGMA data_version").fetchone()[0])
        ver = ver * 1_000_003 + int(self.db.total_changes)
        if ver == self._cache_version:
            return
        got = None if self._side is None else read_changes(self.db, self._side)
        if got is None:
            side, touched = read_side(self.db), None
        else:
            side, touched = got
        before = self._side
        self._side, self._delta, self._dead, self._cache_version = side, side.delta, side.dead, ver
        if touched is None or before is None:
            self._delta_stacks, self._dead_idx = {}, {}
            return
        stacks = dict(self._delta_stacks)
        for scope, rids in touched.items():
            stack = stacks.pop(scope, None)
            old, new = before.delta.get(scope, {}), side.delta.get(scope, {})
            if stack is not None and all(r not in old and r in new for r in rids):
                stacks[scope] = _grown(stack, [(r, *new[r]) for r in rids])  # records added
        self._delta_stacks = stacks
        self._dead_idx = {s: v for s, v in self._dead_idx.items() if before.dead.get(s) is side.dead.get(s)}

    def _live_at(self, scope: str, rid: str) -> tuple[str, Any, int] | None:
        """Where the live vector of (scope, id) is, if it has one: (digest of the content it was
        computed from, its delta vector or None, its main row or -1). A delta row wins over a
        main row, a dead main row is none; the caller has run ``_refresh_cache``."""
        d = self._delta.get(scope, {}).get(rid)
        if d is not None:
            return d[0], d[1], -1
        if rid in self._dead.get(scope, frozenset()):
            return None
        m = self.main(scope)
        i = m.find(rid)
        return None if i is None else (m.rows[i][1], None, i)

    def _live(self, scope: str, rid: str) -> tuple[str, Any] | None:
        """(digest of the content it was computed from, vector) of the live vector of (scope,
        id), if any; the caller has run ``_refresh_cache``."""
        at = self._live_at(scope, rid)
        if at is None:
            return None
        dg, v, i = at
        return (dg, v) if v is not None else (dg, self.main(scope).matrix(self.space.dim)[i])

    def _dead_rows(self, scope: str) -> int:
        """How many of the scope's main rows are dead (its dead entries may also name ids with no
        main row: ``drop`` does not look); the caller has run ``_refresh_cache``."""
        idx = self._dead_index(scope)
        return 0 if idx is None else len(idx)

    def valid_digest(self, scope: str, rid: str) -> str | None:
        """The digest of the content the live vector of (scope, id) was computed from (None: it
        has none): ``valid_digests(scope).get(rid)`` without a map of the scope's every row
        (33k rows at 100k records: tens of ms of Python per call, which a long-lived searcher's
        background round spent at each new record while its searches waited for the GIL)."""
        self._refresh_cache()
        at = self._live_at(scope, rid)
        return None if at is None else at[0]

    def valid_digests(self, scope: str) -> dict[str, str]:
        """Each id of ``scope`` with a live vector: the digest of the content it was computed from."""
        self._refresh_cache()
        m = self.main(scope)
        dead = self._dead.get(scope, frozenset())
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
        db = self._write_db()
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

        db = self._write_db()
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



def _grown(stack: tuple[list[str], list[str], Any], added: list[tuple[str, str, Any]]
           ) -> tuple[list[str], list[str], Any]:
    """A delta stack (``VectorIndex._delta_stack``) with the rows ``added`` (id, digest, vector)
    after its own: new lists, and the matrix a view of a buffer with room to spare (doubled when
    full), so that a new record costs its own row, not a copy of the scope's delta. The rows an
    older stack's view shows are never written again: a search may still hold it."""
    import numpy as np

    ids, dgs, mat = stack
    n, k = len(ids), len(added)
    buf = mat.base  # a stack made by this function: a view of the first rows of its buffer
    if (not isinstance(buf, np.ndarray) or buf.ndim != 2 or buf.shape[0] < n + k
            or buf.shape[1] != mat.shape[1] or buf.ctypes.data != mat.ctypes.data):
        buf = np.empty((2 * (n + k), mat.shape[1]), dtype=mat.dtype)
        buf[:n] = mat
    for i, (_rid, _dg, vec) in enumerate(added):
        buf[n + i] = vec
    return ids + [a[0] for a in added], dgs + [a[1] for a in added], buf[:n + k]


__all__ = ["HNSW_MIN_ROWS", "HNSW_PARAMS", "PIECE_ROWS", "QUANT_MIN_ROWS", "REBUILD_HINT", "Quantized",
           "Scan", "VecHit", "VectorIndex", "VectorQuery", "build_vectors", "build_vectors_from", "exact_top", "exact_tops",
           "pack_rows", "packed_rows", "q8_candidates", "q8_kernel", "quantize", "run_scan"]
