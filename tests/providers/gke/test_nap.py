"""Node auto-provisioning (providers/gke/nap.py): XPK's NAP golden compared field by field, the
refusals, and the re-run that sets new limits on an existing cluster."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import yaml

from tests.conftest import DATA
from tests.support.discovery import check_request
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.gke.kueue_objects import kueue_objects
from xcli.providers.gke import nap
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import GkeObserved, plan_create
from xcli.spec import Capacity, ClusterSpec

XPK_GOLDEN = DATA / "upstream/AI-Hypercomputer/xpk/recipes/NAP_cluster-create.md"


def _spec(
    device: str = "tpu7x-8",
    capacity: Capacity | None = None,
    zone: str = "us-central1-a",
    **opts: Any,
) -> ClusterSpec:
    options = GkeOptions(autoprovisioning=True, **opts)
    accel = lookup(device)
    nodes = {"num_nodes": 2} if accel.kind == "gpu" else {}
    return ClusterSpec(
        "golden-cluster", "golden-project", zone, "gke", accel,
        capacity or Capacity("on-demand"), options=options, **nodes,
    )  # fmt: skip


def _xpk_temp_files() -> list[str]:
    """The contents XPK's dry-run prints as `Temp file (...) content:` blocks."""
    text = XPK_GOLDEN.read_text(encoding="utf-8")
    return re.findall(r"Temp file \(\w+\) content: \n(.*?)\n\[XPK\]", text, re.S)


def _xpk(kind: str) -> dict[str, Any]:
    for block in _xpk_temp_files():
        for doc in yaml.safe_load_all(block):
            if isinstance(doc, dict) and (
                doc.get("kind") == kind or (kind == "nap" and "resourceLimits" in doc)
            ):
                return doc
    raise AssertionError(f"no {kind} in XPK's golden")


def _xcli_cluster(spec: ClusterSpec) -> dict[str, Any]:
    (step,) = [s for s in plan_create(spec, None, setup_steps).steps if s.id == "cluster"]
    body: dict[str, Any] = step.body  # type: ignore[attr-defined]
    return body["cluster"]


# Compute Engine's general-purpose machine page: e2-standard-8 has 8 vCPUs and 32 GB
MACHINES = {"e2-standard-8": (8, 32)}
CPU_PER_VM, GB_PER_VM = 256, 4 * 1024  # docs/upstream.md: per accelerator VM, 4 TiB as GB


def _cpu_memory_problems(cluster: dict[str, Any], vms: int) -> list[str]:
    """cpu and memory limits against docs/upstream.md's rule: the accelerator VMs x 256 vCPUs
    and x 4 TiB, plus the system pool at its autoscaling maximum x its machine's vCPUs, GB."""
    limits = {
        r["resourceType"]: int(r["maximum"]) for r in cluster["autoscaling"]["resourceLimits"]
    }
    (system,) = cluster["nodePools"]
    cpus, gb = MACHINES[system["config"]["machineType"]]
    top = system["autoscaling"]["maxNodeCount"]
    want = {"cpu": vms * CPU_PER_VM + top * cpus, "memory": vms * GB_PER_VM + top * gb}
    return [f"{k} maximum {limits[k]}, want {v}" for k, v in want.items() if limits[k] != v]


def test_the_cpu_memory_check_catches_xpks_fixed_limits() -> None:
    """XPK's 1,000,000 vCPUs (or a limit that forgets the system pool) is not xcli's rule."""
    cluster = _xcli_cluster(_spec())
    for value, name in (("1000000", "cpu"), ("4096", "memory")):
        wrong = copy.deepcopy(cluster)
        (row,) = [r for r in wrong["autoscaling"]["resourceLimits"] if r["resourceType"] == name]
        row["maximum"] = value
        assert any(p.startswith(f"{name} maximum {value}") for p in _cpu_memory_problems(wrong, 1))


def test_the_autoprovisioning_config_follows_xpks_golden() -> None:
    """XPK's config file and xcli's ClusterAutoscaling, field by field (same command: tpu7x-8,
    on-demand, us-central1-a)."""
    theirs = _xpk("nap")
    ours = _xcli_cluster(_spec())["autoscaling"]
    assert ours["enableNodeAutoprovisioning"] is True
    assert ours["autoprovisioningLocations"] == theirs["autoprovisioningLocations"]
    assert ours["autoprovisioningNodePoolDefaults"]["management"] == theirs["management"]
    their_limits = {r["resourceType"]: r for r in theirs["resourceLimits"]}
    our_limits = {r["resourceType"]: r for r in ours["resourceLimits"]}
    assert set(our_limits) == set(their_limits) == {"cpu", "memory", "tpu7x"}
    # the accelerator's limit: the same type name, 0 to the chips of the shape asked for
    assert int(our_limits["tpu7x"]["minimum"]) == their_limits["tpu7x"]["minimum"] == 0
    assert int(our_limits["tpu7x"]["maximum"]) == their_limits["tpu7x"]["maximum"] == 4
    # Differences, on purpose (docs/upstream.md): cpu and memory are derived from the shape
    # (XPK: 1..1,000,000 and 1..10,000,000 whatever the shape), within XPK's bounds
    assert _cpu_memory_problems(_xcli_cluster(_spec()), vms=1) == []
    for name in ("cpu", "memory"):
        assert 0 < int(our_limits[name]["maximum"]) <= their_limits[name]["maximum"]
    # the scopes are xcli's everywhere (cloud-platform, which covers XPK's devstorage one)
    assert theirs["scopes"] == ["https://www.googleapis.com/auth/devstorage.read_write"]
    assert ours["autoprovisioningNodePoolDefaults"]["oauthScopes"] == [
        "https://www.googleapis.com/auth/cloud-platform"
    ]
    # XPK's `--autoscaling-profile=optimize-utilization`, sent in the same body
    assert ours["autoscalingProfile"] == "OPTIMIZE_UTILIZATION"
    text = XPK_GOLDEN.read_text(encoding="utf-8")
    assert "--autoscaling-profile=optimize-utilization" in text


def test_the_kueue_objects_follow_xpks_golden() -> None:
    spec = _spec()
    objects = dict(kueue_objects(spec, nap=nap.quota(spec)))
    theirs = _xpk("ResourceFlavor")
    assert objects["flavor"]["spec"]["nodeLabels"] == theirs["spec"]["nodeLabels"]
    assert "topologyName" not in objects["flavor"]["spec"] and "topology" not in objects
    their_queue = _xpk("ClusterQueue")["spec"]["resourceGroups"]
    quota = {r["name"]: r["nominalQuota"] for r in their_queue[0]["flavors"][0]["resources"]}
    ours = objects["cluster-queue"]["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {r["name"]: r["nominalQuota"] for r in ours}["google.com/tpu"] == quota["google.com/tpu"]


def test_the_cluster_records_the_limits_as_xpks_configmap_does() -> None:
    theirs = _xpk("ConfigMap")["data"]
    assert theirs["tpu7x"] == "AUTOPROVISION"
    (meta,) = [s for s in plan_create(_spec(), None, setup_steps).steps if s.id == "k8s-metadata"]
    data = meta.manifest["data"]  # type: ignore[attr-defined]
    assert data["autoprovisioning"] == "true"
    assert data["autoprovisioning_min_chips"] == theirs["minimum_chips"] == "0"
    assert data["autoprovisioning_max_chips"] == theirs["maximum_chips"] == "4"


def test_no_accelerator_pools_unlike_xpk() -> None:
    """XPK's golden still creates golden-cluster-np-0 before it turns NAP on; xcli leaves every
    accelerator pool to NAP (docs/upstream.md says why)."""
    assert "node-pools create golden-cluster-np-0" in XPK_GOLDEN.read_text(encoding="utf-8")
    apis = [getattr(s, "api", "") for s in plan_create(_spec(), None, setup_steps).steps]
    assert not [a for a in apis if a.endswith("nodePools.create")]


def test_a_rerun_on_an_existing_cluster_updates_its_limits() -> None:
    seen = GkeObserved(cluster_status="RUNNING", locations=("us-central1-a",))
    plan = plan_create(_spec(autoprovisioning_max_chips=64), seen)
    (step,) = [s for s in plan.steps if s.id == "cluster"]
    assert step.api == "container.projects.locations.clusters.update"  # type: ignore[attr-defined]
    body = step.body  # type: ignore[attr-defined]
    limits = body["update"]["desiredClusterAutoscaling"]["resourceLimits"]
    assert limits[2] == {"resourceType": "tpu7x", "minimum": "0", "maximum": "64"}
    check_request(step.api, step.method, step.url, body)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        (_spec(autoprovisioning_max_chips=2), "less than one tpu7x-8"),
        (_spec(autoprovisioning_min_chips=8, autoprovisioning_max_chips=8), "above the minimum"),
        (_spec("tpu7x-128", zone="us-central1-c"), "workload policy"),
        (_spec("h100-80gb-8", zone="us-east5-b"), "GPUDirect"),
        (_spec(capacity=Capacity("flex-start")), "--flex-start"),
        (_spec("v6e-16", zone="us-east5-b", gke_version="1.30"), "from 1.31.1-gke.1146000 on"),
        (_spec("v5p-8", zone="us-east5-a", gke_version="1.29.1"), "from 1.29.2-gke.1035000"),
        (_spec(capacity=Capacity("reservation", reservation="a,b")), "one reservation"),
        (
            _spec(capacity=Capacity("reservation", reservation="r/reservationBlocks/b")),
            "reservation block",
        ),
    ],
)
def test_refusals_name_the_way(spec: ClusterSpec, says: str) -> None:
    with pytest.raises(UserError) as caught:
        nap.check(spec)
    assert says in str(caught.value) and caught.value.hint


@pytest.mark.parametrize("version", ["1.31", "1.31.1-gke.1146000", "1.32.0", "1.29.2-gke.1035000"])
def test_versions_nap_makes_the_pools_on_pass(version: str) -> None:
    family = "v5p-8" if version.startswith("1.29") else "v6e-16"
    nap.check(_spec(family, zone="us-east5-b", gke_version=version))


def test_chip_limits_without_nap_are_refused() -> None:
    spec = _spec()
    plain = ClusterSpec(
        spec.name, spec.project, spec.zone, "gke", spec.accelerator, spec.capacity,
        options=GkeOptions(autoprovisioning_max_chips=8),
    )  # fmt: skip
    with pytest.raises(UserError, match="need --enable-autoprovisioning"):
        nap.check(plain)


def test_the_live_gateway_sends_both_bodies_as_gapic_messages() -> None:
    """The container gateway parses the NAP create and update bodies into the real GAPIC
    requests (no field dropped: the message's JSON has the same autoscaling)."""
    from google.protobuf import json_format

    from xcli.gateways.google.container import ContainerGateway

    gateway = ContainerGateway()
    seen = GkeObserved(cluster_status="RUNNING", locations=("us-central1-a",))
    for observed, key in ((None, "cluster"), (seen, "update")):
        (step,) = [s for s in plan_create(_spec(), observed).steps if s.id == "cluster"]
        message = gateway.request(step)  # type: ignore[arg-type]
        sent = json_format.MessageToDict(type(message).pb(message))
        body = step.body  # type: ignore[attr-defined]
        want = body[key]["autoscaling" if key == "cluster" else "desiredClusterAutoscaling"]
        got = sent[key]["autoscaling" if key == "cluster" else "desiredClusterAutoscaling"]
        # proto3 leaves a minimum of 0 out of the JSON: the same value
        zero = [
            {k: v for k, v in r.items() if (k, v) != ("minimum", "0")}
            for r in want["resourceLimits"]
        ]
        assert got == {**want, "resourceLimits": zero}


def test_live_create_sends_the_autoscaling_and_describe_reads_it_back() -> None:
    """The live run through the real container client (REST, responses): the fake GKE keeps the
    body it was sent; `cluster describe` reads NAP's limits back."""
    from tests.plan.gke_cases import CASES
    from tests.support.fake_compute import FakeNet
    from tests.support.gke_live import live, ref_of

    spec = CASES["v6e-256-x2-nap-spot"][1]
    fake = FakeNet()
    with live(fake) as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        info = env.provider.describe(ref_of(spec))
        creates = fake.calls("POST", "/nodePools")
    assert creates == []  # no accelerator pool: GKE makes them
    assert info["autoprovisioning"] == {
        "limits": {"cpu": [0, 32800], "memory": [0, 524416], "tpu-v6e-slice": [0, 512]},
        "locations": ["us-east5-b"],
    }


def test_live_rerun_with_a_new_limit_updates_the_cluster() -> None:
    from dataclasses import replace

    from tests.plan.gke_cases import CASES
    from tests.support.fake_compute import FakeNet
    from tests.support.gke_live import live, ref_of

    spec = CASES["v6e-256-x2-nap-spot"][1]
    raised = replace(
        spec, options=GkeOptions(autoprovisioning=True, autoprovisioning_max_chips=1024)
    )
    fake = FakeNet()
    with live(fake) as env:
        assert env.run(env.plan(spec), ref_of(spec)).ok
        again = env.plan(raised)  # reads the cluster first: it exists
        assert next(s.id for s in again.steps) == "cluster"
        assert env.run(again, ref_of(raised)).ok
        info = env.provider.describe(ref_of(spec))
        puts = fake.calls("PUT", "/clusters/demo")
    assert len(puts) == 1
    assert info["autoprovisioning"]["limits"]["tpu-v6e-slice"] == [0, 1024]


def test_nap_and_super_slicing_together_are_refused() -> None:
    spec = _spec("tpu7x-8", zone="us-central1-c", super_slicing=True)
    with pytest.raises(UserError, match="both decide the cluster's TPU pools"):
        nap.check(spec)
