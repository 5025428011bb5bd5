"""`xcli cluster inspect` against the in-memory Kubernetes API: the bundle, redaction, summary,
and a dry-run that lists the reads and reads nothing."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.workload_cluster import (
    NS,
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

TOKEN = "ya29.a0AfB_secret-access-token"
HF = "hf_secret123"


def _node(name: str, pool: str, ready: bool) -> dict[str, Any]:
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"cloud.google.com/gke-nodepool": pool}},
        "status": {"conditions": [condition]},
    }


def _controller(cluster: Cluster, component: str, ready: int) -> None:
    ns = f"{component}-system"
    name = f"{component}-controller-manager"
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"replicas": 1},
        "status": {"readyReplicas": ready},
    }
    cluster.fake.put(f"/apis/apps/v1/namespaces/{ns}/deployments/{name}", deployment)
    pod = f"{name}-7d9f-abcde"
    cluster.fake.put(
        f"/api/v1/namespaces/{ns}/pods/{pod}",
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod, "namespace": ns}},
    )
    cluster.fake.logs[pod] = f"{component} started\nrefreshing with Authorization: Bearer {TOKEN}\n"


def _busy_cluster(cluster: Cluster) -> None:
    set_up(cluster.fake)
    for i, ready in enumerate([True, True, False]):
        cluster.fake.put(f"/api/v1/nodes/tpu-{i}", _node(f"tpu-{i}", "demo-np-0", ready))
    cluster.fake.put("/api/v1/nodes/sys-0", _node("sys-0", "xcli-system", True))
    _controller(cluster, "jobset", 1)
    _controller(cluster, "kueue", 0)
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", [])
    add_kueue(
        cluster.fake,
        "train-1",
        [cond("Admitted", "True", "Admitted", "ok", "2026-11-22T10:00:02Z")],
    )
    pod = add_pod(cluster.fake, "train-1", 0, 0, "Running")
    cluster.fake.objects[f"{NS}/pods/{pod}"]["spec"]["containers"] = [
        {"name": "main", "image": "img", "env": [{"name": "HF_TOKEN", "value": HF}]}
    ]
    add_event(cluster.fake, pod, f"pulled with token={HF}", "2026-11-22T10:01:00Z")


def test_the_bundle_is_one_redacted_archive_with_a_summary(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _busy_cluster(cluster)
    archive = tmp_path / "bundle.tar.gz"
    argv = ["cluster", "inspect", *WHERE, "--workload", "train-1", "--archive", str(archive)]
    code, out, err = cluster.run(argv, capsys)
    assert code == 0, err
    assert {m for m, _ in [(r.method, r.url.path) for r in cluster.fake.requests]} == {"GET"}
    lines = out.splitlines()
    assert lines[0].startswith(f"wrote {archive} (17 files, ")
    assert "  pool demo-np-0: 1 not ready, 2 ready" in lines
    assert "  controllers: jobset 1/1 ready, kueue 0/1 ready" in lines
    assert "  workloads: 1 running; warning events: 1" in lines
    assert "  workload train-1: running, Kueue admitted, 1 pods" in lines
    with tarfile.open(archive) as tar:
        names = sorted(m.name for m in tar.getmembers())
        content = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]
    assert "inspect-demo/controllers/kueue.log" in names
    assert "inspect-demo/workload/train-1/kueue-workload.json" in names
    everything = b"".join(content.values())
    assert TOKEN.encode() not in everything and HF.encode() not in everything
    assert b"Bearer <redacted>" in content["inspect-demo/controllers/jobset.log"]
    summary = json.loads(content["inspect-demo/summary.json"])
    assert summary["nodes"] == {
        "demo-np-0": {"not ready": 1, "ready": 2},
        "xcli-system": {"ready": 1},
    }
    kueue = json.loads(content["inspect-demo/workload/train-1/kueue-workload.json"])
    assert kueue["metadata"]["ownerReferences"][0]["name"] == "train-1"
    assert archive.stat().st_mode & 0o077 == 0  # it describes the cluster: the owner's only


def test_json_output_and_a_cluster_without_kueue(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cluster.fake.put("/api/v1/nodes/n", _node("n", "p", True))
    archive = tmp_path / "b.tar.gz"
    code, out, err = cluster.run(
        ["cluster", "inspect", *WHERE, "--archive", str(archive), "-o", "json"], capsys
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["controllers"] == {"jobset": "not installed", "kueue": "not installed"}
    assert data["workloads"] == {} and data["archive"] == str(archive)


def test_dry_run_lists_the_reads_and_reads_nothing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    archive = tmp_path / "b.tar.gz"
    argv = ["cluster", "inspect", *WHERE, "--workload", "w", "--archive", str(archive), "--dry-run"]
    code, out, err = cluster.run([*argv, "-o", "json"], capsys)
    assert code == 0, err
    plan = json.loads(out)
    kinds = [s["kind"] for s in plan["plan"]]
    assert kinds.count("k8s_read") == 13 and kinds.count("k8s_logs") == 2 and kinds[-1] == "bundle"
    assert cluster.fake.requests == [] and not archive.exists()
    code, again, _ = cluster.run([*argv, "-o", "json"], capsys)
    assert again == out  # the same bytes every time


def test_redaction_keeps_what_debugging_needs() -> None:
    from xcli.workload.jobset.inspect import LAST_APPLIED, REDACTED, redact

    pod = {
        "metadata": {"annotations": {LAST_APPLIED: '{"env": "x"}', "keep": "me"}},
        "env": [{"name": "DB_PASSWORD", "value": "pw"}, {"name": "PATH", "value": "/bin"}],
        "message": "api_key: abc123, then password=hunter2 and Bearer xyz",
    }
    assert redact(pod) == {
        "metadata": {"annotations": {"keep": "me"}},
        "env": [{"name": "DB_PASSWORD", "value": REDACTED}, {"name": "PATH", "value": "/bin"}],
        "message": f"api_key: {REDACTED}, then password={REDACTED} and Bearer {REDACTED}",
    }
