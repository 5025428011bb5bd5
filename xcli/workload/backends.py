"""The gateways workload kinds are built with (xcli/workload/kinds.py builds the kinds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcli.gateways.backoff import Sleep
    from xcli.gateways.cloud_logging import LoggingGateway
    from xcli.workload.jobset.live import Live


@dataclass(frozen=True)
class WorkloadGateways:
    """How workload kinds reach the outside, handed in by the CLI's entry point
    (`xcli.cli.main.main(argv, workload_gateways=...)`). None: the real one."""

    live: Live | None = None  # GKE clusters' Kubernetes APIs and the clocks the waits use
    sleep: Sleep | None = None  # VM-style waits and log follows (default backoff.event_sleep)
    logging: LoggingGateway | None = None  # Cloud Logging reads (`goodput --source cloud-logging`)
