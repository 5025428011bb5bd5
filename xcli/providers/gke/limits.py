"""GKE's size limits on a cluster plan: its node count and the node subnet (pure).

- GKE "Quotas and limits" (https://cloud.google.com/kubernetes-engine/quotas): at most 15,000
  nodes per cluster; "To run more than 5,000 nodes requires lifting a cluster size quota", and a
  newer revision adds that more than 5,000 nodes are "only available for clusters that are
  regional, either private or with Private Service Connect". Over 15,000 is refused; over 5,000
  the plan says what to request (xcli's clusters are regional already).
- Every node takes a primary address of the cluster's subnet. Without --subnetwork the nodes
  use the network's auto-mode subnet, a /20 per region (VPC "Subnets", auto mode IPv4 ranges,
  https://cloud.google.com/vpc/docs/subnets#ip-ranges), four of whose addresses are reserved
  (same page, "Reserved IP addresses in IPv4 subnets"): 4,092 nodes, surge nodes included. A
  plan that needs more is refused with the subnet size that would hold it; a named subnet is
  only known live, so the plan names the size it needs.
The nodes counted are those providers/gke/pods.py gives Pod addresses: each pool's autoscaling
maximum, plus one surge node per pool for the subnet.
"""

from __future__ import annotations

from xcli.errors import UserError
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import pods as gke_pods
from xcli.providers.gke import private
from xcli.spec import ClusterSpec

MAX_NODES = 15_000
QUOTA_NODES = 5_000
AUTO_SUBNET_PREFIX = 20
RESERVED = 4  # addresses Compute Engine keeps in every IPv4 subnet range


def counts(spec: ClusterSpec) -> tuple[int, int]:
    """(nodes, nodes with one surge node per pool) the plan can have."""
    pools = gke_pods.demand(spec, 4 * gke.system_pool_size(spec))
    with_surge = sum(n for n, _ in pools)
    return with_surge - gke_pods.SURGE_NODES * len(pools), with_surge


def subnet_prefix(addresses: int) -> int:
    """The longest prefix whose range holds `addresses` node addresses."""
    prefix = 29
    while 2 ** (32 - prefix) - RESERVED < addresses:
        prefix -= 1
    return prefix


def check(spec: ClusterSpec) -> None:
    """Refuse, before any call, a plan GKE can never create or whose nodes the default subnet
    cannot address."""
    nodes, with_surge = counts(spec)
    if nodes > MAX_NODES:
        raise UserError(
            f"the plan has {nodes:,} nodes; GKE allows at most {MAX_NODES:,} nodes per cluster",
            hint="use fewer slices or nodes per cluster, or split the job over several clusters",
        )
    room = 2 ** (32 - AUTO_SUBNET_PREFIX) - RESERVED
    if private.settings(spec).subnetwork is None and with_surge > room:
        need = subnet_prefix(with_surge)
        raise UserError(
            f"the plan's {with_surge:,} nodes (surge included) need more node addresses than "
            f"the network's auto-mode /{AUTO_SUBNET_PREFIX} subnet in {spec.region} holds "
            f"({room:,})",
            hint=f"expand it to a /{need} or larger (gcloud compute networks subnets "
            f"expand-ip-range default --region {spec.region} --prefix-length {need}) and pass "
            "--subnetwork default, or name another subnet of that size with --subnetwork",
        )


def notes(spec: ClusterSpec) -> list[str]:
    """What a large plan needs beyond xcli: the quota lift, a named subnet's size."""
    nodes, with_surge = counts(spec)
    out = []
    if nodes > QUOTA_NODES:
        out.append(
            f"{nodes:,} nodes: GKE runs more than {QUOTA_NODES:,} nodes only after a cluster "
            "size quota lift (request it before creating; GKE Quotas and limits), and only on "
            "regional clusters that are private or use Private Service Connect (add --private)"
        )
    subnet = private.settings(spec).subnetwork
    if subnet is not None and with_surge > 2 ** (32 - AUTO_SUBNET_PREFIX) - RESERVED:
        out.append(
            f"subnetwork {subnet} must hold {with_surge:,} node addresses (surge included): a "
            f"/{subnet_prefix(with_surge)} or larger primary range; xcli does not read it"
        )
    return out
