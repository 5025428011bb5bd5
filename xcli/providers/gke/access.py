"""How xcli reaches a GKE cluster's Kubernetes API: clusters.get gives the endpoint and the CA
certificate, Google credentials the token (gateways/kube/api.py). The GKE provider's ClusterAccess
(providers/base.py), the connector its in-cluster handlers and Terraform mode use, and the
Kubernetes handlers of the plans run on a cluster reached that way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xcli.errors import NotFoundError
from xcli.gateways.backoff import Sleep
from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.kube.api import KubeApi
from xcli.providers.gke.endpoint import control_plane


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


def kube_handlers(api: KubeApi, sleep: Sleep, clock: Callable[[], float]) -> dict[str, Any]:
    """The Kubernetes step kinds over one cluster's API (reached through the ClusterAccess):
    `k8s_apply` (server-side apply), `k8s_delete` (foreground, then wait until gone) and
    `k8s_rollout` (wait until a DaemonSet runs on every node it selects)."""
    from xcli.gateways.kube.handlers import KubeHandlers
    from xcli.gateways.kube.rollout import rollout_handler

    kube = KubeHandlers(lambda _cluster: api, sleep=sleep, clock=clock).handlers()
    rollout = rollout_handler(lambda _cluster: api, sleep=sleep, clock=clock)
    return {**kube, "k8s_rollout": rollout}
