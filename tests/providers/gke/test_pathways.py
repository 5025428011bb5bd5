"""`cluster create --pathways` on GKE: the heads' pool, its machine check and its Kueue flavor."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import Any

import pytest
import responses
from google.auth.credentials import AnonymousCredentials
from google.auth.transport.requests import AuthorizedSession

from tests.plan.gke_cases import CASES
from tests.support.crd import validate
from tests.support.discovery import check_request, check_value
from tests.support.gke_live import Recorder
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.gateways.google.compute import ComputeGateway
from xcli.plan.contract import StepContext
from xcli.plan.gke import pathways_pool as pw
from xcli.plan.gke.incluster import metadata_configmap
from xcli.plan.gke.kueue_objects import cluster_queue, kueue_objects
from xcli.plan.steps import ApiCall, K8sApply
from xcli.providers.gke import pathways
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import GkeObserved, ObservedPool, plan_create
from xcli.spec import Capacity

SPEC = CASES["v5p-128-x2-pathways"][1]


def with_options(**options: object) -> Any:
    return replace(SPEC, options=GkeOptions(**{"pathways": True, **options}))


def test_the_machine_is_read_before_anything_is_created() -> None:
    plan = plan_create(SPEC, None, setup_steps)
    ids = [s.id for s in plan.steps]
    assert ids[0] == pathways.CHECK_ID
    for step in plan.steps:
        if isinstance(step, ApiCall) and step.method == "POST":
            assert pathways.CHECK_ID in step.after, step.id
    check = plan.steps[0].details()
    assert check["request"]["url"].endswith("/zones/us-east5-b/machineTypes/n2-standard-64")
    check_request("compute.machineTypes.get", "GET", check["request"]["url"], None)


def test_the_pool_body_fits_container_v1_and_follows_xpk() -> None:
    plan = plan_create(SPEC, None, setup_steps)
    step = next(s for s in plan.steps if s.id == pathways.POOL_ID)
    assert isinstance(step, ApiCall) and step.body is not None
    check_request(
        "container.projects.locations.clusters.nodePools.create",
        "POST",
        str(step.url),
        dict(step.body),
    )
    pool = step.body["nodePool"]
    assert pool["name"] == "cpu-np"  # XPK's name (core/nodepool.py)
    assert pool["config"]["machineType"] == "n2-standard-64"
    assert pool["autoscaling"] == {"enabled": True, "minNodeCount": 1, "maxNodeCount": 20}
    assert "cluster" in step.after


def test_no_pathways_no_pool_and_no_flavor() -> None:
    plain = replace(SPEC, options=GkeOptions())
    ids = [s.id for s in plan_create(plain, None, setup_steps).steps]
    assert pathways.CHECK_ID not in ids and pathways.POOL_ID not in ids
    assert "k8s-pathways-flavor" not in ids
    assert "pathways_pool" not in metadata_configmap(plain)["data"]


def test_an_existing_pool_is_kept() -> None:
    pool = ObservedPool("cpu-np", "RUNNING", None, "n2-standard-64", 1, "on-demand")
    seen = GkeObserved("RUNNING", ("us-east5-b",), {"cpu-np": pool})
    ids = [s.id for s in plan_create(SPEC, seen).steps]
    assert pathways.POOL_ID not in ids and pathways.CHECK_ID in ids


def test_the_flavor_and_the_queue_cover_heads_and_workers() -> None:
    objects = dict(kueue_objects(SPEC, pw.DEFAULT_MACHINE))
    flavor = objects["pathways-flavor"]
    validate(flavor)
    assert flavor["spec"]["nodeLabels"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    queue = cluster_queue(SPEC, pw.DEFAULT_MACHINE)
    validate(queue)
    (group,) = queue["spec"]["resourceGroups"]
    names = [f["name"] for f in group["flavors"]]
    assert names == ["v5p-128", "pathways-cpu"]
    cpu = {r["name"]: r["nominalQuota"] for r in group["flavors"][1]["resources"]}
    # sized from the pool: 20 nodes x n2-standard-64's allocatable, no chips
    assert cpu == {"google.com/tpu": 0, "cpu": "1275400m", "memory": "4997560Mi"}
    meta = plan_create(SPEC, None, setup_steps).by_id()["k8s-metadata"]
    assert isinstance(meta, K8sApply) and meta.manifest["data"]["pathways_pool"] == "cpu-np"


def test_the_cohort_carve_touches_only_the_accelerator_flavor() -> None:
    plan = plan_create(SPEC, None, setup_steps)
    step = next(s for s in plan.steps if s.id == "k8s-cluster-queue")
    flavors = step.details()["manifest"]["spec"]["resourceGroups"][0]["flavors"]
    assert flavors[0]["resources"][0]["nominalQuota"] == "${k8s-cohort-read.chips}"
    assert flavors[1]["resources"][0]["nominalQuota"] == 0


def test_allocatable_follows_gke_reservations() -> None:
    # 64 vCPUs: 60 + 10 + 2 x 5 + 60 x 2.5 = 230 millicores reserved
    # 256 GiB: 1024 + 819.2 + 819.2 + 6881.28 + 2621.44 MiB reserved, plus 100 for eviction
    assert pw.allocatable(pw.SHAPES["n2-standard-64"]) == (63770, 262144 - 12166 - 100)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pathways_cpu_machine_type": "n2-standard-48"}, "too small for a Pathways head"),
        ({"pathways_cpu_machine_type": "e2-standard-32"}, "too small for a Pathways head"),
        ({"pathways": False, "pathways_cpu_machine_type": "n2-standard-64"}, "only with"),
    ],
)
def test_bad_inputs_are_refused_before_any_call(options: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message):
        plan_create(with_options(**options))


def test_a_gpu_cluster_is_refused() -> None:
    spec = replace(
        SPEC, accelerator=lookup("h100-80gb-8"), capacity=Capacity("on-demand"), num_slices=1
    )
    with pytest.raises(UserError, match="runs on TPU slices"):
        plan_create(spec)


def test_an_unknown_machine_is_left_to_the_live_read() -> None:
    plan = plan_create(with_options(pathways_cpu_machine_type="c4-standard-96"))
    assert plan.steps[0].details()["catalogue"] is None


MACHINE = (
    "https://compute.googleapis.com/compute/v1/projects/my-project/zones/us-east5-b/machineTypes/"
)


def run_live_check(machine: str, status: int, answer: dict[str, Any]) -> Any:
    spec = with_options(pathways_cpu_machine_type=machine)
    step = pathways.read_steps(spec)[0]
    assert isinstance(step, pathways.MachineCheck)
    if status == 200:
        check_value("compute.v1", {"$ref": "MachineType"}, answer, "MachineType")
    compute = ComputeGateway(AuthorizedSession(AnonymousCredentials()))
    with responses.RequestsMock() as rsps:
        rsps.add("GET", MACHINE + machine, status=status, body=json.dumps(answer))
        return pathways.run_check(
            compute, step, StepContext(step, Recorder(), threading.Event(), {})
        )


def test_the_live_read_accepts_a_large_enough_machine() -> None:
    answer = {"name": "c4-standard-96", "guestCpus": 96, "memoryMb": 368640}
    assert run_live_check("c4-standard-96", 200, answer) == {
        "guestCpus": "96",
        "memoryMb": "368640",
    }


def test_the_live_read_refuses_a_small_or_missing_machine() -> None:
    with pytest.raises(UserError, match="too small"):
        run_live_check("c4-standard-48", 200, {"guestCpus": 48, "memoryMb": 184320})
    with pytest.raises(UserError, match="not offered in us-east5-b"):
        run_live_check("zz-standard-64", 404, {"error": {"code": 404, "message": "nope"}})


def test_adapt_adds_the_pool_only_when_missing() -> None:
    from xcli.providers.gke.adapt import Detected, plan_adapt, spec_for

    found = Detected(lookup("v5p-128"), 2, 1, Capacity("spot"), ("a", "b"), ("a", "b"))
    spec = spec_for(found, "demo", "my-project", "us-east5-b", {"pathways": True})
    ids = [s.id for s in plan_adapt(spec, "projects/p/locations/l/clusters/demo").steps]
    assert ids[:2] == [pathways.CHECK_ID, pathways.POOL_ID]
    assert "k8s-pathways-flavor" in ids
    have = plan_adapt(spec, "c", ("a", "b"), ("a", "b", "cpu-np")).steps
    assert pathways.POOL_ID not in [s.id for s in have]
    plain = spec_for(found, "demo", "my-project", "us-east5-b")
    assert pathways.CHECK_ID not in [s.id for s in plan_adapt(plain, "c").steps]
