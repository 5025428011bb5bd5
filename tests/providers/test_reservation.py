"""The reservation pre-flight: the reads come first, a live run refuses a reservation that cannot
hold the slices (saying why) before anything is created, and several reservations fill in order.

Live runs use the real Google clients over REST against FakeNet (tests/support/fake_compute.py),
whose reservation answers are the hand-written ones of tests/support/reservation_samples.py,
validated here against compute.v1's schemas."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.plan.gke_cases import CASES
from tests.support import reservation_samples as rs
from tests.support.discovery import check_request, check_value
from tests.support.fake_compute import FakeNet
from tests.support.gke_live import live, ref_of
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.render import plan_document
from xcli.providers.gke.planner import plan_create
from xcli.providers.queued_resource.planner import plan_create as qr_plan_create
from xcli.providers.reservation import ReservationCheck, target
from xcli.providers.reservation_check import Want, check
from xcli.spec import Capacity, ClusterSpec

BASE = rs.BASE
OTHER = "projects/owner-proj/zones/us-east5-b/reservations"


def spec_for(reservation: str, tpu: str = "v5p-128", slices: int = 1) -> ClusterSpec:
    return ClusterSpec(
        "demo", rs.PROJECT, rs.ZONE, "gke", lookup(tpu),
        Capacity("reservation", reservation=reservation), slices,
    )  # fmt: skip


def run(fake: FakeNet, spec: ClusterSpec) -> Any:
    with live(fake) as env:
        result = env.run(env.plan(spec), ref_of(spec))
    return result


def refusal(fake: FakeNet, spec: ClusterSpec) -> str:
    """Run live; the pre-flight must fail with a UserError, and nothing may have been sent
    but reads."""
    result = run(fake, spec)
    failed = result.results["reservation"]
    assert failed.status == "failed", failed
    assert isinstance(failed.error, UserError)
    assert [r for r in fake.requests if r[0] != "GET"] == []  # nothing created
    assert failed.error.hint
    return failed.error.message


# --- the recorded answers are in compute.v1's shapes -------------------------------------------


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ("Reservation", rs.specific("r")),
        ("Reservation", rs.gpu("g", "nvidia-h100-80gb")),
        ("Reservation", rs.aggregate("agg", "ct5p", 256, 64)),
        ("ReservationBlocksGetResponse", rs.block("b1", 16, 4)),
        ("ReservationSubBlocksGetResponse", rs.sub_block("s0", 16, 0)),
        ("ReservationAggregatedList", rs.aggregated({"us-central1-a": [rs.specific("r")]})),
    ],
)
def test_recorded_answers_fit_compute_v1(schema: str, value: dict[str, Any]) -> None:
    check_value("compute.v1", {"$ref": schema}, value, schema)


# --- the plan ----------------------------------------------------------------------------------


def test_the_reservation_read_is_the_first_step_and_every_create_runs_after_it() -> None:
    plan = plan_create(CASES["v5p-128-reservation"][1])
    first = plan.steps[0]
    assert isinstance(first, ReservationCheck) and first.id == "reservation"
    for step in plan.steps[1:]:
        if step.id in ("cluster", "pool-0"):
            assert "reservation" in step.after
    doc = plan_document(plan)["plan"][0]
    for read in doc["reads"]:
        check_request(read["api"], "GET", read["request"]["url"])


def test_sub_block_paths_read_the_reservation_its_block_and_its_sub_block() -> None:
    value = "projects/owner-proj/reservations/r/reservationBlocks/b1/reservationSubBlocks/s0"
    plan = plan_create(spec_for(value))
    reads = plan_document(plan)["plan"][0]["reads"]
    assert [r["api"] for r in reads] == [
        "compute.reservations.get",
        "compute.reservationBlocks.get",
        "compute.reservationSubBlocks.get",
    ]
    for read in reads:
        check_request(read["api"], "GET", read["request"]["url"])
    sub = f"{OTHER}/r/reservationBlocks/b1/reservationSubBlocks/s0"
    assert reads[2]["request"]["url"].endswith(sub)
    pool = next(s for s in plan.steps if s.id == "pool-0")
    affinity = pool.body["nodePool"]["config"]["reservationAffinity"]  # type: ignore[attr-defined]
    assert affinity["values"] == [value]  # what GKE's reservationAffinity takes, as given
    assert target("r/reservationBlocks/b/reservationSubBlocks/s", "p").owner == "p"


def test_queued_resources_read_the_reservation_before_the_request() -> None:
    spec = replace(spec_for("my-reservation"), provider="queued-resource")
    plan = qr_plan_create(spec)
    assert plan.steps[0].id == "reservation"
    create = next(s for s in plan.steps if s.id == "create")
    assert "reservation" in create.after
    with pytest.raises(UserError, match="one reservation"):
        qr_plan_create(replace(spec, capacity=Capacity("reservation", reservation="a,b")))


# --- live refusals, one per reason ---------------------------------------------------------


def test_a_reservation_in_another_zone_is_named_with_its_zone() -> None:
    fake = FakeNet(reservations={
        "projects/my-project/zones/us-central1-a/reservations/far":
            rs.specific("far", zone="us-central1-a"),
    })  # fmt: skip
    message = refusal(fake, spec_for("far"))
    assert "in zone us-central1-a, not us-east5-b" in message
    assert fake.calls("GET", "/aggregated/reservations")


def test_a_reservation_of_another_machine_type_is_refused() -> None:
    fake = FakeNet(reservations={f"{BASE}/r": rs.specific("r", "ct6e-standard-4t")})
    message = refusal(fake, spec_for("r"))
    assert "reserves ct6e-standard-4t VMs, and this cluster needs ct5p-hightpu-4t" in message


def test_a_gpu_reservation_of_another_gpu_is_refused() -> None:
    spec = ClusterSpec(
        "demo", rs.PROJECT, rs.ZONE, "gke", lookup("h100-80gb-8"),
        Capacity("reservation", reservation="g"), num_nodes=2,
    )  # fmt: skip
    fake = FakeNet(reservations={f"{BASE}/g": rs.gpu("g", "nvidia-h100-mega-80gb")})
    message = refusal(fake, spec)
    assert "reserves nvidia-h100-mega-80gb GPUs, and this cluster needs nvidia-h100-80gb" in message
    fake = FakeNet(reservations={f"{BASE}/g": rs.gpu("g", "nvidia-h100-80gb")})
    assert run(fake, spec).ok


def test_an_aggregate_reservation_of_another_tpu_family_is_refused() -> None:
    fake = FakeNet(reservations={f"{BASE}/agg": rs.aggregate("agg", "ct6e", 256, 0)})
    message = refusal(fake, spec_for("agg"))
    assert "reserves ct6e TPU chips" in message and "ct5p" in message


def test_too_few_free_vms_says_how_many_are_free_and_in_use() -> None:
    fake = FakeNet(reservations={f"{BASE}/r": rs.specific("r", count=40, in_use=30)})
    message = refusal(fake, spec_for("r", slices=2))
    assert "2 slices of 16 VMs need 32 VMs" in message
    assert "r: 10 free VMs (30 of 40 in use)" in message


def test_a_reservation_of_another_project_not_shared_with_this_one_is_refused() -> None:
    fake = FakeNet(reservations={
        f"{OTHER}/r": rs.specific("r", project="owner-proj", shareSettings={
            "shareType": "SPECIFIC_PROJECTS", "projectMap": {"team-b": {"projectId": "team-b"}},
        }),
    })  # fmt: skip
    message = refusal(fake, spec_for("projects/owner-proj/reservations/r"))
    assert "belongs to project owner-proj and is not shared with project my-project" in message


def test_a_shared_reservation_is_accepted() -> None:
    projects = {"my-project": {"projectId": "my-project"}}
    shared = {"shareType": "SPECIFIC_PROJECTS", "projectMap": projects}
    fake = FakeNet(
        reservations={f"{OTHER}/r": rs.specific("r", project="owner-proj", shareSettings=shared)}
    )
    assert run(fake, spec_for("projects/owner-proj/reservations/r")).ok


def test_specific_targeting_required_but_not_targeted_is_refused() -> None:
    """xcli always names the reservation (GKE SPECIFIC_RESERVATION, a queued resource's
    reservationName); the rule is there for a request that does not."""
    want = Want("my-project", rs.ZONE, "ct5p-hightpu-4t", None, 4, 16, targeted=False)
    with pytest.raises(UserError, match="requires specific targeting"):
        check("r", "my-project", rs.specific("r"), want)
    check("r", "my-project", rs.specific("r", specificReservationRequired=False), want)


def test_a_reservation_that_is_not_ready_is_refused() -> None:
    fake = FakeNet(reservations={f"{BASE}/r": rs.specific("r", status="CREATING")})
    assert "it is CREATING, not READY" in refusal(fake, spec_for("r"))


def test_a_missing_reservation_is_refused() -> None:
    message = refusal(FakeNet(reservations={}), spec_for("x"))
    assert "does not exist in project my-project" in message


def test_a_full_sub_block_is_refused_with_its_counts() -> None:
    path = f"{BASE}/r/reservationBlocks/b1"
    fake = FakeNet(reservations={
        f"{BASE}/r": rs.specific("r", count=64),
        path: rs.block("b1", 32, 0),
        f"{path}/reservationSubBlocks/s0": rs.sub_block("s0", 16, 8),
    })  # fmt: skip
    message = refusal(fake, spec_for("r/reservationBlocks/b1/reservationSubBlocks/s0"))
    assert "8 free VMs (8 of 16 in use)" in message


# --- filling several -------------------------------------------------------------------------


def test_two_reservations_fill_in_order_and_the_pools_name_theirs() -> None:
    _, spec = CASES["v5p-128-x2-two-reservations"]  # res-a: room for one slice, res-b: three
    fake = FakeNet()
    result = run(fake, spec)
    assert result.ok
    assert result.results["reservation"].outputs == {"slice-0": "res-a", "slice-1": "res-b"}
    pools = {b["nodePool"]["name"]: b["nodePool"] for _, _, b in fake.calls("POST", "/nodePools")}
    for name, want in (("demo-np-0", "res-a"), ("demo-np-1", "res-b")):
        affinity = pools[name]["config"]["reservationAffinity"]
        assert affinity["values"] == [want]
    # the reads the live run made are the ones the dry-run printed, in order
    reads = plan_document(plan_create(spec))["plan"][0]["reads"]
    for read in reads:
        check_request(read["api"], "GET", read["request"]["url"])
    printed = [r["request"]["url"] for r in reads]
    made = [f"https://compute.googleapis.com{p}" for m, p, _ in fake.calls("GET", "/reservations/")]
    assert made == printed


def test_two_reservations_too_small_together_are_refused_naming_both() -> None:
    fake = FakeNet(reservations={
        f"{BASE}/res-a": rs.specific("res-a", count=16, in_use=0),
        f"{BASE}/res-b": rs.specific("res-b", count=16, in_use=8),
    })  # fmt: skip
    message = refusal(fake, spec_for("res-a,res-b", slices=2))
    assert "only 1 fit" in message
    assert "res-a: 16 free VMs (0 of 16 in use); res-b: 8 free VMs (8 of 16 in use)" in message


def test_an_aggregate_reservation_counts_chips_per_vm() -> None:
    # 256 chips, 64 in use: 48 VMs of 4 chips free, three v5p-128 slices (16 VMs each)
    fake = FakeNet(reservations={f"{BASE}/agg": rs.aggregate("agg", "ct5p", 256, 64)})
    assert run(fake, spec_for("agg", slices=3)).ok
    fake = FakeNet(reservations={f"{BASE}/agg": rs.aggregate("agg", "ct5p", 256, 64)})
    assert "48 free VMs (16 of 64 in use)" in refusal(fake, spec_for("agg", slices=4))


def test_workloads_on_a_cluster_of_several_reservations_select_no_single_one() -> None:
    from xcli.workload.jobset.manifest import capacity_selectors
    from xcli.workload.spec import ClusterMeta

    def selectors(reservation: str) -> dict[str, str]:
        meta = ClusterMeta("demo", "gke", lookup("v5p-128"), Capacity("reservation", reservation))
        return capacity_selectors(meta)

    assert selectors("res-a,res-b") == {}
    # no reservation-name selector at all: nothing shows GKE labels hand-made pools with it
    assert selectors("projects/o-proj/reservations/r/reservationBlocks/b") == {}
    assert selectors("r") == {}


def test_a_queued_resource_runs_the_same_pre_flight_through_its_handlers() -> None:
    """The queued-resource provider's handler for the step reads with the compute gateway."""
    import threading

    import responses
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    from tests.support.fake_gke import as_json
    from tests.support.gke_live import HOSTS, Recorder
    from xcli.gateways.google.compute import ComputeGateway
    from xcli.plan.contract import StepContext
    from xcli.providers.queued_resource.provider import QueuedResourceProvider

    fake = FakeNet(reservations={f"{BASE}/r": rs.specific("r", "ct5p-hightpu-4t", 16, 8)})

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        import json

        status, data = fake.handle(request.method, request.path_url, as_json(request.body))
        return status, {"content-type": "application/json"}, json.dumps(data)

    spec = replace(spec_for("r"), provider="queued-resource")
    step = qr_plan_create(spec).steps[0]
    compute = ComputeGateway(AuthorizedSession(AnonymousCredentials()))
    provider = QueuedResourceProvider(lambda zone: object(), compute=compute)  # type: ignore[arg-type,return-value]
    handler = provider.handlers(ref_of(spec))["reservation_check"]
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add_callback("GET", HOSTS, callback=answer)
        with pytest.raises(UserError, match=r"8 free VMs \(8 of 16 in use\)"):
            handler(step, StepContext(step, Recorder(), threading.Event(), {}))
    assert [m for m, _, _ in fake.requests] == ["GET"]


TPU_LIST = (
    f"https://tpu.googleapis.com/v2alpha1/projects/{rs.PROJECT}/locations/{rs.ZONE}/reservations"
)


def tpu_reservation(name: str, size: int, used: int, units: str = "CHIPS") -> dict[str, Any]:
    return {
        "name": f"projects/{rs.PROJECT}/locations/{rs.ZONE}/reservations/{name}",
        "state": "ACTIVE",
        "standard": {"size": size, "capacityUnits": units, "usage": {"total": str(used)}},
    }


def qr_check(listing: dict[str, Any], reservation: str = "tpu-r") -> tuple[Any, list[str]]:
    """Run the queued-resource pre-flight live: compute.v1 answers 404 for the reservation (it
    is not a Compute Engine one), the Cloud TPU API lists `listing`."""
    import json
    import re
    import threading

    import responses
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    from tests.support.gke_live import Recorder
    from xcli.gateways.google.compute import ComputeGateway
    from xcli.gateways.tpu.api import TpuGateway
    from xcli.plan.contract import StepContext
    from xcli.providers.queued_resource.provider import QueuedResourceProvider

    check_value("tpu.v2alpha1", {"$ref": "ListReservationsResponse"}, listing, "listing")
    spec = replace(spec_for(reservation), provider="queued-resource")
    step = qr_plan_create(spec).steps[0]
    assert isinstance(step, ReservationCheck) and step.tpu_api
    compute = ComputeGateway(AuthorizedSession(AnonymousCredentials()))
    tpu = TpuGateway(rs.ZONE, credentials=AnonymousCredentials())
    provider = QueuedResourceProvider(lambda zone: tpu, compute=compute)  # type: ignore[arg-type]
    handler = provider.handlers(ref_of(spec))["reservation_check"]
    seen: list[str] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        seen.append(request.url)
        if request.url.startswith(TPU_LIST):
            return 200, {"content-type": "application/json"}, json.dumps(listing)
        return 404, {"content-type": "application/json"}, json.dumps({"error": {"code": 404}})

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add_callback("GET", re.compile(r"https://(compute|tpu)\.googleapis\.com/.*"), answer)
        placed = handler(step, StepContext(step, Recorder(), threading.Event(), {}))
    return placed, seen


def test_a_queued_resource_may_name_a_cloud_tpu_reservation_compute_does_not_know() -> None:
    # v5p-128: 16 VMs of 4 chips = 64 chips; 100 chips with 20 in use leave 20 VMs
    placed, seen = qr_check({"reservations": [tpu_reservation("tpu-r", 100, 20)]})
    assert placed == {"slice-0": "tpu-r"}
    assert seen[0].startswith("https://compute.googleapis.com/") and seen[1] == TPU_LIST


def test_a_full_cloud_tpu_reservation_is_refused_with_its_room() -> None:
    with pytest.raises(UserError, match=r"3 free VMs \(22 of 25 in use\)"):
        qr_check({"reservations": [tpu_reservation("tpu-r", 100, 88)]})


def test_a_reservation_neither_api_knows_is_refused() -> None:
    with pytest.raises(UserError, match=f"does not exist in project {rs.PROJECT}"):
        qr_check({"reservations": [tpu_reservation("other", 100, 0)]})


def test_gke_pools_never_look_at_the_cloud_tpu_api() -> None:
    step = plan_create(spec_for("r")).steps[0]
    assert isinstance(step, ReservationCheck) and not step.tpu_api
    assert not any("tpu.googleapis.com" in line for line in step.details()["if_not_found"])


def test_a_cloud_tpu_reservation_in_cores_is_left_to_the_cloud_tpu_api() -> None:
    from xcli.providers.reservation_check import tpu_api_room

    want = Want("p", "z", "ct5p-hightpu-4t", None, 4, 16)
    listing = {"reservations": [tpu_reservation("tpu-r", 512, 0, units="CORES")]}
    room = tpu_api_room("tpu-r", "tpu-r", listing, want)
    assert room is not None and room.slices(16) > 0
    assert room.describe() == (
        "a Cloud TPU reservation of 512 cores; the Cloud TPU API checks its capacity"
    )
    placed, _ = qr_check(listing)
    assert placed == {"slice-0": "tpu-r"}
