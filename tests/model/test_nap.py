"""The model's node auto-provisioning pools and limit (tests/model/cluster.py _nap_pools,
limits.py nap_covers) catch what they are there to catch."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.model.checks import check_all, flavors_fit
from tests.model.cluster import cluster_of
from tests.model.goldens import applied_objects, golden_plan, made_plan

CLUSTER = "gke/v6e-256-x2-nap-spot.json"
WORKLOAD = "made/workload-v6e-16-x4-on-v6e-256-x2-nap-spot"


def test_a_workload_of_another_slice_size_gets_a_nap_pool_of_its_shape() -> None:
    cluster = cluster_of(golden_plan(CLUSTER))
    before = len(cluster.pools)
    cluster.add(made_plan(WORKLOAD))
    made = [p for p in cluster.pools[before:] if p.name.startswith("nap-")]
    assert [p.labels["cloud.google.com/gke-tpu-topology"] for p in made] == ["4x4"]
    assert made[0].labels["cloud.google.com/gke-spot"] == "true"
    assert check_all(cluster, applied_objects(made_plan(WORKLOAD))) == []


def test_a_workload_over_the_limit_fails_the_model() -> None:
    cluster = cluster_of(golden_plan(CLUSTER))
    plan = copy.deepcopy(made_plan(WORKLOAD))
    (jobset,) = [o for o in applied_objects(plan) if o["kind"] == "JobSet"]
    jobset["spec"]["replicatedJobs"][0]["replicas"] = 40  # 40 x 16 chips > 512
    cluster.add(plan)
    lines = check_all(cluster, applied_objects(plan))
    assert any("node auto-provisioning limit (512)" in line for line in lines), lines


def test_an_accelerator_the_limits_do_not_name_gets_no_pool() -> None:
    plan = copy.deepcopy(golden_plan(CLUSTER))
    (cluster_step,) = [s for s in plan if s["id"] == "cluster"]
    limits = cluster_step["request"]["body"]["cluster"]["autoscaling"]["resourceLimits"]
    limits[2]["resourceType"] = "tpu-v5p-slice"
    lines = flavors_fit(cluster_of(plan))
    assert lines and "gke-tpu-accelerator=tpu-v6e-slice" in lines[0]


def _pathways_nap_plan() -> list[dict[str, Any]]:
    import json

    from xcli.catalog import lookup
    from xcli.plan.render import plan_json
    from xcli.providers.gke.bodies import setup_steps
    from xcli.providers.gke.options import GkeOptions
    from xcli.providers.gke.planner import plan_create
    from xcli.spec import Capacity, ClusterSpec

    options = GkeOptions(autoprovisioning=True, pathways=True)
    spec = ClusterSpec(
        "demo", "my-proj", "us-east5-b", "gke", lookup("v6e-16"), Capacity("spot"),
        options=options,
    )  # fmt: skip
    plan: list[dict[str, Any]] = json.loads(plan_json(plan_create(spec, None, setup_steps)))["plan"]
    return plan


def test_the_pathways_head_pool_fits_in_nap_cpu_limit() -> None:
    plan = _pathways_nap_plan()
    assert check_all(cluster_of(plan), applied_objects(plan)) == []
    (cluster_step,) = [s for s in plan if s["id"] == "cluster"]
    limits = cluster_step["request"]["body"]["cluster"]["autoscaling"]["resourceLimits"]
    limits[0]["maximum"] = "1056"  # what it was before the heads' pool was counted
    lines = check_all(cluster_of(plan), applied_objects(plan))
    assert any("NAP's cpu limit is 1056" in line for line in lines), lines


def _on_the_reservation_cluster(selector: dict[str, str]) -> list[str]:
    """workload/v6e-16-x4-nap.json, its pods' selector changed, on its cluster golden."""
    plan = copy.deepcopy(golden_plan("workload/v6e-16-x4-nap.json"))
    for obj in applied_objects(plan):
        for job in obj.get("spec", {}).get("replicatedJobs", []):
            job["template"]["spec"]["template"]["spec"]["nodeSelector"].update(selector)
    cluster = cluster_of(golden_plan("gke/v6e-256-nap-reservation.json")).add(plan)
    return check_all(cluster, applied_objects(plan))


def test_the_clusters_reservation_gets_a_nap_pool() -> None:
    assert _on_the_reservation_cluster({}) == []


@pytest.mark.parametrize(
    "selector",
    [
        {"cloud.google.com/reservation-name": "zzz"},
        {"cloud.google.com/reservation-project": "other-proj"},
    ],
)
def test_a_reservation_the_cluster_does_not_know_gets_no_pool(selector: dict[str, str]) -> None:
    """Review finding 3: the NAP pool's reservation labels were copied from the pod's own
    selector, so any reservation name passed. GKE makes no pool from a reservation that is not
    there; the model knows the one the cluster's metadata names (my-reservation, my-project)."""
    lines = _on_the_reservation_cluster(selector)
    assert lines, "a reservation nobody made got a pool"
