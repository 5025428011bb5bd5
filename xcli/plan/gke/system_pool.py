"""The controllers' sizes and the CPU pool that holds them, from the cluster's node count (pure).

Kueue and JobSet keep every node and pod of the cluster in memory, so their controllers grow
with it. xcli sizes them as XPK does (AI-Hypercomputer/xpk@367c8382):
- Kueue: memory max(4 GiB, 32 MiB per node), CPU max(2, 4 per 1,000 nodes), request = limit
  (src/xpk/core/kueue_manager.py l.57-60 and l.497-519, `__update_kueue_resources_if_necessary`);
- JobSet: memory limit max(4 GiB, 1.2 MiB per node) (src/xpk/core/jobset.py l.26-27 and
  l.113-128, `update_jobset_resources_if_necessary`); its request stays the release's.
XPK counts nodes with `kubectl get node` when it runs; the plan counts the nodes it makes
(accelerator VMs and the CPU pool).

Accelerator nodes are tainted (google.com/tpu, nvidia.com/gpu), so the controllers and the
cluster DNS run on the CPU pool ("system"). kube-dns grows too: GKE scales it with the
cluster-proportional autoscaler, whose parameters in the Kubernetes DNS autoscaling example
are one replica per 16 nodes or per 256 cores (kubernetes/website
content/en/examples/admin/dns/dns-horizontal-autoscaler.yaml, `nodesPerReplica: 16`); each
replica is counted at 260m CPU and 110 MiB (kube-dns 100m/70Mi, dnsmasq 150m/20Mi, sidecar
10m/20Mi, the requests of kubernetes/kubernetes cluster/addons/dns/kube-dns/kube-dns.yaml.in as
recalled: that file was not re-read for this sizing). That GKE's own kube-dns uses these
figures is not settled by a source read here.

The pool's machine is the smallest of MACHINES on which the Kueue controller's request fits one
node's allocatable memory (GKE reserves part of each node: RESERVED below, "Node allocatable",
https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes); its node count holds
the controllers, DNS and a fifth spare, and never falls below one node per 256 accelerator VMs
(at most 3), xcli's earlier rule. Past what the largest machine holds (about 14,000 nodes) the
pool gets that machine and the plan note says the controller will not fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# (machine, vCPUs, memory GiB), smallest first; e2-standard-8 is xcli's default
MACHINES = (
    ("e2-standard-8", 8, 32),
    ("e2-standard-16", 16, 64),
    ("e2-standard-32", 32, 128),
    ("n2-highmem-32", 32, 256),
    ("n2-highmem-64", 64, 512),
)
DEFAULT_MACHINE = MACHINES[0][0]
MIN_MEMORY_MI = 4096
KUEUE_MI_PER_NODE = 32
KUEUE_CPU_PER_NODE = 0.004
MIN_CPU = 2
JOBSET_MI_PER_NODE = 1.2
DNS_NODES_PER_REPLICA = 16
DNS_REPLICA_MILLICPU = 260
DNS_REPLICA_MI = 110
HEADROOM = 1.2  # a fifth spare for GKE's own kube-system pods and the next upgrade's surge


@dataclass(frozen=True)
class Controllers:
    nodes: int
    kueue_cpu: int
    kueue_mi: int
    jobset_mi: int

    @property
    def scaled(self) -> bool:
        """Above the floor that holds any small cluster."""
        return self.kueue_mi > MIN_MEMORY_MI or self.kueue_cpu > MIN_CPU


@dataclass(frozen=True)
class SystemPool:
    machine: str
    nodes: int
    controllers: Controllers
    dns_replicas: int


def controllers(nodes: int) -> Controllers:
    return Controllers(
        nodes,
        max(MIN_CPU, math.ceil(KUEUE_CPU_PER_NODE * nodes)),
        max(MIN_MEMORY_MI, KUEUE_MI_PER_NODE * nodes),
        max(MIN_MEMORY_MI, math.ceil(JOBSET_MI_PER_NODE * nodes)),
    )


def allocatable_mi(memory_gib: int) -> int:
    """GKE's allocatable memory of a node: 25% of the first 4 GiB, 20% of the next 4, 10% of
    the next 8, 6% of the next 112 and 2% above 128 GiB reserved, and 100 MiB for eviction."""
    reserved, left = 0.0, float(memory_gib)
    for size, share in ((4, 0.25), (4, 0.20), (8, 0.10), (112, 0.06), (math.inf, 0.02)):
        part = min(left, size)
        reserved += part * share
        left -= part
    return int((memory_gib - reserved) * 1024) - 100


def _machine(ctl: Controllers, chosen: str | None) -> tuple[str, int, int]:
    """The smallest machine one of whose nodes holds the Kueue controller's request."""
    need_mi = ctl.kueue_mi
    for name, cpus, gib in MACHINES:
        holds = allocatable_mi(gib) >= need_mi and cpus * 0.9 >= ctl.kueue_cpu
        if chosen is None and holds:
            return name, cpus, gib
        if name == chosen:
            return name, cpus, gib
    if chosen is not None:  # a machine xcli has no figures for: trust the user, size by count
        return chosen, 0, 0
    return MACHINES[-1]  # nothing holds it: the largest, and the plan note says so


def size(accelerator_vms: int, chosen: str | None = None) -> SystemPool:
    """The CPU pool for a cluster of `accelerator_vms` accelerator nodes; `chosen` is the
    user's --cpu-machine-type, kept as given."""
    floor = min(3, 1 + accelerator_vms // 256)
    nodes = floor
    for _ in range(3):  # the pool's own nodes count too; settles in one or two rounds
        ctl = controllers(accelerator_vms + nodes)
        dns = max(2, math.ceil(ctl.nodes / DNS_NODES_PER_REPLICA))
        machine, cpus, gib = _machine(ctl, chosen)
        if not cpus:
            return SystemPool(machine, floor, ctl, dns)
        need_cpu = (ctl.kueue_cpu * 1000 + 1000 + dns * DNS_REPLICA_MILLICPU) * HEADROOM
        need_mi = (ctl.kueue_mi + ctl.jobset_mi + dns * DNS_REPLICA_MI) * HEADROOM
        by_cpu = math.ceil(need_cpu / (cpus * 1000 * 0.95))
        by_mi = math.ceil(need_mi / allocatable_mi(gib))
        nodes = max(floor, by_cpu, by_mi)
    return SystemPool(machine, nodes, controllers(accelerator_vms + nodes), dns)


def note(pool: SystemPool, chosen: str | None) -> str | None:
    """What the plan chose for a cluster large enough to need more than the floor, and why."""
    ctl = pool.controllers
    if not ctl.scaled:
        return None
    known = _gib(pool.machine)
    fits = not known or allocatable_mi(known) >= ctl.kueue_mi
    machine = pool.machine if chosen is None else f"{pool.machine} (--cpu-machine-type)"
    say = (
        f"{ctl.nodes} nodes: the Kueue controller gets {ctl.kueue_cpu} CPU and "
        f"{ctl.kueue_mi} MiB, JobSet's a {ctl.jobset_mi} MiB memory limit (XPK's sizing per "
        f"node); the system pool is {pool.nodes} x {machine}, for them and about "
        f"{pool.dns_replicas} kube-dns replicas (one per 16 nodes)"
    )
    if not fits:
        say += (
            f"; one {pool.machine} node cannot hold the Kueue controller's memory: split the "
            "job over several clusters, or pass a larger --cpu-machine-type"
        )
    return say


def _gib(machine: str) -> int:
    return next((gib for name, _, gib in MACHINES if name == machine), 0)
