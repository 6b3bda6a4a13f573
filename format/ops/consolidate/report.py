"""Results: what happened to each window, and the run's report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mem.format.ops.consolidate.model import Answer, Refusal, Window


@dataclass
class WindowResult:
    window: Window
    outcome: str  # planned | created | none | done | refused | previewed
    refusal: Refusal | None = None
    summary: str | None = None  # the id of the summary record
    facts: list[str] = field(default_factory=list)
    superseded: list[dict[str, str]] = field(default_factory=list)  # {"old", "new"}
    dropped: list[dict[str, Any]] = field(default_factory=list)  # {"item", "reason", ...}
    resumed: bool = False
    answer: Answer | None = None

    def to_dict(self) -> dict[str, Any]:
        out = self.window.brief()
        out["outcome"] = self.outcome
        if self.refusal is not None:
            out["refusal"] = {"code": self.refusal.code, "reason": self.refusal.message}
            if self.refusal.stderr:
                out["refusal"]["stderr"] = self.refusal.stderr
        if self.outcome in ("created", "previewed"):
            out["summary"] = self.summary
            out["facts"] = self.facts
            out["superseded"] = self.superseded
            out["dropped"] = self.dropped
        if self.resumed:
            out["resumed"] = True
        return out


@dataclass
class Report:
    mode: str
    summarizer: str
    results: list[WindowResult] = field(default_factory=list)
    deferred: list[dict[str, Any]] = field(default_factory=list)
    not_run: list[Window] = field(default_factory=list)  # budget or a refusal earlier in the stream
    budget_exhausted: bool = False

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def refused(self) -> list[WindowResult]:
        return [r for r in self.results if r.outcome == "refused"]

    def to_dict(self) -> dict[str, Any]:
        created = [i for r in self.results if r.outcome == "created" for i in _created_ids(r)]
        return {
            "mode": self.mode,
            "summarizer": self.summarizer or None,
            "windows": {
                "planned": len(self.results) + len(self.not_run),
                "processed": sum(1 for r in self.results if r.outcome != "planned"),
                "created": self.count("created"),
                "none": self.count("none"),
                "done": self.count("done"),
                "refused": self.count("refused"),
                "previewed": self.count("previewed"),
                "not_run": len(self.not_run),
                "deferred": len(self.deferred),
            },
            "budget_exhausted": self.budget_exhausted,
            "created": created,
            "superseded": [s for r in self.results for s in r.superseded if r.outcome == "created"],
            "refusals": [
                {
                    "scope": r.window.scope,
                    "conversation": r.window.conversation,
                    "window": r.window.key,
                    "code": r.refusal.code,
                    "reason": r.refusal.message,
                }
                for r in self.refused
                if r.refusal is not None
            ],
            "deferred": self.deferred,
            "results": [r.to_dict() for r in self.results],
        }


def _created_ids(r: WindowResult) -> list[str]:
    return [*(s["new"] for s in r.superseded), *r.facts, *([r.summary] if r.summary else [])]
