"""The Pathways JobSet: valid against the JobSet CRD and lightkube-models, and XPK's template
field by field (the values below are those of xpk@367c838
src/xpk/templates/pathways_workload_create.yaml.j2 as read into the project's Pathways
reference; where xcli differs, jobset.DIFFERENCES says why)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.support.core import validate_core
from tests.support.crd import validate
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.workload.pathways import jobset as pj
from xcli.workload.pathways.spec import PathwaysSpec, check

BATCH = PathwaysSpec(
    name="train-1",
    accelerator=lookup("v5p-128"),
    num_slices=2,
    gcs_location="gs://my-bucket/pathways",
    image="us-docker.pkg.dev/my-project/repo/train:1",
    command="python3 train.py",
    capacity_kind="spot",
)
HEADLESS = replace(BATCH, name="nb-1", image=None, command=None, headless=True)
ELASTIC = replace(BATCH, name="elastic-1", elastic_slices=1, max_slice_restarts=3)


def jobs(js: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in js["spec"]["replicatedJobs"]}


def pod(js: dict[str, Any], name: str) -> dict[str, Any]:
    spec: dict[str, Any] = jobs(js)[name]["template"]["spec"]["template"]["spec"]
    return spec


def by_name(containers: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in containers}


@pytest.mark.parametrize("spec", [BATCH, HEADLESS, ELASTIC], ids=["batch", "headless", "elastic"])
def test_valid_against_the_jobset_crd_and_core_models(spec: PathwaysSpec) -> None:
    check(spec)
    js = pj.build_jobset(spec)
    validate(js)
    for name in (pj.HEAD, pj.WORKER):
        template = jobs(js)[name]["template"]["spec"]["template"]
        meta = {"name": "p", **template["metadata"]}
        validate_core(
            {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": template["spec"]}
        )


def test_top_level_as_xpk() -> None:
    spec = pj.build_jobset(BATCH)["spec"]
    assert spec["coordinator"]["replicatedJob"] == "pathways-head"
    assert spec["network"] == {"enableDNSHostnames": True, "publishNotReadyAddresses": True}
    assert spec["failurePolicy"] == {"restartStrategy": "Recreate"}
    assert spec["startupPolicy"] == {"startupPolicyOrder": "InOrder"}
    assert spec["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["pathways-head"]}
    assert "successPolicy" not in pj.build_jobset(HEADLESS)["spec"]


def test_head_as_xpk_with_native_sidecars() -> None:
    js = pj.build_jobset(BATCH)
    head = jobs(js)[pj.HEAD]
    assert head["replicas"] == 1
    annotations = head["template"]["metadata"]["annotations"]
    assert annotations == {pj.EXCLUSIVE: "kubernetes.io/hostname"}
    job = head["template"]["spec"]
    assert (job["backoffLimit"], job["completions"], job["parallelism"]) == (0, 1, 1)
    p = pod(js, pj.HEAD)
    assert p["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    assert (p["hostNetwork"], p["dnsPolicy"], p["restartPolicy"]) == (
        True,
        "ClusterFirstWithHostNet",
        "Never",
    )
    sidecars = by_name(p["initContainers"])
    assert set(sidecars) == {"pathways-proxy", "pathways-rm"}
    assert all(c["restartPolicy"] == "Always" for c in sidecars.values())
    proxy, rm = sidecars["pathways-proxy"], sidecars["pathways-rm"]
    assert proxy["args"] == [
        "--server_port=29000",
        "--resource_manager_address=$(PATHWAYS_HEAD):29001",
        "--gcs_scratch_location=gs://my-bucket/pathways",
    ]
    assert proxy["resources"]["limits"] == {"cpu": "16", "memory": "100G"}
    assert rm["args"] == [
        "--server_port=29001",
        "--gcs_scratch_location=gs://my-bucket/pathways",
        "--node_type=resource_manager",
        "--instance_count=2",
        "--instance_type=tpuv5:4x4x4",  # v5p-128: 64 chips, topology 4x4x4
    ]
    assert [p["containerPort"] for p in rm["ports"]] == [29001, 29002]
    assert rm["resources"]["limits"] == {"cpu": "8", "memory": "32G"}
    (user,) = p["containers"]
    env = {e["name"]: e.get("value") for e in user["env"]}
    assert env["JAX_PLATFORMS"] == "proxy"
    assert env["JAX_BACKEND_TARGET"] == "grpc://$(PATHWAYS_HEAD):29000"
    assert user["resources"]["limits"] == {"cpu": "24", "memory": "100G"}


def test_headless_has_no_user_container() -> None:
    p = pod(pj.build_jobset(HEADLESS), pj.HEAD)
    assert "initContainers" not in p
    assert [c["name"] for c in p["containers"]] == ["pathways-proxy", "pathways-rm"]
    assert all("restartPolicy" not in c for c in p["containers"])
    assert HEADLESS.images() == (HEADLESS.proxy_image, HEADLESS.server_image)


def test_workers_as_xpk() -> None:
    js = pj.build_jobset(BATCH)
    w = jobs(js)[pj.WORKER]
    assert w["replicas"] == 2
    assert w["template"]["metadata"]["annotations"] == {
        pj.EXCLUSIVE: "cloud.google.com/gke-nodepool"
    }
    job = w["template"]["spec"]
    assert (job["completions"], job["parallelism"], job["backoffLimit"]) == (16, 16, 64)
    p = pod(js, pj.WORKER)
    assert p["restartPolicy"] == "OnFailure" and p["priorityClassName"] == "medium"
    assert p["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"] == "tpu-v5p-slice"
    assert p["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == "4x4x4"
    (server,) = p["containers"]
    assert server["image"].endswith("/pathways/server:jax-0.9.0")
    assert [x["containerPort"] for x in server["ports"]] == [29005, 29006, 8471, 8080]
    assert server["resources"]["limits"] == {"google.com/tpu": "4"}
    names = [e["name"] for e in server["env"]]
    assert names[-2:] == ["PATHWAYS_HEAD", "MEGASCALE_COORDINATOR_ADDRESS"]


def test_elastic_slices_and_restarts() -> None:
    js = pj.build_jobset(ELASTIC)
    proxy = by_name(pod(js, pj.HEAD)["initContainers"])["pathways-proxy"]
    assert proxy["args"][-1] == "--num_elastic_slices=1"
    assert jobs(js)[pj.WORKER]["template"]["spec"]["backoffLimit"] == 3 * 16


def test_images_are_pinned_and_listed() -> None:
    assert BATCH.images() == (
        "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:jax-0.9.0",
        "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:jax-0.9.0",
        BATCH.image,
    )
    text = str(pj.build_jobset(BATCH))
    assert ":latest" not in text


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (replace(BATCH, name="a-name-longer-than-22-c"), "at most 22"),
        (replace(HEADLESS, command="python3 x.py"), "takes no --command"),
        (replace(BATCH, command=None), "needs --command"),
        (replace(BATCH, accelerator=lookup("h100-80gb-8")), "TPU slices"),
        (replace(BATCH, version="jax 0.9"), "not an image tag"),
        (replace(BATCH, gcs_location="/tmp/x"), "not a gs:// location"),
        (replace(BATCH, elastic_slices=2), "must be below"),
        (replace(BATCH, max_slice_restarts=0), "at least 1"),
    ],
)
def test_bad_inputs(spec: PathwaysSpec, message: str) -> None:
    with pytest.raises(UserError, match=message):
        check(spec)


def test_workers_ask_for_a_slice_topology_when_the_cluster_names_one() -> None:
    """Issue 32 item 1: the workers carry the jobset kind's slice annotations on a cluster whose
    TPU flavor names a Kueue Topology (else Kueue admits them nowhere); the head never does,
    and a cluster without a Topology (flex-start) gets neither."""

    def annotations(spec: PathwaysSpec, job: str) -> dict[str, str]:
        meta = jobs(pj.build_jobset(spec))[job]["template"]["spec"]["template"]["metadata"]
        found: dict[str, str] = meta.get("annotations", {})
        return found

    tas = replace(BATCH, kueue_topology="xcli-node-pools")
    assert annotations(tas, pj.WORKER) == {
        "kueue.x-k8s.io/podset-slice-required-topology": "cloud.google.com/gke-nodepool",
        "kueue.x-k8s.io/podset-slice-size": "16",
    }
    assert annotations(tas, pj.HEAD) == {}
    assert annotations(BATCH, pj.WORKER) == {} and annotations(BATCH, pj.HEAD) == {}
    validate(pj.build_jobset(tas))
