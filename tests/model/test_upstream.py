"""Upstream agreement: xcli's GPUDirect installers and pods, its A4X ComputeDomain and its
storage PersistentVolumes against the upstream manifests pinned in tests/data/upstream, field by
field. A drift names xcli's object, the field and the upstream file; the differences xcli chooses
are listed with their reasons (upstream_gpu.PAIRS, upstream_storage.CHOSEN), and each listed
reason must still explain a real difference."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.model.fields import differences, matches
from tests.model.goldens import applied_objects, golden_plan
from tests.model.upstream_gpu import CEA, PAIRS, _docs, _xcli_object, drift, pod_view
from tests.model.upstream_storage import CHOSEN, PVS, storage_drift, upstream_pv


@pytest.mark.parametrize("family", sorted(PAIRS))
def test_gpu_objects_follow_google(family: str) -> None:
    pair = PAIRS[family]
    lines = drift(pair, golden_plan(pair.golden))
    assert not lines, "\n".join(lines)


@pytest.mark.parametrize("family", sorted(PAIRS))
def test_every_chosen_difference_is_still_a_difference(family: str) -> None:
    pair = PAIRS[family]
    ours = _xcli_object(pair, golden_plan(pair.golden))
    docs = _docs(pair.upstream)
    if pair.kind == "DaemonSet":
        (theirs,) = [d for d in docs if d["kind"] == "DaemonSet"]
        diffs = differences(ours, theirs, ("metadata.name", "metadata.namespace", "spec"))
    else:
        pod = next(d for d in docs if d["kind"] == "Pod")
        template = ours["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
        main = next(c["name"] for c in pod["spec"]["containers"] if "daemon" not in c["name"])
        diffs = differences(pod_view(template, "main"), pod_view(pod, main), ("",))
    for pattern, why in pair.chosen:
        assert why.strip()
        assert any(matches(pattern, d[0]) for d in diffs), f"{family}: {pattern} explains nothing"


def test_a_drift_names_the_object_the_field_and_the_upstream_file() -> None:
    pair = PAIRS["A3 Mega TCPXO pod"]
    plan = copy.deepcopy(golden_plan(pair.golden))
    pod = plan[0]["manifest"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    (daemon,) = [c for c in pod["initContainers"] if c["name"] == "tcpxo-daemon"]
    daemon["image"] = daemon["image"].replace("v1.0.21", "v1.0.20")
    assert drift(pair, plan) == [
        "JobSet train-1 (workload/h100-mega-80gb-8-x4.json) sidecars.tcpxo-daemon.image: xcli "
        "'us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.20', upstream "
        "'us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21' "
        f"({CEA} gpudirect-tcpxo/nccl-test-latest.yaml)"
    ]


def _compute_domain_view(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The ComputeDomain's kind and fields, and whether the pod claims its channel."""
    (domain,) = [d for d in docs if d.get("kind") == "ComputeDomain"]
    channel = domain["spec"]["channel"]["resourceClaimTemplate"]["name"]
    pods = [d for d in docs if d.get("kind") in ("Pod", "JobSet")]
    spec = pods[0]["spec"]
    if pods[0]["kind"] == "JobSet":
        spec = spec["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    claims = [c["resourceClaimTemplateName"] == channel for c in spec["resourceClaims"]]
    used = [c.get("resources", {}).get("claims") for c in spec["containers"]]
    return {
        "apiVersion": domain["apiVersion"],
        "spec fields": sorted(domain["spec"]),
        "pod claims the channel": claims,
        "containers naming the claim": [
            [x["name"] for x in u] == [c["name"] for c in spec["resourceClaims"]] for u in used if u
        ],
    }


def test_a4x_compute_domain_follows_google() -> None:
    """Same kind, version and fields as Google's A4X IMEX test, and the pod claims the domain's
    channel the same way. numNodes differs by design: xcli sizes the domain to the workload."""
    ours = _compute_domain_view(applied_objects(golden_plan("workload/gb200-4-x18.json")))
    theirs = _compute_domain_view(_docs("gpudirect-rdma/nccl-test-imex-a4x.yaml"))
    assert ours == theirs


STORAGE = [
    "storage/attach-gcsfuse.json",
    "storage/attach-gcsfuse-readonly.json",
    "storage/attach-filestore.json",
    "storage/create-filestore.json",
    "storage/create-gcsfuse.json",
]


@pytest.mark.parametrize("golden", STORAGE)
def test_storage_pvs_follow_their_drivers(golden: str) -> None:
    """Lustre is checked with the other storage goldens in test_goldens.py (a known failure,
    audit F.A2: its PV lacks ip and filesystem)."""
    assert storage_drift(applied_objects(golden_plan(golden))) == []


def test_storage_drift_is_one_line_naming_the_pv_field_and_file() -> None:
    plan = copy.deepcopy(golden_plan("storage/attach-filestore.json"))
    (pv,) = [o for o in applied_objects(plan) if o["kind"] == "PersistentVolume"]
    del pv["spec"]["csi"]["volumeAttributes"]["ip"]
    path = PVS["filestore.csi.storage.gke.io"][0]
    assert storage_drift(applied_objects(plan)) == [
        f"PersistentVolume {pv['metadata']['name']} spec.csi.volumeAttributes lacks ip that "
        f"{path} sets"
    ]


def test_an_option_no_upstream_sample_uses_is_a_drift() -> None:
    plan = copy.deepcopy(golden_plan("storage/attach-gcsfuse.json"))
    (pv,) = [o for o in applied_objects(plan) if o["kind"] == "PersistentVolume"]
    pv["spec"]["mountOptions"].append("kernel-list-cache-ttl-secs=-1")
    pv["spec"]["mountOptions"].remove("metadata-cache:type-cache-max-size-mb:-1")
    (line,) = storage_drift(applied_objects(plan))
    assert line.startswith(
        f"PersistentVolume {pv['metadata']['name']} spec.mountOptions sets "
        "kernel-list-cache-ttl-secs=-1: in no upstream example"
    )


def test_every_storage_choice_is_used_by_xcli_and_by_no_upstream_example() -> None:
    xcli = str([golden_plan(g) for g in [*STORAGE, "storage/attach-lustre.json"]])
    for (driver, field, key), why in CHOSEN.items():
        assert why.strip() and f"'{key}'" in xcli, key
        for path in PVS[driver]:
            up = upstream_pv(path)["spec"]
            assert key not in (up["csi"].get(field) or up.get(field) or {}), (key, path)
