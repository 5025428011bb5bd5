"""What the use cases reach the outside through, handed in by the CLI (tests hand in others)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from xcli.app.record import Live
    from xcli.execute.result import RunResult
    from xcli.gateways.ssh.output import OutputSink
    from xcli.image.local import EngineLookup
    from xcli.plan.fanout import Broadcast, SshSettings, Target
    from xcli.plan.fanout_result import FanoutResult
    from xcli.plan.model import Plan
    from xcli.providers import Registry
    from xcli.providers.terraform_live import Connections
    from xcli.storage.service import StorageGateways
    from xcli.workload.backends import WorkloadGateways
    from xcli.workload.facts import Facts

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


class EngineChoice(Protocol):
    """The engine `--engine auto` picked (gateways/ssh/choice.py:EngineChoice)."""

    @property
    def engine(self) -> str: ...
    @property
    def note(self) -> str | None: ...  # why OpenSSH, or what asyncssh lacks
    @property
    def send_env(self) -> tuple[str, ...]: ...  # NAME=VALUE the asyncssh engine sends
    @property
    def through(self) -> str | None: ...  # the jump host the user's ssh config routes through


class BroadcastRunner(Protocol):
    """Runs a Broadcast step on its workers (gateways/ssh/broadcast.py:run_broadcast)."""

    def __call__(
        self, step: Broadcast, sink: OutputSink, cancelled: threading.Event | None = None
    ) -> FanoutResult: ...


class Clocks(Protocol):
    """How commands that poll a cluster tell time and wait (gateways/backoff.py:Timing is one;
    tests hand in a fake clock whose sleep only advances it). Kept apart from how a cluster is
    reached (the provider's ClusterAccess): a connection does not tell time."""

    @property
    def sleep(self) -> Callable[[float, threading.Event], None]: ...  # ends early on Ctrl-C
    @property
    def clock(self) -> Callable[[], float]: ...  # monotonic seconds: timeouts
    @property
    def now(self) -> Callable[[], datetime]: ...  # wall clock: ages and durations


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
    # One line for the user on stderr (progress notes outside a plan run).
    say: Callable[[str], None]
    broadcast: BroadcastRunner
    # Where a fan-out's worker output goes: streamed to the terminal and logged per worker in
    # the folder given (None: the default log folder).
    sink: Callable[[Path | None], OutputSink]
    # `--engine auto`: asyncssh unless the user's OpenSSH setup asks for something only
    # OpenSSH does (gateways/ssh/choice.py reads that setup).
    choose_engine: Callable[[Sequence[Target], SshSettings], EngineChoice]
    # Where OpenSSH's reusable connections keep their sockets.
    control_dir: Callable[[], Path]
    # Become an interactive ssh client (argv; the socket folder to make first, if any): the
    # session owns the terminal from there on.
    shell: Callable[[Sequence[str], Path | None], None]
    # Stop a VM workload (its record folder) while its workers can still be reached.
    stop_workload: Callable[[Path], None]
    # terraform or tofu on PATH, if any.
    terraform_binary: Callable[[], str | None]
    # The live handlers of a Terraform-mode plan (its own prompts answered on the terminal),
    # with the given handlers for the steps after apply.
    terraform_handlers: Callable[[Mapping[str, Any] | None], Mapping[str, Any]]
    # The provider-only flags of `cluster create` given with a non-default value that are not
    # in `supported` (Terraform mode refuses them); the CLI knows its flags.
    unsupported_flags: Callable[[str, Mapping[str, Any], frozenset[str]], list[str]]
    # What only a live run does around a cluster's plan (app/record.py): LIVE, or DRY for
    # --dry-run, which reads, checks and records nothing.
    record: Live
    # How waits and polls tell time and sleep.
    timing: Clocks
    # How `xcli storage` reaches Google (buckets, Filestore, Lustre, GKE add-ons); built on
    # first use, once per command.
    storage_gateways: Callable[[], StorageGateways]
    # How the steps after `terraform apply` reach Google and the cluster (None: the real way).
    terraform_connections: Connections | None = None
    # How workload commands read Cloud Logging (None: the real way; clusters come through
    # the registry's ClusterAccess, clocks through `timing`).
    workload_gateways: WorkloadGateways | None = None
    # What a workload command reads before it plans (xcli/app/workload_facts.py): LIVE_FACTS,
    # or for --dry-run a DryFacts that reads the --cluster-metadata and --storage-record files
    # and the flags instead of the cluster. None: LIVE_FACTS.
    facts: Facts | None = None
    # The live handlers of an image build's steps (registry, Artifact Registry): built on
    # first use; None where no command builds images.
    image_handlers: Handlers | None = None
    # Ask the local Docker Engine or Podman (its API socket) whether it holds a base image
    # (gateways/engine.py:lookup); None: no engine is asked.
    local_images: Callable[[str], EngineLookup] | None = None
