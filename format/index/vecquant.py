"""The int8 copy of a scope's rows for pruned exact search (``quantize``), and which int8
product a search uses for rows held in memory (``MEM_Q8_KERNEL``: packed or row by row)."""

from __future__ import annotations

import os
from typing import Any

from mem.format.base.errors import InvalidInputError
from mem.format.index.vecscan import Quantized, pack_rows

#: Scopes with at least this many rows (and no graph) get an int8 copy of their rows for pruned
#: exact search (``quantize``, ``exact_top``): a SIMD int8 product over all rows (numkong), a
#: rigorous bound on its error, and the float32 product only for the rows the bound cannot rule
#: out. The result is the exact top k (spec/index.md, "Exact search with int8 bounds").
#: The crossover with the plain numpy product: from this size the int8 copy wins with hot and
#: cold caches; below it either wins by little, and the copy (a quarter of the matrix) is not
#: worth its space (bench/README.md, "Figures behind constants in the code").
QUANT_MIN_ROWS = 8_192


#: Which int8 product ``q8_candidates`` uses for rows held in memory (long-lived searchers):
#: "packed" (numkong's ``dots_packed`` over the rows packed once, ``pack_rows``), "inner"
#: (numkong's row-by-row ``inner``) or "auto" (packed where it is the faster: ``packed_faster``).
#: Environment: ``MEM_Q8_KERNEL``. Memory-mapped rows (one-shot searches) always use ``inner``:
#: packing 100k rows takes about 30 ms, more than it saves.
Q8_KERNELS = ("auto", "packed", "inner")


def q8_kernel() -> str:
    """``MEM_Q8_KERNEL`` (one of ``Q8_KERNELS``; default auto), checked by every search that
    uses int8 rows, memory-mapped or not, so a bad value is an error wherever it is set."""
    how = os.environ.get("MEM_Q8_KERNEL", "auto").strip().lower() or "auto"
    if how not in Q8_KERNELS:
        raise InvalidInputError(f"MEM_Q8_KERNEL={how!r} is not one of {', '.join(Q8_KERNELS)}")
    return how


def packed_rows(z: Any) -> tuple[tuple[int, int, Any], ...] | None:
    """``z``'s rows packed for ``q8_candidates`` (``pack_rows``), or None for ``inner``, as
    ``MEM_Q8_KERNEL`` says (default auto: ``packed_faster``)."""
    how = q8_kernel()
    if how == "inner" or len(z) == 0 or (how == "auto" and not packed_faster(z.shape[1])):
        return None
    return pack_rows(z)


_PACKED_FASTER: dict[int, bool] = {}


def packed_faster(dim: int) -> bool:
    """Whether numkong's packed int8 product beats its row-by-row product on this machine, for
    rows of ``dim``; decided once per process and dimension, and kept.

    On CPUs with int8 dot-product instructions (AVX-512 VNNI, AVX-VNNI: ``INT8_DOT_CAPABILITIES``)
    it does; on AVX2 alone it is slower (bench/README.md, "Figures behind constants in the code"). Elsewhere it is
    measured: 65,536 random rows in the parts a search uses, best of 7 passes each, interleaved.
    A measurement is at the mercy of what else runs (a searcher loads its rows while its other
    thread embeds the query), so it can choose the slower product; either way the products are
    the same integers.
    """
    got = _PACKED_FASTER.get(dim)
    if got is None:
        got = _PACKED_FASTER[dim] = _has_int8_dot() or _measure_packed(dim)
    return got


#: numkong's names of x86 CPU generations with int8 dot-product instructions (AVX-512 VNNI or
#: AVX-VNNI), where its packed product is the faster: no measurement needed there.
INT8_DOT_CAPABILITIES = ("icelake", "alder", "sierra", "sapphire", "sapphireamx", "genoa", "turin",
                         "graniteamx", "diamond")


def _has_int8_dot() -> bool:
    import numkong

    try:
        caps = numkong.get_capabilities()
    except Exception:  # an older numkong: measure instead
        return False
    return any(bool(caps.get(name)) for name in INT8_DOT_CAPABILITIES)


def _measure_packed(dim: int, rows: int = 65_536, rounds: int = 7) -> bool:
    import time

    import numkong
    import numpy as np

    rng = np.random.default_rng(0)
    z = np.frombuffer(rng.bytes(rows * dim), dtype=np.int8).reshape(rows, dim)  # any int8 values do
    w = rng.integers(-127, 128, size=dim, dtype=np.int8)
    packed = pack_rows(z)
    out = np.empty(rows, dtype=np.float32)
    best = [np.inf, np.inf]
    for _ in range(rounds):
        t = time.perf_counter()
        for lo, hi, _p in packed:
            numkong.inner(z[lo:hi], w, out=out[lo:hi])
        best[0] = min(best[0], time.perf_counter() - t)
        t = time.perf_counter()
        for _lo, _hi, part in packed:
            numkong.dots_packed(w.reshape(1, dim), part)
        best[1] = min(best[1], time.perf_counter() - t)
    return bool(best[1] < best[0])


#: Rows quantized at a time: each block's float64 temporaries are a few times its size (1,024
#: rows of 384: about 3 MB each; 8,192 rows made them 25 MB each, the largest part of a 100k
#: vector rebuild's peak after the scope's matrix; bench/README.md, "Memory bounded").
_QUANT_BLOCK = 1024


def quantize(mat: Any) -> Quantized | None:
    """Row j as ``z_j = round(x_j / s_j)`` in int8 with ``s_j = max_i |x_ji| / 127`` rounded up to
    float32 (0 and ``z_j = 0`` for a zero row), and ``norm``, the largest row norm rounded up
    (see ``q8_candidates``). None when a row is not finite."""
    import numpy as np

    n, dim = mat.shape
    z = np.empty((n, dim), dtype=np.int8)
    scale = np.empty(n, dtype=np.float32)
    norm = 0.0
    for a in range(0, n, _QUANT_BLOCK):
        block = np.asarray(mat[a:a + _QUANT_BLOCK], dtype=np.float64)
        if not np.isfinite(block).all():
            return None
        s64 = np.abs(block).max(axis=1) / 127.0
        s = s64.astype(np.float32)
        up = s < s64
        s[up] = np.nextafter(s[up], np.float32(np.inf))
        q = np.rint(block / np.where(s > 0, s, 1).astype(np.float64)[:, None])
        z[a:a + _QUANT_BLOCK] = np.clip(q, -127, 127, out=q)
        scale[a:a + _QUANT_BLOCK] = s
        norm = max(norm, float(np.sqrt(np.einsum("ij,ij->i", block, block)).max()))
    return Quantized(z, scale, norm * (1.0 + 1e-9))  # rounded up: float64 sums of dim squares
