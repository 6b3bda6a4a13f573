"""Fusion: the candidates of both arms ranked into hits (convex combination, calibrated; or
reciprocal-rank fusion), each hit read from its file and checked against what ranked it."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any

from mem.format.model.record import Record
from mem.format.search.candidates import FILTERED, GONE, STALE, CandidateViews
from mem.format.search.results import Hit
from mem.format.store.store import RecordFilter

if TYPE_CHECKING:
    from mem.format.index.lexical import LexicalIndex
    from mem.format.index.vectors import VectorIndex

RRF_K = 60


class Fusion(CandidateViews):
    """A searcher's ranking of both arms' candidates (``Searcher`` builds on it)."""

    def _fuse(self, mode: str, lex_hits: list[Any], vec_hits: list[Any], flt: RecordFilter,
              at: _dt.datetime, explain: bool, vec: VectorIndex | None = None,
              qvec: Any = None, weights: dict[str, float] | None = None,
              lex: LexicalIndex | None = None, k: int | None = None,
              views: dict[tuple[str, str], Any] | None = None, tomb: dict[str, Any] | None = None,
              inputs: dict[tuple[str, str], Any] | None = None, date_hits: list[Any] | None = None,
              ) -> tuple[list[Hit], list[tuple[str, str]]]:
        """Rank the candidates of both arms (and of the time-drawn arm, ``date_hits``: the
        lexical index's documents valid near a date the query names, scored like the others);
        the best ``k`` (all when None) as hits, and the candidates found stale (their index
        entries disagree with their files).

        Each candidate is looked up by ``_views`` and scored by ``_inputs`` (``views`` and
        ``inputs`` may hold some already); only the hits returned are read from their files, and
        each is checked against what ranked it.
        """
        from mem.format.index.lexical import DocMeta
        from mem.format.search.relevance import first_z, sigmoid

        how, w = self._fusion() if mode == "hybrid" else ("", 0.0)
        cands: dict[tuple[str, str], dict[str, Any]] = {}
        for rank, h in enumerate(lex_hits, 1):
            cands.setdefault((h.scope, h.id), {})["lexical"] = (rank, h.score, h.digest)
        for rank, h in enumerate(vec_hits, 1):
            cands.setdefault((h.scope, h.id), {})["vector"] = (rank, h.similarity, h.digest)
        for rank, h in enumerate(date_hits or (), 1):
            cands.setdefault((h.scope, h.id), {})["date"] = (rank, h.score, h.digest)
        stale: list[tuple[str, str]] = []
        tomb = {} if tomb is None else tomb
        views = {} if views is None else views
        self._views(list(cands), flt, tomb, weights if mode == "hybrid" and how == "convex" else None, lex, views)
        ranking: list[tuple[tuple[str, str], dict[str, Any], str, Record | None, DocMeta | None,
                            frozenset[str] | None]] = []
        for key, arms in cands.items():
            view = views[key]
            if view is FILTERED:
                continue
            if view is GONE:
                if "lexical" in arms or "date" in arms:
                    stale.append(key)  # file gone or unreadable: drop it from the index
                continue
            if view is STALE:
                stale.append(key)  # the index disagrees with the file: re-index it, rank again
                continue
            digest, rec, m, found = view
            if any(a in arms and arms[a][2] != digest for a in ("lexical", "date")):
                stale.append(key)
                continue
            if "vector" in arms and arms["vector"][2] != digest:
                del arms["vector"]  # computed from older content: never used
                if not arms:
                    continue
            ranking.append((key, arms, digest, rec, m, found))

        ranked: list[tuple[float, str, tuple[str, str], dict[str, Any], Record | None, DocMeta | None,
                           dict[str, Any] | None, float | None, float]] = []
        inputs = {} if inputs is None else inputs
        self._inputs([key for key, *_r in ranking], views, inputs, mode, at, explain, weights, vec,
                     found_by_vector={key for key, arms, *_r in ranking if "vector" in arms})
        floor = 0.0
        provider = None  # whose cosines: stage 1's calibration (relevance.CALIBRATION)
        if vec is not None:
            from mem.format.embed import similarity_floor

            floor = similarity_floor(vec.space)  # a cosine c weighs as (c - floor) / (1 - floor)
            provider = vec.space.provider
        filled: dict[tuple[str, str], float] = {}
        if mode == "hybrid" and how == "convex" and vec is not None and qvec is not None:
            # a lexical-only hit gets its real cosine (its vector is looked up, not assumed 0)
            filled = _cosines([key for key, arms, *_r in ranking if "vector" not in arms], inputs, qvec)
        for key, arms, _digest, rec, m, _found in ranking:
            rid = key[1]
            p, parts, cov, _vectors = inputs[key]
            cos_filled: float | None = None
            if mode == "hybrid" and how == "rrf":
                base = sum(1.0 / (RRF_K + a[0]) for a in arms.values())
            elif mode == "hybrid":
                # convex combination: w * cosine + (1 - w) * coverage ** 2; a lexical-only hit
                # gets its real cosine (its vector is looked up, not assumed 0), a vector-only
                # hit its real coverage
                if "vector" in arms:
                    cos = arms["vector"][1]
                else:
                    cos_filled = filled.get(key)
                    cos = floor if cos_filled is None else cos_filled  # no vector: unrelated
                if floor:
                    cos = (cos - floor) / (1.0 - floor)
                assert cov is not None
                base = w * cos + (1.0 - w) * cov * cov
            elif mode == "lexical":
                base = arms["lexical"][1]
            else:
                base = arms["vector"][1]
                if floor:
                    base = (base - floor) / (1.0 - floor)
            ex = None
            if explain:
                ex = {"base": round(base, 6), "prior": round(p, 6), "prior_parts": parts}
                if "lexical" in arms:
                    ex["lexical"] = {"rank": arms["lexical"][0], "bm25": round(arms["lexical"][1], 4)}
                if "date" in arms:
                    ex["date"] = {"rank": arms["date"][0]}
                if "vector" in arms:
                    ex["vector"] = {"rank": arms["vector"][0], "cosine": round(arms["vector"][1], 4)}
                elif cos_filled is not None:
                    ex["vector"] = {"rank": None, "cosine": round(cos_filled, 4)}
                if floor and "vector" in ex:
                    ex["vector"]["similarity_floor"] = floor
                if cov is not None:
                    ex["coverage"] = round(cov, 4)
                if how:
                    ex["fusion"] = how if how == "rrf" else f"convex(vector_weight={w})"
            z = None
            if mode == "hybrid" and how == "convex":  # calibrated: mem.format.search.relevance
                z = first_z(base, provider)
                rel = sigmoid(z)
                if ex is not None:
                    ex["relevance"] = round(rel, 6)
                base = rel
            ranked.append((base * p, rid, key, arms, rec, m, ex, z, p))

        ranked.sort(key=lambda r: (-r[0], r[1]))
        out: list[Hit] = []
        for score, rid, key, arms, rec, m, ex, z, prior_of_hit in ranked:
            if k is not None and len(out) >= k:
                break
            if rec is None:  # ranked from the index state: read it now, and check it
                got = self._record_digest(key[0], rid, tomb)
                if got is None:
                    if "lexical" in arms or "date" in arms:
                        stale.append(key)
                    continue
                rec = got[0]
                if m is None or self._state_fields(key, rec) != m[2:]:
                    stale.append(key)  # the state did not describe the file (digest or a field): re-index
                    continue
            out.append(Hit(rec.id, score, rec.scope, rec.kind, rec.status, rec.content,
                           [a for a in ("lexical", "vector", "date") if a in arms], rec, ex, z, prior_of_hit))
        return out, stale


def _cosines(keys: list[tuple[str, str]], inputs: dict[tuple[str, str], Any], q: Any) -> dict[tuple[str, str], float]:
    """The cosines of ``keys`` with ``q``, from the vectors ``_inputs`` stacked for them (a key
    without one is left out): one product per stack."""
    import numpy as np

    q = np.asarray(q, dtype=np.float32).reshape(-1)
    out: dict[tuple[str, str], float] = {}
    sims: dict[int, list[float]] = {}
    for key in keys:
        at = inputs[key][3]
        if at is None:
            continue
        mat, i = at
        got = sims.get(id(mat))
        if got is None:
            got = sims[id(mat)] = (mat @ q).tolist()
        out[key] = got[i]
    return out
