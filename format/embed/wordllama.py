"""WordLlama (static token embeddings, 256-d): an optional, very fast embedder.

Install with ``pip install mem-toolkit[wordllama]`` and set ``[embedder] provider = "wordllama"``.
About 17,000 sentences/s on one core, but lower quality than MiniLM (39/40 vs 40/40 on the
paraphrase check in shared/research/embedders.md).

Licence question: the package and its weights are published under MIT, but the weights are
derived from the token-embedding matrices of LLaMA-2-70B (and Phi-3). Whether the Llama 2
Community Licence's terms carry over to such derived weights is not settled; a distributor who
must be sure should not make this the default. mem never does: it is opt-in.

The weights ship inside the wheel; loading uses ``cache_dir=<package dir>, disable_download=True``
so nothing is ever fetched. The weights' digest is verified at load.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import EmbedderUnavailableError
from mem.format.embed import EmbeddingSpace, check_file

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

WEIGHTS_SHA256 = "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5"
SPACE = EmbeddingSpace(
    provider="wordllama",
    model_id="wordllama l2_supercat 256 (0.4.0.post1)",
    digest="sha256:" + WEIGHTS_SHA256,
    dim=256,
    metric="cos",
    dtype="f32",
    normalization="l2",
    pooling="mean",
    max_tokens=512,
)


class WordLlamaEmbedder:
    def __init__(self) -> None:
        try:
            import wordllama
            from wordllama import WordLlama
        except ImportError:
            raise EmbedderUnavailableError(
                "the wordllama embedder is not installed",
                hint="pip install 'mem-toolkit[wordllama]', or use provider = \"minilm\"",
            ) from None
        pkg = Path(wordllama.__file__).parent
        weights = pkg / "weights" / "l2_supercat_256.safetensors"
        check_file(weights, WEIGHTS_SHA256, "the wordllama weights file", "pip install 'wordllama==0.4.0.post1'")
        try:
            self._wl: Any = WordLlama.load(cache_dir=pkg, disable_download=True)
        except Exception as exc:
            raise EmbedderUnavailableError(f"cannot load wordllama: {exc}", path=weights) from None

    @property
    def space(self) -> EmbeddingSpace:
        return SPACE

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        if not texts:
            return np.zeros((0, SPACE.dim), dtype=np.float32)
        v = np.asarray(self._wl.embed(list(texts), norm=False), dtype=np.float32)
        n = np.linalg.norm(v, axis=1, keepdims=True)
        return np.asarray(v / np.maximum(n, 1e-12), dtype=np.float32)
