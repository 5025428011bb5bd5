"""Recreate the nodes of every node pool after the Lustre CSI driver add-on is turned on.

Nodes that run before the add-on is on do not get what the driver needs on the node; XPK
therefore upgrades every existing node pool to the version it already runs right after
enabling the driver, "to complete the Lustre CSI driver installation", and otherwise tells the
user "You must recreate the nodes manually in order to access Lustre storage"
(AI-Hypercomputer/xpk PR #1005, src/xpk/core/cluster.py
`update_gke_cluster_with_lustre_driver_enabled`, src/xpk/core/nodepool.py
`recreate_nodes_in_existing_node_pools`: `gcloud container clusters upgrade CLUSTER
--node-pool=NP`). That gcloud command sends clusters.update with `desiredNodePoolId` and
`desiredNodeVersion: "-"` ("picks the Kubernetes master version", container.v1), which is
what this step sends, once per pool and one pool after another (GKE runs one upgrade of a
cluster at a time). Which pools exist is known only live, so the step is one "for each" step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.errors import NotFoundError
from xcli.plan.cluster import ClusterRef
from xcli.plan.contract import StepContext
from xcli.plan.model import Step
from xcli.plan.operations import OperationCall
from xcli.providers.gke import bodies as gke

UPDATE = "container.projects.locations.clusters.update"
EACH = "${each node pool}"
TIMEOUT = 4 * 3600  # per pool: a surge upgrade of a large pool takes hours


@dataclass(frozen=True, kw_only=True)
class RecreateNodes(Step):
    """Upgrade every node pool of the cluster to the version it runs, one after another."""

    kind: ClassVar[str] = "recreate_nodes"

    cluster: ClusterRef

    def url(self) -> str:
        return gke.cluster_url(self.cluster.project, self.cluster.region, self.cluster.name)

    def call(self, pool: str) -> OperationCall:
        ref = self.cluster
        return OperationCall(
            id=self.id,
            summary=f"recreate the nodes of node pool {pool} (same version)",
            api=UPDATE,
            method="PUT",
            url=self.url(),
            body={"update": {"desiredNodePoolId": pool, "desiredNodeVersion": "-"}},
            poll=f"GET {gke.operations_url(ref.project, ref.region)}/{{name}}",
            timeout_seconds=TIMEOUT,
        )

    def details(self) -> dict[str, Any]:
        each = self.call(EACH)
        return {
            "read": {
                "api": "container.projects.locations.clusters.get",
                "request": {"method": "GET", "url": self.url()},
                "outputs": {"node_pools": "nodePools[].name"},
            },
            "for_each": "node pool, one after another; running pods are evicted as their "
            "nodes are replaced",
            "update": each.details(),
        }


def recreate_step(cluster: ClusterRef, after: tuple[str, ...]) -> RecreateNodes:
    return RecreateNodes(
        id="recreate-nodes",
        summary=f"recreate the nodes of every node pool of cluster {cluster.name}, so that "
        "running nodes get the Lustre CSI driver (as XPK does)",
        after=after,
        cluster=cluster,
    )


def recreate(gateway: Any, step: RecreateNodes, ctx: StepContext) -> Mapping[str, Any]:
    """The live handler: read the pools, then one clusters.update per pool, each waited for.
    `gateway` is the ContainerGateway."""
    ref = step.cluster
    cluster = gateway.get_cluster(ref.project, ref.region, ref.name)
    if cluster is None:
        raise NotFoundError(
            f"cluster {ref.name} not found in {ref.project}/{ref.region}",
            hint="list clusters with: xcli cluster list",
        )
    pools = [str(p.name) for p in cluster.node_pools]
    for pool in pools:
        ctx.report(f"node pool {pool}: recreating its nodes")
        gateway.run(step.call(pool), ctx)
    return {"node_pools": ",".join(pools)}
