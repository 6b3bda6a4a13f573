"""The vector index: per-scope float32 matrices (+ usearch HNSW graphs for big scopes), a delta
side table for vectors added since the build, and the embedding-space manifest.

Layout of a generation (spec/index.md): ``<scope>.npy`` (one L2-normalized row per record),
``<scope>.rows`` (JSON list of [id, digest] in row order), ``<scope>.usearch`` (HNSW graph over
the same rows, only when the scope has at least ``HNSW_MIN_ROWS`` rows), ``<scope>.basis.npy``,
``<scope>.proj.npy`` and ``<scope>.resid.npy`` (a projection for pruned exact search, see
``PROJ_MIN_ROWS``), ``vectors.db`` (SQLite:
``delta`` vectors added since the build, ``dead`` main rows no longer valid, ``meta``).

Each scope has its own matrix and graph, so a search in one scope cannot see another's vectors.
Importing this module does not import numpy or usearch; their use is inside functions.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..embed import EmbeddingSpace
from ..errors import IndexUnavailableError
from ..timeutil import format_time, now
from .common import (
    POINTER_VERSION,
    REBUILD_HINT,
    VECTORS_KIND,
    VECTORS_POINTER,
    create_private,
    read_pointer,
    write_pointer,
)

#: One BLAS thread: on a busy 2-core machine, waking BLAS worker threads for each small product
#: costs more than it saves (hybrid p50 31.9 -> 13.4 ms measured). Set before numpy loads;
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
#: below it, and in one-shot CLI calls, exact search (plain or pruned) is used. Measured on real
#: MiniLM embeddings of a clustered 100k corpus (bench/hnsw_recall.py, bench/README.md): for the
#: labelled short queries a graph recalled 0.68-0.90 of the exact top 10 (connectivity 16, ef
#: 64-1024) and at best 0.974 (connectivity 48, ef 1024, 5.9 ms), slower than pruned exact search.
#: The vector arm must return >= 0.98 of the exact top 10, so exact search is used up to this size.
HNSW_MIN_ROWS = 200_000
#: Exact products over at least this many rows are split across two threads (when given a pool).
SPLIT_MIN_ROWS = 16_384
#: Scopes with at least this many rows (and no graph) get a projection for pruned exact search:
#: the rows projected on the top principal directions that hold PROJ_VARIANCE of the variance
#: (at most PROJ_MAX_FRACTION of the dimensions), plus each row's residual norm. By
#: Cauchy-Schwarz, ``q.x <= (P q).(P x) + |q - P'P q| * |x - P'P x|``: rows whose bound is below
#: a similarity already reached cannot be in the top k, so only the others are computed in full.
#: The result is exactly the exact top k (bench/README.md, "Vector search: exact, pruned, and HNSW").
PROJ_MIN_ROWS = 8_192
PROJ_VARIANCE = 0.98
PROJ_MAX_FRACTION = 2 / 3
PROJ_SAMPLE = 20_000
#: Safety margin on the pruning threshold (float32 rounding of the bound and the products).
PROJ_MARGIN = 1e-4
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
        if create:
            db.executescript(VEC_SQL)
        db.execute("SELECT 1 FROM delta LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise IndexUnavailableError(f"the vector index table is corrupt: {exc}", path=path,
                                    hint="run `mem rebuild --vectors`") from None
    return db


@dataclass(frozen=True, slots=True)
class VecHit:
    scope: str
    id: str
    digest: str
    similarity: float


class _ScopeMain:
    """The built (main) vectors of one scope: matrix, rows, optional graph."""

    def __init__(self, base: Path, scope: str) -> None:
        self.base = base
        self.scope = scope
        self._rows: list[tuple[str, str]] | None = None
        self._pos: dict[str, int] | None = None
        self._matrix: Any = None
        self._graph: Any = None
        self._graph_checked = False
        self._proj: tuple[Any, Any, Any] | None = None

    @property
    def rows(self) -> list[tuple[str, str]]:
        if self._rows is None:
            p = self.base / f"{self.scope}.rows"
            try:
                data = json.loads(p.read_text("utf-8"))
                self._rows = [(str(a), str(b)) for a, b in data]
            except FileNotFoundError:
                self._rows = []
            except (OSError, ValueError, TypeError) as exc:
                raise IndexUnavailableError(f"the vector rows file is corrupt: {exc}", path=p,
                                            hint="run `mem rebuild --vectors`") from None
        return self._rows

    @property
    def pos(self) -> dict[str, int]:
        if self._pos is None:
            self._pos = {rid: i for i, (rid, _d) in enumerate(self.rows)}
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

    def projection(self, dim: int, pdim: int, in_memory: bool = False) -> tuple[Any, Any, Any]:
        """(basis [pdim x dim], projected rows [n x pdim], residual norms [n]) of this scope."""
        import numpy as np

        if self._proj is None:
            n = len(self.rows)
            want = {"basis": (pdim, dim), "proj": (n, pdim), "resid": (n,)}
            arrays = []
            for name, shape in want.items():
                p = self.base / f"{self.scope}.{name}.npy"
                try:
                    a = np.load(p, mmap_mode="r")
                except (OSError, ValueError) as exc:
                    raise IndexUnavailableError(f"the vector projection cannot be read: {exc}", path=p,
                                                hint="run `mem rebuild --vectors`") from None
                if a.dtype != np.float32 or a.shape != shape:
                    raise IndexUnavailableError(
                        f"the vector projection has shape {a.shape} ({a.dtype}); expected {shape} float32",
                        path=p, hint="run `mem rebuild --vectors`",
                    )
                arrays.append(np.array(a) if in_memory or name == "basis" else a)
            self._proj = (arrays[0], arrays[1], arrays[2])
        return self._proj

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

    def valid_digest(self, scope: str, rid: str) -> str | None:
        """The digest of the content the live vector of (scope, id) was computed from, if any."""
        self._refresh_cache()
        d = self._delta.get(scope, {}).get(rid)
        if d is not None:
            return d[0]
        if rid in self._dead.get(scope, set()):
            return None
        m = self.main(scope)
        i = m.pos.get(rid)
        return None if i is None else m.rows[i][1]

    def valid_digests(self, scope: str) -> dict[str, str]:
        self._refresh_cache()
        m = self.main(scope)
        dead = self._dead.get(scope, set())
        out = {rid: dg for rid, dg in m.rows if rid not in dead}
        for rid, (dg, _v) in self._delta.get(scope, {}).items():
            out[rid] = dg
        return out

    def vector_of(self, scope: str, rid: str) -> npt.NDArray[np.float32] | None:
        self._refresh_cache()
        d = self._delta.get(scope, {}).get(rid)
        if d is not None:
            return d[1]  # type: ignore[no-any-return]
        if rid in self._dead.get(scope, set()):
            return None
        m = self.main(scope)
        i = m.pos.get(rid)
        return None if i is None else m.matrix(self.space.dim)[i]

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
                if rid in self.main(scope).pos:
                    db.execute("INSERT OR IGNORE INTO dead(scope, id) VALUES (?,?)", (scope, rid))
            for k, v in (meta or {}).items():
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (k, v))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
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
    ) -> list[VecHit]:
        """Top ``k`` by cosine similarity within each of ``scopes``, merged.

        With ``pool``, several scopes are searched at once, or a single big scope's products are
        split in two halves computed at once (numpy and BLAS release the GIL).
        """
        import numpy as np

        self._refresh_cache()
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        out: list[VecHit] = []
        jobs: list[tuple[str, Any, Any, int]] = []  # exact searches: scope, matrix, projection, want
        for scope in scopes:
            m = self.main(scope)
            dead = self._dead.get(scope, set())
            rows = m.rows
            if rows:
                g = m.graph() if use_graph and len(rows) >= HNSW_MIN_ROWS else None
                want = min(len(rows), k + len(dead))
                if g is not None:
                    g.expansion_search = max(expansion or HNSW_PARAMS["expansion_search"], want)
                    res = g.search(q, want, threads=1)
                    self._collect(out, scope, [(int(key), 1.0 - float(dist))
                                               for key, dist in zip(res.keys, res.distances, strict=False)])
                else:
                    mat = m.matrix(self.space.dim, in_memory=use_graph)
                    pdim = int(((self.manifest.get("scopes") or {}).get(scope) or {}).get("proj") or 0)
                    proj = m.projection(self.space.dim, pdim, in_memory=use_graph) if pdim else None
                    jobs.append((scope, mat, proj, want))
            delta = self._delta.get(scope)
            if delta:
                ids = list(delta)
                mat = np.stack([delta[r][1] for r in ids])
                sims = mat @ q
                for j, rid in enumerate(ids):
                    out.append(VecHit(scope, rid, delta[rid][0], float(sims[j])))
        if pool is not None and len(jobs) > 1:
            # the first (main thread) and the others (workers) at once; no nested submissions
            later = [(scope, pool.submit(exact_top, mat, q, want, projection=proj))
                     for scope, mat, proj, want in jobs[1:]]
            scope, mat, proj, want = jobs[0]
            self._collect(out, scope, exact_top(mat, q, want, projection=proj))
            for scope, fut in later:
                self._collect(out, scope, fut.result())
        else:
            for scope, mat, proj, want in jobs:
                self._collect(out, scope, exact_top(mat, q, want, pool=pool, projection=proj))
        out.sort(key=lambda h: (-h.similarity, h.id))
        return out[:k]

    def _collect(self, out: list[VecHit], scope: str, found: Any) -> None:
        """Append the live main rows of ``found`` ((row, similarity) pairs or exact_top's arrays)."""
        if isinstance(found, tuple):
            found = zip(found[0].tolist(), found[1].tolist(), strict=True)
        rows = self.main(scope).rows
        dead = self._dead.get(scope, set())
        for i, sim in found:
            rid, dg = rows[int(i)]
            if rid not in dead:
                out.append(VecHit(scope, rid, dg, float(sim)))

    # -- stats ------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        main = sum(len(self.main(s).rows) for s in self.scopes())
        delta = int(self.db.execute("SELECT count(*) FROM delta").fetchone()[0])
        dead = sum(1 for sc, rid in self.db.execute("SELECT scope, id FROM dead") if rid in self.main(sc).pos)
        return {"main": main, "delta": delta, "dead": dead, "vectors": main - dead + delta}


def _product(mat: Any, q: Any, pool: Executor | None) -> Any:
    """``mat @ q``, split in two halves over ``pool`` for big matrices (BLAS releases the GIL)."""
    import numpy as np

    if pool is not None and len(mat) >= SPLIT_MIN_ROWS:
        half = len(mat) // 2
        other = pool.submit(np.dot, mat[half:], q)
        return np.concatenate([np.asarray(mat[:half] @ q), np.asarray(other.result())])
    return np.asarray(mat @ q)


def exact_top(mat: Any, q: Any, want: int, *, pool: Executor | None = None,
              projection: tuple[Any, Any, Any] | None = None) -> tuple[Any, Any]:
    """The exact top ``want`` rows of ``mat`` by inner product with ``q``: (row indexes, products).

    With ``projection`` (basis, projected rows, residual norms; see ``PROJ_MIN_ROWS``) most rows
    are ruled out by their upper bound and only the others are computed in full; the rows
    returned are the same (up to ties) as without it. Not sorted.
    """
    import numpy as np

    n = len(mat)
    if want >= n:
        idx = np.arange(n)
        return idx, _product(mat, q, pool)
    if projection is not None:
        basis, proj, resid = projection
        qp = basis @ q
        qr = float(np.linalg.norm(q - basis.T @ qp)) * (1.0 + 1e-5) + 1e-6
        ub = _product(proj, qp, pool)
        ub += np.float32(qr) * resid
        seed = min(n, 4 * want)
        i0 = np.argpartition(-ub, seed - 1)[:seed] if seed < n else np.arange(n)
        e0 = np.asarray(mat[np.sort(i0)] @ q)
        # the want-th best of these rows is reached, so no row scoring less can be in the top
        t = -float(np.partition(-e0, want - 1)[want - 1]) - PROJ_MARGIN
        cand = np.flatnonzero(ub >= t)
        if 3 * len(cand) <= n:  # else a plain scan is cheaper than gathering the candidates
            s = np.asarray(mat[cand] @ q)
            sel = np.argpartition(-s, want - 1)[:want] if len(cand) > want else np.arange(len(cand))
            return cand[sel], s[sel]
    sims = _product(mat, q, pool)
    idx = np.argpartition(-sims, want - 1)[:want]
    return idx, sims[idx]


def make_projection(mat: Any, *, variance: float = PROJ_VARIANCE,
                    max_fraction: float = PROJ_MAX_FRACTION, seed: int = 0) -> tuple[Any, Any, Any] | None:
    """(basis, projected rows, residual norms) for ``exact_top``, or None when the rows'
    variance is spread over too many directions for the bound to prune (see ``PROJ_MIN_ROWS``)."""
    import numpy as np

    n, dim = mat.shape
    rng = np.random.default_rng(seed)
    sample = mat[np.sort(rng.choice(n, PROJ_SAMPLE, replace=False))] if n > PROJ_SAMPLE else mat
    _u, sv, vt = np.linalg.svd(np.asarray(sample, dtype=np.float64), full_matrices=False)
    share = np.cumsum(sv ** 2) / max(float(np.sum(sv ** 2)), 1e-30)
    pdim = int(np.searchsorted(share, variance) + 1)
    pdim = -(-pdim // 32) * 32  # whole SIMD blocks
    if pdim > int(dim * max_fraction):
        return None
    basis = np.ascontiguousarray(vt[:pdim], dtype=np.float32)
    proj = np.empty((n, pdim), dtype=np.float32)
    resid = np.empty(n, dtype=np.float32)
    b64 = basis.astype(np.float64)
    for a in range(0, n, 8192):
        block = np.asarray(mat[a:a + 8192], dtype=np.float64)
        p = block @ b64.T
        proj[a:a + 8192] = p
        r = np.linalg.norm(block - p @ b64, axis=1)
        resid[a:a + 8192] = r * (1.0 + 1e-5) + 1e-6  # rounded up: the bound must hold
    return basis, proj, resid


def build_vectors(
    dest: Path,
    space: EmbeddingSpace,
    per_scope: dict[str, list[tuple[str, str, Any]]],
    *,
    lex_generation: str | None,
    lex_seq: int,
    hnsw_min_rows: int = HNSW_MIN_ROWS,
    proj_min_rows: int | None = None,
) -> dict[str, Any]:
    """Write a generation from ready vectors: ``per_scope[scope] = [(id, digest, vector)]``."""
    import numpy as np

    dest.mkdir(mode=0o700)
    scopes_meta: dict[str, Any] = {}
    for scope, items in sorted(per_scope.items()):
        items = sorted(items, key=lambda t: t[0])
        mat = (np.stack([np.asarray(v, dtype=np.float32) for _i, _d, v in items]) if items
               else np.zeros((0, space.dim), dtype=np.float32))
        np.save(dest / f"{scope}.npy", np.ascontiguousarray(mat, dtype=np.float32))
        (dest / f"{scope}.rows").write_text(json.dumps([[i, d] for i, d, _v in items]), "utf-8")
        hnsw = len(items) >= hnsw_min_rows
        if hnsw:
            Index = usearch_index_class()
            g = Index(ndim=space.dim, metric="cos", dtype="f32",
                      connectivity=HNSW_PARAMS["connectivity"], expansion_add=HNSW_PARAMS["expansion_add"])
            g.add(np.arange(len(items), dtype=np.uint64), mat, threads=1)
            g.save(str(dest / f"{scope}.usearch"))
        pdim = 0
        if not hnsw and len(items) >= (PROJ_MIN_ROWS if proj_min_rows is None else proj_min_rows):
            got = make_projection(mat)
            if got is not None:
                for name, arr in zip(("basis", "proj", "resid"), got, strict=True):
                    np.save(dest / f"{scope}.{name}.npy", arr)
                pdim = int(got[0].shape[0])
        scopes_meta[scope] = {"rows": len(items), "hnsw": hnsw, "proj": pdim}
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


__all__ = ["HNSW_MIN_ROWS", "HNSW_PARAMS", "REBUILD_HINT", "VecHit", "VectorIndex", "build_vectors"]
