"""Pruned exact vector search (format/index/vectors.py: exact_top with a projection) returns the
exact top k: property tests against the plain product, on low-rank and on full-rank data."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.format.embed import space_of
from mem.format.errors import IndexUnavailableError
from mem.format.index.vectors import VectorIndex, exact_top, make_projection


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
    full = mat @ q
    best = np.sort(full)[::-1][:want]
    assert len(idx) == want == len(set(idx.tolist()))
    np.testing.assert_allclose(np.sort(full[idx])[::-1], best, atol=1e-5)  # same scores: same set up to ties
    np.testing.assert_allclose(sims, full[idx], atol=1e-5)  # products reported are the rows' own


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), want=st.integers(1, 120), rank=st.integers(2, 24),
       ood=st.booleans())
def test_pruned_equals_exact_on_low_rank_data(seed: int, want: int, rank: int, ood: bool) -> None:
    rng = np.random.default_rng(seed)
    mat = _clustered(rng, 1500, 64, rank)
    proj = make_projection(mat, variance=0.97, max_fraction=0.75)
    assert proj is not None
    basis, p, resid = proj
    assert basis.shape[1] == 64 and p.shape == (1500, basis.shape[0]) and resid.shape == (1500,)
    # a query unlike the rows (random direction) or like them (a perturbed row)
    q = _unit(rng.standard_normal(64)) if ood else _unit(mat[rng.integers(1500)] + 0.1 * rng.standard_normal(64))
    _assert_same_top(mat, q, want, exact_top(mat, q, want, projection=proj))


def test_pruned_search_with_a_thread_pool_and_memory_maps(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    mat = _clustered(rng, 40_000, 96, 12)
    proj = make_projection(mat)
    assert proj is not None
    paths = []
    for name, arr in zip(("basis", "proj", "resid", "mat"), (*proj, mat), strict=True):
        p = tmp_path / f"{name}.npy"
        np.save(p, arr)
        paths.append(p)
    basis = np.load(paths[0])
    pm, rm, mm = (np.load(p, mmap_mode="r") for p in paths[1:])
    with ThreadPoolExecutor(2) as pool:
        for i in range(20):
            q = _unit(rng.standard_normal(96)) if i % 2 else _unit(mat[i] + 0.2 * rng.standard_normal(96))
            _assert_same_top(mat, q, 40, exact_top(mm, q, 40, pool=pool, projection=(basis, pm, rm)))
            _assert_same_top(mat, q, 40, exact_top(mat, q, 40, pool=pool))


def test_full_rank_rows_get_no_projection() -> None:
    """Random directions spread their variance over every dimension: the bound cannot prune,
    so no projection is built and search stays a plain exact product."""
    rng = np.random.default_rng(5)
    mat = _unit(rng.standard_normal((5000, 64)))
    assert make_projection(mat) is None
    q = _unit(rng.standard_normal(64))
    _assert_same_top(mat, q, 10, exact_top(mat, q, 10))


def test_want_at_least_rows_returns_all() -> None:
    rng = np.random.default_rng(6)
    mat = _unit(rng.standard_normal((30, 16)))
    idx, sims = exact_top(mat, mat[0], 50)
    assert sorted(idx.tolist()) == list(range(30))
    np.testing.assert_allclose(sims, mat @ mat[0], atol=1e-6)


def _build(tmp: Path, name: str, per_scope: dict[str, list[tuple[str, str, np.ndarray]]],
           proj_min_rows: int) -> VectorIndex:
    from mem.format.index.vectors import build_vectors

    space = space_of("hashing")
    m = build_vectors(tmp / name, dataclasses.replace(space, dim=48), per_scope, lex_generation=None,
                      lex_seq=0, proj_min_rows=proj_min_rows)
    return VectorIndex(tmp, m)


def test_vector_index_with_projection_answers_like_without(tmp_path: Path) -> None:
    """A generation built with projections (manifest ``proj`` > 0, three files per scope) returns
    the same hits as one built without; scopes stay apart; a damaged projection is exit 9."""
    rng = np.random.default_rng(11)
    per_scope = {
        sc: [(f"{sc}-{i:05d}", f"d{i}", row) for i, row in enumerate(_clustered(rng, 2500, 48, 6))]
        for sc in ("ana", "bob")
    }
    pruned = _build(tmp_path, "vectors-a", per_scope, proj_min_rows=1000)
    plain = _build(tmp_path, "vectors-b", per_scope, proj_min_rows=10**9)
    assert pruned.manifest["scopes"]["ana"]["proj"] > 0 and plain.manifest["scopes"]["ana"]["proj"] == 0
    assert (tmp_path / "vectors-a" / "ana.proj.npy").is_file()
    assert not (tmp_path / "vectors-b" / "ana.proj.npy").exists()
    for i in range(15):
        q = _unit(rng.standard_normal(48)) if i % 2 else per_scope["bob"][i][2]
        for scopes in (["ana"], ["bob"], ["ana", "bob"]):
            a = pruned.search(q, scopes, 40)
            b = plain.search(q, scopes, 40)
            assert {h.scope for h in a} <= set(scopes)
            np.testing.assert_allclose([h.similarity for h in a], [h.similarity for h in b], atol=1e-5)
    np.save(tmp_path / "vectors-a" / "bob.resid.npy", np.zeros(7, dtype=np.float32))
    fresh = VectorIndex(tmp_path, pruned.manifest)
    with pytest.raises(IndexUnavailableError, match="projection has shape"):
        fresh.search(per_scope["bob"][0][2], ["bob"], 10)
