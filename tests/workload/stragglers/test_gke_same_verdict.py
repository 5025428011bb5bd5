"""The GKE path (every pod's log, read with timestamps through the Kubernetes API) gives the
same verdict as the VM path (the runner's record) on the same marks: the marks of a real run
(tests/workload/stragglers/data/slow-run.jsonl: 8 CPU-JAX workers in 2 slices on the local
emulator, s1/w2 delayed 150 ms before each step's collective), served as the pods' logs by the
in-memory API server. Also: the node names come with the stragglers, the page through the
pods is read once, and a pod without a log is named in a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.core import validate_core
from tests.support.workload_cluster import NS, WHERE, Cluster, cluster, set_up
from tests.workload.stragglers.pods import log_of, pod_for
from xcli.workload.stragglers.marks import from_runner_lines
from xcli.workload.stragglers.verdict import judge

__all__ = ["cluster"]  # the fixture

RUN = Path(__file__).parent / "data" / "slow-run.jsonl"
SAME = ("stragglers", "time_lost_seconds", "steps", "step_seconds", "windows")


def _serve(cluster: Cluster, missing: str | None = None) -> dict[str, str]:
    set_up(cluster.fake)
    vm = from_runner_lines(RUN.read_text().splitlines())
    nodes = {}
    for n, marks in enumerate(vm.workers):
        node = f"gke-demo-np-{marks.worker.replace('/', '-')}-{n:04d}"
        pod = pod_for("train-9", marks.worker, node)
        validate_core(pod)
        cluster.fake.put(f"{NS}/pods/{pod['metadata']['name']}", pod)
        if marks.worker != missing:
            cluster.fake.logs[pod["metadata"]["name"]] = log_of(marks, ["starting", "loss 1.0"])
        nodes[marks.worker] = node
    return nodes


def test_pod_logs_give_the_runners_verdict(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = _serve(cluster)
    code, out, err = cluster.run(
        ["workload", "stragglers", "train-9", *WHERE, "--window", "5", "-o", "json"], capsys
    )
    assert code == 0, err
    gke = json.loads(out)
    vm = judge("train-9", from_runner_lines(RUN.read_text().splitlines()), window=5).to_dict()
    for entry in vm["stragglers"]:
        entry["host"] = nodes[entry["worker"]]
    assert {k: gke[k] for k in SAME} == {k: vm[k] for k in SAME}
    assert [(s["worker"], s["chronic"]) for s in gke["stragglers"]] == [("s1/w2", True)]
    assert gke["source"] == "pod logs" and gke["requests"] == 1 + 8  # one page, eight logs
    lists = [r for r in cluster.fake.requests if r.url.path == f"{NS}/pods"]
    assert len(lists) == 1 and "limit=500" in str(lists[0].url)
    logs = [r for r in cluster.fake.requests if r.url.path.endswith("/log")]
    assert len(logs) == 8 and all("timestamps=true" in str(r.url) for r in logs)

    code, out, err = cluster.run(
        ["workload", "stragglers", "train-9", *WHERE, "--window", "5"], capsys
    )
    assert code == 0, err
    assert out.splitlines()[1].startswith(f"chronic straggler: s1/w2 on {nodes['s1/w2']} +15")
    assert f"kubectl cordon {nodes['s1/w2']}" in out
    assert "xcli workload profile train-9 --cluster demo --hosts stragglers" in out


def test_a_pod_without_a_log_is_named_and_the_rest_judged(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(cluster, missing="s0/w3")
    code, out, err = cluster.run(
        ["workload", "stragglers", "train-9", *WHERE, "-o", "json"], capsys
    )
    assert code == 0, err
    found = json.loads(out)
    assert [w["worker"] for w in found["workers"]] == [
        "s0/w0", "s0/w1", "s0/w2", "s1/w0", "s1/w1", "s1/w2", "s1/w3"
    ]  # fmt: skip
    assert found["notes"][0].startswith("log not read: s0/w3 (train-9-slice-0-3-")
    assert [s["worker"] for s in found["stragglers"]] == ["s1/w2"]
