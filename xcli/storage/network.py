"""The VPC prerequisites of Managed Lustre and Parallelstore as plan steps, and their live
handlers. The rules are in network_rules.py.

Two steps, each decided on its own:
- `psa_check` (id "psa"), read first: the servicenetworking.v1 connections of the network and
  the compute.v1 global addresses of its allocated ranges. Without a connection the plan stops
  there with the exact fix and nothing is created. xcli does not allocate a range or peer the
  network itself: that changes the user's VPC for every Google service that uses Private
  Service Access (Cloud SQL, Filestore, Memorystore...), takes roles/compute.networkAdmin
  (Cluster Toolkit's blueprint says so) and a range that must not overlap anything the user
  has or plans. Its output `ranges` (the CIDR blocks) is known only live.
- `ensure_firewall` (id "firewall"): reads the project's firewall rules and creates one
  ingress rule from those ranges (`${psa.ranges}` in the dry-run) unless an enabled rule
  already lets the traffic in. That is cheap, narrow and easy to undo, so xcli makes it. The
  rule is named after the cluster and stays when a storage is detached or deleted (other
  storages on the network use it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.errors import CloudError
from xcli.gateways.google.compute import ComputeGateway
from xcli.gateways.google.rest import RestError, RestGateway
from xcli.plan.cluster import ClusterRef
from xcli.plan.compute import COMPUTE
from xcli.plan.contract import StepContext
from xcli.plan.model import Fmt, Ref, Step, symbolic
from xcli.plan.operations import OperationCall
from xcli.plan.steps import Text
from xcli.plan.storage_types import unit
from xcli.storage import network_rules as rules

SN = "https://servicenetworking.googleapis.com/v1"
LIST_CONNECTIONS = "servicenetworking.services.connections.list"
LIST_ADDRESSES = "compute.globalAddresses.list"
LIST_FIREWALLS = "compute.firewalls.list"
INSERT_FIREWALL = "compute.firewalls.insert"
WHY_NUMBER = "servicenetworking, which names the network by it"


def _global(project: str, collection: str) -> str:
    return f"{COMPUTE}/projects/{project}/global/{collection}"


@dataclass(frozen=True, kw_only=True)
class PsaCheck(Step):
    """Read the network's Private Service Access connection and its ranges; refuse without."""

    kind: ClassVar[str] = "psa_check"

    storage: str  # lustre | parallelstore
    project: str
    network: Text  # the network's name
    number: Text  # the project's number: servicenetworking names networks by it

    def connections_url(self) -> Fmt:
        return Fmt(
            f"{SN}/services/{rules.SERVICE}/connections?network=projects/{{}}/global/networks/{{}}",
            self.number,
            self.network,
        )

    def details(self) -> dict[str, Any]:
        get = "GET"
        return {
            "reads": [
                {
                    "api": LIST_CONNECTIONS,
                    "request": {"method": get, "url": symbolic(self.connections_url())},
                },
                {
                    "api": LIST_ADDRESSES,
                    "request": {"method": get, "url": _global(self.project, "addresses")},
                },
            ],
            "checks": [
                f"a {rules.SERVICE} connection on network {symbolic(self.network)}",
                "its reservedPeeringRanges are VPC_PEERING global addresses of that network",
            ],
            "if_not": "stop before anything is created, with the gcloud commands that set "
            "Private Service Access up (xcli does not change the VPC's peering itself)",
            "outputs": {"ranges": "the CIDR blocks of those ranges"},
        }


@dataclass(frozen=True, kw_only=True)
class EnsureFirewall(Step):
    """Read the firewall rules; create `body` only if none lets the traffic in already."""

    kind: ClassVar[str] = "ensure_firewall"

    storage: str
    project: str
    network: Text
    ranges: Any  # Ref("psa", "ranges"): a list of CIDR blocks once read
    body: Mapping[str, Any]

    def details(self) -> dict[str, Any]:
        url = _global(self.project, "firewalls")
        return {
            "read": {"api": LIST_FIREWALLS, "request": {"method": "GET", "url": url}},
            "when": f"no enabled INGRESS rule of network {symbolic(self.network)} without "
            f"target tags allows {rules.allowed_text(self.storage)} from every range of "
            f"{symbolic(self.ranges)}",
            "create": {
                "api": INSERT_FIREWALL,
                "request": {"method": "POST", "url": url, "body": symbolic(self.body)},
                "accept": ["ALREADY_EXISTS"],
            },
        }


def rule_name(cluster: str, storage: str) -> str:
    return f"xcli-{cluster}-{storage}"[:63]


def firewall_body(storage: str, cluster: ClusterRef, network: Text) -> dict[str, Any]:
    """compute.firewalls.insert (Firewall, compute.v1) as Cluster Toolkit's
    `lustre_firewall_rule`: ingress from the PSA ranges, TCP 988 (Parallelstore: all TCP)."""
    ports = rules.needs(storage).ports
    allowed: dict[str, Any] = {"IPProtocol": "tcp"}
    if ports:
        allowed["ports"] = list(ports)
    return {
        "name": rule_name(cluster.name, storage),
        "description": f"created by xcli for GKE cluster {cluster.name}: "
        f"{rules.needs(storage).product} traffic from the Private Service Access ranges",
        "network": Fmt("projects/{}/global/networks/{}", cluster.project, network),
        "direction": "INGRESS",
        "priority": 1000,
        "sourceRanges": Ref("psa", "ranges"),
        "allowed": [allowed],
    }


def checks(storage: str, cluster: ClusterRef, network: Text, after: tuple[str, ...]) -> list[Step]:
    """The psa and firewall steps (after `after`, which must include the project-number read)."""
    # the summary is printed as it is by both executors: name the network when it is known
    where = "the instance's network" if isinstance(network, Ref) else f"network {network}"
    psa = PsaCheck(
        id="psa",
        summary=f"read the Private Service Access of {where} (required by "
        f"{rules.needs(storage).product}) before anything is created",
        after=after,
        storage=storage,
        project=cluster.project,
        network=network,
        number=Ref("project-number", "number"),
    )
    firewall = EnsureFirewall(
        id="firewall",
        summary=f"allow {rules.allowed_text(storage)} from the Private Service Access ranges "
        f"into {where}: create rule {rule_name(cluster.name, storage)} unless one does",
        after=("psa",),
        storage=storage,
        project=cluster.project,
        network=network,
        ranges=Ref("psa", "ranges"),
        body=firewall_body(storage, cluster, network),
    )
    return [psa, firewall]


def plan_notes(storage: str, addon_on: bool | None) -> list[str]:
    """What the plan's reader should know about these steps."""
    out: list[str] = []
    kind = unit(storage)
    if kind.network is not None:
        out.append(
            "without Private Service Access on the network the run stops at step psa, before "
            "anything is created, and prints the commands that set it up; the firewall rule "
            "xcli creates stays when the storage is detached or deleted"
        )
    if kind.recreates_nodes and not addon_on:
        out.append(
            "turning the Lustre CSI driver on recreates the nodes of every node pool, one pool "
            "after another, evicting running pods (asks first unless --yes); a live run "
            "leaves both out when the driver is already on"
        )
    return out


# --- live handlers ----------------------------------------------------------------------------


def check_psa(
    rest: RestGateway, compute: ComputeGateway, step: PsaCheck, ctx: StepContext
) -> Mapping[str, Any]:
    network = str(step.network)
    try:
        answer = rest.send("GET", str(step.connections_url()), ctx)
    except RestError as exc:
        raise CloudError(
            f"{step.summary}: {exc.message} (HTTP {exc.code})",
            hint=f"enable {rules.SERVICE} in project {step.project} (gcloud services enable "
            f"{rules.SERVICE}) and check you may read its connections",
        ) from None
    names = rules.peering_ranges(answer.get("connections") or [])
    if not names:
        raise rules.no_psa(step.storage, step.project, network, "has no Private Service Access")
    addresses = compute.list_items(
        _global(step.project, "addresses"), "list global addresses", step.project, "global"
    )
    ranges = rules.cidrs(addresses, names, network)
    if not ranges:
        raise rules.no_psa(
            step.storage,
            step.project,
            network,
            f"peers through range(s) {', '.join(names)}, which are not VPC_PEERING "
            "addresses of this network",
        )
    ctx.report(f"Private Service Access through {', '.join(ranges)}")
    return {"ranges": ranges}


def ensure_firewall(
    compute: ComputeGateway, step: EnsureFirewall, ctx: StepContext
) -> Mapping[str, Any]:
    url = _global(step.project, "firewalls")
    found = rules.covering(
        compute.list_items(url, "list firewall rules", step.project, "global"),
        str(step.network),
        list(step.ranges),
        step.storage,
    )
    if found:
        ctx.report(f"rule {found} lets the traffic in already; nothing created")
        return {"rule": found, "created": False}
    name = str(step.body["name"])
    create = OperationCall(
        id=step.id,
        summary=f"create firewall rule {name}",
        api=INSERT_FIREWALL,
        method="POST",
        url=url,
        body=step.body,
        accept=("ALREADY_EXISTS",),
        poll=f"GET {_global(step.project, 'operations')}/{{name}}",
    )
    out = compute.run(create, ctx)
    return {**out, "rule": name, "created": True}
