"""(g) pool_rules and (h) node_limits: what GKE refuses in node-pool bodies, and its size limits.

(g) GKE's node-pool constraints as Cluster Toolkit's gke-node-pool module encodes them
(GoogleCloudPlatform/cluster-toolkit@1047080 modules/compute/gke-node-pool/main.tf):
- l.391-393: `placementPolicy.type` COMPACT with `queuedProvisioning.enabled`, unless a TPU pool;
- l.451-459: COMPACT with flex-start (`config.flexStart`) only on A3 Ultra, A4 and H4D machines
  (`^(a3-ultragpu-|a4-|h4d-)`), unless a TPU pool.
Read from the request bodies alone; a TPU pool is one whose machine family is a TPU one
(node_facts.json tpu_machines).

(h) GKE "Quotas and limits" (https://cloud.google.com/kubernetes-engine/quotas): at most 15,000
nodes per cluster (a cluster above 5,000 needs a cluster-size quota lift, which the plan's
notes say; checked in tests/providers/gke). The nodes' primary addresses come from the
cluster's subnet: the default network's auto-mode subnet is a /20 per region (VPC "Subnets",
auto mode IPv4 ranges, https://cloud.google.com/vpc/docs/subnets#ip-ranges), of which four
addresses are reserved (same page, "Reserved IP addresses in IPv4 subnets"): 4,092 nodes,
surge nodes included. A named subnet's size is only known live; it is not checked here.
"""

from __future__ import annotations

import re
from typing import Any

from tests.model.addresses import PoolAddresses
from tests.model.nodes import FACTS

MAX_NODES = 15_000
AUTO_SUBNET_PREFIX = 20
RESERVED_PER_SUBNET = 4
FLEX_COMPACT = re.compile(r"^(a3-ultragpu-|a4-|h4d-)")


def _is_tpu(machine: str) -> bool:
    return machine.split("-", 1)[0] in FACTS["tpu_machines"]["accelerator"]


def pool_rules(bodies: list[dict[str, Any]]) -> list[str]:
    """(g) one line per node-pool body GKE (as CTK encodes it) refuses."""
    lines = []
    for pool in bodies:
        machine = str(pool.get("config", {}).get("machineType", ""))
        compact = (pool.get("placementPolicy") or {}).get("type") == "COMPACT"
        if not compact or _is_tpu(machine):
            continue
        where = f"nodePool {pool['name']} placementPolicy.type COMPACT"
        if (pool.get("queuedProvisioning") or {}).get("enabled"):
            lines.append(f"{where}: not allowed with queuedProvisioning on {machine} (not a TPU)")
        elif pool.get("config", {}).get("flexStart") and not FLEX_COMPACT.match(machine):
            lines.append(
                f"{where}: flex-start takes compact placement only on A3 Ultra, A4 and H4D, "
                f"not {machine}"
            )
    return lines


def node_limits(cluster_body: dict[str, Any] | None, pools: list[PoolAddresses]) -> list[str]:
    """(h) the cluster's nodes within GKE's cap, and their addresses within the subnet."""
    if cluster_body is None or not pools:
        return []
    lines = []
    nodes = sum(p.nodes - 1 for p in pools)  # PoolAddresses counts one surge node per pool
    if nodes > MAX_NODES:
        lines.append(f"cluster: {nodes} nodes, over GKE's limit of {MAX_NODES:,} per cluster")
    with_surge = sum(p.nodes for p in pools)
    if not cluster_body.get("subnetwork"):
        room = 2 ** (32 - AUTO_SUBNET_PREFIX) - RESERVED_PER_SUBNET
        if with_surge > room:
            lines.append(
                f"cluster subnetwork (the network's auto-mode /{AUTO_SUBNET_PREFIX}) holds "
                f"{room} node addresses; the plan's nodes need {with_surge} (surge included)"
            )
    return lines


def _fixed_pools_fit(limits: dict[str, int], pool_bodies: list[dict[str, Any]]) -> list[str]:
    """The pools the plan makes itself (system, Pathways heads) at their largest leave room
    in NAP's cpu limit, which counts every pool (node_facts.json nap limits_source). vCPUs
    from the predefined machine name's last number (e2-standard-8: 8; Compute Engine's
    general-purpose machine names, https://cloud.google.com/compute/docs/general-purpose-machines)."""
    if "cpu" not in limits:
        return []
    used = 0
    for pool in pool_bodies:
        scaling = pool.get("autoscaling", {})
        nodes = int(
            scaling.get("maxNodeCount")
            or scaling.get("totalMaxNodeCount")
            or pool.get("initialNodeCount", 0)
        )
        last = str(pool.get("config", {}).get("machineType", "")).rsplit("-", 1)[-1]
        used += nodes * (int(last) if last.isdigit() else 0)
    if used >= limits["cpu"]:
        return [f"the cluster's own pools reach {used} vCPUs, NAP's cpu limit is {limits['cpu']}"]
    return []


def nap_covers(
    cluster_body: dict[str, Any] | None,
    objects: list[dict[str, Any]],
    pool_bodies: list[dict[str, Any]] | None = None,
) -> list[str]:
    """(h') On a node auto-provisioning cluster, each JobSet's accelerator chips fit the
    resourceLimits maximum of its accelerator (node_facts.json nap limits_source): NAP makes no
    node past it, so the pods of a larger workload would wait for ever."""
    from tests.model.nodes import GPU_LABEL, TPU_LABEL, nap_limits
    from tests.model.scheduling import requests

    limits = nap_limits(cluster_body)
    out = _fixed_pools_fit(limits, pool_bodies or [])
    for obj in objects if limits else []:
        if obj.get("kind") != "JobSet":
            continue
        chips: dict[str, float] = {}
        for job in obj["spec"].get("replicatedJobs", []):
            template = job["template"]["spec"]
            pod = template["template"]["spec"]
            value = pod.get("nodeSelector", {}).get(TPU_LABEL) or pod.get("nodeSelector", {}).get(
                GPU_LABEL
            )
            asked = requests(pod)
            per_pod = float(asked.get("google.com/tpu", asked.get("nvidia.com/gpu", "0")))
            count = job.get("replicas", 1) * template.get("parallelism", 1)
            if value:
                chips[value] = chips.get(value, 0) + per_pod * count
        for value, total in chips.items():
            top = limits.get(value)
            if top is None or total > top:
                out.append(
                    f"JobSet {obj['metadata']['name']}: {total:.0f} {value} chips, over the "
                    f"cluster's node auto-provisioning limit ({top})"
                )
    return out
