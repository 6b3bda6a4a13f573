"""The vectors of an index build, made as the records are read (``VectorStream``).

The records pass through in windows of ``BULK_WINDOW``: each record's vector is reused from the
live index when it was computed in the same space from the same content and embedded text (and is plausible), else
embedded, the window's records shortest first (less padding) in batches; the window's vectors are
then appended to one file per scope in the build folder, in the order the records were read. At
the end each scope's rows are sorted by id and its matrix read back, one scope at a time, for the
new generation (``build_vectors``). A build then holds one window of records and the largest
scope's rows and matrix (what the new generation is made of), whatever the store's size: before, it held every record
and every vector until the end (556 MB at 100k records without a model; bench/README.md,
"Bulk embedding and the embedding backlog").
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import MemError, StoreIOError
from mem.format.rules.embedtext import same_text

if TYPE_CHECKING:
    from mem.format.embed import Embedder, EmbeddingSpace
    from mem.format.index.lexical import DocFields
    from mem.format.index.vectors import VectorIndex


def plausible(v: Any, space: EmbeddingSpace) -> bool:
    """A stored vector worth reusing: right length, finite, unit length when the space is L2-normalized."""
    import numpy as np

    if v.shape != (space.dim,) or not bool(np.isfinite(v).all()):
        return False
    return space.normalization != "l2" or abs(float(np.linalg.norm(v)) - 1.0) < 1e-3


def reusable(old: VectorIndex | None, space: EmbeddingSpace) -> VectorIndex | None:
    """``old`` when its vectors may be reused for ``space``: same space, and its side tables and
    every scope's rows and matrix readable (a damaged index is never trusted: nothing of it is
    reused and every record is embedded again); else None, ``old`` closed."""
    if old is None:
        return None
    try:
        if old.space == space:
            old.vectors_for(())  # the side tables
            for scope in old.scopes():
                main = old.main(scope)
                if main.rows:
                    main.matrix(space.dim)
            return old
    except (MemError, OSError, ValueError):
        pass
    old.close()
    return None


class _ScopeFile:
    """One scope's vectors so far, in the order they came: their rows in ``<n>.f32``, their
    ``id digest`` lines in ``<n>.ids`` (nothing of them is held in memory)."""

    __slots__ = ("ids", "n", "path")

    def __init__(self, folder: Path, k: int) -> None:
        self.path = folder / f"{k}.f32"
        self.ids = folder / f"{k}.ids"
        self.n = 0


class VectorStream:
    """Vectors for the records passed through :meth:`through`, kept in ``folder`` (made here,
    inside the build folder) until :meth:`scopes` hands them over.

    ``scopes``: the store's scopes (each gets an entry, an empty one included); ``reuse``: the
    live index whose vectors may be reused (see :func:`reusable`), closed by :meth:`close`.
    """

    def __init__(self, folder: Path, embedder: Embedder, scopes: Collection[str], *,
                 reuse: VectorIndex | None = None, window: int, batch: int) -> None:
        folder.mkdir(mode=0o700)
        self.folder = folder
        self.embedder = embedder
        self.space = embedder.space
        self.window = max(1, window)
        self.batch = max(1, batch)
        self.records = 0
        self.embedded = 0
        self.reused = 0
        self._old = reuse
        self._names = set(scopes)
        self._files: dict[str, _ScopeFile] = {}

    def through(self, items: Iterable[tuple[DocFields, int, int]]) -> Iterator[tuple[DocFields, int, int]]:
        """Yield ``items`` unchanged, making the vectors of each window of them as it fills; the
        last window's when ``items`` ends (iterate to the end)."""
        buf: list[DocFields] = []
        for item in items:
            yield item
            buf.append(item[0])
            if len(buf) >= self.window:
                self._window(buf)
                buf = []
        if buf:
            self._window(buf)

    def _window(self, recs: list[DocFields]) -> None:
        import numpy as np

        n = len(recs)
        mat = np.empty((n, self.space.dim), dtype=np.float32)
        todo = list(range(n))
        if self._old is not None:
            recipe = self._old.text_recipe
            try:
                got = self._old.vectors_for((r.scope, r.id, r.digest) for r in recs)
            except (MemError, OSError, ValueError):  # checked by reusable(): embed the rest
                self._old.close()
                self._old, got = None, {}
            todo = []
            for i, r in enumerate(recs):
                v = got.get((r.scope, r.id))
                if v is not None and plausible(v, self.space) and same_text(recipe, r.content, r.kind,
                                                                             r.speaker or None):
                    mat[i] = v
                    self.reused += 1
                else:
                    todo.append(i)
        todo.sort(key=lambda i: len(recs[i].content))
        for start in range(0, len(todo), self.batch):
            part = todo[start:start + self.batch]
            mat[part] = self.embedder.embed([recs[i].embedding_text for i in part])
            self.embedded += len(part)
        by_scope: dict[str, list[int]] = {}
        for i, r in enumerate(recs):
            by_scope.setdefault(r.scope, []).append(i)
        for scope, idx in by_scope.items():
            f = self._files.get(scope)
            if f is None:
                f = self._files[scope] = _ScopeFile(self.folder, len(self._files))
                self._names.add(scope)
            with open(f.path, "ab") as out:
                out.write(np.ascontiguousarray(mat[idx]).tobytes())
            with open(f.ids, "a", encoding="utf-8") as out:  # ids and digests hold no space
                out.write("".join(f"{recs[i].id} {recs[i].digest}\n" for i in idx))
            f.n += len(idx)
        self.records += n

    def scopes(self) -> Iterator[tuple[str, list[tuple[str, str]], Any]]:
        """(scope, [(id, digest)] sorted by id, float32 matrix in that order), one scope at a
        time, each scope's file removed once read (``build_vectors`` takes this)."""
        import numpy as np

        dim = self.space.dim
        for scope in sorted(self._names):
            f = self._files.pop(scope, None)
            if f is None:
                yield scope, [], np.zeros((0, dim), dtype=np.float32)
                continue
            n = f.n
            got = [(rid, dg) for rid, _sp, dg in (line.rstrip("\n").partition(" ") for line in
                                                  f.ids.read_text("utf-8").splitlines())]
            mat = np.fromfile(f.path, dtype=np.float32)
            f.path.unlink()
            f.ids.unlink()
            if mat.size != n * dim or len(got) != n:
                raise StoreIOError(f"the build's vectors of scope {scope!r} read back as {mat.size} values and "
                                   f"{len(got)} ids, expected {n * dim} and {n}", path=f.path)
            mat = mat.reshape(n, dim)
            order = sorted(range(n), key=got.__getitem__)  # by id (ids are unique in a scope)
            rows = [got[i] for i in order]
            if any(i != j for j, i in enumerate(order)):
                mat = mat[order]
            yield scope, rows, mat
            del mat, rows

    def close(self) -> None:
        if self._old is not None:
            self._old.close()
            self._old = None
