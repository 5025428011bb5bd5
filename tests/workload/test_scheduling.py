"""Kueue topology-aware scheduling per capacity: RDMA GPU machines (A3 Ultra, A4, A4X) on a
reservation get Compute Engine's physical topology (block, sub-block, host), everything else
the node-pool levels; the cluster's metadata tells workloads which, and GPU pods ask for it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import crd
from xcli.catalog import lookup
from xcli.plan.gke.incluster import metadata_configmap
from xcli.plan.gke.kueue_objects import kueue_objects
from xcli.spec import Capacity, ClusterSpec
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.spec import cluster_meta_from_dict, workload_spec

PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
GCE_LEVELS = [
    "cloud.google.com/gce-topology-block",
    "cloud.google.com/gce-topology-subblock",
    "cloud.google.com/gce-topology-host",
    "kubernetes.io/hostname",
]
POOL_LEVELS = ["cloud.google.com/gke-nodepool", "kubernetes.io/hostname"]


def _cluster(device: str, capacity: str) -> ClusterSpec:
    reservation = "r" if capacity == "reservation" else None
    return ClusterSpec(
        "demo", "my-project", "us-east5-b", "gke", lookup(device),
        Capacity(capacity, reservation=reservation), num_nodes=2,  # type: ignore[arg-type]
    )  # fmt: skip


def _pod_annotations(spec: ClusterSpec) -> dict[str, Any]:
    meta = cluster_meta_from_dict(metadata_configmap(spec), "demo")
    workload = workload_spec(
        cluster="demo", name="train-1", image="img:1", command="python3 train.py", meta=meta
    )
    jobset = build_jobset(workload, meta)
    template = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    annotations: dict[str, Any] = template["metadata"].get("annotations", {})
    return annotations


@pytest.mark.parametrize(
    ("device", "capacity", "topology", "levels", "preferred"),
    [
        ("h200-141gb-8", "reservation", "xcli-gce-topology", GCE_LEVELS, "kubernetes.io/hostname"),
        ("b200-8", "reservation", "xcli-gce-topology", GCE_LEVELS, "kubernetes.io/hostname"),
        ("h200-141gb-8", "spot", "xcli-node-pools", POOL_LEVELS, "cloud.google.com/gke-nodepool"),
        ("h100-80gb-8", "reservation", "xcli-node-pools", POOL_LEVELS, POOL_LEVELS[0]),
    ],
)
def test_topology_follows_the_machine_and_capacity(
    device: str, capacity: str, topology: str, levels: list[str], preferred: str
) -> None:
    spec = _cluster(device, capacity)
    objects = dict(kueue_objects(spec))
    for obj in objects.values():
        crd.validate(obj)
    assert objects["topology"]["metadata"]["name"] == topology
    assert [lv["nodeLabel"] for lv in objects["topology"]["spec"]["levels"]] == levels
    assert objects["flavor"]["spec"]["topologyName"] == topology
    assert metadata_configmap(spec)["data"]["kueue_topology"] == topology
    assert _pod_annotations(spec)[PREFERRED] == preferred
