"""The gateways workload kinds are built with (xcli/workload/kinds.py builds the kinds).

The use cases (xcli/app/workload.py) build a kind's `KindGateways` from their Deps: `live`
reaches clusters through the provider registry's ClusterAccess and tells time with
Deps.timing, `sleep` is Deps.timing's. Only Cloud Logging (`WorkloadGateways.logging`) is
handed in by the CLI's entry point (`main(argv, workload_gateways=...)`); clusters are
injected through the registry (`Registry.with_cluster_access`), clocks as
`main(argv, timing=...)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcli.gateways.backoff import Sleep
    from xcli.gateways.google.cloud_logging import LoggingGateway
    from xcli.workload.jobset.live import Live


@dataclass(frozen=True)
class WorkloadGateways:
    """What the CLI's entry point hands in for workload commands. None: the real one."""

    logging: LoggingGateway | None = None  # Cloud Logging reads (`goodput --source cloud-logging`)


@dataclass(frozen=True)
class KindGateways:
    """What a kind is built with, by the use cases from their Deps."""

    live: Live | None = None  # clusters' Kubernetes APIs and the clocks the waits use
    sleep: Sleep | None = None  # VM-style waits and log follows (default backoff.event_sleep)
