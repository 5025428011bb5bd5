"""`xcli workload logs --timestamps` and `--merge` on GKE (issue 36): the pod log API's
`timestamps=true` (the kubelet's time at the start of each line), and the lines of every
worker in one stream ordered by those times. Against the in-memory Kubernetes API."""

from __future__ import annotations

import json

import httpx2
import pytest

from tests.support.workload_cluster import WHERE, Cluster, add_jobset, add_pod, cluster, set_up

__all__ = ["cluster"]  # the fixture

# Two slices of two workers; each line's second tells where it falls in time.
ORDER = [(0, 1, 1), (1, 0, 2), (0, 0, 3), (1, 1, 4), (0, 1, 5), (0, 0, 6)]  # (slice, worker, s)


def _workload(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", [])
    for s in range(2):
        for i in range(2):
            pod = add_pod(cluster.fake, "train-1", s, i, "Running")
            cluster.fake.stamped[pod] = "".join(
                f"2026-11-22T10:00:{sec:02d}.250000000Z line at {sec}\n"
                for (ss, ii, sec) in ORDER
                if (ss, ii) == (s, i)
            )


def _log_requests(cluster: Cluster) -> list[httpx2.Request]:
    return [r for r in cluster.fake.requests if r.url.path.endswith("/log")]


def test_merge_orders_every_workers_lines_by_the_kubelets_time(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _workload(cluster)
    code, out, err = cluster.run(["workload", "logs", "train-1", *WHERE, "--merge"], capsys)
    assert code == 0, err
    assert out.splitlines() == [f"[s{s}/w{i}] line at {sec}" for s, i, sec in ORDER]
    assert all(r.url.params["timestamps"] == "true" for r in _log_requests(cluster))


def test_timestamps_begin_each_line_worker_by_worker(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _workload(cluster)
    code, out, err = cluster.run(["workload", "logs", "train-1", *WHERE, "--timestamps"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "2026-11-22T10:00:03.250000Z [s0/w0] line at 3"  # worker by worker
    assert lines[:2] == [
        "2026-11-22T10:00:03.250000Z [s0/w0] line at 3",
        "2026-11-22T10:00:06.250000Z [s0/w0] line at 6",
    ]
    assert len(lines) == len(ORDER)


def test_timestamps_in_json_and_plain_logs_ask_for_none(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _workload(cluster)
    args = ["workload", "logs", "train-1", *WHERE, "--merge", "--timestamps", "-o", "json"]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    first = json.loads(out.splitlines()[0])
    assert first == {
        "time": "2026-11-22T10:00:01.250000Z",
        "worker": "s0/w1",
        "line": "line at 1",
        "note": False,
    }
    cluster.fake.requests.clear()
    code, out, err = cluster.run(["workload", "logs", "train-1", *WHERE], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "[s0/w0] line at 3"  # the time taken off by the server
    assert all("timestamps" not in r.url.params or r.url.params["timestamps"] == "false"
               for r in _log_requests(cluster))  # fmt: skip
