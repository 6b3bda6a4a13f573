"""The exact search of the vector index: a prepared query (``VectorQuery``, made by
``VectorIndex.prepare``) and the ``Scan`` of its exact products, in parts that one or two threads
take from one queue; with int8 rows, the rows ruled out by the bound of ``q8_candidates`` are never
computed in float32. Importing this module does not import numpy or numkong."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

#: One BLAS thread: on a busy 2-core machine, waking BLAS worker threads for each small product
#: costs more than it saves (bench/README.md, "Figures behind constants in the code"). Set before numpy loads;
#: an explicit OPENBLAS_NUM_THREADS wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from mem.format.index.vectors import VectorIndex

#: Exact products costing at least this many int8 rows (a float32 row costs four) are shared
#: between two threads (when given a pool): for the int8 products of pruned search, about
#: where two threads break even (bench/README.md, "Figures behind constants in the code").
SPLIT_MIN_ROWS = 16_384
#: The products are computed in parts of this many int8 rows (a quarter as many float32 rows):
#: the unit of the two threads' shares, and the unit rows are packed in (``pack_rows``).
PIECE_ROWS = 8_192
#: When more than this fraction of the rows pass the bound, the plain product is used instead.
QUANT_MAX_FRACTION = 1 / 3


@dataclass(frozen=True, slots=True)
class VecHit:
    scope: str
    id: str
    digest: str
    similarity: float


@dataclass(frozen=True, slots=True)
class Quantized:
    """A scope's rows quantized for ``exact_top``: ``z`` int8 [n, dim], ``scale`` float32 [n]
    (row j is ``scale[j] * (z[j] + e)`` with every ``|e_i| <= 1/2``), ``norm`` >= every row's
    L2 norm; ``packed``, when set, the rows of ``z`` also packed for numkong's packed product, as
    (first row, end row, packed rows) parts covering them in order (``pack_rows``)."""

    z: Any
    scale: Any
    norm: float
    packed: tuple[tuple[int, int, Any], ...] | None = None


class VectorQuery:
    """A vector search prepared by ``VectorIndex.prepare``; ``run`` answers it for one query."""

    def __init__(self, index: VectorIndex, k: int, graphs: list[tuple[str, Any, int]],
                 exact: list[tuple[str, Any, Quantized | None, int, Any]],
                 deltas: list[tuple[str, list[str], list[str], Any, Any]],
                 stacked: tuple[tuple[str, ...], Any, Any, int, Any] | None = None) -> None:
        """``exact``: (scope, matrix, int8 rows, want, dead rows); ``stacked``: (scopes, offsets,
        matrix, want, dead rows) of the plain products stacked (``_stack``)."""
        self.index, self.k, self.graphs, self.exact, self.deltas = index, k, graphs, exact, deltas
        self.stacked = stacked
        jobs: list[tuple[Any, ...]] = [(mat, qz, want, dead) for _s, mat, qz, want, dead in exact]
        if stacked is not None:
            jobs.append((stacked[2], None, stacked[3], stacked[4]))
        self.scan = Scan(jobs)

    def run(self, query: Any, pool: Executor | None = None, helper: Any = None) -> list[VecHit]:
        """The top ``k`` for ``query``; with ``pool`` the scan is shared with one pool thread,
        or with ``helper``, the future of a thread that started it (``Scan``)."""
        import numpy as np

        q = np.asarray(query, dtype=np.float32).reshape(-1)
        idx, k = self.index, self.k
        self.scan.start(q)
        found = run_scan(self.scan, pool, helper)
        # every candidate as (similarity, scope, id, digest): the graphs' and the deltas' rows, and
        # each exact job's top ``want`` (which holds at least k live rows: ``want`` counts the
        # scope's dead main rows); the best k live ones, ties broken by id, as one sort of plain
        # tuples (simpler than a similarity floor computed per scope; as fast inside a search)
        cands: list[tuple[float, str, str, str]] = []
        for scope, g, want in self.graphs:
            res = g.search(q, want, threads=1)
            pairs = list(zip(res.keys, res.distances, strict=False))
            idx._live_rows(cands, scope, [int(key) for key, _d in pairs], [1.0 - float(d) for _k, d in pairs])
        for scope, ids, digests, mat, keep in self.deltas:  # all live: the best k, and any tied with the kth
            sims = np.asarray(mat @ q)
            if keep is not None:
                sims[~keep] = -np.inf
            sel: Sequence[int] = range(len(ids))
            if len(ids) > k:
                sel = np.flatnonzero(sims >= np.partition(sims, len(sims) - k)[len(sims) - k]).tolist()
            cands.extend((float(sims[j]), scope, ids[j], digests[j]) for j in sel)
        for (scope, *_rest), (rows, sims) in zip(self.exact, found[:len(self.exact)], strict=True):
            idx._live_rows(cands, scope, np.asarray(rows), np.asarray(sims))
        if self.stacked is not None:
            idx._stacked_rows(cands, self.stacked[0], self.stacked[1], *found[-1])
        cands.sort(key=lambda c: (-c[0], c[2]))
        # a row left out (dead, or rejected by a mask) has -inf: it only filled a top of too few
        return [VecHit(scope, rid, dg, sim) for sim, scope, rid, dg in cands[:k] if sim != -np.inf]


class _Query:
    """The query rounded to int8 for the bounds of ``q8_candidates`` (once per query, whatever the
    scopes): ``w = round(c q)`` with ``c = 127 / max_i |q_i|`` (``wi``, all the products need),
    and, computed when first asked (``terms``: only the bounds need them), ``a = 1/2 (1 + 1e-9)
    |w|_1``, ``|d|_2`` and ``|q|_2`` (float64)."""

    __slots__ = ("_terms", "c", "q64", "w", "wi")

    def __init__(self, c: float, q64: Any, w: Any) -> None:
        self.c, self.q64, self.w, self.wi = c, q64, w, w.astype("int8")
        self._terms: tuple[float, float, float] | None = None

    @classmethod
    def of(cls, q: Any) -> _Query | None:
        """None for a zero or non-finite query (the plain product is used)."""
        import numpy as np

        q64 = np.asarray(q, dtype=np.float64).reshape(-1)
        top = float(np.abs(q64).max()) if len(q64) else 0.0
        if not 0.0 < top < np.inf or not 127.0 / top < np.inf:
            return None
        c = 127.0 / top
        return cls(c, q64, np.rint(q64 * c))

    def terms(self) -> tuple[float, float, float]:
        """(a, |d|_2, |q|_2); any thread may ask, and the answer is always the same."""
        import numpy as np

        if self._terms is None:
            d = self.q64 * self.c - self.w
            self._terms = (0.5 * (1.0 + 1e-9) * float(np.abs(self.w).sum()), float(np.sqrt(d @ d)),
                           float(np.sqrt(self.q64 @ self.q64)))
        return self._terms

    @property
    def a(self) -> float:
        return self.terms()[0]


def _rows(mat: Any, quant: Quantized | None) -> int:
    return len(mat) if mat is not None else len(quant.z) if quant is not None else 0


def _pruned(quant: Quantized | None, want: int, n: int) -> bool:
    """Whether a job of ``want`` of ``n`` rows is computed from its int8 rows (``q8_candidates``)."""
    return quant is not None and 0 < want < n


class _Exact:
    """One job of ``exact_tops``: the exact top ``want`` rows of ``mat`` (None: only the int8
    candidates are wanted, ``q8_candidates``) by inner product with ``q``.

    Its products are computed part by part (``parts``, ``fill``), on any thread, then ``finish``
    chooses. With int8 rows the parts hold the lower bounds ``L_j`` of ``q8_candidates``, else the
    float32 products.
    """

    def __init__(self, mat: Any, want: int, quant: Quantized | None, pruned: bool = True, dead: Any = None) -> None:
        """Before the query is known (``set_query``); ``pruned``: whether the int8 rows may be
        used (not for a zero or non-finite query); ``dead``: the rows never to choose, as
        indexes or a boolean mask (their products count as -inf: they may fill a top only where
        too few others are left)."""
        import numpy as np

        self.mat, self.want, self.dead = mat, want, dead
        self.n = _rows(mat, quant)
        self.quant = quant if pruned and _pruned(quant, want, self.n) else None
        self.q: Any = None
        self.qq: _Query | None = None
        self.b = self.margin = 0.0
        self.out: Any = None
        self.raw: list[tuple[int, Any]] = []  # (first row, packed product) parts not yet in ``out``
        self.bounded = False  # ``out`` holds the lower bounds (``bounds``)
        if self.quant is not None:
            # the int8 products are integers of at most 127^2 dim: exact in float32 up to dim 1040
            dim = self.quant.z.shape[1]
            self.out = np.empty(self.n, dtype=np.float32 if 127 * 127 * dim < 2 ** 24 else np.float64)
        self.per_row = 1 if self.quant is not None or mat is None else int(mat.dtype.itemsize)

    def set_query(self, q: Any, qq: _Query | None) -> None:
        """The query (``qq``: rounded to int8, None only when ``pruned`` was false)."""
        import numpy as np

        self.q, self.qq = q, qq
        if self.quant is None and self.mat is not None:
            self.out = np.empty(self.n, dtype=np.result_type(self.mat.dtype, q.dtype))

    def _slacks(self) -> None:
        """``b`` and ``margin`` (``q8_candidates``), once the query is known."""
        assert self.quant is not None and self.qq is not None
        qq, norm, dim = self.qq, self.quant.norm, self.quant.z.shape[1]
        a, dnorm, qnorm = qq.terms()
        # |d| in float64 and the rounding of c q: both far below the slack added
        self.b = (dnorm * (1.0 + 1e-9) + dim * 1e-14) * norm
        eps = (a * norm / 127.0 + self.b) / qq.c
        self.margin = qq.c * ((2 * dim + 16) * 2.0 ** -24 * (qnorm * norm + 3.0 * eps) + dim * 2.0 ** -140)

    def parts(self) -> Sequence[tuple[int, int, Any]]:
        """(first row, end row, packed rows or None): about ``PIECE_ROWS`` int8 rows' worth each."""
        if self.quant is not None and self.quant.packed:
            return self.quant.packed
        step = max(1, PIECE_ROWS // self.per_row)
        return [(lo, min(self.n, lo + step), None) for lo in range(0, self.n, step)]

    def fill(self, lo: int, hi: int, packed: Any) -> None:
        part = self.out[lo:hi]
        if self.quant is None:
            part[...] = self.mat[lo:hi] @ self.q
            return
        import numkong

        assert self.qq is not None
        if packed is None:
            numkong.inner(self.quant.z[lo:hi], self.qq.wi, out=part)
        else:  # the same exact integers, from the packed rows (int32), copied in by ``bounds``
            self.raw.append((lo, numkong.dots_packed(self.qq.wi.reshape(1, -1), packed)))

    def bounds(self) -> Any:
        """After every part is filled, with int8 rows: the lower bounds ``L_j = s_j (w.z_j - a)``
        of all rows (the parts hold the integers ``w.z_j``: one thread's few whole-array steps
        here, not several small ones per part on two threads contending for the GIL)."""
        import numpy as np

        assert self.quant is not None and self.qq is not None
        low = self.out
        if not self.bounded:
            for lo, got in self.raw:
                part = np.asarray(got).reshape(-1)
                low[lo:lo + len(part)] = part
            self.raw = []
            low -= self.qq.a
            low *= self.quant.scale
            self.bounded = True
        return low

    def candidates(self) -> Any:
        """After every part is filled, with int8 rows: the rows that may be in the top ``want``."""
        import numpy as np

        assert self.quant is not None and self.qq is not None
        low, n, want = self.bounds(), self.n, self.want
        if self.dead is not None:
            low[self.dead] = -np.inf
        self._slacks()
        if n >= 64 * want:
            # T, the want-th largest L, among the rows at or above t0, the want-th largest of
            # every 16th row: t0 <= T (want rows of a subset reach it), so those rows hold every
            # row at or above T, and T is their want-th largest
            sample = low[::16]
            t0 = float(np.partition(sample, len(sample) - want)[len(sample) - want])
            top = low[low >= t0]
            t = float(np.partition(top, len(top) - want)[len(top) - want])
        else:
            t = float(np.partition(low, n - want)[n - want])
        a2, scale = 2.0 * self.qq.a, self.quant.scale
        thr = t - 2.0 * (self.b + self.margin)
        # the rows whose upper bound L_j + 2 a s_j reaches thr: among those with L_j at least
        # thr - 2 a max(s) (less a hair for float rounding), the same float32 test as one pass
        # over all rows would make
        reach = a2 * float(scale.max()) if n else 0.0
        rough = np.flatnonzero(low >= thr - reach - 1e-5 * (abs(thr) + reach))
        return rough[low[rough] + a2 * scale[rough] >= thr]

    def finish(self) -> tuple[Any, Any]:
        """After every part is filled: (row indexes, products) of the top ``want``. Not sorted."""
        import numpy as np

        n, want = self.n, self.want
        if self.quant is not None:
            cand = self.candidates()
            if self.mat is None:  # only the candidates are wanted (``q8_candidates``)
                return cand, None
            if len(cand) <= n * QUANT_MAX_FRACTION:
                sims = np.asarray(self.mat[cand] @ self.q)
                if len(cand) > want:
                    sel = np.argpartition(-sims, want - 1)[:want]
                    return cand[sel], sims[sel]
                return cand, sims
            self.out = np.asarray(self.mat @ self.q)  # more than a third pass: a plain scan is cheaper
        if self.dead is not None:
            self.out[self.dead] = -np.inf
        if want >= n:
            return np.arange(n), self.out
        idx = np.argpartition(-self.out, want - 1)[:want]
        return idx, self.out[idx]


class Scan:
    """The exact tops of several jobs (matrix, quantized rows or None, want) for one query, computed
    by one or two threads at once (``exact_tops``; the searcher starts it on the thread that
    embedded the query, before this one joins).

    ``start(q)`` cuts every job in parts (``_Exact.parts``: about ``PIECE_ROWS`` int8 rows' worth
    each) into one queue; each thread in ``work`` takes the next part and fills it, and the thread
    that fills a job's last part finishes that job. No thread waits for another until the queue
    is empty, however late one of them joins.
    """

    def __init__(self, jobs: Sequence[tuple[Any, ...]]) -> None:
        """``jobs``: (matrix, int8 rows or None, want[, dead rows]) each (``_Exact``)."""
        import threading
        from collections import deque

        self.jobs = [(j[0], j[1], j[2], j[3] if len(j) > 3 else None) for j in jobs]
        self._lock = threading.Lock()
        self._started = False
        self._queue: deque[tuple[_Exact, int, int, Any]] = deque()
        self._left: dict[int, int] = {}
        self._done: dict[int, tuple[Any, Any]] = {}
        # the plans and their parts, ready before the query is known
        self._plans = self._plan(pruned=True)
        #: what the products cost, in int8 rows (a float32 row costs four)
        self.cost = sum(_rows(mat, qz) * (1 if _pruned(qz, want, _rows(mat, qz)) else int(mat.dtype.itemsize))
                        for mat, qz, want, _dead in self.jobs)

    def _plan(self, pruned: bool) -> list[_Exact]:
        plans = [_Exact(mat, want, quantized, pruned, dead) for mat, quantized, want, dead in self.jobs]
        self._queue.clear()
        for plan in plans:
            parts = plan.parts()
            self._left[id(plan)] = len(parts)
            self._queue.extend((plan, *part) for part in parts)
        return plans

    def start(self, q: Any) -> None:
        """Give the parts query ``q`` (the first call; later calls do nothing)."""
        with self._lock:
            if self._started:
                return
            qq = _Query.of(q) if any(p.quant is not None for p in self._plans) else None
            if qq is None and any(p.quant is not None for p in self._plans):
                self._plans = self._plan(pruned=False)  # a zero or non-finite query: plain products
            for plan in self._plans:
                plan.set_query(q, qq)
            self._started = True

    def shared(self) -> bool:
        """Whether two threads are worth it (``SPLIT_MIN_ROWS``)."""
        return self.cost >= SPLIT_MIN_ROWS

    def work(self) -> None:
        """Fill parts until none is left, finishing each job whose last part this thread filled
        (after ``start``)."""
        assert self._started
        while True:
            try:
                plan, lo, hi, packed = self._queue.popleft()
            except IndexError:
                return
            plan.fill(lo, hi, packed)
            with self._lock:
                self._left[id(plan)] -= 1
                last = self._left[id(plan)] == 0
            if last:
                self._done[id(plan)] = plan.finish()

    def results(self) -> list[tuple[Any, Any]]:
        """Each job's (row indexes, products), in order, once every ``work`` has returned."""
        assert self._started
        return [self._done[id(p)] if id(p) in self._done else p.finish() for p in self._plans]  # or no rows


def exact_tops(jobs: Sequence[tuple[Any, Quantized | None, int]], q: Any,
               pool: Executor | None = None) -> list[tuple[Any, Any]]:
    """``exact_top`` for each (matrix, quantized rows or None, want), in order: a ``Scan``, with
    ``pool`` one pool thread working with this one when the products cost at least
    ``SPLIT_MIN_ROWS`` int8 rows (a float32 row costs four). Two threads, never more: on two cores
    a third would only wait for its turn."""
    scan = Scan(jobs)
    scan.start(q)
    return run_scan(scan, pool)


def run_scan(scan: Scan, pool: Executor | None, helper: Any = None) -> list[tuple[Any, Any]]:
    """``scan.work()`` here and, unless ``helper`` (a future of a thread already working on it)
    is given, on one ``pool`` thread when ``scan.shared()``; then its results (an error of the
    other thread is raised)."""
    from concurrent.futures import wait

    other = helper if helper is not None else (
        pool.submit(scan.work) if pool is not None and scan.shared() else None)
    try:
        scan.work()
    finally:
        if other is not None:
            wait([other])
    if other is not None:
        other.result()
    return scan.results()


def exact_top(mat: Any, q: Any, want: int, *, pool: Executor | None = None,
              quantized: Quantized | None = None) -> tuple[Any, Any]:
    """The exact top ``want`` rows of ``mat`` by inner product with ``q``: (row indexes, products).

    With ``quantized`` (the rows in int8, see ``QUANT_MIN_ROWS``) most rows are ruled out by a
    bound computed from the int8 product (``q8_candidates``) and only the others are computed in
    float32; the rows returned are the same (up to ties) as without it, and so are their products
    (float32, as the plain product computes them, up to its rounding). Not sorted.
    """
    return exact_tops([(mat, quantized, want)], q, pool)[0]


def q8_candidates(quant: Quantized, q: Any, want: int, pool: Executor | None = None) -> Any:
    """The rows that may be among the top ``want`` by inner product with ``q`` (sorted indexes,
    at least ``want`` of them; ``want`` at most the number of rows), by a bound computed
    from the int8 rows; None for a zero or non-finite query.

    The bound. Row j was stored as ``z_j = round(x_j / s_j)`` with ``s_j >= max_i |x_ji| / 127``
    (``quantize``), so ``x_j = s_j (z_j + e_j)`` exactly, with every ``|e_ji| <= 1/2 + 127 * 2^-53``
    (the float64 division's rounding; ``1/2 (1 + 1e-9)`` below). The query is scaled by
    ``c = 127 / max_i |q_i|`` and rounded: ``w = round(c q)``, ``d = c q - w``, ``|d_i| <= 1/2``.
    Then ``c q.x_j = s_j w.z_j + s_j w.e_j + d.x_j``, where ``w.z_j`` is the exact integer the
    SIMD int8 product returns, ``|w.e_j| <= a = 1/2 (1 + 1e-9) |w|_1`` and ``|d.x_j| <= b =
    |d|_2 N`` (Cauchy-Schwarz; ``N`` >= every row's norm, stored rounded up). So, scaled by c,
    ``lo_j = s_j (w.z_j - a) - b <= c q.x_j <= s_j (w.z_j + a) + b = hi_j``.

    ``T``, the ``want``-th largest ``L_j = s_j (w.z_j - a)``, gives ``want`` rows whose products
    are at least ``(T - b) / c``; a row with ``hi_j < T - b`` cannot be among the top ``want``
    (ties included), so only the rows with ``L_j + 2 a s_j >= T - 2 b`` are computed in float32,
    and the top ``want`` of those is the exact top. Float rounding: ``L_j`` and the sums above are
    float32 (a few roundings of numbers at most ``c (|q| N + 3 eps)``, with eps the largest
    ``(a s_j + b) / c``, ``s_j <= N / 127``), and the float32 products of the rows (this one and the
    plain product it must agree with) are within ``dim * 2^-24 |q| N`` of the real ones. A margin
    ``m = (2 dim + 16) 2^-24 (|q| N + 3 eps)`` on each side covers both: a row is dropped only
    when its float32 product is strictly below ``want`` others'.
    """
    import numpy as np

    if _Query.of(q) is None:
        return None
    if not _pruned(quant, want, len(quant.z)):  # want >= the rows: all of them
        return np.arange(len(quant.z))
    scan = Scan([(None, quant, want)])
    scan.start(q)
    return run_scan(scan, pool)[0][0]


def pack_rows(z: Any) -> tuple[tuple[int, int, Any], ...]:
    """``z``'s rows packed for ``numkong.dots_packed``, as (first row, end row, packed rows), in
    pieces of ``PIECE_ROWS`` rows (the parts ``exact_tops`` shares between threads)."""
    import numkong

    n = len(z)
    return tuple((lo, min(n, lo + PIECE_ROWS), numkong.dots_pack(z[lo:min(n, lo + PIECE_ROWS)]))
                 for lo in range(0, n, PIECE_ROWS))
