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
from tests.model.slicing import KEY, slice_shapes, sub_block_pools

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


def _annotate(jobset: dict[str, Any], topology: str) -> None:
    (rjob,) = jobset["spec"]["replicatedJobs"]
    rjob["template"]["spec"]["template"]["metadata"]["annotations"][KEY] = topology


def test_the_cluster_golden_has_four_sub_block_pools() -> None:
    assert sub_block_pools(cluster_of(golden_plan(CLUSTER))) == 4


def test_a_slice_topology_of_no_whole_cubes_is_refused() -> None:
    """The reviewer's mutation: 2x2x3 is no number of 4x4x4 sub-blocks."""
    jobset = _jobset()
    _annotate(jobset, "2x2x3")
    lines = check_all(cluster_of(golden_plan(CLUSTER)), [jobset])
    assert lines == [
        f"JobSet train-1 replicatedJobs[slice] pod metadata.annotations {KEY}=2x2x3: "
        "not whole 4x4x4 cubes (sub-blocks)"
    ]


def test_a_slice_of_other_vms_than_the_jobs_pods_is_refused() -> None:
    """4x4x4 is one cube (16 VMs); the golden's Job runs 32 pods (4x4x8)."""
    jobset = _jobset()
    _annotate(jobset, "4x4x4")
    (line,) = slice_shapes(cluster_of(golden_plan(CLUSTER)), [jobset])
    assert "1 cubes x 16 VMs = 16, but the Job runs 32 pods" in line


def test_more_cubes_than_the_sub_block_pools_are_refused() -> None:
    """Three 4x4x8 slices: 6 cubes on a cluster of 4 sub-block pools."""
    jobset = _jobset()
    (rjob,) = jobset["spec"]["replicatedJobs"]
    rjob["replicas"] = 3
    (line,) = slice_shapes(cluster_of(golden_plan(CLUSTER)), [jobset])
    assert line.endswith("6 cubes asked, the cluster has 4 sub-block pools")
    whole = _jobset()
    _annotate(whole, "4x8x12")  # 6 cubes in one slice, its Job made as many pods
    whole["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] = 96
    whole["spec"]["replicatedJobs"][0]["template"]["spec"]["completions"] = 96
    (line,) = slice_shapes(cluster_of(golden_plan(CLUSTER)), [whole])
    assert "6 cubes asked" in line
