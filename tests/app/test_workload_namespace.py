"""Workloads in a team's namespace (`--namespace`), Kueue TAS on TPU slices, `--scheduler`.

The live runs go through the real gateway to the in-memory API server (tests/support/
workload_cluster.py); the team is made by `xcli team create` itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.test_team import CREATE as TEAM_CREATE
from tests.cli.test_team import GOLDENS
from tests.plan.test_incluster import CASES as CLUSTERS
from tests.support.crd import validate
from tests.support.team_cluster import set_up_cluster
from tests.support.workload_cluster import (
    CONFIGMAP,
    WHERE,
    Cluster,
    add_jobset,
    add_kueue,
    add_pod,
    cluster,
    cond,
    set_up,
)
from xcli.plan.gke import incluster

__all__ = ["cluster"]  # the fixture

AT = "2026-11-22T11:50:01Z"
QUEUED = [cond("Suspended", "True", "SuspendedByKueue", "suspended", "2026-11-22T10:00:01Z")]
TEAM_JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/t/jobsets"
RUN = [
    "workload",
    "create",
    *WHERE,
    "--workload",
    "train-1",
    "--docker-image",
    "us-docker.pkg.dev/my-proj/repo/trainer:1",
    "--command",
    "python3 train.py",
    "--namespace",
    "t",
]


@pytest.fixture
def metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The ConfigMap data `cluster create` writes for v6e-256 x2 spot (with its Topology)."""
    data = incluster.metadata_configmap(CLUSTERS["v6e-256 x2 spot"])["data"]
    (tmp_path / "meta.yaml").write_text(yaml.safe_dump(data))
    monkeypatch.chdir(tmp_path)
    return "meta.yaml"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_workload_in_a_team_namespace(
    fmt: str,
    metadata: str,
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    update_goldens: bool,
) -> None:
    args = [*RUN, "--cluster-metadata", metadata, "--dry-run", "--output", fmt]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    path = GOLDENS / f"workload-namespace-t.{'json' if fmt == 'json' else 'txt'}"
    if update_goldens:
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed"
    if fmt == "json":
        (step,) = json.loads(out)["plan"]
        jobset = step["manifest"]
        validate(jobset)
        assert jobset["metadata"]["namespace"] == "t"
        assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "xcli-queue"
        pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
        assert pod["metadata"]["annotations"] == {
            "kueue.x-k8s.io/podset-slice-required-topology": "cloud.google.com/gke-nodepool",
            "kueue.x-k8s.io/podset-slice-size": "64",
        }


def test_live_workload_goes_to_the_team_namespace_as_the_dry_run_said(
    metadata: str, cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up_cluster(cluster.fake)
    code, out, err = cluster.run(
        [*RUN, "--cluster-metadata", metadata, "--dry-run", "-o", "json"], capsys
    )
    assert code == 0, err
    (step,) = json.loads(out)["plan"]
    code, _, err = cluster.run(RUN, capsys)
    assert code == 1 and "namespace t on cluster demo has no LocalQueue xcli-queue" in err
    assert "xcli team create --cluster demo --team t" in err
    assert cluster.fake.patches() == []

    assert cluster.run(TEAM_CREATE, capsys)[0] == 0
    code, _, err = cluster.run(RUN, capsys)
    assert code == 0, err
    patch = cluster.fake.patches()[-1]
    assert patch.url.path == f"{TEAM_JOBSETS}/train-1"
    assert json.loads(patch.content) == step["manifest"]
    assert "--namespace t" in err  # the follow-up commands name the namespace

    code, out, err = cluster.run(
        ["workload", "list", *WHERE, "--namespace", "t", "-o", "json"], capsys
    )
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)] == ["train-1"]
    code, out, _ = cluster.run(["workload", "list", *WHERE, "-o", "json"], capsys)
    assert json.loads(out) == []  # default holds none of the team's workloads
    delete = ["workload", "delete", "train-1", *WHERE, "--namespace", "t", "--yes"]
    code, _, err = cluster.run(delete, capsys)
    assert code == 0, err
    assert ("DELETE", f"{TEAM_JOBSETS}/train-1") in cluster.writes()


def test_scheduler_values(
    metadata: str, cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    gpu = [*RUN[:-2], "--device-type", "h100-80gb-8", "--num-nodes", "2", "--dry-run", "-o", "json"]
    code, out, err = cluster.run([*gpu, "--scheduler", "gke.io/topology-aware-auto"], capsys)
    assert code == 0, err
    pod = json.loads(out)["plan"][0]["manifest"]["spec"]["replicatedJobs"][0]["template"]
    body = pod["spec"]["template"]["spec"]
    assert body["schedulingGates"] == [{"name": "gke.io/topology-aware-auto-train-1"}]
    assert "schedulerName" not in body
    validate(json.loads(out)["plan"][0]["manifest"])
    code, out, err = cluster.run([*gpu, "--scheduler", "gke.io/high-throughput-scheduler"], capsys)
    assert code == 0, err
    body = json.loads(out)["plan"][0]["manifest"]["spec"]["replicatedJobs"][0]["template"]
    assert body["spec"]["template"]["spec"]["schedulerName"] == "gke.io/high-throughput-scheduler"
    tpu = [*RUN[:-2], "--cluster-metadata", metadata, "--dry-run"]
    code, _, err = cluster.run([*tpu, "--scheduler", "gke.io/topology-aware-auto"], capsys)
    assert code == 1 and "places GPU nodes" in err


def test_status_says_why_a_workload_waits(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", QUEUED)
    message = (
        "couldn't assign flavors to pod set slice: insufficient unused quota in cohort for "
        "google.com/tpu in flavor v6e-256, 512 more needed"
    )
    add_kueue(cluster.fake, "train-1", [cond("QuotaReserved", "False", "Pending", message, AT)])
    code, out, err = cluster.run(["workload", "status", "train-1", *WHERE], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[lines.index("why:") + 1] == (
        "  borrowing not possible: the other queues of the cohort have no unused google.com/tpu "
        "in flavor v6e-256 to lend (512 more needed)"
    )
    code, out, _ = cluster.run(["workload", "status", "train-1", *WHERE, "-o", "json"], capsys)
    assert json.loads(out)["kueue"]["waiting"] == "cohort-empty"


def test_reading_a_cluster_set_up_by_a_newer_xcli_warns(
    metadata: str, cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    config = set_up(cluster.fake)
    config["data"]["xcli_version"] = "99.0.0"
    cluster.fake.put(CONFIGMAP, config)
    code, _, err = cluster.run(RUN[:-2], capsys)
    assert code == 0, err
    assert "warning: cluster demo was set up by xcli 99.0.0, newer than this xcli" in err


def _move_to_namespace(cluster: Cluster, namespace: str) -> None:
    """The objects the helpers made in `default`, as the API server keeps them in `namespace`."""
    for path in [p for p in cluster.fake.objects if "/namespaces/default/" in p]:
        if path.endswith("/configmaps/xcli-cluster-metadata"):
            continue  # the cluster's metadata stays in default
        obj = cluster.fake.objects.pop(path)
        obj["metadata"]["namespace"] = namespace
        cluster.fake.put(path.replace("/namespaces/default/", f"/namespaces/{namespace}/"), obj)


def test_logs_status_and_wait_read_the_team_namespace(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    done = [cond("Completed", "True", "AllJobsCompleted", "jobset completed", AT)]
    add_jobset(cluster.fake, "v5litepod-16-x1", "train-1", done)
    pods = [
        add_pod(cluster.fake, "train-1", 0, i, "Succeeded", code=0, log=f"step {i}\n")
        for i in range(4)
    ]
    _move_to_namespace(cluster, "t")
    where = [*WHERE, "--namespace", "t"]
    code, out, err = cluster.run(["workload", "logs", "train-1", *where], capsys)
    assert code == 0, err
    assert sorted(out.splitlines()) == ["[w0] step 0", "[w1] step 1", "[w2] step 2", "[w3] step 3"]
    assert {f"/api/v1/namespaces/t/pods/{p}/log" for p in pods} <= {
        r.url.path for r in cluster.fake.requests
    }
    code, out, err = cluster.run(["workload", "status", "train-1", *where, "-o", "json"], capsys)
    assert code == 0 and json.loads(out)["state"] == "succeeded", err
    code, _, err = cluster.run(["workload", "wait", "train-1", *where], capsys)
    assert code == 0, err
    code, _, err = cluster.run(["workload", "status", "train-1", *WHERE], capsys)
    assert code == 1 and "no workload train-1 on cluster demo" in err  # not in default
