"""A deterministic feature-hashing embedder. FOR TESTS ONLY: it is not semantic.

Features are the lower-cased words and the character trigrams of each word, hashed (blake2b)
into ``DIM`` buckets with a hashed sign; the row is L2-normalized. Texts sharing words get
similar vectors, paraphrases do not. Never assert semantic rankings with it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mem.format.embed import EmbeddingSpace

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

DIM = 384
SPACE = EmbeddingSpace(
    provider="hashing",
    model_id="mem-feature-hashing-v1",
    digest="hashing:blake2b-words-trigrams-v1",
    dim=DIM,
    metric="cos",
    dtype="f32",
    normalization="l2",
    pooling="sum",
    max_tokens=0,
)
_WORD = re.compile(r"\w+", re.UNICODE)


def _features(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        out.append("w:" + w)
        padded = f"<{w}>"
        out.extend("t:" + padded[i : i + 3] for i in range(len(padded) - 2))
    return out


class HashingEmbedder:
    """Deterministic, dependency-light (numpy) embedder for unit tests."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[int, float]] = {}

    @property
    def space(self) -> EmbeddingSpace:
        return SPACE

    def _bucket(self, feat: str) -> tuple[int, float]:
        hit = self._cache.get(feat)
        if hit is None:
            h = int.from_bytes(hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest(), "little")
            hit = (h % DIM, 1.0 if (h >> 32) & 1 else -1.0)
            if len(self._cache) < 200_000:
                self._cache[feat] = hit
        return hit

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            row = out[i]
            for f in _features(t):
                b, s = self._bucket(f)
                row[b] += s
            n = float(np.linalg.norm(row))
            if n > 0:
                row /= n
        return out
