"""Workloads on a dynamic-slicing cluster (`cluster create --super-slicing`), and what the refusal
of a shape a cluster has no pool of says. Pure.

On such a cluster a workload names the slice it wants (`--tpu-type tpu7x-4x4x8`, or
`--topology`-style names of the catalogue), any shape made of whole 4x4x4 sub-blocks: several
slice sizes run in one cluster without re-creating a pool. The JobSet follows XPK's super-slicing
golden (AI-Hypercomputer/xpk@367c838 recipes/Workload_create_super-slicing.md; the rules in
src/xpk/core/scheduling.py l.111-119 and 232-252, src/xpk/commands/workload.py l.559-572 and
628-646): the pods carry `cloud.google.com/gke-tpu-slice-topology: <topology>` (the slice the
slice controller forms), select only the accelerator label (the nodes are cubes: their
gke-tpu-topology is 4x4x4, not the slice's), and the JobSet has no exclusive-topology
annotation and no node-pool TAS level (a slice spans node pools; the Topology's levels are block,
partition and host: plan/gke/dynamic_slicing.py).

Cluster Toolkit's `gcluster job` also writes `kueue.x-k8s.io/podset-required-topology:
cloud.google.com/gke-tpu-partition-<topology>-id` (cluster-toolkit@1047080
pkg/orchestrator/gke/scheduling.go l.148-169), a level its own Topology does not list for any
shape but 4x4x4 (modules/management/kubectl-apply/kueue/
kueue-configuration-dynamic-slicing.yaml.tftpl l.1-9): not followed here, see docs/upstream.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xcli.catalog.model import Accelerator
from xcli.errors import UserError
from xcli.plan.gke import dynamic_slicing as ds

if TYPE_CHECKING:
    from xcli.workload.spec import ClusterMeta, WorkloadSpec

EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
# set by workload/scheduling.py for one-pool-per-slice clusters; a super slice spans pools
POOL_TAS = ("kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size")


def on(meta: ClusterMeta) -> bool:
    return meta.dynamic_slicing == ds.SUPER


def check_fits(spec: WorkloadSpec, meta: ClusterMeta) -> None:
    """Refuse a shape the cluster's sub-blocks cannot form, before anything is sent."""
    want = spec.accelerator
    if want.family != ds.FAMILY:
        raise UserError(
            f"cluster {meta.name} has TPU7x sub-blocks, not {want.name}",
            hint="ask for a TPU7x slice: --tpu-type tpu7x-<topology>, e.g. tpu7x-4x4x8",
        )
    cubes = ds.cubes(want.topology or "")
    if cubes is None:
        raise UserError(
            f"{want.name} ({want.topology}) is not made of whole 4x4x4 sub-blocks, so the "
            f"slice controller of cluster {meta.name} cannot form it",
            hint="ask for 4i x 4j x 4k with i <= j <= k (tpu7x-4x4x4, tpu7x-4x4x8, "
            "tpu7x-4x8x8, ...); slices smaller than a cube (dynamic sub-slicing) are not in "
            "xcli yet",
        )
    need = cubes * spec.num_slices
    if need > meta.num_slices:
        raise UserError(
            f"{spec.num_slices} x {want.topology} needs {need} sub-blocks, and cluster "
            f"{meta.name} has {meta.num_slices}",
            hint=f"ask for at most {meta.num_slices} cubes in all, or grow the cluster: "
            f"xcli cluster create --cluster {meta.name} --super-slicing --num-cubes {need} "
            "(the same flags otherwise)",
        )
    if len(spec.name) > ds.WORKLOAD_NAME_LIMIT:
        raise UserError(
            f"workload name {spec.name!r} has {len(spec.name)} characters; on a super-slicing "
            f"cluster it may have at most {ds.WORKLOAD_NAME_LIMIT} (the slice controller names "
            "its Slice after it)",
            hint=f"use a --workload name of at most {ds.WORKLOAD_NAME_LIMIT} characters",
        )


def note(spec: WorkloadSpec, meta: ClusterMeta) -> list[str]:
    if not on(meta):
        return []
    cubes = (ds.cubes(spec.accelerator.topology or "") or 0) * spec.num_slices
    return [
        f"super-slicing: GKE's slice controller forms {spec.num_slices} x "
        f"{spec.accelerator.topology} from {cubes} of cluster {meta.name}'s {meta.num_slices} "
        "4x4x4 sub-blocks once Kueue admits the workload (AdmissionCheck "
        f"{ds.ADMISSION_CHECK}); no node pool is created or changed"
    ]


def apply(jobset: dict[str, Any], spec: WorkloadSpec, meta: ClusterMeta) -> None:
    """Turn a one-pool-per-slice JobSet into one the slice controller forms slices for."""
    if not on(meta):
        return
    jobset["metadata"].get("annotations", {}).pop(EXCLUSIVE_TOPOLOGY, None)
    if not jobset["metadata"].get("annotations", True):
        del jobset["metadata"]["annotations"]
    for rjob in jobset["spec"]["replicatedJobs"]:
        pod = rjob["template"]["spec"]["template"]
        pod["spec"]["nodeSelector"].pop(TOPOLOGY_LABEL, None)
        annotations = pod.setdefault("metadata", {}).setdefault("annotations", {})
        for key in POOL_TAS:
            annotations.pop(key, None)
        annotations[ds.SLICE_TOPOLOGY_ANNOTATION] = str(spec.accelerator.topology)


def other_shape_hint(want: Accelerator, have: Accelerator) -> str:
    """What would let a cluster of `have` pools run `want` without re-provisioning, if anything."""
    if want.kind != "tpu" or want.family != have.family:
        return ""
    if want.family == ds.FAMILY and ds.cubes(want.topology or "") is not None:
        return (
            "; TPU7x slices of several sizes share one cluster made with --super-slicing "
            "--num-cubes N --reservation R (All Capacity): docs/tpu.md"
        )
    if want.family == "v6e":
        return "; v6e sub-slicing, which would run it on these pools, is not in xcli (docs/tpu.md)"
    return ""
