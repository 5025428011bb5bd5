"""The Terraform folder and the API path must create the same node pools for the same flags.

They take
the API path's request bodies from `xcli cluster create ... --dry-run -o json` (the public
dry-run contract, so no internal function names are assumed), and compare them field by field
with tf_node_pool_settings(spec) and with what the Terraform folder holds. If one fails after
the merge, the two paths disagree: fix the side that is wrong (pool names, on-demand
reservation affinity and GPU pool naming are the likeliest), never the comparison.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.discovery import check_request
from tests.support.tffolder import folder_pools, module_inputs
from tests.support.tfschema import parse
from tests.terraform.cases import CASES, Case, create_argv, xcli
from xcli.providers.gke.terraform import tf_node_pool_settings
from xcli.providers.queued_resource.terraform import tf_queued_resource_settings

GKE_CASES = sorted(k for k, c in CASES.items() if c.provider == "gke")
QR_CASES = sorted(k for k, c in CASES.items() if c.provider == "queued-resource")


def api_flags(case: Case) -> Case:
    """The case without Terraform-only flags (the API path refuses --state-bucket)."""
    flags, skip = [], False
    for flag in case.flags:
        if skip:
            skip = False
        elif flag == "--state-bucket":
            skip = True
        else:
            flags.append(flag)
    return Case(tuple(flags), case.provider, case.accelerator, case.capacity)


def dry_run_plan(case: Case, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert xcli(create_argv(api_flags(case), "--dry-run", "-o", "json")) == 0
    plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    return plan


def api_calls(plan: dict[str, Any], suffix: str) -> list[dict[str, Any]]:
    found = [s for s in plan["plan"] if s["kind"] == "api_call" and s["api"].endswith(suffix)]
    for step in found:
        request = step["request"]
        check_request(step["api"], request["method"], request["url"], request.get("body"))
    return found


def _reservation(affinity: dict[str, Any]) -> str | None:
    kind = affinity.get("consumeReservationType")
    if kind == "SPECIFIC_RESERVATION":
        return str(affinity["values"][0])
    return "-" if kind == "ANY_RESERVATION" else None


def body_settings(pool: dict[str, Any]) -> dict[str, Any]:
    """A nodePools.create body (container.v1 NodePool) in the shape of tf_node_pool_settings."""
    config = pool.get("config", {})
    flex = bool(config.get("flexStart"))
    scaling = pool.get("autoscaling") or {}
    count = scaling.get("totalMaxNodeCount") or scaling.get("maxNodeCount")
    accelerators = config.get("accelerators") or []
    return {
        "name": pool["name"],
        "machine_type": config.get("machineType"),
        "node_count": count if flex else pool.get("initialNodeCount"),
        "tpu_topology": (pool.get("placementPolicy") or {}).get("tpuTopology"),
        "accelerator_type": accelerators[0]["acceleratorType"] if accelerators else None,
        "accelerator_count": int(accelerators[0]["acceleratorCount"]) if accelerators else None,
        "spot": bool(config.get("spot")),
        "reservation": _reservation(config.get("reservationAffinity") or {}),
        "flex_start": flex,
        "max_run_duration": config.get("maxRunDuration"),
        "max_pods_per_node": (
            int(pool["maxPodsConstraint"]["maxPodsPerNode"])
            if "maxPodsConstraint" in pool
            else None
        ),
        "additional_node_networks": (pool.get("networkConfig") or {}).get(
            "additionalNodeNetworkConfigs", []
        ),
    }


def terraform_folder(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert xcli(create_argv(case, "--terraform", "deploy", "--dry-run", "--out", str(out))) == 0
    return out / "terraform"


@pytest.mark.parametrize("name", GKE_CASES)
def test_gke_node_pools_match_the_api_path(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("xcli.providers.gke.bodies", reason="needs the GKE planner")
    case = CASES[name]
    spec = case.spec()
    plan = dry_run_plan(case, capsys)
    pools = [s["request"]["body"]["nodePool"] for s in api_calls(plan, "nodePools.create")]
    accelerator_pools = [
        p for p in pools if p["config"]["machineType"] == spec.accelerator.machine_type
    ]
    api = sorted((body_settings(p) for p in accelerator_pools), key=lambda p: p["name"])
    assert api == tf_node_pool_settings(spec)
    folder = terraform_folder(case, tmp_path, monkeypatch)
    assert api == folder_pools(folder)
    # the same Pod range (GKE's default when neither names one)
    cluster = api_calls(plan, "clusters.create")[0]["request"]["body"]["cluster"]
    pod_range = cluster["ipAllocationPolicy"].get("clusterIpv4CidrBlock")
    assert module_inputs(folder, "cluster")["pod_range"] == pod_range


def api_networks(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The API path's network inserts in the shape of the gpu-network module's `networks`."""
    subnets = [s["request"]["body"] for s in api_calls(plan, "subnetworks.insert")]
    rules = {
        b["network"].rsplit("/", 1)[-1]: b
        for b in (s["request"]["body"] for s in api_calls(plan, "firewalls.insert"))
    }
    out = []
    for step in api_calls(plan, ".networks.insert"):
        net = step["request"]["body"]
        assert net["autoCreateSubnetworks"] is False
        rule = rules.get(net["name"])
        if rule is not None:  # what the module's firewall resource writes, field by field
            assert (rule["direction"], rule["priority"]) == ("INGRESS", 1000)
            assert rule["allowed"] == [
                {"IPProtocol": "tcp", "ports": ["0-65535"]},
                {"IPProtocol": "udp", "ports": ["0-65535"]},
                {"IPProtocol": "icmp"},
            ]
        out.append(
            {
                "name": net["name"],
                "mtu": net["mtu"],
                "network_profile": net.get("networkProfile"),
                "firewall": rule["name"] if rule else None,
                "subnets": [
                    {"name": s["name"], "cidr": s["ipCidrRange"]}
                    for s in subnets
                    if s["network"].endswith(f"/networks/{net['name']}")
                ],
                "description": net["description"],
                "source_ranges": rule["sourceRanges"] if rule else None,
            }
        )
    return out


GPU_NET_CASES = [k for k in GKE_CASES if CASES[k].accelerator.startswith(("h100", "h200"))]


@pytest.mark.parametrize("name", GPU_NET_CASES)
def test_gpu_networks_match_the_api_path(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Networks, subnets, firewall rules, multi-networking: the same on both paths."""
    case = CASES[name]
    plan = dry_run_plan(case, capsys)
    api = api_networks(plan)
    assert api, "a GPUDirect family plans networks"
    folder = terraform_folder(case, tmp_path, monkeypatch)
    module = module_inputs(folder, "gpu_network")
    tf = [
        {
            **net,
            "description": module["description"],
            "source_ranges": module["internal_source_ranges"] if net["firewall"] else None,
        }
        for net in module["networks"]
    ]
    assert api == tf
    cluster = api_calls(plan, "clusters.create")[0]["request"]["body"]["cluster"]
    assert cluster["networkConfig"]["enableMultiNetworking"] is True
    assert module_inputs(folder, "cluster")["enable_multi_networking"] is True
    # the module writes what the API path sends, resource by resource
    main = parse(folder / "modules" / "gpu-network" / "main.tf")["resource"]
    kinds = {k for entry in main for k in entry}
    assert kinds == {
        "google_compute_network",
        "google_compute_subnetwork",
        "google_compute_firewall",
    }


def queued_resource_settings(body: dict[str, Any]) -> dict[str, Any]:
    """A queuedResources.create body (tpu v2 or v2alpha1) in the shape of the TF settings."""
    specs = body["tpu"]["nodeSpec"]
    multi = specs[0].get("multisliceParams") or specs[0].get("multiNodeParams") or {}
    if body.get("provisioningModel") == "FLEX_START":
        capacity = "flex-start"
    elif "spot" in body or body.get("provisioningModel") == "SPOT":
        capacity = "spot"
    elif "guaranteed" in body:
        capacity = "guaranteed"
    elif body.get("reservationName"):
        capacity = "reservation"
    else:
        capacity = "on-demand"
    return {
        "accelerator_type": specs[0]["node"]["acceleratorType"],
        "runtime_version": specs[0]["node"]["runtimeVersion"],
        "slices": int(multi.get("nodeCount", len(specs))),
        "capacity": capacity,
    }


@pytest.mark.parametrize("name", QR_CASES)
def test_queued_resource_matches_the_api_path(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip(
        "xcli.providers.queued_resource.planner", reason="needs the queued-resource planner"
    )
    case = CASES[name]
    spec = case.spec()
    (create,) = api_calls(dry_run_plan(case, capsys), "queuedResources.create")
    api = queued_resource_settings(create["request"]["body"])
    assert api == tf_queued_resource_settings(spec)
    qr = module_inputs(terraform_folder(case, tmp_path, monkeypatch), "queued_resource")
    assert (qr["accelerator_type"], qr["runtime_version"], qr["num_slices"]) == (
        api["accelerator_type"],
        api["runtime_version"],
        api["slices"],
    )


def test_body_settings_reads_the_documented_gke_fields() -> None:
    """The mapping itself, on bodies shaped as container.v1 documents them (runs today)."""
    flex = {
        "name": "demo-np-0",
        "initialNodeCount": 0,
        "config": {
            "machineType": "ct5lp-hightpu-4t",
            "flexStart": True,
            "maxRunDuration": "21600s",
            "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
        },
        "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x4"},
        "autoscaling": {"enabled": True, "totalMinNodeCount": 0, "totalMaxNodeCount": 4},
        "maxPodsConstraint": {"maxPodsPerNode": "15"},
    }
    check_request(
        "container.projects.locations.clusters.nodePools.create",
        "POST",
        "https://container.googleapis.com/v1/projects/my-proj/locations/us-east5/clusters/demo/nodePools",
        {"nodePool": flex},
    )
    assert [body_settings(flex)] == tf_node_pool_settings(
        CASES["v5litepod-16-flex-start-6h"].spec()
    )
    gpu = {
        "name": "demo-np-0",
        "initialNodeCount": 2,
        "config": {
            "machineType": "a3-highgpu-8g",
            "accelerators": [{"acceleratorCount": "8", "acceleratorType": "nvidia-h100-80gb"}],
        },
        "networkConfig": {
            "additionalNodeNetworkConfigs": [
                {"network": f"demo-gpunet-{i}", "subnetwork": f"demo-gpunet-{i}-sub"}
                for i in range(1, 5)
            ]
        },
    }
    assert [body_settings(gpu)] == tf_node_pool_settings(CASES["h100-80gb-8-x2"].spec())


def test_queued_resource_settings_reads_the_documented_tpu_fields() -> None:
    body = {
        "tpu": {
            "nodeSpec": [
                {
                    "parent": "projects/my-proj/locations/us-east5-b",
                    "multisliceParams": {"nodeCount": 2, "nodeIdPrefix": "demo"},
                    "node": {"acceleratorType": "v6e-256", "runtimeVersion": "v2-alpha-tpuv6e"},
                }
            ]
        }
    }
    check_request(
        "tpu.projects.locations.queuedResources.create",
        "POST",
        "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b/queuedResources?queuedResourceId=demo",
        body,
    )
    spec = CASES["v6e-256-x2-queued-resource"].spec()
    assert queued_resource_settings(body) == tf_queued_resource_settings(spec)
    assert queued_resource_settings({**body, "spot": {}})["capacity"] == "spot"


def test_nap_cluster_autoscaling_matches_the_api_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Node auto-provisioning (issue 38): the gke-cluster module's cluster_autoscaling inputs
    are the API path's `autoscaling`, field by field, and neither makes an accelerator pool."""
    case = CASES["v6e-256-x2-nap-spot"]
    plan = dry_run_plan(case, capsys)
    api = api_calls(plan, "clusters.create")[0]["request"]["body"]["cluster"]["autoscaling"]
    assert api_calls(plan, "nodePools.create") == []
    folder = terraform_folder(case, tmp_path, monkeypatch)
    tf = module_inputs(folder, "cluster")["cluster_autoscaling"]
    assert api["enableNodeAutoprovisioning"] is True
    assert tf["autoscaling_profile"] == api["autoscalingProfile"]
    assert tf["auto_provisioning_locations"] == api["autoprovisioningLocations"]
    assert tf["oauth_scopes"] == api["autoprovisioningNodePoolDefaults"]["oauthScopes"]
    assert tf["resource_limits"] == [
        {
            "resource_type": r["resourceType"],
            "minimum": int(r["minimum"]),
            "maximum": int(r["maximum"]),
        }
        for r in api["resourceLimits"]
    ]
    main = (folder / "modules/gke-cluster/main.tf").read_text(encoding="utf-8")
    # the module writes what the API path's autoprovisioningNodePoolDefaults.management says
    assert api["autoprovisioningNodePoolDefaults"]["management"] == {
        "autoRepair": True,
        "autoUpgrade": True,
    }
    assert "auto_repair  = true" in main and "auto_upgrade = true" in main
    assert 'module "tpu_node_pool"' not in (folder / "main.tf").read_text(encoding="utf-8")
