"""The cluster model on TPU7x super-slicing (issue 38): the checks that pass on the goldens
fail on the mistakes they are there to catch."""

from __future__ import annotations

import copy
from typing import Any

from tests.model.admission import flavors_admit
from tests.model.checks import check_all, pods_fit
from tests.model.cluster import cluster_of
from tests.model.goldens import applied_objects, golden_plan
from tests.model.levels import levels_on_nodes

CLUSTER = "gke/tpu7x-128-x4-super-slicing.json"
WORKLOAD = "workload/tpu7x-4x4x8-super-slicing.json"


def _jobset() -> dict[str, Any]:
    (jobset,) = [o for o in applied_objects(golden_plan(WORKLOAD)) if o["kind"] == "JobSet"]
    return copy.deepcopy(jobset)


def test_the_goldens_pass() -> None:
    cluster = cluster_of(golden_plan(CLUSTER))
    assert check_all(cluster, [_jobset()]) == []


def test_pools_made_without_provision_only_carry_no_partition_level() -> None:
    """The partition label is on PROVISION_ONLY sub-block nodes only (node_facts.json): a policy
    without the mode leaves Kueue's super-slice Topology with no node to count."""
    plan = copy.deepcopy(golden_plan(CLUSTER))
    for step in plan:
        if step["id"] == "policy":
            del step["request"]["body"]["workloadPolicy"]["acceleratorTopologyMode"]
    (line,) = levels_on_nodes(cluster_of(plan))
    assert "cloud.google.com/gke-tpu-partition-4x4x4-id" in line


def test_a_pod_that_selects_the_slices_topology_fits_no_sub_block() -> None:
    """The nodes of a sub-block pool say 4x4x4: selecting the slice's 4x4x8 fits none."""
    jobset = _jobset()
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] = "4x4x8"
    lines = pods_fit(cluster_of(golden_plan(CLUSTER)), [jobset])
    assert lines and "gke-tpu-topology" in lines[0]


def test_more_chips_than_the_cubes_hold_are_not_admitted() -> None:
    """Two 4x8x8 slices (512 chips) on four cubes (256 chips): Kueue's quota refuses."""
    jobset = _jobset()
    (rjob,) = jobset["spec"]["replicatedJobs"]
    rjob["replicas"] = 4  # 4 x 4x4x8 = 8 cubes
    lines = flavors_admit(cluster_of(golden_plan(CLUSTER)), [jobset])
    assert lines and "quota" in " ".join(lines).lower()
