"""The GKE provider as `xcli` uses it: the API path plus what runs inside the cluster.

GkeProvider alone is the Google-API path (cluster, node pools, policies), which the API-level
tests drive with fakes. `standard()` adds the in-cluster setup (JobSet, Kueue, queues,
priorities, metadata), the Kubernetes handlers that apply it, and the describe hooks that read
ready nodes and Kueue quota from the cluster. Credentials are looked up only when a live step
first talks to a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xcli.errors import NotFoundError
from xcli.gateways.container import ContainerGateway
from xcli.gateways.kube import KubeApi
from xcli.gateways.kube_handlers import KubeHandlers
from xcli.gateways.kube_status import cluster_status
from xcli.plan.cluster import ClusterRef
from xcli.plan.incluster import setup_steps
from xcli.providers.gke.endpoint import control_plane
from xcli.providers.gke.provider import GkeProvider

POOL_LABEL = "cloud.google.com/gke-nodepool"


class KubeConnector:
    """Opens the Kubernetes API of a GKE cluster from its resource name."""

    def __init__(
        self,
        container: ContainerGateway,
        kube: Callable[[str, str | None], KubeApi] = KubeApi,
    ) -> None:
        self.container = container
        self.kube = kube  # (endpoint, CA certificate) -> KubeApi; tests give a fake transport

    def __call__(self, cluster: str) -> KubeApi:
        # cluster: projects/P/locations/R/clusters/N, as the in-cluster steps name it
        parts = cluster.split("/")
        project, region, name = parts[1], parts[3], parts[5]
        return self.for_ref(project, region, name)

    def for_ref(self, project: str, region: str, name: str) -> KubeApi:
        found = self.container.get_cluster(project, region, name)
        if found is None:
            raise NotFoundError(
                f"cluster {name} not found in {project}/{region}",
                hint="create it with: xcli cluster create",
            )
        # the DNS endpoint when it takes external traffic (private clusters), else the IP one
        return self.kube(*control_plane(found))


def ready_nodes(api: KubeApi) -> dict[str, int]:
    """Ready nodes per node pool."""
    counts: dict[str, int] = {}
    for node in api.list("v1", "Node"):
        pool = (node.get("metadata", {}).get("labels") or {}).get(POOL_LABEL)
        conditions = (node.get("status") or {}).get("conditions") or []
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        if pool:
            counts[pool] = counts.get(pool, 0) + int(ready)
    return counts


def standard() -> GkeProvider:
    container = ContainerGateway()
    connect = KubeConnector(container)

    def node_counts(ref: ClusterRef) -> Mapping[str, int]:
        return ready_nodes(connect.for_ref(ref.project, ref.region, ref.name))

    def kueue_status(ref: ClusterRef) -> Mapping[str, Any]:
        return cluster_status(connect.for_ref(ref.project, ref.region, ref.name))

    return GkeProvider(
        container,
        setup=setup_steps,
        extra_handlers=KubeHandlers(connect).handlers(),
        node_counts=node_counts,
        kueue_status=kueue_status,
    )
