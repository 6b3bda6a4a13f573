"""Pruned exact vector search (format/index/vecscan.py: exact_top with int8-quantized rows) returns
the exact top k: property tests against the plain product (low-rank and full-rank data, ties,
spiky and zero rows, un-normalized queries, memory maps, a thread pool), the layout of a built
generation, generations built before the int8 rows (``proj`` manifests), damaged files."""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mem.format.index.vecmain as vmain
import mem.format.index.vecquant as vquant
import mem.format.index.vecscan as vscan
from mem.format.base.errors import IndexUnavailableError, InvalidInputError
from mem.format.embed import space_of
from mem.format.index.vectors import (
    Quantized,
    VectorIndex,
    build_vectors,
    exact_top,
    q8_candidates,
    quantize,
)


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(2) as p:
        yield p


def _unit(a: np.ndarray) -> np.ndarray:
    return (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(np.float32)


def _clustered(rng: np.random.Generator, n: int, dim: int, rank: int) -> np.ndarray:
    """Rows near a ``rank``-dimensional subspace (templated memories), with duplicates."""
    basis = rng.standard_normal((rank, dim))
    rows = rng.standard_normal((n, rank)) @ basis + 0.05 * rng.standard_normal((n, dim))
    rows[n // 2: n // 2 + 50] = rows[0]  # exact duplicates
    return _unit(rows)


def _assert_same_top(mat: np.ndarray, q: np.ndarray, want: int, got: tuple[np.ndarray, np.ndarray]) -> None:
    idx, sims = got
    full = np.asarray(mat @ q)
    want = min(want, len(mat))
    best = np.sort(full)[::-1][:want]
    tol = 1e-6 * float(np.linalg.norm(q)) * max(float(np.linalg.norm(mat, axis=1).max()), 1e-30)
    assert len(idx) == want == len(set(idx.tolist()))
    # same scores: the same set up to ties (near-ties may order differently in the float32 products)
    np.testing.assert_allclose(np.sort(full[idx])[::-1], best, rtol=0, atol=tol)
    np.testing.assert_allclose(sims, full[idx], rtol=0, atol=tol)  # products reported are the rows' own


@st.composite
def _cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(1, 2500))
    dim = draw(st.sampled_from([3, 16, 48, 384]))
    if draw(st.booleans()):
        mat = _clustered(rng, n, dim, draw(st.integers(1, 24)))
    else:
        mat = _unit(rng.standard_normal((n, dim)))
    if draw(st.booleans()):  # some rows dominated by one coordinate (one huge, the others tiny)
        k = draw(st.integers(1, max(1, n // 10)))
        rows = rng.choice(n, k, replace=False)
        mat[rows] = 1e-4 * rng.standard_normal((k, dim))
        mat[rows, rng.integers(0, dim, k)] = rng.choice([-1.0, 1.0], k)
        mat[rows] = _unit(mat[rows])
    if draw(st.booleans()):  # rows of any length, not L2-normalized
        mat *= (10.0 ** rng.uniform(-2, 2, n)).astype(np.float32)[:, None]
    if draw(st.booleans()):
        mat[rng.integers(n)] = 0.0  # a zero row
    if draw(st.booleans()):  # many exact ties: a block of copies of one row
        k = draw(st.integers(2, max(2, n // 4)))
        mat[rng.choice(n, min(k, n), replace=False)] = mat[0]
    how = draw(st.sampled_from(["random", "near a row", "a row"]))
    if how == "random":
        q = rng.standard_normal(dim)
    elif how == "near a row":
        q = mat[rng.integers(n)] + 0.1 * float(np.linalg.norm(mat, axis=1).mean()) * rng.standard_normal(dim)
    else:
        q = mat[rng.integers(n)].astype(np.float64)
    q = (q * 10.0 ** draw(st.floats(-3, 3))).astype(np.float32)  # queries of any length
    want = draw(st.integers(1, n + 5))
    return np.ascontiguousarray(mat, dtype=np.float32), q, want


@settings(max_examples=120, deadline=None)
@given(case=_cases(), mapped=st.booleans(), threads=st.booleans(), packed=st.booleans())
def test_q8_pruned_equals_plain_product(pool: ThreadPoolExecutor, case: tuple[np.ndarray, np.ndarray, int],
                                        mapped: bool, threads: bool, packed: bool) -> None:
    mat, q, want = case
    quant = quantize(mat)
    assert quant is not None
    n = len(mat)
    # the stored form: x_j = scale_j (z_j + e_j) with |e| <= 1/2; norm bounds every row
    assert quant.z.dtype == np.int8 and quant.scale.dtype == np.float32 and quant.scale.shape == (n,)
    assert quant.norm >= float(np.linalg.norm(mat.astype(np.float64), axis=1).max())
    err = mat.astype(np.float64) / np.where(quant.scale > 0, quant.scale, 1)[:, None] - quant.z
    assert float(np.abs(err).max()) <= 0.5 + 1e-9
    with tempfile.TemporaryDirectory() as tmp:
        if mapped:
            for name, arr in (("mat", mat), ("z", quant.z), ("scale", quant.scale)):
                np.save(Path(tmp) / f"{name}.npy", arr)
            m, z, s = (np.load(Path(tmp) / f"{name}.npy", mmap_mode="r") for name in ("mat", "z", "scale"))
            quant = vscan.Quantized(z, s, quant.norm)
        else:
            m = mat
        # with threads: small parts, shared between two threads from any total cost
        with mock.patch.object(vscan, "SPLIT_MIN_ROWS", 0 if threads else vscan.SPLIT_MIN_ROWS), \
                mock.patch.object(vscan, "PIECE_ROWS", 97 if threads else vscan.PIECE_ROWS):
            if packed:  # numkong's packed product, in parts: the same integers
                quant = dataclasses.replace(quant, packed=vscan.pack_rows(quant.z))
                assert [(lo, hi) for lo, hi, _p in quant.packed] == [
                    (lo, min(n, lo + vscan.PIECE_ROWS)) for lo in range(0, n, vscan.PIECE_ROWS)]
            p = pool if threads else None
            if want <= n:
                # every row of the plain top (all rows tied with the want-th) is a candidate
                cand = q8_candidates(quant, q, want, p)
                if cand is None:
                    assert not np.any(q)  # a zero query: the plain product
                else:
                    full = mat @ q
                    kth = np.sort(full)[::-1][want - 1]
                    assert set(np.flatnonzero(full >= kth).tolist()) <= set(cand.tolist())
                    assert np.all(np.diff(cand) > 0)
            _assert_same_top(mat, q, want, exact_top(m, q, want, pool=p, quantized=quant))
        del m, quant


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(0, 700), min_size=1, max_size=4),
       wants=st.lists(st.integers(0, 760), min_size=4, max_size=4), piece=st.integers(1, 300),
       packed=st.booleans())
def test_jobs_shared_between_two_threads_answer_as_one(pool: ThreadPoolExecutor, seed: int, sizes: list[int],
                                                       wants: list[int], piece: int, packed: bool) -> None:
    """exact_tops cuts all its jobs' parts (int8 or float32, packed or not) in two shares, one on
    the pool, whatever the cut: every job's top is the one thread's, which is the plain product's."""
    rng = np.random.default_rng(seed)
    dim = 24
    q = _unit(rng.standard_normal(dim))
    jobs = []
    for i, n in enumerate(sizes):
        mat = _clustered(rng, n, dim, 4) if n else np.zeros((0, dim), dtype=np.float32)
        quant = quantize(mat) if n and i % 2 == 0 else None
        if quant is not None and packed:
            with mock.patch.object(vscan, "PIECE_ROWS", piece):
                quant = dataclasses.replace(quant, packed=vscan.pack_rows(quant.z))
        jobs.append((mat, quant, min(wants[i], n + 3)))
    with mock.patch.object(vscan, "SPLIT_MIN_ROWS", 0), mock.patch.object(vscan, "PIECE_ROWS", piece):
        shared = vscan.exact_tops(jobs, q, pool)
    alone = vscan.exact_tops(jobs, q, None)
    for (mat, _qz, want), got, ref in zip(jobs, shared, alone, strict=True):
        if len(mat):
            _assert_same_top(mat, q, want, got)
            np.testing.assert_allclose(np.sort(got[1]), np.sort(ref[1]), rtol=0, atol=1e-6)
        else:
            assert len(got[0]) == len(got[1]) == 0


def test_an_error_in_the_pool_share_is_raised(pool: ThreadPoolExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while the pool thread fills its share is raised by exact_tops, not lost."""
    rng = np.random.default_rng(5)
    mat = _clustered(rng, 3000, 16, 4)
    quant = quantize(mat)
    fill = vscan._Exact.fill

    def failing(self: object, lo: int, hi: int, packed: object) -> None:
        if lo >= 1500:
            raise MemoryError("no memory for this part")
        fill(self, lo, hi, packed)  # type: ignore[arg-type]

    monkeypatch.setattr(vscan._Exact, "fill", failing)
    with mock.patch.object(vscan, "SPLIT_MIN_ROWS", 0), mock.patch.object(vscan, "PIECE_ROWS", 500), \
            pytest.raises(MemoryError, match="no memory"):
        vscan.exact_tops([(mat, quant, 10), (mat, None, 10)], mat[0], pool)


@settings(max_examples=80, deadline=None)
@given(case=_cases())
def test_candidates_are_the_rows_one_pass_over_the_bounds_selects(case: tuple[np.ndarray, np.ndarray, int]) -> None:
    """The threshold found among a sample's best rows and the selection among a rough superset
    give exactly the rows of the plain rule: T the want-th largest lower bound of all rows, then
    every row whose float32 upper bound reaches T - 2 (b + margin)."""
    mat, q, want = case
    quant = quantize(mat)
    assert quant is not None
    qq = vscan._Query.of(q)
    if qq is None or not 0 < want < len(mat):
        return
    got, ref = _candidates_and_plain_rule(mat, q, want, quant, qq)
    np.testing.assert_array_equal(got, ref)


def _candidates_and_plain_rule(mat: np.ndarray, q: np.ndarray, want: int, quant: Quantized,
                               qq: vscan._Query) -> tuple[np.ndarray, np.ndarray]:
    """A job's candidates, and the rows one pass over all its bounds selects: T the want-th
    largest lower bound, then every row whose float32 upper bound reaches T - 2 (b + margin)."""
    plan = vscan._Exact(mat, want, quant)
    plan.set_query(q, qq)
    for part in plan.parts():
        plan.fill(*part)
    low = plan.bounds().copy()
    got = plan.candidates()
    t = float(np.partition(low, len(low) - want)[len(low) - want])
    return got, np.flatnonzero(low + (2.0 * qq.a) * quant.scale >= t - 2.0 * (plan.b + plan.margin))


def test_candidates_of_big_scopes_match_the_plain_rule() -> None:
    """As above, on scopes big enough for the sampled threshold (many ties among the best rows)."""
    rng = np.random.default_rng(8)
    for n, want in ((20_000, 40), (9_000, 140), (2_560, 40)):
        mat = _clustered(rng, n, 32, 5)
        mat[rng.choice(n, 300, replace=False)] = mat[1]  # 300 copies of one row: ties at the top
        quant = quantize(mat)
        assert quant is not None
        for q in (mat[1], _unit(rng.standard_normal(32)), mat[2] * 3.0):
            qq = vscan._Query.of(q)
            assert qq is not None
            got, ref = _candidates_and_plain_rule(mat, q, want, quant, qq)
            np.testing.assert_array_equal(got, ref)
            _assert_same_top(mat, q, want, exact_top(mat, q, want, quantized=quant))


def test_pruning_rules_out_most_rows_of_clustered_data(pool: ThreadPoolExecutor, tmp_path: Path) -> None:
    """On data like the bench store's (rows near a subspace), few rows are computed in float32,
    with and without the pool (its halves: SPLIT_MIN_ROWS) and from memory maps."""
    rng = np.random.default_rng(3)
    mat = _clustered(rng, 40_000, 96, 12)
    quant = quantize(mat)
    assert quant is not None
    for name, arr in (("mat", mat), ("z", quant.z), ("scale", quant.scale)):
        np.save(tmp_path / f"{name}.npy", arr)
    mm, zm, sm = (np.load(tmp_path / f"{name}.npy", mmap_mode="r") for name in ("mat", "z", "scale"))
    mapped = vscan.Quantized(zm, sm, quant.norm)
    counts = []
    for i in range(20):
        q = _unit(rng.standard_normal(96)) if i % 2 else _unit(mat[i] + 0.2 * rng.standard_normal(96))
        counts.append(len(q8_candidates(quant, q, 40)))
        assert np.array_equal(q8_candidates(mapped, q, 40, pool), q8_candidates(quant, q, 40))
        _assert_same_top(mat, q, 40, exact_top(mm, q, 40, pool=pool, quantized=mapped))
        _assert_same_top(mat, q, 40, exact_top(mat, q, 40, quantized=quant))
        _assert_same_top(mat, q, 40, exact_top(mat, q, 40, pool=pool))
    assert np.median(counts) < 0.05 * len(mat)


def test_zero_or_non_finite_query_uses_the_plain_product() -> None:
    rng = np.random.default_rng(4)
    mat = _unit(rng.standard_normal((300, 16)))
    quant = quantize(mat)
    assert quant is not None
    assert q8_candidates(quant, np.zeros(16, dtype=np.float32), 5) is None
    assert q8_candidates(quant, np.full(16, np.nan, dtype=np.float32), 5) is None
    idx, sims = exact_top(mat, np.zeros(16, dtype=np.float32), 5, quantized=quant)
    assert len(idx) == 5 and np.all(sims == 0)
    bad = mat.copy()
    bad[3, 2] = np.inf
    assert quantize(bad) is None


def test_want_at_least_rows_returns_all() -> None:
    rng = np.random.default_rng(6)
    mat = _unit(rng.standard_normal((30, 16)))
    quant = quantize(mat)
    idx, sims = exact_top(mat, mat[0], 50, quantized=quant)
    assert sorted(idx.tolist()) == list(range(30))
    np.testing.assert_allclose(sims, mat @ mat[0], atol=1e-6)


def _per_scope(rng: np.random.Generator, n: int = 2500) -> dict[str, list[tuple[str, str, np.ndarray]]]:
    return {sc: [(f"{sc}-{i:05d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, n, 48, 6))]
            for sc in ("ana", "bob")}


def _build(tmp: Path, name: str, per_scope: dict[str, list[tuple[str, str, np.ndarray]]],
           quant_min_rows: int) -> VectorIndex:
    space = space_of("hashing")
    m = build_vectors(tmp / name, dataclasses.replace(space, dim=48), per_scope, lex_generation=None,
                      lex_seq=0, quant_min_rows=quant_min_rows)
    return VectorIndex(tmp, m)


def _churn(vec: VectorIndex, live: dict[str, dict[str, tuple[str, np.ndarray]]], dead: list[tuple[str, str]],
           adds: list[tuple[str, str, str, np.ndarray]]) -> None:
    """Drop ``dead`` from ``vec`` and add ``adds`` (delta rows), keeping ``live`` (scope: id:
    (digest, row)) what the index holds (a dropped id with no row changes nothing)."""
    vec.drop(dead)
    for sc, rid in dead:
        live[sc].pop(rid, None)
    vec.add(adds)
    for sc, rid, dg, row in adds:
        live[sc][rid] = (dg, row)


def _expected(per_scope: dict[str, list[tuple[str, str, np.ndarray]]], scopes: list[str], q: np.ndarray,
              k: int) -> list[float]:
    sims = [float(v @ q) for sc in scopes for _i, _d, v in per_scope[sc]]
    return sorted(sims, reverse=True)[:k]


def test_vector_index_with_q8_answers_like_without(tmp_path: Path, pool: ThreadPoolExecutor) -> None:
    """A generation built with int8 rows (manifest ``q8``, two files per scope) returns the same
    hits as one built without, one-shot (memory maps) and long-lived (in memory, the pool);
    scopes stay apart."""
    rng = np.random.default_rng(11)
    per_scope = _per_scope(rng)
    pruned = _build(tmp_path, "vectors-a", per_scope, quant_min_rows=1000)
    plain = _build(tmp_path, "vectors-b", per_scope, quant_min_rows=10**9)
    entry = pruned.manifest["scopes"]["ana"]
    assert entry["q8"]["norm"] >= 1.0 and plain.manifest["scopes"]["ana"]["q8"] is None
    assert np.load(tmp_path / "vectors-a" / "ana.q8.npy").dtype == np.int8
    assert np.load(tmp_path / "vectors-a" / "ana.q8scale.npy").shape == (2500,)
    assert not list((tmp_path / "vectors-b").glob("*.q8*.npy"))
    assert not list((tmp_path / "vectors-a").glob("*.proj.npy"))
    for i in range(12):
        q = _unit(rng.standard_normal(48)) if i % 2 else per_scope["bob"][i][2]
        for scopes in (["ana"], ["bob"], ["ana", "bob"]):
            for kw in ({}, {"use_graph": True, "pool": pool}):
                a = pruned.search(q, scopes, 40, **kw)  # type: ignore[arg-type]
                b = plain.search(q, scopes, 40, **kw)  # type: ignore[arg-type]
                assert {h.scope for h in a} <= set(scopes)
                np.testing.assert_allclose([h.similarity for h in a], [h.similarity for h in b], atol=1e-6)
                np.testing.assert_allclose([h.similarity for h in a], _expected(per_scope, scopes, q, 40), atol=1e-6)


@pytest.mark.parametrize("kernel", ["packed", "inner"])
def test_long_lived_rows_are_packed_as_chosen(tmp_path: Path, pool: ThreadPoolExecutor,
                                              monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    """MEM_Q8_KERNEL: in memory (long-lived), the int8 rows are packed for numkong's packed
    product, or not; memory-mapped rows (one-shot) never are. Both answer alike."""
    monkeypatch.setenv("MEM_Q8_KERNEL", kernel)
    rng = np.random.default_rng(12)
    per_scope = _per_scope(rng)
    vec = _build(tmp_path, "vectors-a", per_scope, quant_min_rows=1000)
    mapped = vec.quantized("ana")
    assert mapped is not None and mapped.packed is None and isinstance(mapped.z, np.memmap)
    held = vec.quantized("ana", in_memory=True)
    assert held is not None
    if kernel == "packed":  # the packed rows replace the in-memory copy; z stays mapped
        assert held.packed is not None and isinstance(held.z, np.memmap)
        assert [(lo, hi) for lo, hi, _p in held.packed] == [(0, len(held.z))]  # below PIECE_ROWS
    else:
        assert held.packed is None and not isinstance(held.z, np.memmap)
    assert vec.quantized("ana", in_memory=True) is held  # kept
    for i in range(6):
        q = _unit(rng.standard_normal(48)) if i % 2 else per_scope["ana"][i][2]
        a = vec.search(q, ["ana", "bob"], 40, use_graph=True, pool=pool)
        np.testing.assert_allclose([h.similarity for h in a], _expected(per_scope, ["ana", "bob"], q, 40), atol=1e-6)


def test_a_bad_q8_kernel_is_an_error_for_one_shot_searches_too(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """One-shot searches read the int8 rows memory-mapped and never pack them, yet a bad
    MEM_Q8_KERNEL is the same error there as in a long-lived searcher, not silently ignored."""
    rng = np.random.default_rng(15)
    per_scope = _per_scope(rng, n=1200)
    vec = _build(tmp_path, "vectors-k", per_scope, quant_min_rows=1000)
    q = per_scope["ana"][0][2]
    monkeypatch.setenv("MEM_Q8_KERNEL", "fast")
    for long_lived in (False, True):
        with pytest.raises(InvalidInputError, match="MEM_Q8_KERNEL='fast' is not one of auto, packed, inner"):
            vec.search(q, ["ana"], 10, use_graph=long_lived)
    monkeypatch.setenv("MEM_Q8_KERNEL", "inner")
    assert vec.search(q, ["ana"], 3)[0].id == per_scope["ana"][0][0]
    vec.close()


def test_q8_kernel_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """auto packs the rows when the packed product measured faster (once per dimension); a bad
    MEM_Q8_KERNEL is an error naming the variable."""
    z = np.random.default_rng(1).integers(-127, 128, size=(300, 16), dtype=np.int8)
    measure = vquant._measure_packed
    has_int8_dot = vquant._has_int8_dot  # the real one, before it is patched below
    calls: list[int] = []
    monkeypatch.delenv("MEM_Q8_KERNEL", raising=False)
    monkeypatch.setattr(vquant, "_has_int8_dot", lambda: False)  # a CPU not known to have them: measured
    for faster in (True, False):
        monkeypatch.setattr(vquant, "_PACKED_FASTER", {})
        monkeypatch.setattr(vquant, "_measure_packed", lambda dim, faster=faster: calls.append(dim) or faster)
        assert (vquant.packed_rows(z) is not None) == faster
        assert (vquant.packed_rows(z) is not None) == faster  # measured once
    assert calls == [16, 16]
    monkeypatch.setattr(vquant, "_has_int8_dot", lambda: True)  # int8 dot-product instructions: packed, unmeasured
    monkeypatch.setattr(vquant, "_PACKED_FASTER", {})
    assert vquant.packed_rows(z) is not None and calls == [16, 16]
    monkeypatch.setenv("MEM_Q8_KERNEL", "inner")
    assert vquant.packed_rows(z) is None
    monkeypatch.setenv("MEM_Q8_KERNEL", "Packed")
    got = vquant.packed_rows(z)  # packed though measured slower
    assert got is not None and [(lo, hi) for lo, hi, _p in got] == [(0, 300)]
    assert vquant.packed_rows(z[:0]) is None
    monkeypatch.setenv("MEM_Q8_KERNEL", "fast")
    with pytest.raises(InvalidInputError, match="MEM_Q8_KERNEL='fast'"):
        vquant.packed_rows(z)
    assert calls == [16, 16]
    assert isinstance(measure(16, rows=700, rounds=1), bool)  # the real measurement runs
    import numkong

    caps = numkong.get_capabilities()
    assert has_int8_dot() == any(caps.get(n) for n in vquant.INT8_DOT_CAPABILITIES)


def test_generation_built_before_q8_searches_with_the_plain_product(tmp_path: Path) -> None:
    """An older generation: the manifest's scope entries have ``proj`` (PCA projection files
    ``<scope>.basis/.proj/.resid.npy``), no ``q8`` and no int8 files. It is searched exactly,
    with the plain product; the old files are not read."""
    rng = np.random.default_rng(12)
    per_scope = _per_scope(rng)
    vec = _build(tmp_path, "vectors-old", per_scope, quant_min_rows=10**9)
    manifest = json.loads(json.dumps(vec.manifest))
    for sc, entry in manifest["scopes"].items():
        del entry["q8"]
        entry["proj"] = 32
        for name in ("basis", "proj", "resid"):  # as the old code left them, here unreadable
            (tmp_path / "vectors-old" / f"{sc}.{name}.npy").write_bytes(b"not an array")
    old = VectorIndex(tmp_path, manifest)
    for i in range(6):
        q = _unit(rng.standard_normal(48)) if i % 2 else per_scope["ana"][i][2]
        for scopes in (["ana"], ["ana", "bob"]):
            got = old.search(q, scopes, 40)
            np.testing.assert_allclose([h.similarity for h in got], _expected(per_scope, scopes, q, 40), atol=1e-6)


def _damage_npy(path: Path, how: str) -> None:
    if how == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    elif how == "missing":
        path.unlink()
    elif how == "mis-shaped":
        a = np.load(path)
        np.save(path, a[:-1])
    elif how == "wrong dtype":
        np.save(path, np.load(path).astype(np.float64))
    elif how == "nan":
        a = np.load(path)
        a[7] = np.nan
        np.save(path, a)
    else:
        raise AssertionError(how)


@pytest.mark.parametrize(("name", "how"), [
    ("q8", "truncated"), ("q8", "missing"), ("q8", "mis-shaped"), ("q8", "wrong dtype"),
    ("q8scale", "truncated"), ("q8scale", "mis-shaped"), ("q8scale", "wrong dtype"), ("q8scale", "nan"),
])
def test_damaged_q8_files_are_index_unavailable(tmp_path: Path, name: str, how: str) -> None:
    rng = np.random.default_rng(13)
    per_scope = _per_scope(rng, n=1200)
    vec = _build(tmp_path, "vectors-d", per_scope, quant_min_rows=1000)
    path = tmp_path / "vectors-d" / f"bob.{name}.npy"
    _damage_npy(path, how)
    for in_memory in (False, True):
        fresh = VectorIndex(tmp_path, vec.manifest)
        assert len(fresh.search(per_scope["ana"][0][2], ["ana"], 10)) == 10  # the other scope is fine
        with pytest.raises(IndexUnavailableError) as exc:
            fresh.search(per_scope["bob"][0][2], ["bob"], 10, use_graph=in_memory)
        assert exc.value.path == str(path)
        assert exc.value.hint is not None and "mem rebuild --vectors" in exc.value.hint


def test_invalid_q8_manifest_entry_is_index_unavailable(tmp_path: Path) -> None:
    rng = np.random.default_rng(14)
    per_scope = _per_scope(rng, n=1200)
    vec = _build(tmp_path, "vectors-m", per_scope, quant_min_rows=1000)
    for bad in ({"norm": "1.0"}, {"norm": -1.0}, {"norm": float("nan")}, {}, 7):
        manifest = json.loads(json.dumps(vec.manifest))
        manifest["scopes"]["ana"]["q8"] = bad
        with pytest.raises(IndexUnavailableError, match="q8 entry") as exc:
            VectorIndex(tmp_path, manifest).search(per_scope["ana"][0][2], ["ana"], 10)
        assert exc.value.path == str(tmp_path / "vectors.json")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 30), n_dead=st.integers(0, 5),
       n_ghost=st.integers(0, 12), n_delta=st.integers(0, 5), dup=st.booleans())
def test_search_merges_scopes_like_a_full_sort(tmp_path_factory: pytest.TempPathFactory, seed: int, k: int,
                                               n_dead: int, n_ghost: int, n_delta: int, dup: bool) -> None:
    """VectorIndex.search over several scopes (hits made only for rows that can reach the best k
    of all) returns what sorting every live vector by (-similarity, id) returns: with dead rows,
    dead entries of ids without a main row (which do not make a scope's top longer), delta rows,
    and ties (duplicated rows) at the cut."""
    rng = np.random.default_rng(seed)
    tmp = tmp_path_factory.mktemp("merge")
    per_scope = {sc: [(f"{sc}-{i:04d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, n, 48, 5))]
                 for sc, n in (("ana", 300), ("bob", 120), ("cy", 40))}
    if dup:  # the same vector in two scopes and twice in one: exact ties
        v = per_scope["ana"][0][2]
        per_scope["bob"][5] = (per_scope["bob"][5][0], "d5", v)
        per_scope["ana"][7] = (per_scope["ana"][7][0], "d7", v)
    vec = _build(tmp, "vectors-m", per_scope, quant_min_rows=100)
    live = {sc: {rid: (dg, row) for rid, dg, row in items} for sc, items in per_scope.items()}
    dead = [("ana", per_scope["ana"][i][0]) for i in rng.choice(300, n_dead, replace=False)]
    adds = [("bob", f"bob-new{i}", f"n{i}", _unit(rng.standard_normal(48)).astype(np.float32)) for i in range(n_delta)]
    _churn(vec, live, dead + [("ana", f"ana-gone{i}") for i in range(n_ghost)], adds)  # ghosts: ids of no main row
    q = per_scope["ana"][0][2] if dup else _unit(rng.standard_normal(48)).astype(np.float32)
    scopes = ["ana", "bob", "cy"]
    # each scope's exact top is of k rows, its dead main rows left out of it (the ghosts, naming
    # no row, leave out nothing)
    prepared = vec.prepare(scopes, k).exact
    assert {sc: want for sc, _mat, _q8, want, _d in prepared} == {"ana": min(300, k), "bob": min(120, k),
                                                                  "cy": min(40, k)}
    dead_rows = {sc: (None if d is None else d.tolist()) for sc, *_r, d in prepared}
    ana_dead = sorted(int(rid.split("-")[1]) for _s, rid in dead)  # "ana-0042": row 42
    assert dead_rows == {"ana": ana_dead or None, "bob": None, "cy": None}
    got = vec.search(q, scopes, k)
    want = sorted(((float(row @ q), rid) for sc in scopes for rid, (_dg, row) in live[sc].items()),
                  key=lambda t: (-t[0], t[1]))[:k]
    np.testing.assert_allclose([h.similarity for h in got], [s for s, _r in want], atol=1e-6)
    assert all(h.id in live[h.scope] for h in got)
    vec.close()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 30), n_scopes=st.integers(2, 40),
       n_dead=st.integers(0, 6), n_delta=st.integers(0, 4), big=st.booleans(), dup=st.booleans())
def test_many_small_scopes_are_one_stacked_product(tmp_path_factory: pytest.TempPathFactory, seed: int, k: int,
                                                   n_scopes: int, n_dead: int, n_delta: int, big: bool,
                                                   dup: bool) -> None:
    """Scopes searched with the plain product (no int8 rows, no graph) are stacked into one job
    (``VectorIndex._stack``): the hits are what sorting every live vector of the scopes searched
    returns, one-shot and long-lived, for every set of scopes (dead rows of several scopes, delta
    rows, an int8 scope beside them, ties across scopes); a scope not searched is never returned,
    and in a long-lived searcher the scopes' matrices are views of the stack (no row kept twice)."""
    rng = np.random.default_rng(seed)
    tmp = tmp_path_factory.mktemp("stack")
    sizes = {f"s{i:02d}": int(rng.integers(1, 60)) for i in range(n_scopes)}
    if big:
        sizes["zbig"] = 400
    per_scope = {sc: [(f"{sc}-{i:04d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, n, 48, 5))]
                 for sc, n in sizes.items()}
    if dup:  # one vector in several scopes: exact ties across the stack
        v = per_scope["s00"][0][2]
        for sc in list(per_scope)[1:4]:
            per_scope[sc][0] = (per_scope[sc][0][0], "d0", v)
    vec = _build(tmp, "vectors-s", per_scope, quant_min_rows=300)
    live = {sc: {rid: (dg, row) for rid, dg, row in items} for sc, items in per_scope.items()}
    all_rows = [(sc, items[i][0]) for sc, items in per_scope.items() for i in range(len(items))]
    dead = [all_rows[i] for i in rng.choice(len(all_rows), min(n_dead, len(all_rows)), replace=False)]
    adds = [("s01", f"s01-new{i}", f"n{i}", _unit(rng.standard_normal(48)).astype(np.float32)) for i in range(n_delta)]
    _churn(vec, live, dead, adds)
    q = per_scope["s00"][0][2] if dup else _unit(rng.standard_normal(48)).astype(np.float32)
    everything = list(per_scope)
    some = everything[::2]
    lasting = VectorIndex(vec.index_dir, vec.manifest)  # a long-lived searcher's, beside the one-shot one
    with ThreadPoolExecutor(2) as pool:
        for scopes in (everything, some, everything, some):
            small = tuple(sc for sc in scopes if sc != "zbig")
            for index, long_lived in ((vec, False), (lasting, True)):
                prepared = index.prepare(scopes, k, use_graph=long_lived)
                if len(small) > 1:
                    assert prepared.stacked is not None and prepared.stacked[0] == small
                    assert [sc for sc, *_r in prepared.exact] == (["zbig"] if "zbig" in scopes else [])
                else:
                    assert prepared.stacked is None
                got = prepared.run(q, pool if long_lived else None)
                want = sorted(((float(row @ q), rid) for sc in scopes for rid, (_dg, row) in live[sc].items()),
                              key=lambda t: (-t[0], t[1]))[:k]
                np.testing.assert_allclose([h.similarity for h in got], [s for s, _r in want], atol=1e-6)
                assert all(h.scope in scopes and h.id in live[h.scope] for h in got)
                assert len({(h.scope, h.id) for h in got}) == len(got)
    stack = lasting._stacks[tuple(sc for sc in everything if sc != "zbig")]
    for sc in everything:
        if sc != "zbig":
            assert np.shares_memory(lasting.main(sc).matrix(48, in_memory=True), stack[0])
    lasting.close()
    vec.close()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), dim=st.sampled_from([1, 3, 48, 384]), seed=st.integers(0, 2**32 - 1))
def test_small_matrices_read_whole_are_what_np_load_reads(n: int, dim: int, seed: int) -> None:
    """A one-shot search reads a small scope's matrix whole (``_read_small_matrix``): the same
    array np.load gives for a file np.save wrote; any other file is left to np.load (None)."""
    rng = np.random.default_rng(seed)
    mat = rng.standard_normal((n, dim)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "m.npy"
        np.save(p, mat)
        got = vmain._read_small_matrix(p, (n, dim))
        assert got is not None and got.dtype == np.float32 and got.shape == (n, dim)
        np.testing.assert_array_equal(got, np.load(p))
        assert vmain._read_small_matrix(p, (n + 1, dim)) is None  # another shape
        np.save(p, mat.astype(np.float64))
        assert vmain._read_small_matrix(p, (n, dim)) is None
        np.save(p, np.asfortranarray(mat) if n > 1 and dim > 1 else mat.reshape(1, n, dim))
        assert vmain._read_small_matrix(p, (n, dim)) is None
        np.save(p, mat)
        p.write_bytes(p.read_bytes()[:-4])  # truncated
        assert vmain._read_small_matrix(p, (n, dim)) is None


@pytest.mark.parametrize("how", ["float64", "truncated", "shape", "garbage"])
@pytest.mark.parametrize("long_lived", [False, True])
def test_a_damaged_small_matrix_is_index_unavailable(tmp_path: Path, how: str, long_lived: bool) -> None:
    """A small scope's matrix that is not what was built fails the search with the file named,
    read whole or memory-mapped."""
    rng = np.random.default_rng(3)
    per_scope = {sc: [(f"{sc}-{i:03d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, 30, 48, 4))]
                 for sc in ("ana", "bob")}
    vec = _build(tmp_path, "vectors-d", per_scope, quant_min_rows=10**9)
    p = tmp_path / "vectors-d" / "bob.npy"
    mat = np.load(p)
    if how == "float64":
        np.save(p, mat.astype(np.float64))
    elif how == "truncated":
        p.write_bytes(p.read_bytes()[:-100])
    elif how == "shape":
        np.save(p, mat[:-1])
    else:
        p.write_bytes(b"not a numpy file at all")
    with pytest.raises(IndexUnavailableError) as exc:
        vec.search(per_scope["ana"][0][2], ["ana", "bob"], 5, use_graph=long_lived)
    assert exc.value.path == str(p)
    vec.close()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 12), n_delta=st.integers(1, 80), dup=st.booleans())
def test_delta_rows_are_stacked_once_and_kept_current(tmp_path_factory: pytest.TempPathFactory, seed: int, k: int,
                                                      n_delta: int, dup: bool) -> None:
    """Vectors added since the build (the delta table) are stacked once per state of the table:
    the hits are a full sort's with more delta rows than k (ties among them), and a vector added
    or dropped later is seen by the next search of the same index."""
    rng = np.random.default_rng(seed)
    tmp = tmp_path_factory.mktemp("delta")
    per_scope = {"ana": [(f"ana-{i:03d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, 50, 48, 4))]}
    vec = _build(tmp, "vectors-x", per_scope, quant_min_rows=10**9)
    live = {rid: row for rid, _dg, row in per_scope["ana"]}
    rows = _unit(rng.standard_normal((n_delta, 48)))
    if dup:
        rows[1::2] = rows[0]
    adds = [("ana", f"ana-new{i:03d}", f"n{i}", rows[i]) for i in range(n_delta)]
    vec.add(adds)
    live.update({rid: row for _s, rid, _d, row in adds})
    q = rows[0] if dup else _unit(rng.standard_normal(48))

    def check() -> None:
        got = vec.search(q, ["ana"], k)
        want = sorted(((float(row @ q), rid) for rid, row in live.items()), key=lambda t: (-t[0], t[1]))[:k]
        np.testing.assert_allclose([h.similarity for h in got], [s for s, _r in want], atol=1e-6)
        cut = want[-1][0] + 1e-5  # above the kth by more than float32's rounding: the same rows
        assert {h.id for h in got if h.similarity > cut} == {r for s, r in want if s > cut}
        assert all(h.id in live for h in got)

    check()
    best = _unit(q + 0.0)
    vec.add([("ana", "ana-best", "b", best)])  # the next search sees it first
    live["ana-best"] = best
    check()
    if not dup:  # q itself: no row is nearer (with dup, rows equal to q tie with it)
        assert vec.search(q, ["ana"], k)[0].id == "ana-best"
    vec.drop([("ana", "ana-best")])
    del live["ana-best"]
    check()
    vec.close()


@pytest.mark.parametrize("quant_min_rows", [100, 10**9])  # int8 bounds, plain product
@pytest.mark.parametrize("long_lived", [False, True])
def test_dead_rows_nearest_the_query_are_left_out_of_the_top(tmp_path: Path, pool: ThreadPoolExecutor,
                                                            quant_min_rows: int, long_lived: bool) -> None:
    """The rows nearest the query, dead (updated or forgotten since the build), are never
    chosen: the top k is the k best live rows, with no row asked for per dead one."""
    rng = np.random.default_rng(21)
    per_scope = {sc: [(f"{sc}-{i:04d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, 400, 48, 5))]
                 for sc in ("ana", "bob", "cy")}
    vec = _build(tmp_path, "vectors-dead", per_scope, quant_min_rows=quant_min_rows)
    q = per_scope["ana"][3][2]
    everything = [(float(row @ q), sc, rid) for sc, items in per_scope.items() for rid, _dg, row in items]
    everything.sort(key=lambda t: (-t[0], t[2]))
    dead = [(sc, rid) for _s, sc, rid in everything[:60]]  # the 60 nearest, of all three scopes
    vec.drop(dead)
    live = [t for t in everything if (t[1], t[2]) not in set(dead)]
    for k in (1, 5, 40):
        prepared = vec.prepare(["ana", "bob", "cy"], k, use_graph=long_lived)
        got = prepared.run(q, pool if long_lived else None)
        assert not {(h.scope, h.id) for h in got} & set(dead)
        np.testing.assert_allclose([h.similarity for h in got], [s for s, *_r in live[:k]], atol=1e-6)
        wants = [j[3] for j in prepared.exact] + ([prepared.stacked[3]] if prepared.stacked else [])
        assert max(wants) <= k
    vec.close()
