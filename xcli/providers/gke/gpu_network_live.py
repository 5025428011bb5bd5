"""What a live `cluster delete` reads: the GPU network resources xcli made for the cluster.

Delete cannot rely on the family alone (the node pools may already be gone after an interrupted
delete), so it lists the project's networks and firewall rules and the region's subnets whose
names are the ones xcli derives for this cluster and whose description says xcli made them for
it (xcli.providers.gke.gpu_network.is_owned), and deletes exactly those.
"""

from __future__ import annotations

from xcli.gateways.compute import ComputeGateway
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
