"""Applying changes to both indexes: documents put into and deleted from the lexical index, and
the vectors of records whose content changed dropped; the index files given the store's modes."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from mem.format.index.common import VECTORS_POINTER
from mem.format.index.staleness import _open_vectors

if TYPE_CHECKING:
    from mem.format.index.lexical import DocFields, LexicalIndex
    from mem.format.index.vectors import VectorIndex
    from mem.format.store.store import Store


def secure(store: Store, path: Path | None = None) -> None:
    """Give the index files the store's modes (config.toml [permissions], owner-only by default).

    tantivy and numpy create files with the process umask; every index write ends with this
    (a walk of the changed generation: tens of files). Best effort: a failure to chmod never
    fails the write (the index folder itself is created owner-only).
    """
    from mem.format.index.common import secure_tree

    with contextlib.suppress(OSError):
        secure_tree(path or store.index_dir, store.config.file_mode, store.config.dir_mode)


def _apply(store: Store, lex: LexicalIndex, puts: list[tuple[DocFields, int, int]],
           deletes: list[tuple[str, str]]) -> None:
    try:
        _apply_both(store, lex, puts, deletes)
    finally:
        secure(store, lex.path)


def _apply_both(store: Store, lex: LexicalIndex, puts: list[tuple[DocFields, int, int]],
                deletes: list[tuple[str, str]]) -> None:
    changed = lex.apply(puts, deletes)
    if not (changed or deletes) or not (store.index_dir / VECTORS_POINTER).exists():
        return  # a new record has no vector to invalidate: the vector index is not even opened
    vec = _open_vectors(store)
    if vec is None:
        return
    try:
        drop = list(deletes)
        digests = {(f.scope, f.id): f.digest for f, _m, _s in puts}
        vec._refresh_cache()
        for key in changed:
            d = vec._delta.get(key[0], {}).get(key[1])
            if d is not None and d[0] == digests[key]:
                continue  # same content (a status/tag change): the vector stays valid
            if d is None and _main_digest(vec, key) == digests[key]:
                continue
            drop.append(key)
        vec.drop(drop)
    finally:
        vec.close()


def _main_digest(vec: VectorIndex, key: tuple[str, str]) -> str | None:
    m = vec.main(key[0])
    if key[1] in vec._dead.get(key[0], frozenset()):
        return None
    i = m.find(key[1])
    return None if i is None else m.rows[i][1]
