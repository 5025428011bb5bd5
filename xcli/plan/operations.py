"""An API call that returns a long-running operation, and finishes when the operation does.

GKE and Compute Engine answer a create or delete with an Operation. Bounding concurrency has to
cover the whole operation, not only the request that starts it (GKE limits concurrently running
operations per cluster), so the request and the wait are one step: the step's lane slot is held
until the operation is done.

JSON form: the api_call fields plus "wait" {"until", "poll", "timeout_seconds"} and, for a step
that removes something, "destructive": true (the CLI asks before running such a plan).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xcli.plan.model import Plan
from xcli.plan.steps import ApiCall


@dataclass(frozen=True, kw_only=True)
class OperationCall(ApiCall):
    """An ApiCall whose handler polls the returned operation (with backoff) until it is done."""

    poll: str  # how the operation is polled, for readers: "GET <base>/operations/{name}"
    timeout_seconds: int = 3600
    destructive: bool = False

    def details(self) -> dict[str, Any]:
        out = super().details()
        out["wait"] = {
            "until": "operation status DONE",
            "poll": self.poll,
            "timeout_seconds": self.timeout_seconds,
        }
        if self.destructive:
            out["destructive"] = True
        return out


def destructive_steps(plan: Plan) -> list[str]:
    """Summaries of the steps that remove something, for the confirmation question."""
    return [s.summary for s in _operation_calls(plan.steps) if s.destructive]


def _operation_calls(steps: Iterable[object]) -> Iterable[OperationCall]:
    return (s for s in steps if isinstance(s, OperationCall))
