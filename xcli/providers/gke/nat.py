"""Cloud NAT for private nodes: a Cloud Router with NAT, made only when the network has none.

Private nodes have no external IPs, so without Cloud NAT they cannot pull images from outside
Google (https://cloud.google.com/nat/docs/overview). Whether the network already has NAT for
the region is known only by reading its routers, so the step is one conditional step, printed
as such: the read (compute.routers.list), and the router xcli creates if no router of that
network in the region has a NAT that covers the subnetwork (compute.routers.insert). The router
is xcli's by name (`<cluster>-nat`) and description; the cluster's delete removes it only then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.gateways.google.compute import ComputeGateway
from xcli.plan.compute import COMPUTE
from xcli.plan.contract import StepContext
from xcli.plan.model import Step
from xcli.plan.operations import OperationCall
from xcli.providers.gke.private import Private
from xcli.spec import ClusterSpec

INSERT_ROUTER = "compute.routers.insert"
LIST_ROUTERS = "compute.routers.list"
DELETE_ROUTER = "compute.routers.delete"
ALL_RANGES = ("ALL_SUBNETWORKS_ALL_IP_RANGES", "ALL_SUBNETWORKS_ALL_PRIMARY_IP_RANGES")


def router_name(cluster: str) -> str:
    return f"{cluster}-nat"


def marker(cluster: str) -> str:
    """The description that makes a router xcli's, for the cluster of that name."""
    return f"created by xcli for GKE cluster {cluster}: Cloud NAT for its private nodes"


def routers_url(project: str, region: str, name: str | None = None) -> str:
    base = f"{COMPUTE}/projects/{project}/regions/{region}/routers"
    return f"{base}/{name}" if name else base


@dataclass(frozen=True, kw_only=True)
class EnsureNat(Step):
    """Read the region's routers; create `create` only if none gives the subnetwork NAT."""

    kind: ClassVar[str] = "ensure_nat"

    read_url: str
    network: str  # projects/P/global/networks/N, as routers name it
    subnetwork: str  # the name NAT must cover (auto-mode subnets are named like the network)
    create: OperationCall

    def details(self) -> dict[str, Any]:
        return {
            "read": {"api": LIST_ROUTERS, "request": {"method": "GET", "url": self.read_url}},
            "when": f"no router of {self.network} in this region has a NAT covering "
            f"subnetwork {self.subnetwork}",
            "create": {"api": self.create.api, **self.create.details()},
        }


def router_body(spec: ClusterSpec, network: str) -> dict[str, Any]:
    """compute.routers.insert body (Router, RouterNat: compute.v1 discovery document)."""
    return {
        "name": router_name(spec.name),
        "description": marker(spec.name),
        "network": network,
        "nats": [
            {
                "name": f"{spec.name}-nat-config",
                "natIpAllocateOption": "AUTO_ONLY",
                "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES",
                "logConfig": {"enable": False},
            }
        ],
    }


def nat_steps(spec: ClusterSpec, private: Private) -> list[Step]:
    """The NAT step of a private cluster (none for a public one)."""
    if not private.nodes:
        return []
    network = f"projects/{spec.project}/global/networks/{private.network_name}"
    create = OperationCall(
        id="nat",
        summary=f"create Cloud Router {router_name(spec.name)} with NAT",
        api=INSERT_ROUTER,
        method="POST",
        url=routers_url(spec.project, spec.region),
        body=router_body(spec, network),
        poll=_poll(spec.project, spec.region, "nat"),
    )
    return [
        EnsureNat(
            id="nat",
            summary=f"Cloud NAT for network {private.network_name} in {spec.region}: "
            f"create router {router_name(spec.name)} unless the network has NAT there",
            read_url=routers_url(spec.project, spec.region),
            network=network,
            subnetwork=private.subnetwork or private.network_name,
            create=create,
        )
    ]


def covering(routers: Sequence[Mapping[str, Any]], network: str, subnetwork: str) -> str | None:
    """The name of a router of `network` with a NAT covering `subnetwork`, if there is one."""
    for router in routers:
        if not str(router.get("network", "")).endswith(network):
            continue
        for nat in router.get("nats") or ():
            ranges = nat.get("sourceSubnetworkIpRangesToNat", "")
            listed = [str(s.get("name", "")).rsplit("/", 1)[-1] for s in nat.get("subnetworks", [])]
            if ranges in ALL_RANGES or subnetwork in listed:
                return str(router.get("name", ""))
    return None


def ensure_nat(compute: ComputeGateway, step: EnsureNat, ctx: StepContext) -> Mapping[str, Any]:
    """The live handler: read, and create the router only if no NAT covers the subnetwork."""
    parts = step.read_url.split("/")
    project, region = parts[parts.index("projects") + 1], parts[parts.index("regions") + 1]
    routers = compute.list_items(step.read_url, "list Cloud Routers", project, region)
    found = covering(routers, step.network, step.subnetwork)
    if found:
        ctx.report(f"the network has Cloud NAT already (router {found}); nothing created")
        return {"router": found, "created": False}
    out = compute.run(step.create, ctx)
    return {**out, "router": step.create.body["name"] if step.create.body else "", "created": True}


def xcli_routers(routers: Sequence[Mapping[str, Any]], cluster: str) -> tuple[str, ...]:
    """Routers xcli made for this cluster: its name and its description both say so."""
    return tuple(
        str(r["name"])
        for r in routers
        if r.get("name") == router_name(cluster) and r.get("description") == marker(cluster)
    )


def _poll(project: str, region: str, step_id: str) -> str:
    return f"GET {COMPUTE}/projects/{project}/regions/{region}/operations/${{{step_id}.operation}}"


def delete_steps(project: str, region: str, routers: Sequence[str]) -> list[Step]:
    """Delete the routers xcli made for the cluster, after the cluster (its nodes use them)."""
    return [
        OperationCall(
            id=f"router-{name}",
            summary=f"delete Cloud Router {name} (xcli made it for this cluster's NAT)",
            api=DELETE_ROUTER,
            method="DELETE",
            url=routers_url(project, region, name),
            poll=_poll(project, region, f"router-{name}"),
            accept=("NOT_FOUND",),
            after=("cluster",),
        )
        for name in routers
    ]
