"""Pod addresses of a GKE cluster: pods per node on each pool, and a Pod range they all fit in.

GKE gives every node a slice of the cluster's Pod range: the smallest power of two holding
twice the node's maximum number of Pods (110 by default: a /24), and gives the cluster a /14
Pod range unless told otherwise. That holds about a thousand nodes at the default, which a
multislice plan can exceed; a node without a slice never joins, and a TPU slice missing one
node never forms (the audit's F.A1).

So, as XPK does, accelerator pools cap their pods per node (AI-Hypercomputer/xpk@367c838):
- multi-host TPU pools 15: src/xpk/core/nodepool.py l.361-366 (`--max-pods-per-node 15`,
  compact and workload-policy slices alike);
- A3 Mega 32: nodepool.py l.386-387 (`--max-pods-per-node=32`); A3 Ultra and A4 32: the
  Cluster Toolkit blueprints XPK writes, src/xpk/core/blueprint/blueprint_generator.py l.539 and
  l.828 (`max_pods_per_node: 32`; l.227 for A3 Mega);
- every other pool (single-host TPU, A3 High, A4X, the CPU system pool) keeps GKE's default,
  as in XPK.
The workers themselves use the host network (no Pod address); the cap leaves room for
GKE's and xcli's DaemonSets.

Then the cluster asks for a Pod range big enough for every node the plan can have (the
autoscaling maximum of each pool, plus one surge node per pool for upgrades), keeping 1/64 of
the slices spare (gcloud warns that a /14 at 110 pods per node holds 1,008 nodes, not 1,024).
Only when the default /14 is too small does the body name a size (`clusterIpv4CidrBlock: "/N"`,
container v1 IPAllocationPolicy). The largest size xcli asks for is a /10: the default
network's auto-mode subnets hold 10.128.0.0/9, so a Pod range from 10.0.0.0/8 must fit in the
other half beside the Services range. That limit is xcli's, not a documented GKE one.
"""

from __future__ import annotations

import math

from xcli.catalog.model import Accelerator
from xcli.errors import UserError
from xcli.spec import ClusterSpec

DEFAULT_MAX_PODS = 110  # GKE's default pods per node (Standard clusters)
TPU_MULTI_HOST_MAX_PODS = 15
GPU_MAX_PODS = {"a3-megagpu-8g": 32, "a3-ultragpu-8g": 32, "a4-highgpu-8g": 32}
DEFAULT_RANGE = 14  # the Pod range GKE gives a VPC-native cluster when none is named
LARGEST_RANGE = 10
SURGE_NODES = 1  # GKE's default surge upgrade: one extra node per pool at a time


def max_pods(accel: Accelerator) -> int | None:
    """The pods-per-node cap of the accelerator's pools; None keeps GKE's default."""
    if accel.kind == "tpu":
        return TPU_MULTI_HOST_MAX_PODS if accel.multi_host else None
    return GPU_MAX_PODS.get(accel.machine_type)


def block(pods: int) -> int:
    """Addresses GKE gives one node: the smallest power of two holding twice its pods."""
    size = 1
    while size < 2 * pods:
        size *= 2
    return size


def demand(spec: ClusterSpec, system_nodes: int) -> list[tuple[int, int]]:
    """(nodes, addresses per node) of every pool the plan makes, surge nodes included.

    With node auto-provisioning the pools are GKE's: as many VMs as the chip limit allows, in
    pools of the shape's slice size, each node at the cluster's default of pods per node (no
    pool body of xcli's sets a cap; GKE's NAP docs give auto-provisioned pools the cluster's
    default, 110 here)."""
    from xcli.providers.gke import nap

    accel = spec.accelerator
    per_node = block(max_pods(accel) or DEFAULT_MAX_PODS)
    if nap.enabled(spec):
        vms = nap.max_vms(spec, nap.limits(spec).max_chips)
        size = accel.vms_per_slice if accel.kind == "tpu" else vms
        pools = [(size + SURGE_NODES, block(DEFAULT_MAX_PODS))] * math.ceil(vms / size)
    elif accel.kind == "gpu":
        pools = [(spec.num_nodes + SURGE_NODES, per_node)]
    else:
        pools = [(accel.vms_per_slice + SURGE_NODES, per_node)] * spec.num_slices
    return [(system_nodes + SURGE_NODES, block(DEFAULT_MAX_PODS)), *pools]


def fits(prefix: int, pools: list[tuple[int, int]]) -> bool:
    size: int = 2 ** (32 - prefix)
    return sum(nodes * per for nodes, per in pools) <= size - size // 64


def pod_range(spec: ClusterSpec, system_nodes: int) -> int | None:
    """The Pod range's prefix length the plan needs, or None when GKE's default /14 holds it.

    Refuses (before any call) a plan whose nodes cannot all get Pod addresses."""
    pools = demand(spec, system_nodes)
    for prefix in range(DEFAULT_RANGE, LARGEST_RANGE - 1, -1):
        if fits(prefix, pools):
            return None if prefix == DEFAULT_RANGE else prefix
    nodes = sum(n for n, _ in pools)
    addresses = sum(n * per for n, per in pools)
    raise UserError(
        f"the plan's {nodes} nodes need {addresses} Pod addresses, more than the largest Pod "
        f"range xcli asks GKE for (/{LARGEST_RANGE})",
        hint="use fewer slices or nodes per cluster, or split the job over several clusters",
    )
