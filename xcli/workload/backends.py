"""Which workload backend a provider's clusters use, and the gateways backends are built with.

A provider names its kind of workload: `gke` runs JobSets queued by Kueue; `queued-resource`
and `local` run the command on every VM. This table is that naming until the provider registry
declares it as a capability of each provider; then `backend_for` reads the capability instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from xcli.errors import InternalError

if TYPE_CHECKING:
    from xcli.gateways.backoff import Sleep
    from xcli.workload.jobset.live import Live
    from xcli.workload.protocol import WorkloadBackend

JOBSET_PROVIDERS = ("gke",)
VM_PROVIDERS = ("queued-resource", "local")


@dataclass(frozen=True)
class WorkloadGateways:
    """How workload backends reach the outside, handed in by the CLI's entry point
    (`xcli.cli.main.main(argv, workload_gateways=...)`). None: the real one."""

    live: Live | None = None  # GKE clusters' Kubernetes APIs and the clocks the waits use
    sleep: Sleep | None = None  # VM-style waits and log follows (default backoff.event_sleep)


def backend_for(provider: str, gateways: WorkloadGateways | None = None) -> WorkloadBackend:
    """The backend of `provider`'s workloads, built with `gateways` (default: the real ones)."""
    gateways = gateways or WorkloadGateways()
    if provider in JOBSET_PROVIDERS:
        from xcli.workload.jobset.backend import JobSetBackend
        from xcli.workload.jobset.live import Live

        return JobSetBackend(gateways.live or Live())
    if provider in VM_PROVIDERS:
        from xcli.workload.vm.backend import VmBackend, VmProvider

        vm = cast("VmProvider", provider)
        return VmBackend(vm, gateways.sleep) if gateways.sleep is not None else VmBackend(vm)
    raise InternalError(f"no workload backend for provider {provider!r}")


def all_states() -> tuple[str, ...]:
    """Every state some backend offers (the choices of `--state`), sorted."""
    from xcli.workload.jobset.backend import STATES as JOBSET_STATES
    from xcli.workload.vm.backend import STATES as VM_STATES

    return tuple(sorted({*JOBSET_STATES, *VM_STATES}))
