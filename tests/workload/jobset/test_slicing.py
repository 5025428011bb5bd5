"""Workloads on a `cluster create --super-slicing` cluster (issue 38): several slice sizes on the
same sub-blocks, the refusals of what the sub-blocks cannot form, and the hint a cluster of fixed
pools gives for another shape."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.gke.dynamic_slicing import SLICE_TOPOLOGY_ANNOTATION, TOPOLOGY, cubes
from xcli.spec import Capacity
from xcli.workload.jobset.manifest import EXCLUSIVE_TOPOLOGY, build_jobset
from xcli.workload.jobset.plan import check_fits, plan_workload_create
from xcli.workload.spec import ClusterMeta, WorkloadSpec, workload_spec

SUPER = ClusterMeta(
    name="demo",
    provider="gke",
    accelerator=lookup("tpu7x-128"),
    capacity=Capacity("reservation", reservation="ironwood"),
    num_slices=4,  # four 4x4x4 sub-blocks
    kueue_topology=TOPOLOGY,
    dynamic_slicing="super",
)
FIXED = replace(SUPER, kueue_topology="xcli-node-pools", dynamic_slicing="")


def spec(tpu: str, meta: ClusterMeta = SUPER, **kw: Any) -> WorkloadSpec:
    return workload_spec(
        cluster="demo",
        name=kw.pop("name", "train-1"),
        image="us-docker.pkg.dev/p/r/t:1",
        command="python3 train.py",
        meta=meta,
        accelerator=tpu,
        **kw,
    )


@pytest.mark.parametrize(
    ("tpu", "slices", "vms"),
    [
        ("tpu7x-4x4x4", 1, 16),
        ("tpu7x-4x4x8", 1, 32),
        ("tpu7x-4x8x8", 1, 64),
        ("tpu7x-4x4x4", 4, 16),
    ],
)
def test_several_slice_sizes_run_on_the_same_sub_blocks(tpu: str, slices: int, vms: int) -> None:
    workload = spec(tpu, num_slices=slices)
    check_fits(workload, SUPER, [])
    jobset = build_jobset(workload, SUPER)
    (rjob,) = jobset["spec"]["replicatedJobs"]
    pod = rjob["template"]["spec"]["template"]
    assert rjob["replicas"] == slices and rjob["template"]["spec"]["parallelism"] == vms
    assert pod["metadata"]["annotations"] == {
        SLICE_TOPOLOGY_ANNOTATION: lookup(tpu).topology
    }  # no node-pool TAS level: a slice spans pools
    assert pod["spec"]["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu7x"}
    assert EXCLUSIVE_TOPOLOGY not in jobset["metadata"].get("annotations", {})


def test_the_default_is_one_slice_of_the_shape_asked_for() -> None:
    """The cluster's num_slices counts cubes, not slices of the workload's shape."""
    assert spec("tpu7x-4x4x8").num_slices == 1
    assert spec("tpu7x-4x4x8", meta=FIXED).num_slices == 4  # a fixed cluster: all its slices


def test_the_plan_says_which_sub_blocks_the_slice_takes() -> None:
    plan = plan_workload_create(spec("tpu7x-4x4x8"), SUPER, [])
    assert any("forms 1 x 4x4x8 from 2 of cluster demo's 4" in n for n in plan.notes)


@pytest.mark.parametrize(
    ("tpu", "slices", "name", "says", "hint"),
    [
        ("tpu7x-2x2x2", 1, "t", "not made of whole 4x4x4 sub-blocks", "4i x 4j x 4k"),
        ("tpu7x-8x8x8", 1, "t", "needs 8 sub-blocks, and cluster demo has 4", "--num-cubes 8"),
        ("tpu7x-4x4x8", 3, "t", "needs 6 sub-blocks", "at most 4 cubes"),
        ("v5p-128", 1, "t", "has TPU7x sub-blocks, not v5p-128", "tpu7x-<topology>"),
        ("tpu7x-4x4x4", 1, "w" * 29, "at most 28", "--workload name"),
    ],
)
def test_what_the_sub_blocks_cannot_form_is_refused(
    tpu: str, slices: int, name: str, says: str, hint: str
) -> None:
    with pytest.raises(UserError) as caught:
        check_fits(spec(tpu, num_slices=slices, name=name), SUPER, [])
    assert says in caught.value.message
    assert hint in (caught.value.hint or "")


def test_a_fixed_cluster_says_what_would_run_another_shape() -> None:
    with pytest.raises(UserError) as caught:
        check_fits(spec("tpu7x-4x4x8", meta=FIXED, num_slices=1), FIXED, [])
    assert "has tpu7x-128, not tpu7x-256" in caught.value.message
    assert "--super-slicing --num-cubes N" in (caught.value.hint or "")
    v6e = replace(FIXED, accelerator=lookup("v6e-256"))
    with pytest.raises(UserError) as caught:
        check_fits(spec("v6e-64", meta=v6e, num_slices=1), v6e, [])
    assert "v6e sub-slicing" in (caught.value.hint or "")


def test_cubes_follow_xpks_rule() -> None:
    assert cubes("4x4x4") == 1 and cubes("4x8x12") == 6 and cubes("16x24x24") == 144
    assert cubes("8x4x4") is None and cubes("2x2x4") is None and cubes("4x4") is None
    assert cubes("axbxc") is None


def test_pathways_workers_are_refused_on_a_super_slicing_cluster() -> None:
    from xcli.workload.pathways.kind import check_cluster
    from xcli.workload.pathways.spec import PathwaysSpec

    spec = PathwaysSpec(
        name="pw", accelerator=lookup("tpu7x-128"), num_slices=1, gcs_location="gs://b/p"
    )
    with pytest.raises(UserError) as caught:
        check_cluster(spec, replace(SUPER, pathways_pool="cpu-np"), [])
    assert "--super-slicing cluster" in caught.value.message
    assert "without --pathways" in (caught.value.hint or "")
