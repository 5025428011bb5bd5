"""The node model: every row of node_facts.json has a source, and pools of each kind xcli makes
get the labels and taints those rows say."""

from __future__ import annotations

from tests.model.goldens import golden_plan
from tests.model.nodes import FACTS, Taint, plan_pools, pool_nodes

TPU_TAINT = Taint("google.com/tpu", "present", "NoSchedule")
GPU_TAINT = Taint("nvidia.com/gpu", "present", "NoSchedule")


def test_every_row_cites_a_source() -> None:
    for row in FACTS["labels"] + FACTS["taints"]:
        assert row["source"].strip(), row["key"]
        assert "http" in row["source"] or " 1047080 " in row["source"] or "GKE-CA" in row["source"]
    for row in FACTS["not_on_nodes"]:
        assert row["why"].strip()
    assert FACTS["tpu_machines"]["source"] and FACTS["arm64_machine_prefixes"]["source"]


def test_a_multislice_tpu_cluster() -> None:
    system, pool0, pool1 = plan_pools(golden_plan("gke/v6e-256-x2-spot.json"))
    assert (
        system.name == "system"
        and system.taints == []
        and "google.com/tpu" not in system.allocatable
    )
    for pool in (pool0, pool1):
        assert pool.labels["cloud.google.com/gke-tpu-accelerator"] == "tpu-v6e-slice"
        assert pool.labels["cloud.google.com/gke-tpu-topology"] == "16x16"
        assert pool.labels["cloud.google.com/gke-spot"] == "true"
        assert pool.labels["kubernetes.io/arch"] == "amd64"
        assert pool.taints == [TPU_TAINT]
        assert pool.allocatable == {"google.com/tpu": 4}
    assert pool1.labels["cloud.google.com/gke-nodepool"] == "demo-np-1"


def test_tpu7x_topology_comes_from_the_workload_policy() -> None:
    pools = plan_pools(golden_plan("gke/tpu7x-128-x2-spot.json"))
    assert {p.labels.get("cloud.google.com/gke-tpu-topology") for p in pools[1:]} == {"4x4x4"}
    (single,) = plan_pools(golden_plan("gke/tpu7x-8-single-host.json"))[1:]
    assert single.labels["cloud.google.com/gke-tpu-topology"] == "2x2x1"


def test_a4x_nodes_are_arm64_and_tainted_so() -> None:
    pool = plan_pools(golden_plan("gke/gb200-4-x18-reservation.json"))[1]
    assert pool.labels["kubernetes.io/arch"] == "arm64"
    assert pool.labels["cloud.google.com/gke-accelerator"] == "nvidia-gb200"
    assert Taint("kubernetes.io/arch", "arm64", "NoSchedule") in pool.taints
    assert GPU_TAINT in pool.taints and pool.allocatable == {"nvidia.com/gpu": 4}
    # no source shows GKE labelling reservation pools with the reservation's name (audit C1)
    assert "cloud.google.com/reservation-name" not in pool.labels


def test_flex_start_and_queued_provisioning() -> None:
    body = {
        "name": "np",
        "config": {
            "machineType": "a3-megagpu-8g",
            "flexStart": True,
            "accelerators": [{"acceleratorType": "nvidia-h100-mega-80gb", "acceleratorCount": "8"}],
        },
        "queuedProvisioning": {"enabled": True},
    }
    nodes = pool_nodes(body)
    assert nodes.labels["cloud.google.com/gke-flex-start"] == "true"
    assert "cloud.google.com/gke-queued" not in nodes.labels  # GKE taints, does not label
    assert Taint("cloud.google.com/gke-queued", "true", "NoSchedule") in nodes.taints
    body["config"]["labels"] = {"cloud.google.com/gke-queued": "true"}
    body["config"]["taints"] = [{"key": "team", "value": "a", "effect": "NO_EXECUTE"}]
    nodes = pool_nodes(body)
    assert nodes.labels["cloud.google.com/gke-queued"] == "true"
    assert Taint("team", "a", "NoExecute") in nodes.taints
