"""TPU7x super-slicing, field by field against the upstream files it follows (issue 38).

The goldens (tests/goldens/gke/tpu7x-128-x4-super-slicing.json, tests/goldens/workload/
tpu7x-4x4x8-super-slicing.json) against XPK's recipe goldens and Cluster Toolkit's
dynamic-slicing Kueue configuration and TPU7x blueprint, copied unmodified into
tests/data/upstream/ (tests/data/SOURCES.md). Names differ on purpose (xcli's objects are
`xcli-*`); what a live cluster acts on (levels, labels, controller names, modes, counts) does not.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from typing import Any

import yaml

from tests.conftest import REPO

DATA = REPO / "tests" / "data" / "upstream"
XPK = DATA / "AI-Hypercomputer" / "xpk"
CT = DATA / "GoogleCloudPlatform" / "cluster-toolkit"
GOLDENS = REPO / "tests" / "goldens"


def _xpk_temp_files(recipe: str) -> list[dict[str, Any]]:
    """The objects of every `Temp file (...) content:` block of an XPK recipe golden."""
    text = (XPK / "recipes" / recipe).read_text(encoding="utf-8")
    out = []
    for block in re.split(r"\[XPK\] Temp file \([0-9a-f]+\) content: \n", text)[1:]:
        out += [d for d in yaml.safe_load_all(block.split("\n[XPK] ")[0]) if d]
    return out


def _xpk_command(recipe: str, start: str) -> list[list[str]]:
    text = (XPK / "recipes" / recipe).read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if start in line]
    return [shlex.split(line[line.index(start) :]) for line in lines]


def _flags(argv: list[str]) -> dict[str, str]:
    out = {}
    for arg in argv:
        if arg.startswith("--"):
            key, _, value = arg.partition("=")
            out[key] = value
    return out


def _ct_objects() -> list[dict[str, Any]]:
    path = (
        CT / "modules/management/kubectl-apply/kueue/kueue-configuration-dynamic-slicing.yaml.tftpl"
    )
    text = path.read_text(encoding="utf-8").replace("${accelerator_type}", "tpu7x")
    return [d for d in yaml.safe_load_all(text.replace("${tpu_quota}", "0")) if d]


def _kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("kind") == kind]


def _golden(name: str) -> list[dict[str, Any]]:
    plan: list[dict[str, Any]] = json.loads((GOLDENS / name).read_text())["plan"]
    return plan


def _applied(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s["manifest"] for s in plan if s["kind"] == "k8s_apply"]


CLUSTER = "gke/tpu7x-128-x4-super-slicing.json"
WORKLOAD = "workload/tpu7x-4x4x8-super-slicing.json"


def test_the_topology_levels_are_the_upstreams() -> None:
    (ours,) = _kind(_applied(_golden(CLUSTER)), "Topology")
    (xpk,) = _kind(_xpk_temp_files("Cluster_create_super-slicing.md"), "Topology")
    (ct,) = _kind(_ct_objects(), "Topology")
    template = yaml.safe_load(
        (XPK / "src/xpk/templates/kueue_super_slicing_topology.yaml.j2")
        .read_text()
        .replace("{{ super_slice_topology_name }}", "x")
    )
    assert ours["spec"]["levels"] == xpk["spec"]["levels"] == ct["spec"]["levels"]
    assert ours["spec"]["levels"] == template["spec"]["levels"]


def test_the_flavor_selects_what_the_upstreams_select() -> None:
    objects = _applied(_golden(CLUSTER))
    (ours,) = _kind(objects, "ResourceFlavor")
    (xpk,) = _kind(_xpk_temp_files("Cluster_create_super-slicing.md"), "ResourceFlavor")
    (ct,) = _kind(_ct_objects(), "ResourceFlavor")
    # the accelerator label only: no gke-tpu-topology, since the pools are 4x4x4 cubes
    assert ours["spec"]["nodeLabels"] == xpk["spec"]["nodeLabels"] == ct["spec"]["nodeLabels"]
    (topology,) = _kind(objects, "Topology")
    assert ours["spec"]["topologyName"] == topology["metadata"]["name"]
    assert xpk["spec"]["topologyName"] and ct["spec"]["topologyName"]
    # Cluster Toolkit tolerates the TPU taint in the flavor, as xcli does (XPK: in the pods)
    assert {t["key"] for t in ours["spec"]["tolerations"]} == {
        t["key"] for t in ct["spec"]["tolerations"]
    }


def test_every_admission_waits_for_the_slice_controller() -> None:
    objects = _applied(_golden(CLUSTER))
    upstream = {
        "xpk": _xpk_temp_files("Cluster_create_super-slicing.md"),
        "cluster-toolkit": _ct_objects(),
    }
    (check,) = _kind(objects, "AdmissionCheck")
    (queue,) = _kind(objects, "ClusterQueue")
    named = [c["name"] for c in queue["spec"]["admissionChecksStrategy"]["admissionChecks"]]
    assert named == [check["metadata"]["name"]]
    for source, theirs in upstream.items():
        checks = {c["metadata"]["name"]: c for c in _kind(theirs, "AdmissionCheck")}
        (their_queue,) = _kind(theirs, "ClusterQueue")
        (gate,) = their_queue["spec"]["admissionChecks"]
        assert checks[gate]["spec"] == check["spec"], source  # controllerName only


def test_the_quota_is_the_cubes_chips() -> None:
    """XPK: 192 chips for its 3 cubes; xcli's 4 cubes: 256 (read live less the teams' share)."""
    plan = _golden(CLUSTER)
    (xpk_queue,) = _kind(_xpk_temp_files("Cluster_create_super-slicing.md"), "ClusterQueue")
    (group,) = xpk_queue["spec"]["resourceGroups"]
    (flavor,) = group["flavors"]
    per_cube = flavor["resources"][0]["nominalQuota"] // 3
    (read,) = [s for s in plan if s["id"] == "k8s-cohort-read"]
    assert per_cube == 64
    assert read["chips"] == 4 * per_cube


def test_the_cluster_turns_the_slice_controller_on() -> None:
    (create,) = _xpk_command(
        "Cluster_create_super-slicing.md", "gcloud beta container clusters create"
    )
    assert "--enable-slice-controller" in create
    blueprint = yaml.safe_load((CT / "examples/gke-tpu-7x/gke-tpu-7x-advanced.yaml").read_text())
    modules = {m["id"]: m for g in blueprint["deployment_groups"] for m in g["modules"]}
    flag = modules["gke-tpu-7x-cluster"]["settings"]["enable_slice_controller"]
    assert flag == "$(vars.enable_dynamic_slicing_for_tpus)"
    kueue = modules["workload-manager-install"]["settings"]["kueue"]
    assert kueue["enable_dynamic_slicing_for_tpus"] == flag
    (cluster,) = [s for s in _golden(CLUSTER) if s["id"] == "cluster"]
    body = cluster["request"]["body"]["cluster"]
    assert body["addonsConfig"]["sliceControllerConfig"] == {"enabled": True}
    assert body["releaseChannel"] == {"channel": "RAPID"}  # XPK: --release-channel=rapid
    assert "--release-channel=rapid" in create


BLOCK = "golden-reservation/reservationBlocks/block"


def _xpk_pools() -> list[dict[str, str]]:
    return [
        _flags(argv)
        for argv in _xpk_command(
            "Cluster_create_super-slicing.md", "gcloud beta container node-pools create"
        )
    ]


def _pool_misses(plan: list[dict[str, Any]]) -> list[str]:
    """Each of the plan's pools against XPK's one pool shape: every pool, not the first 3 a
    zip with XPK's 3 would reach."""
    xpk = _xpk_pools()
    # XPK's pools differ only in the sub-block each reserves
    shapes = [{k: v for k, v in f.items() if k != "--reservation"} for f in xpk]
    assert all(shape == shapes[0] for shape in shapes)
    subs = [f["--reservation"] for f in xpk]
    assert len(set(subs)) == 3 and all(r.startswith(f"{BLOCK}/reservationSubBlocks/") for r in subs)
    theirs = xpk[0]
    assert theirs["--num-nodes"] == "16" and theirs["--reservation-affinity"] == "specific"
    # XPK's policy is <device>-<topology>-ss-placement-policy; xcli's names the cluster
    assert theirs["--placement-policy"].endswith("-4x4x4-ss-placement-policy")
    (policy,) = [s["request"]["body"] for s in plan if s["id"] == "policy"]
    lines = []
    for step in [s for s in plan if s["id"].startswith("pool-")]:
        ours = step["request"]["body"]["nodePool"]
        affinity = ours["config"].get("reservationAffinity", {})
        got = {
            "initialNodeCount": (str(ours.get("initialNodeCount")), theirs["--num-nodes"]),
            "machineType": (ours["config"].get("machineType"), theirs["--machine-type"]),
            "consumeReservationType": (
                affinity.get("consumeReservationType"),
                "SPECIFIC_RESERVATION",
            ),
            # xcli names the block, XPK one sub-block of it per pool: the same block
            "reservation": (affinity.get("values"), [BLOCK]),
            "policyName": (ours.get("placementPolicy", {}).get("policyName"), policy["name"]),
        }
        lines += [f"{step['id']} {k}: {a} != {b}" for k, (a, b) in got.items() if a != b]
    return lines


def test_each_pool_is_one_sub_block_of_the_reservation() -> None:
    plan = _golden(CLUSTER)
    assert len(_xpk_pools()) == 3  # --num-cubes 3 there
    assert len([s for s in plan if s["id"].startswith("pool-")]) == 4  # 4 here
    assert _pool_misses(plan) == []
    (policy,) = [s["request"]["body"] for s in plan if s["id"] == "policy"]
    # the policy's mode: XPK's --accelerator-topology-mode=PROVISION_ONLY (src/xpk/core/
    # nodepool.py l.711-719), Cluster Toolkit's variables.tf l.59-60 precondition
    assert policy["workloadPolicy"] == {
        "type": "HIGH_THROUGHPUT",
        "acceleratorTopology": "4x4x4",
        "acceleratorTopologyMode": "PROVISION_ONLY",
    }


def test_the_fourth_pool_is_compared_too() -> None:
    """The mistake zip(xpk, pools, strict=False) let through: the 4th pool, past XPK's 3."""
    plan = copy.deepcopy(_golden(CLUSTER))
    (last,) = [s for s in plan if s["id"] == "pool-3"]
    last["request"]["body"]["nodePool"]["config"]["machineType"] = "tpu7x-standard-1t"
    last["request"]["body"]["nodePool"]["initialNodeCount"] = 8
    assert _pool_misses(plan) == [
        "pool-3 initialNodeCount: 8 != 16",
        "pool-3 machineType: tpu7x-standard-1t != tpu7x-standard-4t",
    ]


def _tpu_per_pod(pod: dict[str, Any]) -> int:
    """The TPU chips a pod's containers ask for (limits; Kubernetes sets an extended
    resource's request to its limit, and a request other than the limit is refused)."""
    total = 0
    for c in pod["containers"]:
        resources = c.get("resources", {})
        limit = resources.get("limits", {}).get("google.com/tpu")
        if limit is None:
            continue
        request = resources.get("requests", {}).get("google.com/tpu", limit)
        assert int(request) == int(limit), c["name"]
        total += int(limit)
    return total


def _resource_misses(jobset: dict[str, Any]) -> list[str]:
    """The workload's pods against XPK's: the same chips per pod, all of one VM's (a 4x4x4
    cube is 64 chips on 16 VMs). XPK splits them over 2 containers of google.com/tpu: 2
    (recipes/Workload_create_super-slicing.md); xcli asks them in its one container: the
    split is XPK's choice of processes per VM, the chips per VM are what the node offers."""
    (xpk,) = _kind(_xpk_temp_files("Workload_create_super-slicing.md"), "JobSet")
    their_pod = xpk["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert [c["resources"] for c in their_pod["containers"]] == [
        {"limits": {"google.com/tpu": 2}},
        {"limits": {"google.com/tpu": 2}},
    ]
    theirs = _tpu_per_pod(their_pod)
    assert theirs == 64 // 16
    lines = []
    for rjob in jobset["spec"]["replicatedJobs"]:
        ours = _tpu_per_pod(rjob["template"]["spec"]["template"]["spec"])
        if ours != theirs:
            lines.append(
                f"replicatedJobs[{rjob['name']}] google.com/tpu per pod: {ours} != {theirs}"
            )
    return lines


def test_each_pod_asks_for_the_chips_of_its_vm() -> None:
    (ours,) = _kind(_applied(_golden(WORKLOAD)), "JobSet")
    pod = ours["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["containers"]] == ["main"]  # one container (XPK: 2)
    assert _resource_misses(ours) == []


def test_a_pod_asking_for_other_chips_than_xpks_is_reported() -> None:
    (ours,) = _kind(_applied(_golden(WORKLOAD)), "JobSet")
    jobset = copy.deepcopy(ours)
    (main,) = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "containers"
    ]
    main["resources"] = {"requests": {"google.com/tpu": "2"}, "limits": {"google.com/tpu": "2"}}
    assert _resource_misses(jobset) == ["replicatedJobs[slice] google.com/tpu per pod: 2 != 4"]


def test_the_workload_asks_the_slice_controller_for_its_shape() -> None:
    (xpk,) = _kind(_xpk_temp_files("Workload_create_super-slicing.md"), "JobSet")
    (ours,) = _kind(_applied(_golden(WORKLOAD)), "JobSet")
    their_pod = xpk["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    our_job = ours["spec"]["replicatedJobs"][0]
    our_pod = our_job["template"]["spec"]["template"]
    key = "cloud.google.com/gke-tpu-slice-topology"
    assert their_pod["metadata"]["annotations"] == {key: "4x4x20"}  # XPK's shape
    assert our_pod["metadata"]["annotations"] == {key: "4x4x8"}  # this golden's
    assert our_pod["spec"]["nodeSelector"] == their_pod["spec"]["nodeSelector"]
    assert not xpk["metadata"]["annotations"] and "annotations" not in ours["metadata"]
    # 4x4x20: 80 VMs there; 4x4x8: 32 here; one Job of them, as there
    their_job = xpk["spec"]["replicatedJobs"][0]
    assert their_job["template"]["spec"]["parallelism"] == 80 and their_job["replicas"] == 1
    assert our_job["template"]["spec"]["parallelism"] == 32 and our_job["replicas"] == 1


TEST_PATH = re.compile(r"\btests/[\w./-]*\w/?")


def _missing_paths(text: str) -> list[str]:
    """The tests/ paths a docstring names that are not in the repository."""
    return [p for p in TEST_PATH.findall(text) if not (REPO / p).exists()]


def test_the_dynamic_slicing_docstring_names_files_that_exist() -> None:
    from xcli.plan.gke import dynamic_slicing

    doc = dynamic_slicing.__doc__ or ""
    assert "tests/model/test_upstream_slicing.py" in doc
    assert _missing_paths(doc) == []
    # the paths it named before (review of issue 38, finding 7)
    old = "tests/data/dynamic_slicing/ and tests/plan/gke/test_dynamic_slicing.py"
    assert _missing_paths(old) == [
        "tests/data/dynamic_slicing/",
        "tests/plan/gke/test_dynamic_slicing.py",
    ]
