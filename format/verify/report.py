"""What ``mem verify`` reports: its findings (:class:`Finding`) and the report
(:class:`VerifyReport`). Part of :mod:`mem.format.verify.checks`, which re-exports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: str  # "error" or "warning" (after configured overrides)
    path: str  # relative to the store root, '/'-separated; "." for the store itself
    message: str
    fix: str  # the hint and the spec section of the rule (sub-rule) broken
    rule: str | None = None  # the sub-rule (``E103.5``) when the code covers several

    def to_dict(self) -> dict[str, str]:
        out = {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
            "fix": self.fix,
        }
        if self.rule is not None:
            out["rule"] = self.rule
        return out

    def line(self) -> str:
        rule = f"{self.rule}; " if self.rule is not None else ""
        return f"[{self.code}] {self.path}: {self.message} ({rule}fix: {self.fix})"


@dataclass
class VerifyReport:
    """What ``verify`` found. ``valid`` is False when any finding has severity error."""

    root: Path
    level: str
    findings: list[Finding] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)  # code -> findings hidden by config
    overrides: dict[str, str] = field(default_factory=dict)  # code -> configured level
    records: int = 0
    tombstones: int = 0
    events: int = 0

    @property
    def valid(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, Any]:
        by_code: dict[str, int] = {}
        for f in self.findings:
            by_code[f.code] = by_code.get(f.code, 0) + 1
        return {
            "errors": sum(1 for f in self.findings if f.severity == "error"),
            "warnings": sum(1 for f in self.findings if f.severity == "warning"),
            "ignored": sum(self.ignored.values()),
            "by_code": dict(sorted(by_code.items())),
            "records": self.records,
            "tombstones": self.tombstones,
            "events": self.events,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "level": self.level,
            "store": str(self.root),
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.counts(),
            "overrides": dict(sorted(self.overrides.items())),
        }
