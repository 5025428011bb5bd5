"""`xcli workload goodput` of a JobSet preempted once by Kueue and admitted again, against
recorded Kubernetes responses (tests/workload/goodput/gke/: the Kueue Workload, its events, the
current pods and worker 0's log with timestamps), validated against the Kueue CRD and
lightkube-models. Every number is asserted exactly.

The story: submitted 10:00:00; admitted 10:02:00; preempted 10:30:00 (Kueue deleted the pods,
and their logs with them); admitted again 10:45:00; every worker running 10:47:00 (the last
container start); worker 0 resumes at step 501 at 10:48:00, one step a minute, checkpoints
505, 510 and 512; the JobSet completes 11:00:05.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.core import validate_core
from tests.support.crd import validate
from tests.support.workload_cluster import (
    NS,
    WHERE,
    WORKLOADS,
    Cluster,
    add_jobset,
    cluster,
    cond,
    set_up,
)

__all__ = ["cluster"]  # the fixture

HERE = Path(__file__).parent / "gke"
DONE = [cond("Completed", "True", "AllJobsCompleted", "jobset completed", "2026-11-22T11:00:05Z")]


def _load(name: str) -> Any:
    return json.loads((HERE / name).read_text())


def _record(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v5litepod-16-x1", "train-2", DONE, created="2026-11-22T10:00:00Z")
    workload = _load("workload.json")
    validate(workload)
    cluster.fake.put(f"{WORKLOADS}/{workload['metadata']['name']}", workload)
    for event in _load("events.json"):
        validate_core(event)
        cluster.fake.put(f"{NS}/events/{event['metadata']['name']}", event)
    for pod in _load("pods.json"):
        validate_core(pod)
        cluster.fake.put(f"{NS}/pods/{pod['metadata']['name']}", pod)
    cluster.fake.logs["train-2-slice-0-0-7kq2x"] = (HERE / "worker0.log").read_text()


EXPECTED = {
    "scheduling_goodput": 0.6838,  # held 2465 s (1680 first admission + 785 since 10:47:00) / 3605
    "runtime_goodput": 0.2921,  # productive 720 s (steps 501-512) / 2465
    "program_goodput": 0.5,  # 9.456e16 FLOP / 60 s / (197e12 FLOP/s * 16 chips)
    "interruptions": [
        {
            "time": "2026-11-22T10:30:00.000+00:00",
            "cause": "preemption",
            "worker": None,
            "exit_code": None,
            "detail": "Preempted: Preempted to accommodate a workload (UID: uid-urgent-1, "
            "JobUID: uid-urgent) due to prioritization in the ClusterQueue",
            "step_reached": None,  # its pods, and their logs, are gone
            "checkpoint_resumed_from": 500,  # the first step after it is 501
            "lost_since_checkpoint": None,
            "reschedule": 1020.0,  # 10:30:00 -> every worker running again at 10:47:00
            "resume": 60.0,  # 10:47:00 -> step 501 at 10:48:00
            "restarted_from_scratch": False,
        }
    ],
    "badput": {
        "queued": 120.0,  # 10:00:00 -> admitted 10:02:00
        "provisioning": 0.0,  # that admission's pods are gone: its start counts from admission
        "startup": 0.0,
        "lost_since_checkpoint": 0.0,
        "resume": 60.0,
        "reschedule": 1020.0,
        "restarted_from_scratch": 0.0,
        "other": 1685.0,  # the first admission's 1680 s (no logs) + 5 s after the last step
    },
    "steps": 512,
    "wall_seconds": 3605.0,
    "productive_seconds": 720.0,
    "held_seconds": 2465.0,
    "step_seconds": 60.0,
    "flops_per_step": 9.456e16,
    "last_checkpoint": 512,
    "notes": [
        "the logs of the admission at 2026-11-22T10:02:00.000+00:00 are gone (Kubernetes "
        "deleted its pods at the eviction): its time counts as other"
    ],
    "program_goodput_missing": None,
    "restarts": {"disruptions": 1, "failures": 0},  # a Kueue preemption
    "submitted": "2026-11-22T10:00:00.000+00:00",
    "end": "2026-11-22T11:00:05.000+00:00",
    "segments": [
        {
            "start": "2026-11-22T10:02:00.000+00:00",
            "end": "2026-11-22T10:30:00.000+00:00",
            "ended_by": "preemption",
        },
        {
            "start": "2026-11-22T10:47:00.000+00:00",
            "end": "2026-11-22T11:00:05.000+00:00",
            "ended_by": None,
        },
    ],
    "straggler_seconds": None,  # worker 0's log has no arrival marks
    "chronic_stragglers": [],
}


def test_a_preempted_and_readmitted_jobset(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(cluster)
    code, out, err = cluster.run(["workload", "goodput", "train-2", *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    assert json.loads(out) == EXPECTED
    log, *arrivals = [r for r in cluster.fake.requests if r.url.path.endswith("/log")]
    assert log.url.path == f"{NS}/pods/train-2-slice-0-0-7kq2x/log"
    assert log.url.params["timestamps"] == "true" and log.url.params["container"] == "main"
    # then every pod's log, for the arrival marks (straggler_seconds)
    pods = {p["metadata"]["name"] for p in _load("pods.json")}
    assert {r.url.path for r in arrivals} == {f"{NS}/pods/{p}/log" for p in pods}
    (events,) = [r for r in cluster.fake.requests if r.url.path == f"{NS}/events"]
    assert events.url.params["fieldSelector"] == (
        "involvedObject.kind=Workload,involvedObject.name=jobset-train-2-5f2d7"
    )
    assert not cluster.writes()  # only reads


def test_text_status_line_and_list_fractions(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(cluster)
    code, out, _ = cluster.run(["workload", "goodput", "train-2", *WHERE], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "workload train-2: goodput: scheduling 68.4%, runtime 29.2%, program 50.0%; step 512; "
        "1 interruption"
    )
    assert (
        "  2026-11-22T10:30:00.000+00:00 preemption (Preempted: Preempted to accommodate a "
        "workload (UID: uid-urgent-1, JobUID: uid-urgent) due to prioritization in the "
        "ClusterQueue): step - reached, resumed from checkpoint 500; lost -, reschedule "
        "1020.0s, resume 60.0s"
    ) in lines
    code, out, _ = cluster.run(["workload", "status", "train-2", *WHERE], capsys)
    assert code == 0
    line = "goodput: scheduling 68.4%, runtime 29.2%, program 50.0%; step 512; 1 interruption"
    assert line in out
    code, out, _ = cluster.run(["workload", "list", *WHERE, "-o", "json"], capsys)
    (row,) = json.loads(out)
    # list reads no pods or logs: Kueue's admitted time (1680 s before, 905 s since 10:45:00)
    assert (row["scheduling_goodput"], row["runtime_goodput"], row["program_goodput"]) == (
        round(2585 / 3605, 4), None, None,
    )  # fmt: skip


# A JobSet restarted once within one admission, the failed attempt's pods still readable:
# submitted 10:00:00, admitted 10:00:30 (the Admitted condition; no events left), attempt 0
# all running 10:01:00, steps from 10:02:00 one a minute, checkpoint 9 at 10:12:00; worker
# s0/w1's node shuts down (DisruptionTarget TerminationByKubelet) and it exits 137 at 10:19:30,
# during step 17; attempt 1 all running 10:21:00, step 10 at 10:22:00 ... step 27 at 10:39:00;
# completed 10:40:00.
RESTART_DONE = [
    cond("Completed", "True", "AllJobsCompleted", "jobset completed", "2026-11-22T10:40:00Z")
]


def _record_restart(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(
        cluster.fake, "v5litepod-16-x1", "train-3", RESTART_DONE,
        created="2026-11-22T10:00:00Z", restarts=1,
    )  # fmt: skip
    workload = _load("restart-workload.json")
    validate(workload)
    cluster.fake.put(f"{WORKLOADS}/{workload['metadata']['name']}", workload)
    for pod in _load("restart-pods.json"):
        validate_core(pod)
        cluster.fake.put(f"{NS}/pods/{pod['metadata']['name']}", pod)
    for attempt, pod in ((0, "train-3-slice-0-0-ab0x9"), (1, "train-3-slice-0-0-cd0x9")):
        log = HERE / f"restart-worker0-attempt{attempt}.log"
        cluster.fake.logs[pod] = log.read_text()


def test_a_jobset_restart_with_the_failed_attempts_pods_still_there(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _record_restart(cluster)
    code, out, err = cluster.run(["workload", "goodput", "train-3", *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["interruptions"] == [
        {
            "time": "2026-11-22T10:19:30.000+00:00",
            "cause": "maintenance",
            "worker": "s0/w1",
            "exit_code": 137,
            "detail": "exit status 137; TerminationByKubelet: Pod was terminated in response to "
            "imminent node shutdown.",
            "step_reached": 17,
            "checkpoint_resumed_from": 9,
            "lost_since_checkpoint": 450.0,  # checkpoint 9 at 10:12:00 -> 10:19:30
            "reschedule": 90.0,  # 10:19:30 -> attempt 1 all running at 10:21:00
            "resume": 60.0,  # -> step 10 at 10:22:00
            "restarted_from_scratch": False,  # step 10 after checkpoint 9
        }
    ]
    assert report["badput"] == {
        "queued": 30.0,
        "provisioning": 30.0,  # admitted 10:00:30 -> every container started 10:01:00
        "startup": 60.0,
        "lost_since_checkpoint": 450.0,
        "resume": 60.0,
        "reschedule": 90.0,
        "restarted_from_scratch": 0.0,
        "other": 0.0,  # step 27 ends at 10:40:00, when the JobSet completes
    }
    assert (report["productive_seconds"], report["held_seconds"], report["wall_seconds"]) == (
        1680.0, 2250.0, 2400.0,
    )  # fmt: skip
    assert (report["scheduling_goodput"], report["runtime_goodput"]) == (0.9375, 0.7467)
    assert (report["program_goodput"], report["steps"], report["last_checkpoint"]) == (
        None, 27, 19,
    )  # fmt: skip
    assert report["notes"] == []
    logs = [r.url.path for r in cluster.fake.requests if r.url.path.endswith("/log")]
    assert sorted(logs[:2]) == [  # worker 0 of both attempts, with timestamps
        f"{NS}/pods/train-3-slice-0-0-ab0x9/log",
        f"{NS}/pods/train-3-slice-0-0-cd0x9/log",
    ]
    # then the current attempt's pods, every one, for the arrival marks (straggler_seconds)
    assert sorted(logs[2:]) == [f"{NS}/pods/train-3-slice-0-{w}-cd{w}x9/log" for w in range(4)]
    code, out, _ = cluster.run(["workload", "goodput", "train-3", *WHERE], capsys)
    assert "xcli.goodput.flops_per_step(x)" in out  # how to enable MFU
