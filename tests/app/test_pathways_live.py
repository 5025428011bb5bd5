"""A Pathways workload live against the in-memory Kubernetes API: the create applies exactly
the dry-run's JobSet, a cluster without the head pool is refused before anything is written,
and list, status and delete read and remove it as the JobSet it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.plan.gke_cases import CASES as GKE_CASES
from tests.support.workload_cluster import CONFIGMAP, JOBSETS, NS, WHERE, Cluster, cluster
from xcli.plan.gke import incluster

__all__ = ["cluster"]  # the fixture

CREATE = [
    "workload",
    "create",
    *WHERE,
    "--workload",
    "nb-1",
    "--pathways",
    "--headless",
    "--pathways-gcs-location",
    "gs://my-proj-pathways/scratch",
]


def _with_pathways_cluster(cluster: Cluster) -> dict[str, str]:
    spec = GKE_CASES["v5p-128-x2-pathways"][1]
    config = incluster.metadata_configmap(spec, pathways=True)
    cluster.fake.put(CONFIGMAP, config)
    data: dict[str, str] = config["data"]
    return data


def test_live_create_is_the_dry_run_then_list_status_delete(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _with_pathways_cluster(cluster)
    meta_file = tmp_path / "meta.yaml"
    meta_file.write_text(yaml.safe_dump(data))
    args = [*CREATE, "--output", "json"]
    code, out, err = cluster.run([*args, "--dry-run", "--cluster-metadata", str(meta_file)], capsys)
    assert code == 0, err
    (step,) = json.loads(out)["plan"]
    assert cluster.fake.requests == []

    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    (patch,) = cluster.fake.patches()
    assert patch.url.path == f"{JOBSETS}/nb-1"
    assert json.loads(patch.content) == step["manifest"]

    code, out, err = cluster.run(["workload", "list", *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)] == ["nb-1"]
    code, out, err = cluster.run(["workload", "status", "nb-1", *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    code, _, err = cluster.run(["workload", "delete", "nb-1", *WHERE, "--yes"], capsys)
    assert code == 0, err
    assert f"{JOBSETS}/nb-1" not in cluster.fake.objects


def test_a_cluster_without_the_head_pool_is_refused_before_writing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = GKE_CASES["v5p-128-x2-pathways"][1]
    config = incluster.metadata_configmap(spec, pathways=True)
    del config["data"]["pathways_pool"]
    cluster.fake.put(CONFIGMAP, config)
    code, _, err = cluster.run(CREATE, capsys)
    assert code == 1
    assert "has no Pathways head pool" in err and "cluster adapt --cluster demo --pathways" in err
    assert cluster.fake.patches() == []


def _pod(cluster: Cluster, name: str, rjob: str, slice_: int, containers: list[str]) -> str:
    pod_name = f"{name}-{rjob}-{slice_}-0-abcde"
    labels = {
        "jobset.sigs.k8s.io/jobset-name": name,
        "jobset.sigs.k8s.io/replicatedjob-name": rjob,
        "jobset.sigs.k8s.io/job-index": str(slice_),
        "jobset.sigs.k8s.io/restart-attempt": "0",
        "batch.kubernetes.io/job-completion-index": "0",
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": pod_name, "namespace": "default", "labels": labels},
        "spec": {"nodeName": "n", "containers": [{"name": c} for c in containers]},
        "status": {"phase": "Running"},
    }
    cluster.fake.put(f"{NS}/pods/{pod_name}", pod)
    cluster.fake.logs[pod_name] = f"{rjob} {slice_} says hello\n"
    return pod_name


def test_logs_by_job_head_and_worker_slices(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_pathways_cluster(cluster)
    code, _, err = cluster.run(CREATE, capsys)
    assert code == 0, err
    _pod(cluster, "nb-1", "pathways-head", 0, ["pathways-proxy", "pathways-rm"])
    _pod(cluster, "nb-1", "worker", 0, ["pathways-worker"])
    _pod(cluster, "nb-1", "worker", 1, ["pathways-worker"])
    code, out, err = cluster.run(["workload", "logs", "nb-1", *WHERE, "--slice", "head"], capsys)
    assert code == 0, err
    assert out.splitlines() == ["[head] pathways-head 0 says hello"]
    code, out, err = cluster.run(["workload", "logs", "nb-1", *WHERE, "--slice", "1"], capsys)
    assert code == 0, err
    assert out.splitlines() == ["[s1/w0] worker 1 says hello"]
    read = [r for r in cluster.fake.requests if r.url.path.endswith("/log")]
    assert [r.url.params.get("container") for r in read] == ["pathways-proxy", "pathways-worker"]
    code, out, err = cluster.run(["workload", "logs", "nb-1", *WHERE], capsys)
    assert code == 0, err
    assert [line.split("]")[0] for line in out.splitlines()] == ["[head", "[s0/w0", "[s1/w0"]
