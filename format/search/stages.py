"""The later stages of a hybrid search: stage 2 (the speaker named, a "when" answered) and
stage 3 (the reranker), each rescoring the best hits' calibrated relevance
(:mod:`mem.format.search.relevance`); whether to rerank, and the reranker's model."""

from __future__ import annotations

from typing import Any

from mem.format.search.resources import SearcherResources
from mem.format.search.results import Hit


class LaterStages(SearcherResources):
    """A searcher's stages 2 and 3 (``Searcher`` builds on it)."""

    def _rerank_setting(self, asked: bool | None) -> tuple[bool, int]:
        """Whether to rerank (``asked``, else ``[search] rerank``, default off) and how many of the
        best hits the reranker reads (``[search] rerank_top``)."""
        conf = self.store.config
        on: bool = conf.value("search", "rerank") if asked is None else asked
        top: int = conf.value("search", "rerank_top")
        return on, top

    def reranker(self) -> Any:
        """The reranker's model, loaded once (raises RerankerUnavailableError, remembered)."""
        if self._reranker is None:
            if self._reranker_error is not None:
                raise self._reranker_error
            from mem.format.base.errors import RerankerUnavailableError
            from mem.format.embed import choose
            from mem.format.search.rerank import load_reranker

            try:
                self._reranker = load_reranker(threads=choose(self.store.config).threads)
            except RerankerUnavailableError as exc:
                self._reranker_error = exc
                raise
        return self._reranker

    def _stage2(self, query: str, hits: list[Hit], explain: bool) -> list[Hit]:
        """Stage 2 (mem.format.search.relevance): when the query names someone who speaks in the best
        ``SPEAKER_TOP`` hits, asks "when" or names a date, every hit is rescored by whether its
        speaker is the one named, whether it says when and whether its time falls in the named
        date's window; all sorted by score."""
        from mem.format.search.relevance import (
            SPEAKER_TOP,
            date_match,
            name_match,
            read_query,
            sigmoid,
            speaker_of,
            speaker_z,
            time_match,
        )

        reading = read_query(query)
        if not reading.names and not reading.asks_when and not reading.dates:
            return hits
        scored = [h for h in hits if h.z is not None and h.prior is not None]
        who = {id(h): speaker_of(h.record.source, h.content, h.record.kind) for h in scored}
        by_name = bool(reading.names & {who[id(h)] for h in scored[:SPEAKER_TOP]})
        if not by_name and not reading.asks_when and not reading.dates:
            return hits
        for h in scored:
            assert h.z is not None and h.prior is not None
            named = name_match(reading, who[id(h)]) if by_name else 0.0
            timed = time_match(reading, h.content)
            dated = date_match(reading, h.record.valid_from)
            z = speaker_z(h.z, named, timed, dated)
            rel = sigmoid(z)
            if explain and h.explain is not None:
                h.explain["speaker"] = {"speaker": who[id(h)], "named": named, "says_when": timed,
                                        "date_named": dated, "first_relevance": h.explain.get("relevance")}
                h.explain["relevance"] = round(rel, 6)
            h.z, h.score = z, rel * h.prior
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits

    def _rerank(self, query: str, hits: list[Hit], top_n: int, explain: bool, warnings: list[str]) -> list[Hit]:
        """Stage 3: the best ``top_n`` hits rescored with the reranker (mem.format.search.rerank, and
        mem.format.search.relevance), all sorted by score. Without the model: ``hits``, and a warning."""
        from mem.format.base.errors import RerankerUnavailableError
        from mem.format.search.relevance import (
            date_match,
            name_match,
            read_query,
            rerank_z,
            sigmoid,
            speaker_of,
        )

        head = [h for h in hits[:top_n] if h.z is not None and h.prior is not None]
        if not head:
            return hits
        try:
            model = self.reranker()
        except RerankerUnavailableError as exc:
            warnings.append(f"reranking unavailable, first-stage order: {exc}")
            return hits
        reading = read_query(query)
        sims = model.scores(query, [h.content for h in head])
        for h, ms in zip(head, sims, strict=True):
            assert h.z is not None and h.prior is not None
            named = name_match(reading, speaker_of(h.record.source, h.content, h.record.kind))
            z = rerank_z(h.z, ms, named)
            rel = sigmoid(z)
            if explain and h.explain is not None:
                h.explain["rerank"] = {"before": h.explain.get("relevance"), "maxsim": round(ms, 4),
                                       "date_named": date_match(reading, h.record.valid_from)}
                h.explain["relevance"] = round(rel, 6)
            h.z, h.score = z, rel * h.prior
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits
