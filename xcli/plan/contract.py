"""The handler contract: what a step handler is handed and returns, and how it reports.

The executor (xcli.execute) calls handlers; gateways and providers write them. Both sides import
this module, so a gateway never needs the executor. It depends only on the plan model and the
standard library.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
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


_RUN_CANCEL: ContextVar[threading.Event | None] = ContextVar("xcli_run_cancel", default=None)
_RUN_ABANDON: ContextVar[threading.Event | None] = ContextVar("xcli_run_abandon", default=None)


@contextmanager
def cancel_scope(
    cancelled: threading.Event, abandoned: threading.Event | None = None
) -> Iterator[None]:
    """While a step runs in its thread: the run's cancel event, for code that is not handed
    the step's context (a gateway's brief retry of a read), and its abandon event (a second
    Ctrl-C: cut short the cleanup the first one started)."""
    token = _RUN_CANCEL.set(cancelled)
    other = _RUN_ABANDON.set(abandoned)
    try:
        yield
    finally:
        _RUN_ABANDON.reset(other)
        _RUN_CANCEL.reset(token)


def run_cancel_event() -> threading.Event:
    """The cancel event of the step this thread carries out; outside a run (the main thread,
    where Ctrl-C raises KeyboardInterrupt by itself) an event nobody sets."""
    return _RUN_CANCEL.get() or threading.Event()


def run_abandon_event() -> threading.Event:
    """Set by a second Ctrl-C: a handler still cleaning up after the first (stopping remote
    work) stops doing so and says what may still run. Outside a run, an event nobody sets."""
    return _RUN_ABANDON.get() or threading.Event()


class Handler(Protocol):
    """Carries out one kind of step for real; returns the step's outputs."""

    def __call__(self, step: Any, ctx: StepContext) -> Mapping[str, Any]: ...
