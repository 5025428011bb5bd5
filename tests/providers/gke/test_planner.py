"""The pure GKE planner: bodies per capacity type, and reconciling against what exists."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.plan.gke_cases import CASES
from tests.support.discovery import check_request
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.operations import OperationCall, destructive_steps
from xcli.plan.steps import ApiCall, Wait
from xcli.providers.gke import bodies as gke
from xcli.providers.gke.options import DEFAULT_POOL_PARALLELISM, GkeOptions
from xcli.providers.gke.planner import GkeObserved, ObservedPool, plan_create
from xcli.providers.gke.planner_delete import plan_delete
from xcli.spec import Capacity, ClusterSpec

SPOT2 = CASES["v6e-256-x2-spot"][1]
POOLS = "container.projects.locations.clusters.nodePools.create"


def pool(name: str, accel: str = "v6e-256", status: str = "RUNNING", **kw: Any) -> ObservedPool:
    a = lookup(accel)
    return ObservedPool(
        name=name,
        status=status,
        accelerator=accel,
        machine_type=a.machine_type,
        nodes=kw.get("nodes", a.vms_per_slice),
        capacity=kw.get("capacity", "spot"),
    )


def running(*pools: ObservedPool) -> GkeObserved:
    return GkeObserved("RUNNING", ("us-east5-b",), {p.name: p for p in pools})


def body(spec: ClusterSpec) -> dict[str, Any]:
    step = next(s for s in plan_create(spec).steps if s.id == "pool-0")
    assert isinstance(step, ApiCall) and step.body is not None
    check_request(POOLS, "POST", str(step.url), dict(step.body))
    out: dict[str, Any] = dict(step.body["nodePool"])
    return out


BLOCK = "projects/o-proj/reservations/r/reservationBlocks/b1"


@pytest.mark.parametrize("value", ["my-res", "projects/other-proj/reservations/r1", BLOCK])
def test_reservations_by_name_shared_and_block(value: str) -> None:
    spec = replace(SPOT2, capacity=Capacity("reservation", reservation=value))
    affinity = body(spec)["config"]["reservationAffinity"]
    assert affinity == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": [value],
    }


def test_gpu_flex_start_pool_uses_queued_provisioning_and_tpu_does_not() -> None:
    gpu = replace(CASES["h100-80gb-8-x2-on-demand"][1], capacity=Capacity("flex-start"))
    got = body(gpu)
    assert got["queuedProvisioning"] == {"enabled": True}
    assert got["autoscaling"]["totalMaxNodeCount"] == 2 and got["initialNodeCount"] == 0
    assert got["config"]["accelerators"][0]["acceleratorCount"] == "8"
    assert "maxRunDuration" not in got["config"]  # GKE's default when no duration is given
    assert "queuedProvisioning" not in body(CASES["v5litepod-16-flex-start"][1])


def test_queued_pool_is_labelled_gke_queued_and_leaves_the_duration_to_the_request() -> None:
    gpu = replace(
        CASES["h100-80gb-8-x2-on-demand"][1],
        capacity=Capacity("flex-start", max_run_duration=7200),
    )
    got = body(gpu)
    # GKE only taints queued nodes; the label is the pool's (Cluster Toolkit gke-node-pool)
    assert got["config"]["labels"] == {"cloud.google.com/gke-queued": "true"}
    # the duration travels as the ProvisioningRequest's maxRunDurationSeconds instead
    assert "maxRunDuration" not in got["config"]
    tpu = replace(
        CASES["v5litepod-16-flex-start"][1],
        capacity=Capacity("flex-start", max_run_duration=7200),
    )
    tpu_config = body(tpu)["config"]
    assert tpu_config["maxRunDuration"] == "7200s"  # plain flex-start: the pool's own field
    assert "labels" not in tpu_config


def test_tpu7x_multi_host_uses_the_workload_policy_instead_of_a_topology() -> None:
    spec = CASES["tpu7x-128-x2-spot"][1]
    plan = plan_create(spec)
    assert body(spec)["placementPolicy"] == {"policyName": "demo-wp-4x4x4"}
    policy = plan.steps[0]
    assert isinstance(policy, OperationCall) and policy.api == "compute.resourcePolicies.insert"
    assert policy.body == {
        "name": "demo-wp-4x4x4",
        "description": "created by xcli for GKE cluster demo",
        "workloadPolicy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "4x4x4"},
    }
    assert all("policy" in s.after for s in plan.steps if s.id.startswith("pool-"))
    assert "placementPolicy" not in body(CASES["tpu7x-8-single-host"][1])


def test_gke_options_reach_the_cluster_body() -> None:
    options = {"release_channel": "rapid", "gke_version": "1.34.1-gke.1"}
    spec = replace(SPOT2, options=GkeOptions(**options, cpu_machine_type="n2-standard-16"))
    cluster = plan_create(spec).steps[0]
    assert isinstance(cluster, ApiCall) and cluster.body is not None
    got = cluster.body["cluster"]
    assert got["releaseChannel"] == {"channel": "RAPID"}
    assert got["initialClusterVersion"] == "1.34.1-gke.1"
    assert got["nodePools"][0]["config"]["machineType"] == "n2-standard-16"


@pytest.mark.parametrize(
    ("capacity", "words"),
    [(Capacity("guaranteed"), "--guaranteed"), (Capacity("reservation", reservation="-"), "-")],
)
def test_what_gke_cannot_do_is_refused_before_any_call(capacity: Capacity, words: str) -> None:
    with pytest.raises(UserError) as caught:
        plan_create(replace(SPOT2, capacity=capacity))
    assert words in caught.value.message and caught.value.hint


def test_rerun_on_a_complete_cluster_plans_nothing() -> None:
    plan = plan_create(SPOT2, running(pool("demo-np-0"), pool("demo-np-1")))
    assert plan.steps == ()
    assert any("demo-np-1 exists" in n for n in plan.notes)


def test_more_slices_adds_pools_fewer_slices_removes_them() -> None:
    seen = running(pool("demo-np-0"), pool("demo-np-1"))
    more = plan_create(replace(SPOT2, num_slices=4), seen)
    assert [s.id for s in more.steps] == ["pool-2", "pool-3"]
    assert all(s.after == () for s in more.steps)  # the cluster is already running
    fewer = plan_create(replace(SPOT2, num_slices=1), seen)
    assert [s.id for s in fewer.steps] == ["remove-demo-np-1"]
    assert destructive_steps(fewer) == [
        "delete node pool demo-np-1 (--num-slices 1 no longer includes it)"
    ]


def test_a_pool_of_another_accelerator_needs_force_and_is_then_replaced() -> None:
    seen = running(pool("demo-np-0", "v5p-128"), pool("demo-np-1"))
    with pytest.raises(UserError) as caught:
        plan_create(SPOT2, seen)
    assert "demo-np-0 already exists with another configuration: v5p-128" in caught.value.message
    assert "--force" in caught.value.hint
    forced = plan_create(replace(SPOT2, force=True), seen)
    assert [s.id for s in forced.steps] == ["remove-pool-0", "pool-0"]
    assert forced.steps[1].after == ("remove-pool-0",)
    assert len(destructive_steps(forced)) == 1


def test_foreign_and_other_shape_surplus_pools_are_left_alone() -> None:
    seen = running(pool("demo-np-0"), pool("demo-np-1"), pool("demo-np-7", "v5p-128"), pool("mine"))
    plan = plan_create(SPOT2, seen)
    assert plan.steps == ()
    assert any("demo-np-7 (v5p-128)" in n and "left alone" in n for n in plan.notes)


def test_pool_in_error_is_recreated_and_provisioning_pool_is_waited_for() -> None:
    seen = running(pool("demo-np-0", status="ERROR"), pool("demo-np-1", status="PROVISIONING"))
    plan = plan_create(SPOT2, seen)
    assert [s.id for s in plan.steps] == ["remove-pool-0", "pool-0", "pool-1"]
    assert destructive_steps(plan) == []  # a pool in ERROR holds nothing worth asking about
    assert isinstance(plan.steps[2], Wait) and plan.steps[2].lane == gke.POOL_LANE


def test_cluster_still_provisioning_is_waited_for_before_the_pools() -> None:
    plan = plan_create(SPOT2, GkeObserved("PROVISIONING", ("us-east5-b",)))
    assert isinstance(plan.steps[0], Wait) and plan.steps[0].id == "cluster"
    assert plan.steps[1].after == ("cluster",)


def test_cluster_in_another_zone_or_being_deleted_is_refused() -> None:
    with pytest.raises(UserError, match="another configuration"):
        plan_create(SPOT2, GkeObserved("RUNNING", ("us-east5-a",)))
    with pytest.raises(UserError, match="STOPPING"):
        plan_create(SPOT2, GkeObserved("STOPPING", ("us-east5-b",)))


def test_pools_share_a_bounded_lane() -> None:
    plan = plan_create(replace(SPOT2, num_slices=8, options=GkeOptions(pool_parallelism=3)))
    assert plan.lane_limits == {gke.POOL_LANE: 3}
    assert {s.lane for s in plan.steps if s.id.startswith("pool-")} == {gke.POOL_LANE}


def test_by_default_every_slice_of_the_largest_shape_is_created_at_once() -> None:
    """XPK's width (100 pools at a time): the 36 pools of 9,216 chips start together, after
    the same steps, and the executor has a thread for each."""
    plan = plan_create(CASES["tpu7x-512-x36-spot"][1])
    pools = [s for s in plan.steps if s.id.startswith("pool-")]
    assert len(pools) == 36 and len({s.after for s in pools}) == 1
    assert plan.lane_limits == {gke.POOL_LANE: DEFAULT_POOL_PARALLELISM} == {"node-pools": 100}
    assert plan.max_parallel >= 36


def test_setup_seam_runs_after_the_cluster_step() -> None:
    calls: list[tuple[str, tuple[str, ...]]] = []

    def setup(spec: ClusterSpec, cluster: str, after: tuple[str, ...]) -> list[Any]:
        calls.append((cluster, after))
        return []

    plan_create(SPOT2, None, setup)
    plan_create(SPOT2, running(pool("demo-np-0"), pool("demo-np-1")), setup)
    where = "projects/my-project/locations/us-east5/clusters/demo"
    assert calls == [(where, ("cluster",)), (where, ())]


def test_delete_plan_treats_a_missing_cluster_as_done() -> None:
    plan = plan_delete("my-project", "us-east5-b", "demo")
    step = plan.steps[0]
    assert isinstance(step, OperationCall) and step.accept == ("NOT_FOUND",) and step.destructive
    check_request(step.api, step.method, str(step.url), None)
    assert "demo-wp-*" in plan.notes[0]


def test_cluster_names_too_long_for_their_pool_names_are_refused() -> None:
    spec = replace(SPOT2, name="a" * 35)  # a...a-np-9 is 40 characters, a...a-np-10 is 41
    plan_create(replace(spec, num_slices=10))
    with pytest.raises(UserError) as caught:
        plan_create(replace(spec, num_slices=11))
    assert "40 characters" in caught.value.message and "34" in caught.value.hint


def test_every_kind_of_reconcile_step_fits_the_discovery_document() -> None:
    seen = GkeObserved(
        "RECONCILING",
        ("us-east5-b",),
        {
            "demo-np-0": pool("demo-np-0", status="ERROR"),
            "demo-np-1": pool("demo-np-1", status="PROVISIONING"),
            "demo-np-5": pool("demo-np-5"),
        },
    )
    plan = plan_create(replace(SPOT2, num_slices=3), seen)
    kinds = {(type(s).__name__, getattr(s, "method", "GET")) for s in plan.steps}
    assert kinds == {("Wait", "GET"), ("OperationCall", "DELETE"), ("OperationCall", "POST")}
    for step in plan.steps:
        if isinstance(step, Wait):
            check_request(step.api, "GET", str(step.url))
        else:
            assert isinstance(step, ApiCall)
            check_request(step.api, step.method, str(step.url), step.body)
