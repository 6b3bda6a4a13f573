"""An import's options, and the outcome of each item and of the whole run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mem.format.interchange.importers.base import OUTCOMES, Problem, Where


@dataclass
class ImportOptions:
    scope: str | None = None  # everything into this scope
    scope_map: dict[str, str] = field(default_factory=dict)  # source scope/user/character -> scope
    default_scope: str = "default"
    dry_run: bool = False
    keep_items: bool = False  # list every item's outcome in the summary (dry runs)
    #: import ``lift`` lines that do not accompany their record (an explicit, logged override)
    allow_forgotten: bool = False
    allow_secret: bool = False  # store items whose text holds a secret (logged per record)


@dataclass
class ItemResult:
    outcome: str
    where: Where
    id: str | None = None
    scope: str | None = None
    kind: str | None = None
    original_id: str | None = None
    content: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "id": self.id,
            "scope": self.scope,
            "kind": self.kind,
            "original_id": self.original_id,
            "file": self.where.file,
            "line": self.where.line,
            "content": self.content,
        }


@dataclass
class ImportSummary:
    system: str
    path: str
    dry_run: bool
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    tombstones: dict[str, int] = field(
        default_factory=lambda: {"added": 0, "unchanged": 0, "conflict": 0, "invalid": 0, "refused": 0}
    )
    problems: list[Problem] = field(default_factory=list)
    items: list[ItemResult] = field(default_factory=list)
    warnings: int = 0

    @property
    def failed(self) -> bool:
        """True when some input could not be imported (invalid lines, id conflicts, secrets)."""
        c = self.counts
        return bool(
            c["invalid"] or c["conflict"] or c["refused_secret"]
            or self.tombstones["invalid"] or self.tombstones["conflict"]
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "path": self.path,
            "dry_run": self.dry_run,
            "counts": dict(self.counts),
            "tombstones": dict(self.tombstones),
            "warnings": self.warnings,
            "problems": [p.to_dict() for p in self.problems],
        }
        if self.items:
            out["items"] = [i.to_dict() for i in self.items]
        return out
