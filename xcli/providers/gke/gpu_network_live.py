"""What a live `cluster delete` reads: the GPU network resources xcli made for the cluster.

Delete cannot rely on the family alone (the node pools may already be gone after an interrupted
delete), so it lists the project's networks and firewall rules and the region's subnets whose
names are the ones xcli derives for this cluster and whose description says xcli made them for
it (xcli.providers.gke.gpu_network.is_owned), and deletes exactly those. It does not list
(and so needs no Compute Engine list permission) when the cluster still exists and every node
pool xcli made for it is of an accelerator without a GPUDirect stack (TPUs, L4, A100).
"""

from __future__ import annotations

from typing import Any

from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.gateways.google.compute import ComputeGateway
from xcli.providers.gke import gpu_network as gn
from xcli.providers.gke.gpu_network_steps import OwnedNetworks


def find_owned(compute: ComputeGateway, project: str, region: str, cluster: str) -> OwnedNetworks:
    prefix = f"{cluster}-"

    def owned(url: str, what: str) -> tuple[str, ...]:
        found = compute.items(url, prefix, what, project, region)
        names = (
            str(i["name"])
            for i in found
            if gn.is_owned(cluster, str(i["name"]), str(i.get("description", "")))
        )
        return tuple(sorted(names))

    return OwnedNetworks(
        networks=owned(gn.network_url(project), "list networks"),
        subnets=owned(gn.subnet_url(project, region), "list subnets"),
        firewalls=owned(gn.firewall_url(project), "list firewall rules"),
    )


def may_own_networks(cluster: Any) -> bool:
    """False only for a cluster (container.v1 Cluster, or None when gone) whose xcli pools are
    all of accelerators without a GPUDirect stack."""
    if cluster is None:
        return True
    names = [p.config.resource_labels.get("xcli-accelerator") for p in cluster.node_pools]
    mine = [n for n in names if n]
    if not mine:
        return True  # no pool tells: a partial create, or pools already deleted
    for name in mine:
        try:
            if lookup(name).gpu_network:
                return True
        except UserError:  # a name this version does not know: look, to be safe
            return True
    return False
