"""`cluster create --super-slicing --num-cubes N` (issue 38): the refusals before any call, the
All Capacity reservation read live through the real compute client, and the plan's shape."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.plan.gke_cases import CASES
from tests.support import reservation_samples as rs
from tests.support.discovery import check_value
from tests.support.fake_compute import FakeNet
from tests.support.gke_live import live, ref_of
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.render import plan_document
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create
from xcli.spec import Capacity, ClusterSpec

ZONE = "us-central1-c"  # offers tpu7x (xcli/catalog/zones.json)
BASE = f"projects/{rs.PROJECT}/zones/{ZONE}/reservations"


def spec_for(
    tpu: str = "tpu7x-128",
    capacity: Capacity | None = None,
    slices: int = 1,
    **options: Any,
) -> ClusterSpec:
    opts = GkeOptions(**{"super_slicing": True, "num_cubes": 4, **options})
    capacity = capacity or Capacity("reservation", reservation="ironwood")
    return ClusterSpec("demo", rs.PROJECT, ZONE, "gke", lookup(tpu), capacity, slices, options=opts)


def dense(name: str, mode: str | None = "ALL_CAPACITY", count: int = 64) -> dict[str, Any]:
    """A TPU7x reservation as compute.v1 returns it, DENSE, in `mode`."""
    extra: dict[str, Any] = {"deploymentType": "DENSE"}
    if mode:
        extra["advancedDeploymentControl"] = {"reservationOperationalMode": mode}
    return rs.specific(name, "tpu7x-standard-4t", count, zone=ZONE, **extra)


def test_the_samples_are_compute_v1_reservations() -> None:
    check_value("compute.v1", {"$ref": "Reservation"}, dense("r"), "Reservation")
    check_value("compute.v1", {"$ref": "Reservation"}, dense("r", None), "Reservation")


# --- refused before any call -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "says", "hint"),
    [
        (spec_for(capacity=Capacity("spot")), "needs an All Capacity reservation", "--reservation"),
        (spec_for(capacity=Capacity("on-demand")), "not on on-demand capacity", "All Capacity"),
        (spec_for("tpu7x-256"), "not tpu7x-256 (4x4x8)", "--tpu-type tpu7x-4x4x4 --num-cubes 2"),
        (spec_for("v5p-128"), "not v5p-128", "--tpu-type tpu7x-4x4x4 --num-cubes N"),
        (spec_for(release_channel="stable"), "Rapid release channel", "drop --release-channel"),
        (spec_for(gke_version="1.35.1-gke.5"), "1.35.2-gke.1842000 or later", "--gke-version"),
        (spec_for(slices=2), "--num-cubes 4 and --num-slices 2 disagree", "--num-slices 4"),
        (spec_for(pathways=True), "--super-slicing with --pathways", "drop --pathways"),
        (
            replace(spec_for(), options=GkeOptions(num_cubes=2)),
            "--num-cubes counts the sub-blocks",
            "add --super-slicing",
        ),
    ],
)
def test_what_dynamic_slicing_cannot_do_is_refused_with_a_hint(
    spec: ClusterSpec, says: str, hint: str
) -> None:
    with pytest.raises(UserError) as caught:
        plan_create(spec, None, setup_steps)
    assert says in caught.value.message
    assert hint in (caught.value.hint or "")


def test_num_cubes_makes_one_pool_per_cube_and_num_slices_may_say_the_same() -> None:
    plan = plan_create(spec_for(slices=4), None, setup_steps)
    pools = [s for s in plan.steps if s.id.startswith("pool-")]
    assert len(pools) == 4
    plan = plan_create(spec_for(num_cubes=None, slices=3), None, setup_steps)
    assert len([s for s in plan.steps if s.id.startswith("pool-")]) == 3


def test_the_dry_run_says_what_the_live_run_checks_in_the_reservation() -> None:
    doc = plan_document(plan_create(spec_for(), None, setup_steps))
    first = doc["plan"][0]
    assert first["id"] == "reservation"
    assert any("DENSE" in c and "ALL_CAPACITY" in c for c in first["checks"])
    assert "free VMs: 4 x 16 = 64 in all" in first["checks"]
    # a cluster without super-slicing does not ask for it
    plain = plan_document(plan_create(CASES["v5p-128-reservation"][1]))["plan"][0]
    assert not any("DENSE" in c for c in plain["checks"])


# --- the reservation, read live ------------------------------------------------------------


def _run(fake: FakeNet, spec: ClusterSpec) -> Any:
    with live(fake) as env:
        return env.run(env.plan(spec), ref_of(spec))


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (
            rs.specific("ironwood", "tpu7x-standard-4t", 64, zone=ZONE),
            "deploymentType is not DENSE",
        ),
        (dense("ironwood", "HIGHLY_AVAILABLE_CAPACITY"), "HIGHLY_AVAILABLE_CAPACITY mode"),
    ],
)
def test_a_reservation_not_in_all_capacity_mode_is_refused_and_nothing_is_created(
    answer: dict[str, Any], says: str
) -> None:
    fake = FakeNet(reservations={f"{BASE}/ironwood": answer})
    result = _run(fake, spec_for())
    failed = result.results["reservation"]
    assert failed.status == "failed"
    assert isinstance(failed.error, UserError)
    assert says in failed.error.message and "deploymentType=DENSE" in (failed.error.hint or "")
    assert [r for r in fake.requests if r[0] != "GET"] == []  # nothing created


@pytest.mark.parametrize("mode", ["ALL_CAPACITY", None])
def test_a_dense_all_capacity_reservation_passes_the_pre_flight(mode: str | None) -> None:
    fake = FakeNet(reservations={f"{BASE}/ironwood": dense("ironwood", mode)})
    result = _run(fake, spec_for())
    assert result.results["reservation"].status == "ok"
    created = [r for r in fake.requests if r[0] == "POST" and "/nodePools" in r[1]]
    assert len(created) == 4


def test_too_few_free_vms_for_the_cubes_is_refused() -> None:
    fake = FakeNet(reservations={f"{BASE}/ironwood": dense("ironwood", count=48)})
    result = _run(fake, spec_for())
    failed = result.results["reservation"]
    assert failed.status == "failed" and "48" in failed.error.message


# --- the plan ------------------------------------------------------------------------------


def test_without_super_slicing_nothing_changes() -> None:
    """The same shape without the flag: no add-on, no PROVISION_ONLY, no slice check."""
    spec = replace(spec_for(), options=GkeOptions())
    doc = plan_document(plan_create(spec, None, setup_steps))
    ids = [s["id"] for s in doc["plan"]]
    assert "k8s-admission-check-slice" not in ids
    cluster = next(s for s in doc["plan"] if s["id"] == "cluster")["request"]["body"]["cluster"]
    assert "addonsConfig" not in cluster and cluster["releaseChannel"]["channel"] == "REGULAR"
    policy = next(s for s in doc["plan"] if s["id"] == "policy")["request"]["body"]
    assert policy["name"] == "demo-wp-4x4x4" and "acceleratorTopologyMode" not in str(policy)


def test_a_setup_without_the_steps_it_replaces_is_a_bug_not_a_silent_plan() -> None:
    from xcli.providers.gke import slicing
    from xcli.providers.gke.bodies import setup_steps as full

    spec = slicing.resolve(spec_for())
    steps = [s for s in full(spec, "c", ()) if s.id != "k8s-flavor"]
    with pytest.raises(RuntimeError, match="k8s-flavor"):
        slicing.setup(spec, steps)


# --- a cluster that exists -----------------------------------------------------------------


def _pool(index: int, policy: str) -> Any:
    from xcli.providers.gke.planner import ObservedPool

    return ObservedPool(
        f"demo-np-{index}", "RUNNING", "tpu7x-128", "tpu7x-standard-4t", 16, "reservation", policy
    )


def test_an_existing_cluster_without_the_add_on_gets_it_turned_on() -> None:
    from tests.support.discovery import check_request
    from xcli.providers.gke.planner import GkeObserved

    pools = {f"demo-np-{i}": _pool(i, "demo-wp-4x4x4-ss") for i in range(4)}
    seen = GkeObserved("RUNNING", (ZONE,), pools, ("demo-wp-4x4x4-ss",), slice_controller=False)
    doc = plan_document(plan_create(spec_for(), seen, setup_steps))
    (update,) = [s for s in doc["plan"] if s["id"] == "cluster"]
    assert update["api"] == "container.projects.locations.clusters.update"
    body = update["request"]["body"]
    assert body == {"update": {"desiredAddonsConfig": {"sliceControllerConfig": {"enabled": True}}}}
    check_request(update["api"], "PUT", update["request"]["url"], body)
    assert not [s for s in doc["plan"] if s["id"].startswith("pool-")]  # the cubes are kept
    on = replace(seen, slice_controller=True)
    doc = plan_document(plan_create(spec_for(), on, setup_steps))
    assert not [s for s in doc["plan"] if s["id"] == "cluster"]
    assert any("exists (RUNNING); kept as it is" in n for n in doc["notes"])


def test_pools_made_without_super_slicing_are_not_taken_for_sub_blocks() -> None:
    from xcli.providers.gke.planner import GkeObserved

    pools = {f"demo-np-{i}": _pool(i, "demo-wp-4x4x4") for i in range(4)}
    seen = GkeObserved("RUNNING", (ZONE,), pools, ("demo-wp-4x4x4",), slice_controller=True)
    with pytest.raises(UserError) as caught:
        plan_create(spec_for(), seen, setup_steps)
    assert "workload policy demo-wp-4x4x4, not demo-wp-4x4x4-ss" in caught.value.message
    assert "--force" in (caught.value.hint or "")
    forced = replace(spec_for(), force=True)
    steps = [s.id for s in plan_create(forced, seen, setup_steps).steps]
    assert "remove-pool-0" in steps and "pool-0" in steps  # replaced, asking first
