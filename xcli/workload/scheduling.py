"""`--scheduler` and Kueue topology-aware scheduling (TAS) on a workload's pods. Pure.

`--scheduler` takes XPK's three values (https://github.com/AI-Hypercomputer/xpk,
`xpk workload create --scheduler`):
- `default-scheduler`: kube-scheduler, as without the flag;
- `gke.io/high-throughput-scheduler`: GKE's scheduler for many small pods, named in the pods'
  `schedulerName`;
- `gke.io/topology-aware-auto`: GKE's topology-aware placement for GPU nodes: each pod carries
  the scheduling gate `gke.io/topology-aware-auto-<workload>`, which GKE lifts once it has
  placed the whole workload compactly (what XPK writes; GPUs only, as there).

Kueue TAS is separate and needs no flag: when the cluster's ResourceFlavor names a Kueue
Topology (the metadata key `kueue_topology`, written by the in-cluster setup), every TPU
slice's pods ask to share one node pool (`kueue.x-k8s.io/podset-slice-required-topology` with
`kueue.x-k8s.io/podset-slice-size`: https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/),
so Kueue admits a slice only where one whole node pool is free, instead of admitting it and
leaving pods Pending; GPU pods prefer one node pool (`podset-preferred-topology`, as XPK's GPU
workloads prefer one level of theirs). With `gke.io/topology-aware-auto` GKE places the pods,
so Kueue is not asked to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.plan.gke.kueue_objects import GCE_TOPOLOGY

if TYPE_CHECKING:
    from xcli.workload.spec import ClusterMeta, WorkloadSpec

DEFAULT_SCHEDULER = "default-scheduler"
HIGH_THROUGHPUT = "gke.io/high-throughput-scheduler"
TOPOLOGY_AWARE_AUTO = "gke.io/topology-aware-auto"
SCHEDULERS = (DEFAULT_SCHEDULER, HIGH_THROUGHPUT, TOPOLOGY_AWARE_AUTO)

# The Topology level a TPU slice fills: one slice is one node pool (plan/gke/kueue_objects.py).
SLICE_LEVEL = "cloud.google.com/gke-nodepool"
# On the physical-topology Topology (RDMA GPUs on a reservation, plan/gke/kueue_objects.py) GPU pods
# prefer the narrowest level, so Kueue packs them as tightly as the free nodes allow, widening
# to host, sub-block and block: what XPK's GPU workloads ask for on `gke-default`.
GCE_PREFERRED_LEVEL = "kubernetes.io/hostname"
SLICE_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"


def check_scheduler(scheduler: str, accelerator_kind: str) -> str:
    if scheduler not in SCHEDULERS:
        choices = ", ".join(SCHEDULERS)
        raise UserError(f"unknown --scheduler {scheduler!r}", hint=f"one of {choices}")
    if scheduler == TOPOLOGY_AWARE_AUTO and accelerator_kind != "gpu":
        raise UserError(
            f"--scheduler {TOPOLOGY_AWARE_AUTO} places GPU nodes; TPU slices are placed by "
            "their node pools",
            hint="drop --scheduler for TPUs (Kueue keeps each slice in one node pool)",
        )
    return scheduler


def apply_scheduling(jobset: dict[str, Any], spec: WorkloadSpec, meta: ClusterMeta) -> None:
    """Set the pods' scheduler, gate and TAS annotations in a JobSet built for `spec`."""
    check_scheduler(spec.scheduler, spec.accelerator.kind)
    for rjob in jobset["spec"]["replicatedJobs"]:
        pod = rjob["template"]["spec"]["template"]
        body = pod["spec"]
        if spec.scheduler == HIGH_THROUGHPUT:
            body["schedulerName"] = HIGH_THROUGHPUT
        elif spec.scheduler == TOPOLOGY_AWARE_AUTO:
            body["schedulingGates"] = [{"name": f"{TOPOLOGY_AWARE_AUTO}-{spec.name}"}]
        if meta.kueue_topology and spec.scheduler != TOPOLOGY_AWARE_AUTO:  # GKE places those
            annotations = pod.setdefault("metadata", {}).setdefault("annotations", {})
            if spec.accelerator.kind == "tpu":
                annotations[SLICE_TOPOLOGY] = SLICE_LEVEL
                annotations[SLICE_SIZE] = str(spec.workers_per_slice)
            else:
                gce = meta.kueue_topology == GCE_TOPOLOGY
                annotations[PREFERRED_TOPOLOGY] = GCE_PREFERRED_LEVEL if gce else SLICE_LEVEL
