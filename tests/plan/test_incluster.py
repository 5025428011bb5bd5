"""In-cluster setup plan: schema-valid objects, quota and labels per accelerator, step order."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tests.support import crd
from tests.support.core import validate_core
from xcli import __version__
from xcli.catalog import lookup
from xcli.plan.gke import incluster
from xcli.plan.gke.cohort_read import CohortRead, chips_left
from xcli.plan.gke.kube_steps import K8sInstall, K8sWait
from xcli.plan.gke.system_pool import controllers
from xcli.plan.model import Plan, Ref, resolve
from xcli.plan.render import plan_json, plan_text
from xcli.plan.steps import K8sApply, LocalAction
from xcli.spec import Capacity, ClusterSpec
from xcli.workload.spec import cluster_meta_from_dict

CLUSTER = "projects/p/locations/us-east5/clusters/c"


def spec(name: str, capacity: str = "on-demand", slices: int = 1, nodes: int = 1) -> ClusterSpec:
    reservation = "projects/other-proj/reservations/r1" if capacity == "reservation" else None
    return ClusterSpec(
        name="c",
        project="p",
        zone="us-east5-b",
        provider="gke",
        accelerator=lookup(name),
        capacity=Capacity(capacity, reservation=reservation),  # type: ignore[arg-type]
        num_slices=slices,
        num_nodes=nodes,
    )


CASES = {
    "v6e-256 x2 spot": spec("v6e-256", "spot", slices=2),
    "v5p-128 reservation": spec("v5p-128", "reservation"),
    "tpu7x-8": spec("tpu7x-8"),
    "v5litepod-16 flex-start": spec("v5litepod-16", "flex-start"),
    "h100-80gb-8 x2 nodes": spec("h100-80gb-8", nodes=2),
    "h100-80gb-8 flex-start": spec("h100-80gb-8", "flex-start", nodes=4),
}


def plan_for(s: ClusterSpec, cluster: Any = CLUSTER) -> Plan:
    cluster_step = LocalAction(id="cluster", summary="the cluster", action="noop")
    return Plan("setup", (cluster_step, *incluster.setup_steps(s, cluster, ("cluster",))))


def applied(s: ClusterSpec) -> dict[str, dict[str, Any]]:
    """The objects applied on a cluster without teams (what the cohort read answers there)."""
    steps = incluster.setup_steps(s, CLUSTER, ("cluster",))
    (read,) = [st for st in steps if isinstance(st, CohortRead)]
    outputs = {read.id: chips_left([], read)}
    return {st.id: dict(resolve(st.manifest, outputs)) for st in steps if isinstance(st, K8sApply)}


def by_kind(s: ClusterSpec, kind: str) -> list[dict[str, Any]]:
    return [o for o in applied(s).values() if o["kind"] == kind]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_object_fits_its_schema(case: str) -> None:
    s = CASES[case]
    objects = list(applied(s).values())
    objects += list(incluster.webhook_probes())
    custom = {(g, v, k) for g, v, k in crd.known_kinds()}
    for obj in objects:
        group, _, version = obj["apiVersion"].rpartition("/")
        if (group, version, obj["kind"]) in custom:
            crd.validate(obj)  # Kueue and JobSet kinds, against the vendored CRDs
        else:
            validate_core(obj)  # ConfigMap, PriorityClass, against the Kubernetes models
    kinds = {o["kind"] for o in objects}
    assert {"ResourceFlavor", "ClusterQueue", "LocalQueue", "PriorityClass", "ConfigMap"} <= kinds


@pytest.mark.parametrize("case", sorted(CASES))
def test_cluster_queue_cel_rules(case: str) -> None:
    """The CRD's CEL rules, which jsonschema cannot run: checked by hand."""
    (queue,) = by_kind(CASES[case], "ClusterQueue")
    for group in queue["spec"]["resourceGroups"]:
        for flavor in group["flavors"]:
            names = [r["name"] for r in flavor["resources"]]
            assert names == group["coveredResources"]
            assert all("borrowingLimit" not in r for r in flavor["resources"])  # no cohort
    flavors = {f["metadata"]["name"] for f in by_kind(CASES[case], "ResourceFlavor")}
    assert {f["name"] for g in queue["spec"]["resourceGroups"] for f in g["flavors"]} == flavors
    (local,) = by_kind(CASES[case], "LocalQueue")
    assert local["spec"]["clusterQueue"] == queue["metadata"]["name"]


@pytest.mark.parametrize(
    ("case", "resource", "chips", "vms"),
    [
        ("v6e-256 x2 spot", "google.com/tpu", 512, 128),
        ("v5p-128 reservation", "google.com/tpu", 64, 16),
        ("tpu7x-8", "google.com/tpu", 4, 1),
        ("v5litepod-16 flex-start", "google.com/tpu", 16, 4),
        ("h100-80gb-8 x2 nodes", "nvidia.com/gpu", 16, 2),
        ("h100-80gb-8 flex-start", "nvidia.com/gpu", 32, 4),
    ],
)
def test_quota_is_slices_times_chips(case: str, resource: str, chips: int, vms: int) -> None:
    s = CASES[case]
    (queue,) = by_kind(s, "ClusterQueue")
    quota = {
        r["name"]: r["nominalQuota"]
        for r in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    }
    assert quota == {resource: chips, "cpu": vms * 256, "memory": f"{vms * 4}Ti"}
    assert chips == s.total_chips
    assert queue["spec"]["preemption"]["withinClusterQueue"] == "LowerPriority"
    assert queue["spec"]["namespaceSelector"] == {}


def test_flavor_labels_per_accelerator_and_capacity() -> None:
    def flavor(case: str) -> dict[str, Any]:
        (found,) = by_kind(CASES[case], "ResourceFlavor")
        return dict(found["spec"])

    tpu_key, topo = "cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-tpu-topology"
    spot = flavor("v6e-256 x2 spot")
    assert spot["nodeLabels"] == {
        tpu_key: "tpu-v6e-slice",
        topo: "16x16",
        "cloud.google.com/gke-spot": "true",
    }
    assert spot["tolerations"] == [
        {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert flavor("v5p-128 reservation")["nodeLabels"] == {tpu_key: "tpu-v5p-slice", topo: "4x4x4"}
    assert flavor("tpu7x-8")["nodeLabels"] == {tpu_key: "tpu7x", topo: "2x2x1"}
    flex = flavor("v5litepod-16 flex-start")
    assert flex["nodeLabels"] == {
        tpu_key: "tpu-v5-lite-podslice",
        topo: "4x4",
        "cloud.google.com/gke-flex-start": "true",
    }
    # a plain flex-start TPU pool: no queued-provisioning taint to tolerate
    assert {t["key"] for t in flex["tolerations"]} == {"google.com/tpu"}
    gpu = flavor("h100-80gb-8 x2 nodes")
    assert gpu["nodeLabels"] == {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
    assert gpu["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert by_kind(CASES["tpu7x-8"], "ResourceFlavor")[0]["metadata"]["name"] == "tpu7x-8"


def test_max_run_duration_reaches_every_provisioning_request() -> None:
    timed = replace(
        CASES["h100-80gb-8 flex-start"], capacity=Capacity("flex-start", max_run_duration=7200)
    )
    (config,) = by_kind(timed, "ProvisioningRequestConfig")
    assert config["spec"]["parameters"] == {"maxRunDurationSeconds": "7200"}
    crd.validate(config)
    (flavor,) = by_kind(timed, "ResourceFlavor")
    assert flavor["spec"]["nodeLabels"]["cloud.google.com/gke-flex-start"] == "true"


@pytest.mark.parametrize("case", sorted(CASES))
def test_admission_check_only_for_gpu_flex_start(case: str) -> None:
    s = CASES[case]
    (queue,) = by_kind(s, "ClusterQueue")
    checks = by_kind(s, "AdmissionCheck")
    configs = by_kind(s, "ProvisioningRequestConfig")
    if case == "h100-80gb-8 flex-start":
        (check,) = checks
        (config,) = configs
        assert check["spec"]["controllerName"] == "kueue.x-k8s.io/provisioning-request"
        assert check["spec"]["parameters"]["name"] == config["metadata"]["name"]
        assert config["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"
        assert config["spec"]["managedResources"] == ["nvidia.com/gpu"]
        assert "parameters" not in config["spec"]  # no --max-run-duration: GKE's default
        assert {
            "key": "cloud.google.com/gke-queued",
            "operator": "Exists",
            "effect": "NoSchedule",
        } in (by_kind(s, "ResourceFlavor")[0]["spec"]["tolerations"])
        strategy = queue["spec"]["admissionChecksStrategy"]["admissionChecks"]
        assert strategy == [{"name": check["metadata"]["name"]}]
    else:
        assert not checks and not configs
        assert "admissionChecksStrategy" not in queue["spec"]


def test_priority_classes() -> None:
    found = by_kind(CASES["tpu7x-8"], "PriorityClass")
    assert [(p["metadata"]["name"], p["value"]) for p in found] == [
        ("very-low", 100),
        ("low", 250),
        ("medium", 500),
        ("high", 750),
        ("very-high", 1000),
    ]
    assert all(p["globalDefault"] is False for p in found)


def test_metadata_configmap() -> None:
    (cm,) = by_kind(CASES["v6e-256 x2 spot"], "ConfigMap")
    assert cm["metadata"]["name"] == "xcli-cluster-metadata"
    assert cm["metadata"]["namespace"] == "default"
    data = cm["data"]
    assert all(isinstance(v, str) for v in data.values())
    assert data["accelerator"] == "v6e-256"
    assert data["slices"] == "2"
    assert data["capacity_type"] == "spot"
    assert data["total_chips"] == "512"
    assert data["xcli_version"] == __version__
    assert data["local_queue"] == "xcli-queue"
    (gpu,) = by_kind(CASES["h100-80gb-8 flex-start"], "ConfigMap")
    assert (gpu["data"]["slices"], gpu["data"]["num_nodes"], gpu["data"]["vms"]) == ("1", "4", "4")
    assert (data["num_slices"], data["vms"], data["provider"]) == ("2", "128", "gke")
    (res,) = by_kind(CASES["v5p-128 reservation"], "ConfigMap")
    assert res["data"]["reservation"] == "projects/other-proj/reservations/r1"


def test_step_order() -> None:
    plan = plan_for(CASES["h100-80gb-8 flex-start"])
    steps = plan.by_id()
    installs = [s for s in plan.steps if isinstance(s, K8sInstall)]
    assert [(s.component, s.version) for s in installs] == [
        ("jobset", "v0.12.0"),
        ("kueue", "v0.19.2"),
    ]
    assert all(s.after == ("cluster",) for s in installs)
    (wait,) = [s for s in plan.steps if isinstance(s, K8sWait)]
    assert set(wait.after) == {s.id for s in installs}
    (read,) = [s for s in plan.steps if isinstance(s, CohortRead)]
    assert read.after == (wait.id,)  # the ClusterQueue kind exists by then
    for st in plan.steps:
        if isinstance(st, K8sApply) and "kueue" in st.manifest["apiVersion"]:
            queue = st.manifest["kind"] == "ClusterQueue"
            assert st.after == ((read.id,) if queue else (wait.id,))
        if isinstance(st, K8sApply) and st.manifest["kind"] == "PriorityClass":
            assert st.after == ("cluster",)
    last = plan.steps[-1]
    assert last.id == "k8s-metadata"
    others = {s.id for s in plan.steps} - {"cluster", last.id}
    assert plan.dependents("cluster") >= others | {last.id}
    assert {a for a in steps[last.id].after} >= {"k8s-cluster-queue", "k8s-local-queue"}
    assert plan._ancestors(last, steps) >= others


def test_install_steps_print_what_is_fetched() -> None:
    doc = json.loads(plan_json(plan_for(CASES["tpu7x-8"])))
    install = next(s for s in doc["plan"] if s["id"] == "k8s-install-kueue")
    assert install == {
        "id": "k8s-install-kueue",
        "kind": "k8s_install",
        "summary": install["summary"],
        "after": ["cluster"],
        "cluster": CLUSTER,
        "component": "kueue",
        "version": "v0.19.2",
        "url": "https://github.com/kubernetes-sigs/kueue/releases/download/v0.19.2/manifests.yaml",
        "field_manager": "xcli",
        "force_conflicts": True,
        "limits": {
            "deployment": "kueue-system/kueue-controller-manager",
            "container": "manager",
            "limits": {"cpu": "2", "memory": "4096Mi"},
            "requests": {"cpu": "2", "memory": "4096Mi"},
        },
        "config_patch": {
            "configmap": "kueue-system/kueue-manager-config",
            "key": "controller_manager_config.yaml",
            "api_version": "config.kueue.x-k8s.io/v1beta2",
            "kind": "Configuration",
            "merge": {
                "fairSharing": {
                    "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
                }
            },
            "restart": "kueue-system/kueue-controller-manager",
            "annotation": "xcli.dev/config-sha256",
        },
    }
    jobset = next(s for s in doc["plan"] if s["id"] == "k8s-install-jobset")
    assert "config_patch" not in jobset  # JobSet keeps its release configuration
    text = plan_text(plan_for(CASES["tpu7x-8"]))
    assert "jobset/releases/download/v0.12.0/manifests.yaml" in text
    assert "fairSharing" in text and "LessThanOrEqualToFinalShare" in text  # the dry-run says so


def test_dry_run_is_deterministic_and_takes_refs() -> None:
    s = CASES["v6e-256 x2 spot"]
    assert plan_json(plan_for(s)) == plan_json(plan_for(s))
    plan = plan_for(s, Ref("cluster", "name"))
    doc = json.loads(plan_json(plan))
    assert {st.get("cluster") for st in doc["plan"][1:]} == {"${cluster.name}"}


def test_crd_validator_takes_go_inline_flags() -> None:
    """AdmissionCheck's parameters.kind pattern is `^(?i)...` (RE2); the validator must run it."""
    (check, *_) = [
        o
        for o in applied(CASES["h100-80gb-8 flex-start"]).values()
        if o["kind"] == "AdmissionCheck"
    ]
    crd.validate(check)
    bad = json.loads(json.dumps(check))
    bad["spec"]["parameters"]["kind"] = "Provisioning Request Config"
    with pytest.raises(AssertionError, match=r"parameters\.kind"):
        crd.validate(bad)


def test_controller_limits_grow_with_the_cluster() -> None:
    small = incluster.controller_limits("kueue", controllers(128))
    assert small["limits"] == small["requests"] == {"cpu": "2", "memory": "4096Mi"}
    big = incluster.controller_limits("kueue", controllers(2240))  # v5p-17920: 2,240 VMs
    assert big["limits"] == big["requests"] == {"cpu": "9", "memory": f"{32 * 2240}Mi"}
    assert big["deployment"] == "kueue-system/kueue-controller-manager"
    jobset = incluster.controller_limits("jobset", controllers(8000))
    assert jobset["limits"] == {"memory": "9600Mi"} and "requests" not in jobset
    assert jobset["deployment"] == "jobset-system/jobset-controller-manager"
    steps = incluster.setup_steps(spec("v5p-128", slices=4), CLUSTER, ("cluster",))
    kueue = next(s for s in steps if isinstance(s, K8sInstall) and s.component == "kueue")
    # 64 VMs and the one-node CPU pool: what `kubectl get node` counts when XPK sizes it
    assert kueue.limits == incluster.controller_limits("kueue", controllers(65))


@pytest.mark.parametrize("case", sorted(CASES))
def test_workloads_read_back_what_the_configmap_says(case: str) -> None:
    """The workload side's reader of the ConfigMap sees the cluster that was planned."""
    s = CASES[case]
    (cm,) = by_kind(s, "ConfigMap")
    meta = cluster_meta_from_dict(cm, "c")
    assert meta.accelerator == s.accelerator
    assert meta.capacity == s.capacity
    assert meta.local_queue == "xcli-queue"
    if s.accelerator.kind == "tpu":
        assert meta.num_slices == s.num_slices
    else:
        assert meta.num_nodes == s.num_nodes
