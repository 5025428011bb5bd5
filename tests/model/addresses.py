"""Pod addresses: every node the plan can have gets its slice of the cluster's Pod range.

Read from the plan's request bodies alone (not from xcli's own sizing code), with GKE's rules:
- a node's slice is the smallest power of two of at least twice its maximum Pods
  (`maxPodsConstraint.maxPodsPerNode`, 110 when unset: a /24), GKE "Configure maximum Pods per
  node" (https://cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr);
- the Pod range is `ipAllocationPolicy.clusterIpv4CidrBlock` ("/N" or a CIDR), a /14 when
  unset, GKE "VPC-native clusters" (https://cloud.google.com/kubernetes-engine/docs/concepts/alias-ips);
- a pool can have its autoscaling maximum of nodes, plus one surge node during an upgrade
  (GKE's default surge upgrade, maxSurge 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_PODS = 110
DEFAULT_PREFIX = 14
SURGE = 1


@dataclass(frozen=True)
class PoolAddresses:
    name: str
    nodes: int
    max_pods: int

    @property
    def per_node(self) -> int:
        size = 1
        while size < 2 * self.max_pods:
            size *= 2
        return size


def range_prefix(cluster: dict[str, Any]) -> int:
    block = str(cluster.get("ipAllocationPolicy", {}).get("clusterIpv4CidrBlock") or "")
    return int(block.rsplit("/", 1)[1]) if "/" in block else DEFAULT_PREFIX


def pool_addresses(pool: dict[str, Any]) -> PoolAddresses:
    scaling = pool.get("autoscaling") or {}
    most = max(
        int(pool.get("initialNodeCount", 0)),
        int(scaling.get("maxNodeCount", 0)),
        int(scaling.get("totalMaxNodeCount", 0)),
    )
    pods = int((pool.get("maxPodsConstraint") or {}).get("maxPodsPerNode", DEFAULT_MAX_PODS))
    return PoolAddresses(str(pool["name"]), most + SURGE, pods)


def pod_addresses(prefix: int | None, pools: list[PoolAddresses]) -> list[str]:
    """One line when the plan's nodes need more Pod addresses than its Pod range holds."""
    if prefix is None or not pools:
        return []
    size = 2 ** (32 - prefix)
    need = sum(p.nodes * p.per_node for p in pools)
    if need <= size:
        return []
    nodes = sum(p.nodes for p in pools)
    worst = max(pools, key=lambda p: p.nodes * p.per_node)
    return [
        f"cluster ipAllocationPolicy.clusterIpv4CidrBlock /{prefix} holds {size} Pod "
        f"addresses; the plan's {nodes} nodes need {need} (largest: {worst.name}, "
        f"{worst.nodes} nodes x {worst.per_node} for {worst.max_pods} pods per node)"
    ]
