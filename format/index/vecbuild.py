"""Writing a generation of the vector index: each scope's rows file, matrix, and its graph or
int8 rows, the side tables, and the manifest the pointer file holds."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mem.format.embed import EmbeddingSpace
from mem.format.index.common import POINTER_VERSION, VECTORS_KIND, VECTORS_POINTER, write_pointer
from mem.format.index.vecdb import open_db
from mem.format.index.vecmain import HNSW_MIN_ROWS, HNSW_PARAMS, usearch_index_class
from mem.format.index.vecquant import QUANT_MIN_ROWS, quantize
from mem.format.rules.embedtext import TEXT_RECIPE
from mem.format.rules.timeutil import format_time, now


def build_vectors(
    dest: Path,
    space: EmbeddingSpace,
    per_scope: dict[str, list[tuple[str, str, Any]]] | Iterable[tuple[str, list[tuple[str, str]], Any]],
    *,
    lex_generation: str | None,
    lex_seq: int,
    hnsw_min_rows: int = HNSW_MIN_ROWS,
    quant_min_rows: int | None = None,
    text_recipe: int = TEXT_RECIPE,
) -> dict[str, Any]:
    """Write a generation from ready vectors: ``per_scope[scope] = [(id, digest, vector)]``, or
    scopes one at a time as :func:`build_vectors_from` takes them; made from the text of recipe
    ``text_recipe`` (rules/embedtext.py)."""
    import numpy as np

    if not isinstance(per_scope, dict):
        return build_vectors_from(dest, space, per_scope, lex_generation=lex_generation, lex_seq=lex_seq,
                                  hnsw_min_rows=hnsw_min_rows, quant_min_rows=quant_min_rows,
                                  text_recipe=text_recipe)
    ready = per_scope

    def scopes() -> Iterator[tuple[str, list[tuple[str, str]], Any]]:
        for scope in sorted(ready):
            items = sorted(ready[scope], key=lambda t: t[0])
            mat = (np.stack([np.asarray(v, dtype=np.float32) for _i, _d, v in items]) if items
                   else np.zeros((0, space.dim), dtype=np.float32))
            yield scope, [(i, d) for i, d, _v in items], mat

    return build_vectors_from(dest, space, scopes(), lex_generation=lex_generation, lex_seq=lex_seq,
                              hnsw_min_rows=hnsw_min_rows, quant_min_rows=quant_min_rows, text_recipe=text_recipe)


def build_vectors_from(
    dest: Path,
    space: EmbeddingSpace,
    scopes: Iterable[tuple[str, list[tuple[str, str]], Any]],
    *,
    lex_generation: str | None,
    lex_seq: int,
    hnsw_min_rows: int = HNSW_MIN_ROWS,
    quant_min_rows: int | None = None,
    text_recipe: int = TEXT_RECIPE,
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
    db = open_db(dest / "vectors.db", create=True)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lex_generation', ?)", (lex_generation or "",))
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('lex_seq', ?)", (str(lex_seq),))
    db.close()
    return {
        "kind": VECTORS_KIND,
        "version": POINTER_VERSION,
        "generation": dest.name,
        "built_at": format_time(now()),
        "space": space.to_dict(),
        "text_recipe": text_recipe,
        "scopes": scopes_meta,
        "hnsw": dict(HNSW_PARAMS, min_rows=hnsw_min_rows),
    }


def write_vectors_pointer(index_dir: Path, manifest: dict[str, Any]) -> None:
    write_pointer(index_dir, VECTORS_POINTER, manifest)
