"""What the use cases reach the outside through, handed in by the CLI (tests hand in others)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from xcli.execute.fanout import FanoutResult, OutputSink
    from xcli.execute.result import RunResult
    from xcli.plan.fanout import Broadcast
    from xcli.plan.model import Plan
    from xcli.providers import Registry

# Builds the live handlers of a plan's step kinds, only when a live run needs them.
Handlers = Callable[[], Mapping[str, Any]]


class Location(Protocol):
    """Where a command points: the --project/--zone flags as given, and the resolved values
    (resolved lazily: flag, environment, config file, gcloud). The CLI's `Common` is one."""

    @property
    def project_flag(self) -> str | None: ...
    @property
    def zone_flag(self) -> str | None: ...
    @property
    def project(self) -> str: ...
    @property
    def zone(self) -> str: ...


class RunPlan(Protocol):
    """Print the plan (dry-run) or run it live with progress and a summary; raises PlanFailed
    when a step failed."""

    def __call__(self, plan: Plan, handlers: Handlers) -> None: ...


class RunQuiet(Protocol):
    """Print the plan (dry-run: returns None) or run it live without progress display (the
    step streams its own output) and return the run's result."""

    def __call__(self, plan: Plan, handlers: Handlers) -> RunResult | None: ...


class BroadcastRunner(Protocol):
    """Runs a Broadcast step on its workers (gateways/broadcast.py:run_broadcast)."""

    def __call__(
        self, step: Broadcast, sink: OutputSink, cancelled: threading.Event | None = None
    ) -> FanoutResult: ...


@dataclass(frozen=True)
class Deps:
    registry: Registry
    run_plan: RunPlan
    run_quiet: RunQuiet
    # Ask before something destructive; returns only when the answer is yes (or --yes, or a
    # dry-run); raises when the answer is no or nobody can answer.
    confirm: Callable[[str], None]
    # Refuse now (before anything is read) when `what` will ask later and nobody can answer.
    require_answerable: Callable[[str], None]
    # A question answered on stdin, for Terraform's own prompts during a run.
    ask: Callable[[str], bool]
    # One line for the user on stderr (progress notes outside a plan run).
    say: Callable[[str], None]
    broadcast: BroadcastRunner
    # Where a fan-out's worker output goes: streamed to the terminal and logged per worker in
    # the folder given (None: the default log folder).
    sink: Callable[[Path | None], OutputSink]
    # Become this process (an interactive ssh session owns the terminal from there on).
    replace_process: Callable[[Sequence[str]], None]
    # The provider-only flags of `cluster create` given with a non-default value that are not
    # in `supported` (Terraform mode refuses them); the CLI knows its flags.
    unsupported_flags: Callable[[str, Mapping[str, Any], frozenset[str]], list[str]]
