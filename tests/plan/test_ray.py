"""`cluster create --ray-version` (XPK's `cluster create-ray`, issue 36): the RayCluster against
KubeRay's CRD (tests/data/kuberay) and field by field against XPK's recipe golden
(tests/data/upstream/AI-Hypercomputer/xpk/recipes/Cluster_create_RayCluster.md)."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.support import crd
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.gke import ray
from xcli.plan.gke.kube_steps import K8sWait
from xcli.plan.steps import K8sApply
from xcli.spec import Capacity, ClusterSpec

RECIPE = REPO / "tests/data/upstream/AI-Hypercomputer/xpk/recipes/Cluster_create_RayCluster.md"
GOLDEN = REPO / "tests/goldens/gke/v5litepod-8-x4-ray.json"


def spec(shape: str, slices: int = 1) -> ClusterSpec:
    zone = "us-central1-c" if shape.startswith("tpu7x") else "us-east5-b"
    return ClusterSpec("c", "p", zone, "gke", lookup(shape), Capacity("on-demand"), slices)


def xpk_raycluster() -> dict[str, Any]:
    """The RayCluster of XPK's dry-run: the last `Temp file (...) content:` block."""
    text = RECIPE.read_text(encoding="utf-8")
    block = re.split(r"\[XPK\] Temp file \([0-9a-f]+\) content: \n", text)[-1]
    docs = [d for d in yaml.safe_load_all(block.split("\n[XPK] ")[0]) if d]
    (found,) = [d for d in docs if d["kind"] == "RayCluster"]
    return dict(found)


@pytest.mark.parametrize(
    ("shape", "slices"), [("tpu7x-8", 1), ("v4-8", 2), ("v5litepod-16", 4), ("v6e-256", 2)]
)
def test_the_raycluster_fits_kuberays_crd(shape: str, slices: int) -> None:
    crd.validate(ray.ray_cluster(spec(shape, slices), "2.39.0"))


def test_the_crd_check_can_fail() -> None:
    bad = ray.ray_cluster(spec("v4-8"), "2.39.0")
    bad["spec"]["workerGroupSpecs"][0]["numberOfHosts"] = 1  # a misspelt field
    with pytest.raises(AssertionError, match="numberOfHosts"):
        crd.validate(bad)


def test_field_by_field_against_xpks_golden() -> None:
    """XPK's recipe (tpu7x-8, Ray 2.39.0) gives the same object but for the pods' cpu and
    memory, which XPK reads off a node at run time (its dry-run: fractions of a made-up
    1000m/1000Mi); xcli asks for the chips only (plan/gke/ray.py, docs/upstream.md)."""
    xpk = copy.deepcopy(xpk_raycluster())
    head = xpk["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    assert set(head.pop("resources")["limits"]) == {"cpu", "memory"}
    for container in xpk["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"]:
        for side in ("limits", "requests"):
            container["resources"][side].pop("cpu")
            container["resources"][side].pop("memory")
    assert ray.ray_cluster(spec("tpu7x-8"), "2.39.0") == xpk


def test_a_multi_host_slice_is_one_replica_of_its_vms() -> None:
    group = ray.ray_cluster(spec("v5litepod-16", 3), "2.40.0")["spec"]["workerGroupSpecs"][0]
    assert (group["replicas"], group["minReplicas"], group["maxReplicas"]) == (3, 3, 3)
    assert group["numOfHosts"] == 4  # v5litepod-16: 16 chips on 4 VMs of 4
    assert group["template"]["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "4x4",
    }


def test_the_steps_wait_for_the_addons_crd() -> None:
    wait, namespace, raycluster = ray.ray_steps(spec("v4-8"), "2.39.0", "CL", ("pools",))
    assert isinstance(wait, K8sWait) and wait.crds == ("rayclusters.ray.io",)
    assert isinstance(namespace, K8sApply) and namespace.manifest["metadata"]["name"] == "ray"
    assert isinstance(raycluster, K8sApply) and raycluster.after == (wait.id, namespace.id)


@pytest.mark.parametrize("value", ["v2.39.0", "2.39", "latest", "2.39.0 "])
def test_a_version_that_is_no_ray_release_is_refused(value: str) -> None:
    with pytest.raises(UserError, match="not a Ray release") as caught:
        ray.check_version(value)
    assert "2.39.0" in caught.value.hint


def test_a_gpu_shape_is_refused() -> None:
    with pytest.raises(UserError, match="not a TPU shape"):
        ray.ray_steps(spec("h100-80gb-8"), "2.39.0", "CL", ())


def test_the_golden_turns_the_addon_on_and_applies_the_raycluster() -> None:
    plan = json.loads(GOLDEN.read_text())["plan"]
    (create,) = [s for s in plan if s.get("api") == "container.projects.locations.clusters.create"]
    assert create["request"]["body"]["cluster"]["addonsConfig"]["rayOperatorConfig"] == {
        "enabled": True
    }
    applied = [s["manifest"] for s in plan if s["kind"] == "k8s_apply"]
    (found,) = [m for m in applied if m["kind"] == "RayCluster"]
    assert found == ray.ray_cluster(spec("v5litepod-8", 4), "2.39.0")
