"""`xcli workload create` live, `list` and `status`, against an in-memory Kubernetes API.

Every request goes through the real gateway (lightkube over httpx2.MockTransport); the
objects the fake serves are validated against the JobSet and Kueue CRDs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.fakekube import status
from tests.support.workload_cluster import (
    CONFIGMAP,
    JOBSETS,
    WHERE,
    Cluster,
    add_event,
    add_jobset,
    add_kueue,
    add_pod,
    cluster,
    cond,
    set_up,
)

__all__ = ["cluster"]  # the fixture

CREATE = [
    "workload",
    "create",
    *WHERE,
    "--workload",
    "train-1",
    "--docker-image",
    "us-docker.pkg.dev/my-proj/repo/trainer:1",
    "--command",
    "python3 train.py",
    "--max-restarts",
    "2",
]
QUEUED = [cond("Suspended", "True", "SuspendedByKueue", "suspended", "2026-11-22T10:00:01Z")]
DONE = [cond("Completed", "True", "AllJobsCompleted", "jobset completed", "2026-11-22T11:30:00Z")]
FAILED = [cond("Failed", "True", "FailedJobs", "jobset failed", "2026-11-22T10:20:00Z")]


def test_create_applies_the_dry_run_manifest(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = set_up(cluster.fake)
    meta_file = tmp_path / "meta.yaml"
    meta_file.write_text(yaml.safe_dump(config["data"]))
    args = [*CREATE, "--output", "json"]
    code, out, err = cluster.run([*args, "--dry-run", "--cluster-metadata", str(meta_file)], capsys)
    assert code == 0, err
    (step,) = json.loads(out)["plan"]
    assert cluster.fake.requests == []  # the dry-run sent nothing

    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    (patch,) = cluster.fake.patches()
    assert patch.url.path == f"{JOBSETS}/train-1"
    assert dict(patch.url.params) == {
        "fieldManager": "xcli",
        "force": "true",
        "fieldValidation": "Strict",
    }
    assert json.loads(patch.content) == step["manifest"]
    assert cluster.refs[0].name == "demo" and cluster.refs[0].zone == "us-east5-b"
    assert len(cluster.refs) == 1  # one connection for the read and the apply
    assert "xcli workload logs train-1 --cluster demo --follow" not in out  # JSON stays JSON
    code, out, err = cluster.run([*CREATE, "--workload", "train-2"], capsys)
    assert code == 0 and "follow it: xcli workload status train-2 --cluster demo" in err


def test_create_refuses_a_name_in_use_before_writing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", QUEUED)
    code, _, err = cluster.run(CREATE, capsys)
    assert code == 1
    assert "workload train-1 already exists on cluster demo" in err and "--replace" in err
    assert cluster.writes() == []


def test_create_replace_deletes_then_applies(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", DONE)
    code, _, err = cluster.run([*CREATE, "--replace"], capsys)
    assert code == 0, err
    assert cluster.writes() == [("DELETE", f"{JOBSETS}/train-1"), ("PATCH", f"{JOBSETS}/train-1")]
    delete = next(r for r in cluster.fake.requests if r.method == "DELETE")
    assert delete.url.params["propagationPolicy"] == "Foreground"
    stored = cluster.fake.objects[f"{JOBSETS}/train-1"]
    assert "status" not in stored and stored["spec"]["failurePolicy"]["maxRestarts"] == 2


def test_create_on_a_cluster_not_set_up_by_xcli(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cluster.run(CREATE, capsys)
    assert code == 1
    assert "cluster demo was not set up by xcli" in err
    assert "xcli cluster create --cluster demo" in err
    assert [(r.method, r.url.path) for r in cluster.fake.requests] == [("GET", CONFIGMAP)]


def _fill(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "queued-1", QUEUED, created="2026-11-22T11:50:00Z")
    add_kueue(
        cluster.fake,
        "queued-1",
        [cond("QuotaReserved", "False", "Pending", "insufficient quota", "2026-11-22T11:50:01Z")],
    )
    add_jobset(cluster.fake, "v5p-128-x4-spot", "running-1", [], restarts=1)
    add_kueue(
        cluster.fake,
        "running-1",
        [cond("Admitted", "True", "Admitted", "admitted", "2026-11-22T10:00:02Z")],
    )
    add_jobset(cluster.fake, "v5litepod-16-x1", "done-1", DONE, created="2026-11-22T09:00:00Z")
    add_jobset(cluster.fake, "v5litepod-16-x1", "failed-1", FAILED)


def test_list_text_and_json(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(cluster)
    code, out, err = cluster.run(["workload", "list", *WHERE], capsys)
    assert code == 0, err
    # a read command has no --dry-run of its own (docs/dry-run.md); XPK's global one is taken
    # with a note and the command reads as it would without it (issue 36)
    dry = cluster.run(["workload", "list", *WHERE, "--dry-run"], capsys)
    assert dry[0] == 0 and dry[1] == out, dry
    assert dry[2].startswith("note: --dry-run ignored: this command only reads")
    # XPK's --filter-by-job S (a substring of the name) is --name-contains S
    only = cluster.run(["workload", "list", *WHERE, "--filter-by-job", "ning-", "-o", "json"],
                       capsys)  # fmt: skip
    assert only[0] == 0, only
    assert sorted(r["name"] for r in json.loads(only[1])) == ["running-1"]
    lines = out.splitlines()
    assert lines[0].split() == [
        "NAME",
        "STATE",
        "PRIORITY",
        "ACCELERATOR",
        "SLICES",
        "CHIPS",
        "RESTARTS",
        "AGE",
        "DURATION",
        "KUEUE",
    ]
    assert lines[1].split() == [
        "queued-1",
        "queued",
        "medium",
        "v6e-256",
        "2",
        "512",
        "0",
        "10m",
        "-",
        "pending:",
        "Pending",
    ]
    assert lines[2].split()[:3] == ["failed-1", "failed", "medium"]
    assert lines[2].split()[-3:] == ["2h", "20m", "none"]
    assert lines[3].split()[:2] == ["running-1", "running"]
    assert lines[3].split()[4:7] == ["4", "256", "1"] and lines[3].split()[-1] == "admitted"
    assert lines[4].split()[-3:] == ["3h", "2h30m", "none"]

    code, out, _ = cluster.run(
        ["workload", "list", *WHERE, "--state", "queued", "-o", "json"], capsys
    )
    (row,) = json.loads(out)
    assert row["name"] == "queued-1" and row["chips"] == 512
    assert row["kueue"]["state"] == "pending" and row["kueue"]["message"] == "insufficient quota"


def test_list_empty_says_so(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(cluster)
    code, out, err = cluster.run(["workload", "list", *WHERE, "--state", "succeeded"], capsys)
    assert code == 0 and "done-1" in out
    cluster.fake.objects.clear()
    code, out, err = cluster.run(["workload", "list", *WHERE], capsys)
    assert code == 0 and out == "" and "no workloads on cluster demo" in err


def test_status_of_a_queued_workload_says_why(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(cluster)
    check = {
        "name": "dws-prov",
        "state": "Pending",
        "message": "Waiting for resources",
        "lastTransitionTime": "2026-11-22T11:50:02Z",
    }
    reserved = cond("QuotaReserved", "True", "QuotaReserved", "quota reserved", "2026-11-22T11:50")
    add_kueue(
        cluster.fake,
        "queued-1",
        [reserved],
        [check],
        admission={
            "clusterQueue": "xcli-cluster-queue",
            "podSetAssignments": [{"name": "slice", "flavors": {"google.com/tpu": "2xv6e-256"}}],
        },
    )
    code, out, err = cluster.run(["workload", "status", "queued-1", *WHERE], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "workload queued-1 on cluster demo: queued"
    assert (
        "kueue: quota-reserved on ClusterQueue xcli-cluster-queue (google.com/tpu: 2xv6e-256)"
        in out
    )
    assert "admission check dws-prov: Pending Waiting for resources" in out
    assert (
        "ClusterQueue xcli-cluster-queue: 1 pending, 1 admitted; google.com/tpu used 512 of 512"
        in out
    )
    assert "workers: no pods yet" in out


VISIBILITY = (
    "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/xcli-queue"
    "/pendingworkloads"
)


def test_status_of_a_pending_workload_gives_its_queue_position(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(cluster)
    args = ["workload", "status", "queued-1", *WHERE, "-o", "json"]
    code, out, err = cluster.run(args, capsys)  # visibility API not served (404): no position
    assert code == 0, err
    assert json.loads(out)["kueue"]["position"] is None
    assert any(r.url.path == VISIBILITY for r in cluster.fake.requests)

    def item(name: str, local: int, whole: int) -> dict[str, object]:
        meta = {"name": name, "namespace": "default"}
        return {
            "metadata": meta,
            "priority": 500,
            "localQueueName": "xcli-queue",
            "positionInClusterQueue": whole,
            "positionInLocalQueue": local,
        }

    summary = {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": "visibility.kueue.x-k8s.io/v1beta2",
        "metadata": {},
        "items": [item("jobset-other-1", 0, 0), item("jobset-queued-1-3c9a1", 1, 2)],
    }
    cluster.fake.put(VISIBILITY, summary)
    code, out, _ = cluster.run(args, capsys)
    report = json.loads(out)
    assert report["kueue"]["position"] == {"local_queue": 2, "cluster_queue": 3}
    assert "position 2 in LocalQueue xcli-queue (3 in its ClusterQueue)" in report["why"]
    cluster.fake.script("GET", VISIBILITY, status(503, "ServiceUnavailable", "no endpoints"))
    code, out, err = cluster.run(args[:-2], capsys)  # unavailable: status still answers
    assert code == 0 and "position" not in out and "ServiceUnavailable" not in err
    queue = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue"
    cluster.fake.script("GET", queue, status(403, "Forbidden", "cannot get clusterqueues"))
    code, out, err = cluster.run(args[:-2], capsys)  # a namespace-only account: no usage line
    assert code == 0 and "ClusterQueue xcli-cluster-queue:" not in out and "position 2" in out


def test_status_names_unscheduled_pods(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(cluster)
    pending = add_pod(cluster.fake, "running-1", 1, 0, "Pending")
    add_pod(cluster.fake, "running-1", 0, 0, "Running")
    add_event(cluster.fake, pending, "0/64 nodes are available: old", "2026-11-22T10:01:00Z")
    add_event(cluster.fake, pending + "x", "not this pod", "2026-11-22T10:03:00Z")
    code, out, err = cluster.run(["workload", "status", "running-1", *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["state"] == "running" and report["kueue"]["state"] == "admitted"
    assert f"pod {pending} not scheduled: 0/64 nodes are available: old" in report["why"]
    assert report["slice_phases"] == {"0": {"Running": 1}, "1": {"Pending": 1}}
    assert (report["slices"], report["chips"]) == (4, 256)
    assert [(w["worker"], w["phase"]) for w in report["workers"]] == [
        ("s0/w0", "Running"),
        ("s1/w0", "Pending"),
    ]
    event_lists = [r for r in cluster.fake.requests if r.url.path.endswith("/events")]
    assert event_lists[0].url.params["fieldSelector"] == (
        "involvedObject.kind=Pod,reason=FailedScheduling"
    )


def test_status_of_a_failed_workload_names_the_first_failing_worker(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(cluster)
    add_pod(cluster.fake, "failed-1", 0, 0, "Failed", code=143, at="2026-11-22T10:19:59Z")
    add_pod(cluster.fake, "failed-1", 0, 2, "Failed", code=1, at="2026-11-22T10:19:50Z")
    add_pod(cluster.fake, "failed-1", 0, 1, "Succeeded", code=0, at="2026-11-22T10:19:40Z")
    code, out, err = cluster.run(["workload", "status", "failed-1", *WHERE], capsys)
    assert code == 0, err
    assert "failed: FailedJobs jobset failed" in out
    assert "first failure: worker s0/w2 (pod failed-1-slice-0-2-abcde) exit code 1 Error" in out
    assert "  slice 0: 2 Failed, 1 Succeeded" in out.splitlines()
    assert out.splitlines()[1].startswith("  1 slice(s) of v5litepod-16, 16 chips, priority medium")
    table = [line.split() for line in out.splitlines()[-4:]]
    assert table[0] == ["WORKER", "POD", "PHASE", "NODE", "EXIT", "REASON"]
    assert table[3][:3] == ["s0/w2", "failed-1-slice-0-2-abcde", "Failed"]
    assert table[3][-2:] == ["1", "Error"]


def test_status_of_an_unknown_workload(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(cluster)
    code, _, err = cluster.run(["workload", "status", "nope", *WHERE], capsys)
    assert code == 1
    assert "no workload nope on cluster demo" in err and "done-1, failed-1" in err
