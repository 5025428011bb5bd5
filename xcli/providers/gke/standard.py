"""The GKE provider as `xcli` uses it: the API path plus what runs inside the cluster.

GkeProvider alone is the Google-API path (cluster, node pools, policies), which the API-level
tests drive with fakes. `standard()` adds the in-cluster setup (JobSet, Kueue, queues,
priorities, metadata), the Kubernetes handlers that apply it, and the describe hooks that read
ready nodes and Kueue quota from the cluster. Credentials are looked up only when a live step
first talks to a cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.handlers import KubeHandlers
from xcli.gateways.kube.status import cluster_status
from xcli.plan.cluster import ClusterRef
from xcli.providers.gke.access import KubeConnector
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.provider import GkeProvider

POOL_LABEL = "cloud.google.com/gke-nodepool"


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
        connect=connect,
        setup=setup_steps,
        extra_handlers=KubeHandlers(connect).handlers(),
        node_counts=node_counts,
        kueue_status=kueue_status,
    )
