"""What running a whole plan produced: the executor's result, step by step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xcli.plan.contract import Status, StepResult


@dataclass
class RunResult:
    title: str
    results: dict[str, StepResult]
    links: dict[str, str] = field(default_factory=dict)  # the plan's links (Plan.links)

    @property
    def ok(self) -> bool:
        return all(r.status in ("ok", "planned") for r in self.results.values())

    def by_status(self, status: Status) -> list[StepResult]:
        return [r for r in self.results.values() if r.status == status]

    def outputs(self) -> dict[str, dict[str, Any]]:
        return {sid: r.outputs for sid, r in self.results.items()}
