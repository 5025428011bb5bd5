"""What the JobSet reads make of a Pathways workload's pods: the head is read for goodput and
logs from its own container."""

from __future__ import annotations

from typing import Any

from xcli.workload.goodput.gke import worker0_pods
from xcli.workload.jobset.logs import container_of
from xcli.workload.jobset.view import worker_statuses


def pod(name: str, rjob: str, slice_: int, containers: list[str]) -> dict[str, Any]:
    labels = {
        "jobset.sigs.k8s.io/replicatedjob-name": rjob,
        "jobset.sigs.k8s.io/job-index": str(slice_),
        "batch.kubernetes.io/job-completion-index": "0",
    }
    spec = {"containers": [{"name": c} for c in containers]}
    return {"metadata": {"name": name, "labels": labels}, "spec": spec, "status": {}}


HEAD = pod("h", "pathways-head", 0, ["main"])
HEADLESS = pod("h2", "pathways-head", 0, ["pathways-proxy", "pathways-rm"])
WORKER = pod("w", "worker", 0, ["pathways-worker"])
PLAIN = pod("p", "slice", 0, ["main"])


def test_goodput_reads_the_head_of_a_pathways_workload_and_worker_0_otherwise() -> None:
    assert [p["metadata"]["name"] for p in worker0_pods([WORKER, HEAD])] == ["h"]
    assert [p["metadata"]["name"] for p in worker0_pods([PLAIN])] == ["p"]


def test_each_pod_is_read_from_its_own_container() -> None:
    assert [container_of(p) for p in (HEAD, HEADLESS, WORKER, PLAIN)] == [
        "main",
        "pathways-proxy",
        "pathways-worker",
        "main",
    ]


def test_the_head_is_named_apart_and_listed_first() -> None:
    assert [w.worker for w in worker_statuses([WORKER, HEAD])] == ["head", "s0/w0"]
