"""The two halves of GPUDirect networking agree: every interface a workload's pod asks for
(workload/jobset/gpu_network.py) is a Network object `cluster create` makes
(providers/gke/gpu_objects.py), with a GKENetworkParamSet behind it, and the other way round."""

from __future__ import annotations

import json

import pytest

from xcli.catalog import lookup
from xcli.plan.gke.gpu_networks import network_names
from xcli.plan.steps import K8sApply
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.planner import plan_create
from xcli.spec import Capacity, ClusterSpec
from xcli.workload.jobset.gpu_network import pod_annotations

NODES = {"h100-80gb-8": 2, "h100-mega-80gb-8": 4, "h200-141gb-8": 2, "b200-8": 2, "gb200-4": 18}


def _cluster_objects(device: str) -> dict[str, set[str]]:
    spec = ClusterSpec(
        "demo", "my-project", "us-east5-b", "gke", lookup(device), Capacity("spot"),
        num_nodes=NODES[device],
    )  # fmt: skip
    plan = plan_create(spec, None, setup_steps)
    found: dict[str, set[str]] = {"Network": set(), "GKENetworkParamSet": set()}
    for step in plan.steps:
        if isinstance(step, K8sApply) and step.manifest.get("kind") in found:
            found[step.manifest["kind"]].add(step.manifest["metadata"]["name"])
    return found


@pytest.mark.parametrize("device", sorted(NODES))
def test_pod_interfaces_are_the_networks_the_cluster_makes(device: str) -> None:
    accel = lookup(device)
    interfaces = json.loads(pod_annotations(accel)["networking.gke.io/interfaces"])
    asked = {i["network"] for i in interfaces if i["network"] != "default"}
    made = _cluster_objects(device)
    assert asked == set(network_names(accel))
    assert made["Network"] == asked
    assert made["GKENetworkParamSet"] == asked
