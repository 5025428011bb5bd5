"""What `main()` hands every command: the outside world's doors that tests and embedders may
replace. One object on the click context (click keeps one `obj` per context); commands find it
with `ctx.find_object(Dependencies)`. None means the real thing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from xcli.gateways.backoff import Timing
    from xcli.providers import Registry
    from xcli.providers.terraform_live import Connections
    from xcli.storage.service import StorageGateways
    from xcli.workload.backends import WorkloadGateways


@dataclass(frozen=True)
class Dependencies:
    # the provider registry (default: xcli.providers.DEFAULT), and through it how commands reach
    # a cluster's Kubernetes API (Registry.with_cluster_access: tests hand in an in-memory one)
    providers: Registry | None = None
    # how workload commands read Cloud Logging (clusters: the registry's ClusterAccess)
    workload_gateways: WorkloadGateways | None = None
    # how the steps after `terraform apply` reach Google and the cluster
    terraform_connections: Connections | None = None
    # how `xcli storage` reaches Google and clusters
    storage_gateways: StorageGateways | None = None
    # how commands that poll a cluster tell time and sleep (default: the real clock)
    timing: Timing | None = None


def current() -> Dependencies:
    """The Dependencies of this run (an empty one outside a command, or when main() got none)."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_object(Dependencies) if ctx is not None else None
    return found if found is not None else Dependencies()
