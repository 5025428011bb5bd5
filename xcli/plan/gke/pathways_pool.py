"""The CPU node pool that runs Pathways heads, and its Kueue flavor (pure: facts and sizing).

Pathways runs one head per workload (proxy, resource manager and, in batch mode, the user's
program) on CPU nodes, and one server per TPU host. The facts, with their sources:
- pool name `cpu-np`, autoscaling 1..20 nodes, default machine `n2-standard-64`, scopes
  storage-full + cloud-platform: XPK (AI-Hypercomputer/xpk@367c838 src/xpk/core/nodepool.py,
  src/xpk/parser/cluster.py `--pathways-gce-machine-type`). Cluster Toolkit's
  `enable_pathways_for_tpus` makes the same pool with n4-standard-64 (Google's "Pathways on
  Cloud: create a GKE cluster" page), which the check below accepts as well.
- the head's needs: XPK lists the zone's machine types with `guestCpus >= 49 AND memoryMb >=
  238592` (xpk@367c838 src/xpk/core/pathways.py get_pathways_machine_types); that is the sum
  of the head pod's limits (proxy 16 CPU/100G, RM 8 CPU/32G, user container 24 CPU/100G:
  xpk@367c838 src/xpk/core/docker_resources.py and templates/pathways_workload_create.yaml.j2)
  plus room for GKE's own pods.
- the Kueue flavor selects the pool by GKE's node-pool label, as XPK's `cpu-user` flavor does
  (xpk@367c838 src/xpk/core/kueue_manager.py). Its quota is sized from the pool (maximum
  nodes x each node's allocatable), not XPK's fixed 480 CPU / 2000G, so it admits exactly as
  many heads as the pool can hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

POOL = "cpu-np"
FLAVOR = "pathways-cpu"
DEFAULT_MACHINE = "n2-standard-64"
MIN_NODES = 1
MAX_NODES = 20
MIN_GUEST_CPUS = 49
MIN_MEMORY_MB = 238592  # 233 GiB
NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"
SCOPES = [
    "https://www.googleapis.com/auth/devstorage.full_control",
    "https://www.googleapis.com/auth/cloud-platform",
]


@dataclass(frozen=True)
class Shape:
    guest_cpus: int
    memory_mb: int


# Machine shapes xcli knows without asking (vCPUs, memory in MB): the predefined types of
# Compute Engine's general-purpose families (https://cloud.google.com/compute/docs/
# general-purpose-machines: n2-standard-N has N vCPUs and 4 GB per vCPU, likewise n4 and
# e2-standard). A type not listed here is read from Compute `machineTypes.get` by the live
# run; the dry-run prints that read.
SHAPES: dict[str, Shape] = {
    f"{family}-standard-{n}": Shape(n, n * 4096)
    for family, sizes in (
        ("n2", (16, 32, 48, 64, 80, 96, 128)),
        ("n4", (16, 32, 48, 64, 80)),
        ("e2", (16, 32)),
    )
    for n in sizes
}


def fits(shape: Shape) -> bool:
    return shape.guest_cpus >= MIN_GUEST_CPUS and shape.memory_mb >= MIN_MEMORY_MB


def need() -> str:
    return f"at least {MIN_GUEST_CPUS} vCPUs and {MIN_MEMORY_MB} MB of memory"


def allocatable(shape: Shape) -> tuple[int, int]:
    """(millicores, MiB) a node of this shape offers pods, after GKE's reservations
    (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes: CPU 6% of the
    first core, 1% of the next, 0.5% of the next 2, 0.25% above 4; memory 25% of the first
    4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 GiB, plus
    100 MiB for eviction)."""
    cores = shape.guest_cpus * 1000
    cpu_tiers = ((1000, 0.06), (1000, 0.01), (2000, 0.005), (10**9, 0.0025))
    mem_tiers = ((4096, 0.25), (4096, 0.20), (8192, 0.10), (112 * 1024, 0.06), (10**9, 0.02))
    return cores - _reserved(cores, cpu_tiers), shape.memory_mb - _reserved(
        shape.memory_mb, mem_tiers
    ) - 100


def _reserved(total: int, tiers: tuple[tuple[int, float], ...]) -> int:
    left, out = total, 0.0
    for size, share in tiers:
        part = min(left, size)
        out += part * share
        left -= part
    return int(out + 0.999)


def flavor(meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": meta,
        "spec": {"nodeLabels": {NODEPOOL_LABEL: POOL}},
    }


def quota(machine: str, covered: list[str]) -> list[dict[str, Any]]:
    """The flavor's quota in the ClusterQueue's one resource group: zero of every accelerator
    resource, and the pool's cpu and memory at its maximum size. The machine's shape comes
    from SHAPES; a type xcli does not know is sized as the default (the live check has read
    that it is at least as large as the head needs)."""
    shape = SHAPES.get(machine, SHAPES[DEFAULT_MACHINE])
    cpu, memory = allocatable(shape)
    values = {"cpu": f"{MAX_NODES * cpu}m", "memory": f"{MAX_NODES * memory}Mi"}
    return [{"name": name, "nominalQuota": values.get(name, 0)} for name in covered]
