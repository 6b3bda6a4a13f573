"""What a search returns: its hits, the result, the prior each hit's score was multiplied by;
the modes a search runs in and the bound of ``k``."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from mem.format.model.record import Record
from mem.format.rules.ranking import prior_of
from mem.format.rules.settings import MAX_K as MAX_K

MODES: tuple[str, ...] = ("hybrid", "lexical", "vector")


@dataclass
class Hit:
    id: str
    score: float
    scope: str
    kind: str
    status: str
    content: str
    arms: list[str]
    record: Record
    explain: dict[str, Any] | None = None
    #: the log-odds of relevance behind a calibrated score (hybrid, convex fusion), else None
    z: float | None = None
    #: the prior the score was multiplied by (None: not known)
    prior: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "score": round(self.score, 6),
            "scope": self.scope,
            "kind": self.kind,
            "status": self.status,
            "content": self.content,
            "arms": list(self.arms),
        }
        if self.explain is not None:
            d["explain"] = self.explain
        return d


@dataclass
class SearchResult:
    hits: list[Hit]
    warnings: list[str] = field(default_factory=list)
    mode: str = "hybrid"
    #: records without a vector yet (a backlog larger than a search's catch-up budget): the
    #: vector arm cannot find them, the lexical arm can; in ``to_dict`` only when there are some
    unembedded: int = 0
    #: records no arm can find yet: written while another process held the writer lock (an
    #: import), so the index could not be brought up to date with them (every record of the
    #: searched scopes when there is no index yet); in ``to_dict`` only when there are some
    unindexed: int = 0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode, "hits": [h.to_dict() for h in self.hits],
                             "warnings": list(self.warnings)}
        if self.unembedded:
            d["unembedded"] = self.unembedded
        if self.unindexed:
            d["unindexed"] = self.unindexed
        return d


def prior(rec: Record, at: _dt.datetime) -> tuple[float, dict[str, float]]:
    """status x confidence x recency, and its parts (``rules.ranking.prior_of``, which the one-shot path calls too)."""
    return prior_of(rec.status, rec.confidence, rec.recorded_at, at)
