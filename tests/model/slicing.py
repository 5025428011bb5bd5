"""(k) slice_shapes: on a cluster whose body turns GKE's slice controller on
(addonsConfig.sliceControllerConfig), each workload pod's `cloud.google.com/gke-tpu-slice-topology`
annotation names a slice the controller can form from the cluster's 4x4x4 sub-block pools.

GKE's dynamic slicing concepts page (https://cloud.google.com/kubernetes-engine/docs/concepts/
dynamic-slicing): a slice is made of whole 4x4x4 sub-blocks of 16 VMs each, one node pool per
sub-block. The annotation is per slice: one Job of a replicated job is one slice
(XPK 367c8382 recipes/Workload_create_super-slicing.md: 4x4x20 with parallelism 80, replicas 1),
so a Job's pods are the slice's VMs and the replicas together ask for replicas x cubes.
"""

from __future__ import annotations

import math
from typing import Any

from tests.model.cluster import Cluster

KEY = "cloud.google.com/gke-tpu-slice-topology"
PARTITION = "cloud.google.com/gke-tpu-partition-4x4x4-id"  # node_facts.json: sub-block nodes
CUBE = (4, 4, 4)
CUBE_VMS = 16


def _cubes(topology: str) -> int | None:
    """How many 4x4x4 cubes the shape is; None if it is not whole cubes."""
    parts = topology.split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        return None
    dims = [int(p) for p in parts]
    if any(d % c for d, c in zip(dims, CUBE, strict=True)):
        return None
    return math.prod(d // c for d, c in zip(dims, CUBE, strict=True))


def sub_block_pools(cluster: Cluster) -> int:
    """The cluster's sub-block pools: one cube each (their nodes carry the partition label)."""
    return sum(1 for p in cluster.pools if PARTITION in p.labels)


def slice_shapes(cluster: Cluster, objects: list[dict[str, Any]]) -> list[str]:
    body = cluster.body or {}
    if not body.get("addonsConfig", {}).get("sliceControllerConfig", {}).get("enabled"):
        return []
    pools = sub_block_pools(cluster)
    lines = []
    for obj in objects:
        if obj.get("kind") != "JobSet":
            continue
        asked = 0
        name = f"JobSet {obj.get('metadata', {}).get('name')}"
        for rjob in obj.get("spec", {}).get("replicatedJobs", []):
            job = rjob["template"]["spec"]
            template = job["template"]
            topology = template.get("metadata", {}).get("annotations", {}).get(KEY)
            if topology is None:
                continue
            where = f"{name} replicatedJobs[{rjob['name']}] pod metadata.annotations {KEY}"
            cubes = _cubes(str(topology))
            if cubes is None:
                lines.append(f"{where}={topology}: not whole 4x4x4 cubes (sub-blocks)")
                continue
            pods = int(job.get("parallelism", job.get("completions", 1)))
            if cubes * CUBE_VMS != pods:
                lines.append(
                    f"{where}={topology}: {cubes} cubes x {CUBE_VMS} VMs = "
                    f"{cubes * CUBE_VMS}, but the Job runs {pods} pods"
                )
            asked += cubes * int(rjob.get("replicas", 1))
        if asked > pools:
            lines.append(
                f"{name} metadata.annotations {KEY}: {asked} cubes asked, the cluster has "
                f"{pools} sub-block pools"
            )
    return lines
