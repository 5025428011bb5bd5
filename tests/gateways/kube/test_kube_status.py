"""Reading a cluster's xcli metadata and Kueue quota and usage (for `cluster describe`)."""

from __future__ import annotations

from tests.plan.test_incluster import CASES
from tests.support.fakekube import FakeKube
from xcli import __version__
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.status import cluster_status
from xcli.plan.gke import incluster, kueue_objects


def test_status_of_a_set_up_cluster() -> None:
    fake = FakeKube()
    api = KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport())
    spec = CASES["v6e-256 x2 spot"]
    api.apply(incluster.metadata_configmap(spec))
    api.apply(kueue_objects.cluster_queue(spec))
    path = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue"
    fake.objects[path]["status"] = {
        "pendingWorkloads": 3,
        "admittedWorkloads": 1,
        "conditions": [{"type": "Active", "status": "True"}],
        "flavorsUsage": [
            {"name": "v6e-256", "resources": [{"name": "google.com/tpu", "total": "256"}]}
        ],
    }
    status = cluster_status(api)
    assert status["setup_complete"] is True
    assert status["metadata"]["xcli_version"] == __version__
    assert status["queue"] == {
        "name": "xcli-cluster-queue",
        "active": True,
        "pending_workloads": 3,
        "admitted_workloads": 1,
        "resources": {
            "google.com/tpu": {"quota": "512", "used": "256"},
            "cpu": {"quota": str(128 * 256), "used": "0"},
            "memory": {"quota": "512Ti", "used": "0"},
        },
    }


def test_status_of_a_cluster_whose_setup_did_not_finish() -> None:
    fake = FakeKube()
    api = KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport())
    assert cluster_status(api) == {"setup_complete": False, "metadata": {}, "queue": None}


def test_status_warns_about_a_setup_by_a_newer_xcli() -> None:
    fake = FakeKube()
    api = KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport())
    config = incluster.metadata_configmap(CASES["v6e-256 x2 spot"])
    config["data"]["xcli_version"] = "99.0.0"
    api.apply(config)
    status = cluster_status(api)
    assert status["setup_warning"].startswith("warning: cluster c was set up by xcli 99.0.0")
    assert "setup_warning" not in cluster_status_of_current(fake)


def cluster_status_of_current(fake: FakeKube) -> dict[str, object]:
    api = KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport())
    api.apply(incluster.metadata_configmap(CASES["v6e-256 x2 spot"]))
    return cluster_status(api)
