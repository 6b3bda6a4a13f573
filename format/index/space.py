"""The embedding space of a store: the configured embedder's, honouring the space its vector
index records (spec/index.md, "Embedding spaces").

MiniLM has two graphs, each its own space (``[embedder] graph``, :mod:`mem.format.embed.minilm`).
When the config does not name one, a store keeps the one its vector index was made with, so
that a store made before the int8 graph keeps searching with the vectors it has; a store without
a vector index gets the default (int8). Every command that loads an embedder for a store loads
it through here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import IndexUnavailableError

if TYPE_CHECKING:
    from mem.format.embed import Embedder, EmbeddingSpace
    from mem.format.store.store import Store


def recorded_space(store: Store) -> EmbeddingSpace | None:
    """The space the store's live vector index records (``vectors.json``); None when it has no
    vector index, or a manifest that cannot be read (the index code reports that itself)."""
    from mem.format.index.common import VECTORS_KIND, VECTORS_POINTER, read_pointer

    try:
        return space_in(read_pointer(store.index_dir, VECTORS_POINTER, VECTORS_KIND))
    except IndexUnavailableError:
        return None


def space_in(manifest: Mapping[str, Any] | None) -> EmbeddingSpace | None:
    """The space a vector index's manifest records (None: no manifest, or no readable space)."""
    from mem.format.embed import EmbeddingSpace

    if manifest is None or not isinstance(manifest.get("space"), dict):
        return None
    try:
        return EmbeddingSpace.from_dict(manifest["space"])
    except (KeyError, TypeError, ValueError):
        return None


def store_space(store: Store, recorded: EmbeddingSpace | None = None) -> EmbeddingSpace:
    """The space the configured embedder embeds in for this store (``recorded``: its vector
    index's space when the caller has it open; else read from the manifest)."""
    from mem.format.embed import configured_space

    return configured_space(store.config, recorded=recorded if recorded is not None else recorded_space(store))


def store_embedder(store: Store, provider: str | None = None, *, threads: int | None = None,
                   quick_start: bool = False, recorded: EmbeddingSpace | None = None) -> Embedder:
    """The configured embedder (or ``provider``'s) for this store, in the space it keeps."""
    from mem.format.embed import choose, load_embedder

    ch = choose(store.config)
    return load_embedder(provider or ch.provider, threads=ch.threads if threads is None else threads,
                         config=store.config, quick_start=quick_start,
                         recorded=recorded if recorded is not None else recorded_space(store))


__all__ = ["recorded_space", "space_in", "store_embedder", "store_space"]
