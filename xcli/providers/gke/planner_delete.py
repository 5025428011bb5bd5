"""The delete plan of a GKE cluster (pure): the cluster, then the workload policies and the GPU
networks (subnets and firewall rules, then networks) xcli made for it."""

from __future__ import annotations

from xcli.plan import compute
from xcli.plan.model import Plan, Step
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import nat
from xcli.providers.gke.gpu_network_steps import delete_steps
from xcli.providers.gke.planner import DELETE_CLUSTER, DELETE_POLICY, GkeObserved, op_call


def plan_delete(project: str, zone: str, name: str, observed: GkeObserved | None = None) -> Plan:
    """Delete the cluster (already gone counts as done), then the workload policies xcli made."""
    region = zone.rsplit("-", 1)[0]
    notes: list[str] = []
    if observed is None:
        observed = GkeObserved()
        notes.append(f"dry-run: a live run also deletes the workload policies {name}-wp-* it finds")
        notes.append(
            f"dry-run: a live run also deletes the GPU networks xcli made for {name} that it "
            f"finds ({name}-gpunet-*, {name}-net-1, {name}-rdma-net, their subnets and "
            "firewall rules), subnets and rules first"
        )
        notes.append(
            f"dry-run: a live run also deletes the Cloud Router {nat.router_name(name)} if xcli "
            "created it for this cluster's NAT"
        )
    url = gke.cluster_url(project, region, name)
    steps: list[Step] = [
        op_call(
            "cluster",
            f"delete cluster {name} in {region}",
            DELETE_CLUSTER,
            "DELETE",
            url,
            accept=("NOT_FOUND",),
            destructive=True,
        )
    ]
    for policy in observed.policies:
        steps.append(
            op_call(
                f"policy-{policy}",
                f"delete workload policy {policy}",
                DELETE_POLICY,
                "DELETE",
                compute.policy_url(project, region, policy),
                accept=("NOT_FOUND",),
                after=("cluster",),
            )
        )
    steps += delete_steps(project, region, observed.networks, ("cluster",))
    steps += nat.delete_steps(project, region, observed.routers)
    return Plan(f"delete GKE cluster {name}", tuple(steps), tuple(notes))
