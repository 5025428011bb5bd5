"""The NVIDIA DRA driver on A4X clusters: the shipped manifest is the chart's render byte for
byte, its objects are valid and land on the GB200 nodes GKE makes, Kueue maps the channel
DeviceClass the driver installs and the ClusterQueue covers it, and the cluster version and
beta APIs follow from what each part reads."""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import Any

import pytest
import yaml

from tests.plan.gke_cases import CASES
from tests.support import crd
from tests.support.core import validate_core
from xcli.errors import UserError
from xcli.gateways.kube.release_config import merged
from xcli.plan.gke.dra import CHANNEL_DEVICE_CLASS, CHANNEL_RESOURCE
from xcli.plan.gke.kube_steps import K8sInstall, K8sWait
from xcli.plan.gke.kueue_objects import cluster_queue
from xcli.plan.model import resolve
from xcli.plan.steps import K8sApply
from xcli.providers.gke import dra_driver
from xcli.providers.gke import options as gke_opts
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.planner import plan_create
from xcli.spec import ClusterSpec
from xcli.workload.team import objects as team_objects
from xcli.workload.team.spec import TeamSpec, parse_quotas

A4X = CASES["gb200-4-x18-reservation"][1]
A3_ULTRA = CASES["h200-141gb-8-x2-on-demand"][1]


def _with_version(spec: ClusterSpec, version: str) -> ClusterSpec:
    return replace(spec, options=replace(gke_opts.of(spec), gke_version=version))


def _applied(spec: ClusterSpec) -> list[K8sApply]:
    return [s for s in plan_create(spec, None, setup_steps).steps if isinstance(s, K8sApply)]


def test_the_manifest_is_the_charts_render_byte_for_byte() -> None:
    text = dra_driver._chart_text()
    header, _, body = text.partition("\n---\n")
    assert all(line.startswith("#") for line in header.splitlines())
    stated = re.search(r"sha256 ([0-9a-f]{64})", header)
    assert stated is not None
    assert hashlib.sha256(("---\n" + body).encode()).hexdigest() == stated.group(1)
    assert "v25.3.0" in header and "Apache-2.0" in header and "NOTICE" in header


def test_the_driver_objects_and_their_order() -> None:
    objs = dra_driver.objects()
    kinds = [o["kind"] for o in objs]
    assert kinds[:3] == ["Namespace", "ResourceQuota", "CustomResourceDefinition"]
    assert sorted(kinds) == sorted(
        ["Namespace", "ResourceQuota", "CustomResourceDefinition"]
        + ["ServiceAccount"] * 2
        + ["ClusterRole"] * 2
        + ["ClusterRoleBinding"] * 2
        + ["DaemonSet", "Deployment", "DeviceClass", "DeviceClass"]
        + ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    )
    for obj in objs:
        if obj["kind"] != "CustomResourceDefinition":  # its schema is the CRD's own business
            validate_core(obj)
    namespaced = [o for o in objs if o["kind"] in ("ServiceAccount", "DaemonSet", "Deployment")]
    assert {o["metadata"]["namespace"] for o in namespaced} == {dra_driver.NAMESPACE}


def test_kueue_maps_the_device_class_the_driver_installs() -> None:
    classes = {o["metadata"]["name"] for o in dra_driver.objects() if o["kind"] == "DeviceClass"}
    assert CHANNEL_DEVICE_CLASS in classes
    (install,) = [s for s in setup_steps(A4X, "c", ()) if isinstance(s, K8sInstall)][1:]
    merge = install.config_patch["merge"]
    assert merge["resources"] == {
        "deviceClassMappings": [
            {"name": CHANNEL_RESOURCE, "deviceClassNames": [CHANNEL_DEVICE_CLASS]}
        ]
    }
    # merged into a Configuration that already has other resources settings, it adds the key
    base = {"resources": {"excludeResourcePrefixes": []}, "integrations": {"frameworks": []}}
    assert merged(base, merge)["resources"] == {
        "excludeResourcePrefixes": [],
        "deviceClassMappings": merge["resources"]["deviceClassMappings"],
    }
    # no other family gets a mapping
    other = [s for s in setup_steps(A3_ULTRA, "c", ()) if isinstance(s, K8sInstall)][1]
    assert "resources" not in other.config_patch["merge"]


def test_the_cluster_queue_covers_one_channel_per_node() -> None:
    queue = cluster_queue(A4X)
    crd.validate(queue)
    (group,) = queue["spec"]["resourceGroups"]
    assert CHANNEL_RESOURCE in group["coveredResources"]
    quota = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert quota[CHANNEL_RESOURCE] == A4X.num_nodes == 18
    assert CHANNEL_RESOURCE not in str(cluster_queue(A3_ULTRA))


def test_the_kubelet_plugin_lands_on_gb200_nodes_and_the_controller_off_them() -> None:
    """GKE labels A4X nodes gke-accelerator=nvidia-gb200 and arch=arm64 and taints them
    nvidia.com/gpu=present:NoSchedule (and arm64 nodes kubernetes.io/arch=arm64:NoSchedule)."""
    by_kind = {o["kind"]: o for o in dra_driver.objects()}
    plugin = by_kind["DaemonSet"]["spec"]["template"]["spec"]
    (term,) = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    match = {e["key"]: e["values"] for e in term["matchExpressions"]}
    assert match == {
        "cloud.google.com/gke-accelerator": [A4X.accelerator.gke_accelerator],
        "kubernetes.io/arch": [A4X.accelerator.arch],
    }
    tolerated = {(t["key"], t.get("value"), t["effect"]) for t in plugin["tolerations"]}
    assert tolerated == {
        ("nvidia.com/gpu", "present", "NoSchedule"),
        ("kubernetes.io/arch", "arm64", "NoSchedule"),
    }
    assert {e["value"] for e in _env(plugin["containers"][0])} >= {"/home/kubernetes/bin/nvidia"}
    controller = by_kind["Deployment"]["spec"]["template"]["spec"]
    (term,) = controller["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "nvidia.com/gpu", "operator": "DoesNotExist"}]
    for pod in (plugin, controller):  # allowed in this namespace by its ResourceQuota
        assert (
            pod["priorityClassName"]
            in by_kind["ResourceQuota"]["spec"]["scopeSelector"]["matchExpressions"][0]["values"]
        )


def _env(container: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in container["env"] if "value" in e]


def test_a4x_plans_install_it_before_the_metadata_and_others_do_not() -> None:
    steps = {s.id: s for s in plan_create(A4X, None, setup_steps).steps}
    dra = [sid for sid in steps if sid.startswith("k8s-dra-")]
    assert len(dra) == len(dra_driver.objects())
    wait = steps["k8s-wait-dra-driver"]
    assert isinstance(wait, K8sWait) and set(wait.after) == set(dra)
    assert wait.crds == ("computedomains.resource.nvidia.com",)
    assert "k8s-wait-dra-driver" in steps["k8s-metadata"].after
    workloads = [s for s in dra if steps[s].manifest["kind"] in ("DaemonSet", "Deployment")]
    for sid in workloads:  # after what Helm's order puts before them: account, roles, quota
        before = dra[: dra.index(workloads[0])]
        assert set(steps[sid].after) == set(before)
        assert {steps[b].manifest["kind"] for b in before} >= {
            "ServiceAccount",
            "ClusterRoleBinding",
            "ResourceQuota",
        }
    assert not [s for s in _applied(A3_ULTRA) if s.id.startswith("k8s-dra-")]


def test_the_cluster_body_turns_on_the_dra_beta_apis_on_a4x_only() -> None:
    def body(spec: ClusterSpec) -> dict[str, Any]:
        step = next(s for s in plan_create(spec).steps if s.id == "cluster")
        return dict(step.body["cluster"])  # type: ignore[attr-defined]

    assert body(A4X)["enableK8sBetaApis"] == {"enabledApis": list(dra_driver.BETA_APIS)}
    assert all(api.startswith("resource.k8s.io/v1beta1/") for api in dra_driver.BETA_APIS)
    # the chart's DeviceClasses are v1beta1: the reason the APIs are on at every version
    classes = [o for o in dra_driver.objects() if o["kind"] == "DeviceClass"]
    assert {o["apiVersion"] for o in classes} == {"resource.k8s.io/v1beta1"}
    assert body(_with_version(A4X, "1.35.2-gke.100"))["enableK8sBetaApis"]
    assert "enableK8sBetaApis" not in body(A3_ULTRA)


@pytest.mark.parametrize("version", ["1.33", "1.33.5-gke.1080000", "1.32.9"])
def test_a_version_below_1_34_is_refused_before_any_call(version: str) -> None:
    with pytest.raises(UserError) as err:
        plan_create(_with_version(A4X, version))
    assert "1.34 or later" in str(err.value) and version in str(err.value)
    assert "--gke-version" in (err.value.hint or "")
    plan_create(_with_version(A3_ULTRA, version))  # other families do not care


@pytest.mark.parametrize(
    ("version", "warns"), [("", True), ("-", True), ("latest", False), ("1.34", False)]
)
def test_the_plan_says_when_it_cannot_know_the_version(version: str, warns: bool) -> None:
    notes = plan_create(_with_version(A4X, version)).notes
    (note,) = [n for n in notes if "DRA driver" in n]
    assert ("release channel's default version" in note) is warns
    assert not [n for n in plan_create(A3_ULTRA).notes if "DRA driver" in n]


def test_the_shipped_crd_is_the_one_workloads_are_checked_against() -> None:
    (found,) = [o for o in dra_driver.objects() if o["kind"] == "CustomResourceDefinition"]
    assert found["metadata"]["name"] == dra_driver.CRD
    versions = [v["name"] for v in found["spec"]["versions"] if v["served"]]
    assert versions == ["v1beta1"]  # the ComputeDomain API xcli's workloads use
    text = yaml.safe_dump(found)
    assert "numNodes" in text and "resourceClaimTemplate" in text


def test_a_team_queue_on_a4x_covers_the_channels_of_its_gpus() -> None:
    """A team's ClusterQueue must cover every resource its workloads ask for, or Kueue never
    admits them: on A4X one channel per 4-GPU pod."""
    a4x = team_objects.cluster_queue(
        TeamSpec("demo", "ml", parse_quotas("gb200=8", None, None)), "team-read"
    )
    crd.validate(resolve(a4x, {"team-read": {"flavor_0": "gb200-4"}}))
    (group,) = a4x["spec"]["resourceGroups"]
    assert group["coveredResources"] == ["nvidia.com/gpu", "cpu", "memory", CHANNEL_RESOURCE]
    quota = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert quota["nvidia.com/gpu"] == 8 and quota[CHANNEL_RESOURCE] == 2
    mixed = parse_quotas("gb200-4=4,h100-80gb=16", None, None)
    queue = team_objects.cluster_queue(TeamSpec("demo", "ml", mixed), "team-read")
    flavors = queue["spec"]["resourceGroups"][0]["flavors"]
    channels = [{r["name"]: r["nominalQuota"] for r in f["resources"]} for f in flavors]
    assert [c[CHANNEL_RESOURCE] for c in channels] == [1, 0]  # the H100 flavor holds none
    other = team_objects.cluster_queue(
        TeamSpec("demo", "ml", parse_quotas("h200-141gb=16", None, None)), "team-read"
    )
    assert CHANNEL_RESOURCE not in other["spec"]["resourceGroups"][0]["coveredResources"]
