"""Which workload backend a provider's clusters use, and the gateways backends are built with.

A provider names its kind of workload through its registry entry: `Capabilities.vm_workloads`
(xcli/providers/__init__.py). Without it (gke) workloads are JobSets queued by Kueue; with it
(queued-resource, local) the command runs on every VM. The caller reads the capability and
passes it in, so this package never compares provider names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from xcli.gateways.backoff import Sleep
    from xcli.gateways.cloud_logging import LoggingGateway
    from xcli.workload.jobset.live import Live
    from xcli.workload.protocol import WorkloadBackend


@dataclass(frozen=True)
class WorkloadGateways:
    """How workload backends reach the outside, handed in by the CLI's entry point
    (`xcli.cli.main.main(argv, workload_gateways=...)`). None: the real one."""

    live: Live | None = None  # GKE clusters' Kubernetes APIs and the clocks the waits use
    sleep: Sleep | None = None  # VM-style waits and log follows (default backoff.event_sleep)
    logging: LoggingGateway | None = None  # Cloud Logging reads (`goodput --source cloud-logging`)


def backend_for(
    provider: str, vm_workloads: bool, gateways: WorkloadGateways | None = None
) -> WorkloadBackend:
    """The backend of `provider`'s workloads (`vm_workloads`: its registry capability), built
    with `gateways` (default: the real ones)."""
    gateways = gateways or WorkloadGateways()
    if not vm_workloads:
        from xcli.workload.jobset.backend import JobSetBackend
        from xcli.workload.jobset.live import Live

        return JobSetBackend(gateways.live or Live())
    from xcli.workload.vm.backend import VmBackend, VmProvider

    vm = cast("VmProvider", provider)
    return VmBackend(vm, gateways.sleep) if gateways.sleep is not None else VmBackend(vm)


def all_states() -> tuple[str, ...]:
    """Every state some backend offers (the choices of `--state`), sorted."""
    from xcli.workload.jobset.backend import STATES as JOBSET_STATES
    from xcli.workload.vm.backend import STATES as VM_STATES

    return tuple(sorted({*JOBSET_STATES, *VM_STATES}))
