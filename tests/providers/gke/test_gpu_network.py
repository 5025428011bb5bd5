"""The GPUDirect network stack per family: VPCs, subnets, firewall rules, node-pool networks and
the in-cluster objects, checked against the reference facts and the API schemas."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tests.conftest import REPO
from tests.plan.gke_cases import CASES
from tests.support.core import validate_core
from tests.support.discovery import check_request
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.steps import ApiCall, K8sApply
from xcli.providers.gke import gpu_network as gn
from xcli.providers.gke import gpu_objects
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.planner import plan_create
from xcli.spec import Capacity, ClusterSpec

GOLDENS = REPO / "tests" / "goldens" / "gke"
GPU_CASES = {
    "tcpx": "h100-80gb-8-x2-on-demand",
    "tcpxo": "h100-mega-80gb-8-x4-spot",
    "a3ultra": "h200-141gb-8-x2-on-demand",
    "a4": "b200-8-x2-on-demand",
    "a4x": "gb200-4-x18-reservation",
}
# family -> (VPCs, NICs, MTU of the NIC VPCs, installer DaemonSet, NRI injector)
EXPECTED = {
    "tcpx": (4, 4, {8244}, "nccl-tcpx-installer", True),
    "tcpxo": (8, 8, {8244}, "nccl-tcpxo-installer", True),
    "a3ultra": (2, 9, {8896}, "nccl-rdma-installer", False),
    "a4": (2, 9, {8896}, "nccl-rdma-installer", False),
    "a4x": (2, 5, {8896}, "nccl-rdma-installer", False),
}


def golden(family: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((GOLDENS / f"{GPU_CASES[family]}.json").read_text())
    return doc


def steps_of(doc: dict[str, Any], api: str) -> list[dict[str, Any]]:
    return [s for s in doc["plan"] if s.get("api") == api]


def body_of(doc: dict[str, Any], step_id: str) -> dict[str, Any]:
    step = next(s for s in doc["plan"] if s["id"] == step_id)
    body: dict[str, Any] = step["request"]["body"]
    return body


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_each_family_gets_its_stack(family: str) -> None:
    vpcs, nics, mtus, installer, nri = EXPECTED[family]
    doc = golden(family)
    networks = [s["request"]["body"] for s in steps_of(doc, "compute.networks.insert")]
    assert len(networks) == vpcs
    assert {n["mtu"] for n in networks} == mtus
    assert all(n["autoCreateSubnetworks"] is False for n in networks)
    subnets = steps_of(doc, "compute.subnetworks.insert")
    assert len(subnets) == nics
    pool = body_of(doc, "pool-0")["nodePool"]
    extra = pool["networkConfig"]["additionalNodeNetworkConfigs"]
    assert [e["subnetwork"] for e in extra] == [s["request"]["body"]["name"] for s in subnets]
    assert pool["config"]["gvnic"] == {"enabled": True}
    cluster = body_of(doc, "cluster")["cluster"]["networkConfig"]
    assert cluster == {"datapathProvider": "ADVANCED_DATAPATH", "enableMultiNetworking": True}
    kinds = [
        (s["manifest"]["kind"], s["manifest"]["metadata"]["name"])
        for s in doc["plan"]
        if s["kind"] == "k8s_apply"
    ]
    assert ("DaemonSet", installer) in kinds
    assert (("DaemonSet", "device-injector") in kinds) is nri
    assert sum(k == "GKENetworkParamSet" for k, _ in kinds) == nics
    assert sum(k == "Network" for k, _ in kinds) == nics


def test_a3_mega_acceptance_eight_nics_and_the_tcpxo_installer() -> None:
    doc = golden("tcpxo")
    pool = body_of(doc, "pool-0")["nodePool"]
    extra = pool["networkConfig"]["additionalNodeNetworkConfigs"]
    assert extra == [
        {"network": f"demo-gpunet-{i}", "subnetwork": f"demo-gpunet-{i}-sub"} for i in range(1, 9)
    ]
    cidrs = [
        s["request"]["body"]["ipCidrRange"] for s in steps_of(doc, "compute.subnetworks.insert")
    ]
    assert cidrs == [f"192.168.{i}.0/24" for i in range(1, 9)]
    rules = [s["request"]["body"] for s in steps_of(doc, "compute.firewalls.insert")]
    assert [r["name"] for r in rules] == [f"demo-gpunet-{i}-internal" for i in range(1, 9)]
    assert all(r["sourceRanges"] == ["192.168.0.0/16"] for r in rules)
    installer = next(
        s for s in doc["plan"] if s["id"] == "k8s-gpunet-daemonset-nccl-tcpxo-installer"
    )
    init = installer["manifest"]["spec"]["template"]["spec"]["initContainers"]
    assert init[1]["image"].endswith("/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15")
    assert "1ae0:0084" in init[0]["command"][-1]  # the aperture devices


@pytest.mark.parametrize("family", ["a3ultra", "a4", "a4x"])
def test_rdma_families_get_the_roce_vpc_and_the_gib_installer(family: str) -> None:
    doc = golden(family)
    rdma = body_of(doc, "network-demo-rdma-net")
    assert (
        rdma["networkProfile"] == "projects/my-project/global/networkProfiles/us-east5-b-vpc-roce"
    )
    assert rdma["routingConfig"] == {"routingMode": "REGIONAL"} and rdma["mtu"] == 8896
    assert not [s for s in steps_of(doc, "compute.firewalls.insert") if "rdma" in s["id"]]
    count = 4 if family == "a4x" else 8
    subs = [s["request"]["body"] for s in steps_of(doc, "compute.subnetworks.insert")]
    rdma_subs = [s for s in subs if s["name"].startswith("demo-rdma-sub-")]
    size = 20 if family == "a4x" else 21  # cidrsubnet(192.168.128.0/18, ceil(log2(n)), i)
    step = 1 << (32 - size - 8)  # third-octet step of one subnet
    assert [s["ipCidrRange"] for s in rdma_subs] == [
        f"192.168.{128 + i * step}.0/{size}" for i in range(count)
    ]
    installer = next(
        s for s in doc["plan"] if s["id"] == "k8s-gpunet-daemonset-nccl-rdma-installer"
    )
    image = installer["manifest"]["spec"]["template"]["spec"]["initContainers"][0]["image"]
    assert image.endswith("-arm64:v1.1.0" if family == "a4x" else "/nccl-plugin-gib:v1.1.1")


def test_a4x_gets_the_nvlink_domain_workload_policy_before_its_pool() -> None:
    doc = golden("a4x")
    policy = body_of(doc, "policy")
    assert policy["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "1x72"}
    pool = next(s for s in doc["plan"] if s["id"] == "pool-0")
    assert "policy" in pool["after"]
    assert pool["request"]["body"]["nodePool"]["placementPolicy"] == {
        "type": "COMPACT",
        "policyName": "demo-wp-1x72",
    }
    assert pool["request"]["body"]["nodePool"]["initialNodeCount"] == 18


def test_dependency_order_networks_subnets_firewalls_cluster_pool_objects() -> None:
    spec = CASES[GPU_CASES["a3ultra"]][1]
    plan = plan_create(spec, None, setup_steps)
    by_id = {s.id: s for s in plan.steps}
    for step in plan.steps:
        if step.id.startswith(("subnet-", "firewall-")):
            assert step.after[0].startswith("network-")
    assert set(by_id["cluster"].after) == {
        s for s in by_id if s.startswith(("network-", "subnet-", "firewall-"))
    }
    assert "cluster" in by_id["pool-0"].after
    for step in plan.steps:
        if step.id.startswith("k8s-gpunet-network-"):
            assert step.after == (step.id.replace("-network-", "-gkenetworkparamset-"),)
        elif step.id.startswith("k8s-gpunet-"):
            assert step.after == ("cluster",)
    # the metadata ConfigMap, whose presence says the cluster is ready, comes after them all
    objects = {s for s in by_id if s.startswith("k8s-gpunet-")}
    assert objects and objects <= set(by_id["k8s-metadata"].after)


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_every_compute_and_container_body_fits_its_discovery_document(family: str) -> None:
    checked = set()
    for step in plan_create(CASES[GPU_CASES[family]][1]).steps:
        if isinstance(step, ApiCall):
            check_request(step.api, step.method, str(step.url), dict(step.body or {}))
            checked.add(step.api)
    assert {"compute.networks.insert", "compute.subnetworks.insert"} <= checked
    assert "container.projects.locations.clusters.nodePools.create" in checked


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_daemonsets_are_valid_kubernetes_objects(family: str) -> None:
    spec = CASES[GPU_CASES[family]][1]
    applied = [s for s in plan_create(spec, None, setup_steps).steps if isinstance(s, K8sApply)]
    daemonsets = [  # the GPUDirect stack's; the A4X DRA driver's are in test_dra_driver.py
        dict(s.manifest)
        for s in applied
        if s.manifest["kind"] == "DaemonSet" and s.id.startswith("k8s-gpunet-")
    ]
    assert daemonsets
    for ds in daemonsets:
        validate_core(ds)
        pod = ds["spec"]["template"]["spec"]
        assert ds["metadata"]["namespace"] == "kube-system"
        assert pod["priorityClassName"] == "system-node-critical"
        assert pod["hostNetwork"] is True and pod["tolerations"] == [{"operator": "Exists"}]
        term = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        values = term["nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
        assert values == [spec.accelerator.gke_accelerator]
        for container in pod.get("initContainers", []) + pod["containers"]:
            image = container["image"]
            assert "@sha256:" in image or image.rsplit(":", 1)[-1][:1] in "v0123456789", image


def test_network_objects_hold_the_reference_example_field_by_field() -> None:
    """No CRD of networking.gke.io is published; the Cluster Toolkit templates (one
    GKENetworkParamSet and one Device Network per extra NIC) are the example held here."""
    nic = gn.Subnet("demo-rdma-sub-3", "demo-rdma-net", "192.168.152.0/21", "rdma-3", "RDMA")
    params = gpu_objects.param_set(nic)
    assert params["apiVersion"] == "networking.gke.io/v1" and params["kind"] == "GKENetworkParamSet"
    assert params["metadata"]["name"] == "rdma-3" and "namespace" not in params["metadata"]
    assert params["spec"] == {
        "vpc": "demo-rdma-net",
        "vpcSubnet": "demo-rdma-sub-3",
        "deviceMode": "RDMA",
    }
    network = gpu_objects.network_object(nic)
    assert (network["apiVersion"], network["kind"]) == ("networking.gke.io/v1", "Network")
    assert network["metadata"]["name"] == "rdma-3" and "namespace" not in network["metadata"]
    assert network["spec"] == {
        "type": "Device",
        "parametersRef": {
            "group": "networking.gke.io",
            "kind": "GKENetworkParamSet",
            "name": "rdma-3",
        },
    }
    # Device-typed Network names are at most 41 characters (a UNIX socket path limit)
    for family in EXPECTED:
        net = gn.gpu_network(CASES[GPU_CASES[family]][1])
        assert net is not None
        assert all(len(n.k8s_name) <= 41 for n in net.nics)
        assert len({n.name for n in net.nics}) == len(net.nics)  # one param set per subnet


def test_tcpx_families_name_objects_as_googles_pod_annotations_do() -> None:
    net = gn.gpu_network(CASES[GPU_CASES["tcpx"]][1])
    assert net is not None
    assert [n.k8s_name for n in net.nics] == ["vpc1", "vpc2", "vpc3", "vpc4"]
    assert {n.device_mode for n in net.nics} == {"NetDevice"}
    rdma = gn.gpu_network(CASES[GPU_CASES["a4"]][1])
    assert rdma is not None
    assert [n.k8s_name for n in rdma.nics] == ["gvnic-1"] + [f"rdma-{i}" for i in range(8)]
    assert [n.device_mode for n in rdma.nics] == ["NetDevice"] + ["RDMA"] * 8


def test_other_accelerators_get_no_network_stack() -> None:
    for case in ("v6e-256-x2-spot", "tpu7x-128-x2-spot"):
        plan = plan_create(CASES[case][1], None, setup_steps)
        assert not [s for s in plan.steps if s.id.startswith(("network-", "k8s-gpunet-"))]
        cluster = next(s for s in plan.steps if s.id == "cluster")
        assert isinstance(cluster, ApiCall) and cluster.body is not None
        assert "enableMultiNetworking" not in cluster.body["cluster"]["networkConfig"]
    l4 = ClusterSpec(
        "demo", "my-project", "us-east5-b", "gke", lookup("l4-8"), Capacity("spot"), num_nodes=2
    )
    assert gn.gpu_network(l4) is None


def test_a4x_more_nodes_than_one_nvlink_domain_is_refused() -> None:
    spec = replace(CASES[GPU_CASES["a4x"]][1], num_nodes=19)
    with pytest.raises(UserError) as err:
        plan_create(spec)
    assert "does not fit one GB200 NVLink domain" in err.value.message
    assert "--num-nodes 18" in err.value.hint
    plan_create(replace(spec, num_nodes=18, accelerator=lookup("gb200-4-nolssd")))


def test_a_cluster_name_without_room_for_the_derived_names_is_refused() -> None:
    spec = replace(CASES[GPU_CASES["tcpxo"]][1], name="c" * 46)
    with pytest.raises(UserError) as err:
        gn.check(spec)
    assert "longer than Compute Engine's 63 characters" in err.value.message
    assert err.value.hint == "use a cluster name of at most 45 characters"
    gn.check(replace(spec, name="c" * 45))


def test_only_the_derived_names_xcli_described_count_as_owned() -> None:
    mine = "created by xcli for GKE cluster demo"
    assert gn.is_owned("demo", "demo-gpunet-3-sub", mine)
    assert gn.is_owned("demo", "demo-rdma-sub-7", mine)
    assert not gn.is_owned("demo", "demo-gpunet-3-sub", "created by hand")
    assert not gn.is_owned("demo", "demo-x-gpunet-1", mine)
    assert not gn.is_owned("demo", "demo-rdma-net", "created by xcli for GKE cluster demo-2")
