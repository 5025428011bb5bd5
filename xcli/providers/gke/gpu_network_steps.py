"""The steps that create and delete a GPU cluster's network stack (pure).

Create, in dependency order: networks, then their subnets and firewall rules; the cluster runs
after all of them (planner.py), the node pool after the cluster. Every insert accepts
ALREADY_EXISTS: the compute gateway then reads the resource and adopts it when xcli made it for
this cluster with the same settings, so a re-run after a partial failure creates only what is
missing. Delete, after the cluster is gone: subnets and firewall rules, then their networks;
NOT_FOUND counts as done.
"""

from __future__ import annotations

from dataclasses import dataclass

from xcli.plan import compute
from xcli.plan.model import Step
from xcli.plan.operations import OperationCall
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import gpu_network as gn
from xcli.spec import ClusterSpec

INSERT_NETWORK = "compute.networks.insert"
INSERT_SUBNET = "compute.subnetworks.insert"
INSERT_FIREWALL = "compute.firewalls.insert"
DELETE_NETWORK = "compute.networks.delete"
DELETE_SUBNET = "compute.subnetworks.delete"
DELETE_FIREWALL = "compute.firewalls.delete"
INSERT_POLICY = "compute.resourcePolicies.insert"


def compute_call(
    step_id: str, summary: str, api: str, method: str, url: str, **kw: object
) -> OperationCall:
    """An OperationCall polled under its own scope: global or the region's operations."""
    scope = compute.operation_scope(url)
    return OperationCall(
        id=step_id,
        summary=summary,
        api=api,
        method=method,
        url=url,
        poll=f"GET {scope}/operations/${{{step_id}.operation}}",
        **kw,  # type: ignore[arg-type]
    )


def create_steps(spec: ClusterSpec) -> list[Step]:
    """Networks, subnets, firewall rules (and the A4X workload policy) before the cluster."""
    net = gn.gpu_network(spec)
    steps: list[Step] = []
    if net is None:
        return steps
    ok = ("ALREADY_EXISTS",)
    for vpc in net.vpcs:
        nid = f"network-{vpc.name}"
        what = f"RoCE RDMA VPC on {spec.zone}-vpc-roce" if vpc.profile else "VPC"
        steps.append(
            compute_call(
                nid,
                f"create {what} {vpc.name} (MTU {vpc.mtu})",
                INSERT_NETWORK,
                "POST",
                gn.network_url(spec.project),
                body=gn.network_body(spec, vpc),
                accept=ok,
            )
        )
        for sub in vpc.subnets:
            steps.append(
                compute_call(
                    f"subnet-{sub.name}",
                    f"create subnet {sub.name} ({sub.cidr}) in {vpc.name}",
                    INSERT_SUBNET,
                    "POST",
                    gn.subnet_url(spec.project, spec.region),
                    body=gn.subnet_body(spec, sub),
                    accept=ok,
                    after=(nid,),
                )
            )
        if vpc.firewall:
            steps.append(
                compute_call(
                    f"firewall-{vpc.firewall}",
                    f"create firewall rule {vpc.firewall} (internal traffic in {vpc.name})",
                    INSERT_FIREWALL,
                    "POST",
                    gn.firewall_url(spec.project),
                    body=gn.firewall_body(spec, vpc),
                    accept=ok,
                    after=(nid,),
                )
            )
    if gn.is_a4x(spec):
        steps.append(
            compute_call(
                "policy",
                f"create workload policy {gke.policy_name(spec)} (GB200 NVLink domain "
                f"{spec.accelerator.topology})",
                INSERT_POLICY,
                "POST",
                compute.policy_url(spec.project, spec.region),
                body=gke.policy_body(spec),
                accept=ok,
            )
        )
    return steps


@dataclass(frozen=True)
class OwnedNetworks:
    """What a live `cluster delete` found that xcli made for the cluster (names)."""

    networks: tuple[str, ...] = ()
    subnets: tuple[str, ...] = ()
    firewalls: tuple[str, ...] = ()


def delete_steps(
    project: str, region: str, found: OwnedNetworks, after: tuple[str, ...]
) -> list[Step]:
    """Subnets and firewall rules, then their networks; each waits on its operation."""
    steps: list[Step] = []
    gone = ("NOT_FOUND",)
    for sub in found.subnets:
        steps.append(
            compute_call(
                f"delete-subnet-{sub}",
                f"delete subnet {sub}",
                DELETE_SUBNET,
                "DELETE",
                gn.subnet_url(project, region, sub),
                accept=gone,
                after=after,
                destructive=True,
            )
        )
    for rule in found.firewalls:
        steps.append(
            compute_call(
                f"delete-firewall-{rule}",
                f"delete firewall rule {rule}",
                DELETE_FIREWALL,
                "DELETE",
                gn.firewall_url(project, rule),
                accept=gone,
                after=after,
                destructive=True,
            )
        )
    first = tuple(s.id for s in steps)  # a network goes only after everything in it
    for name in found.networks:
        steps.append(
            compute_call(
                f"delete-network-{name}",
                f"delete network {name}",
                DELETE_NETWORK,
                "DELETE",
                gn.network_url(project, name),
                accept=gone,
                after=(*after, *first),
                destructive=True,
            )
        )
    return steps
