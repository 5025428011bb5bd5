"""What running a plan produced, and the interface through which progress is reported."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from xcli.plan.model import Step

Status = Literal["planned", "ok", "failed", "skipped", "cancelled"]


@dataclass
class StepResult:
    step: Step
    status: Status
    outputs: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None
    reason: str = ""  # why it was skipped or cancelled, or a short note on success
    seconds: float = 0.0


@dataclass
class RunResult:
    title: str
    results: dict[str, StepResult]

    @property
    def ok(self) -> bool:
        return all(r.status in ("ok", "planned") for r in self.results.values())

    def by_status(self, status: Status) -> list[StepResult]:
        return [r for r in self.results.values() if r.status == status]

    def outputs(self) -> dict[str, dict[str, Any]]:
        return {sid: r.outputs for sid, r in self.results.items()}


class Reporter(Protocol):
    """Receives progress from the executor and from step handlers (thread-safe by contract)."""

    def started(self, step: Step) -> None: ...

    def progress(self, step: Step, message: str) -> None: ...

    def finished(self, result: StepResult) -> None: ...


class NullReporter:
    def started(self, step: Step) -> None:
        pass

    def progress(self, step: Step, message: str) -> None:
        pass

    def finished(self, result: StepResult) -> None:
        pass


@dataclass
class StepContext:
    """Handed to a handler with its step: report progress, notice cancellation."""

    step: Step
    reporter: Reporter
    cancelled: threading.Event
    outputs: Mapping[str, Mapping[str, Any]]

    def report(self, message: str) -> None:
        self.reporter.progress(self.step, message)


class Handler(Protocol):
    """Carries out one kind of step for real; returns the step's outputs."""

    def __call__(self, step: Any, ctx: StepContext) -> Mapping[str, Any]: ...
