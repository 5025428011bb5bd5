"""A GKE cluster as `cluster create` left it before teams existed, stored in an in-memory
Kubernetes API: the metadata ConfigMap, the ResourceFlavors and the cluster's own ClusterQueue
without a cohort. Shared by the team use-case tests and the team CLI tests."""

from __future__ import annotations

import json

from tests.plan.test_incluster import CASES as CLUSTERS
from tests.support.fakekube import FakeKube
from tests.support.workload_cluster import CONFIGMAP
from xcli.plan.gke import incluster
from xcli.plan.gke.kueue_objects import kueue_objects

KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
OWN_QUEUE = f"{KUEUE}/clusterqueues/xcli-cluster-queue"
TEAM_QUEUE = f"{KUEUE}/clusterqueues/xcli-team-t"


def set_up_cluster(fake: FakeKube, case: str = "v6e-256 x2 spot") -> None:
    """What `cluster create` applied, as the API server stores it (queue: before cohorts)."""
    spec = CLUSTERS[case]
    fake.put(CONFIGMAP, incluster.metadata_configmap(spec))
    for _key, obj in kueue_objects(spec):
        if obj["kind"] == "ResourceFlavor":
            fake.put(f"{KUEUE}/resourceflavors/{obj['metadata']['name']}", obj)
        if obj["kind"] == "ClusterQueue":
            old = json.loads(json.dumps(obj))
            del old["spec"]["cohortName"]  # a cluster set up before teams existed
            old["metadata"].update(uid="uid-cq", resourceVersion="41")
            old["status"] = {"admittedWorkloads": 0}
            fake.put(OWN_QUEUE, old)
