"""`workload list` rows and `workload status` explanations from API objects.

The JobSet and Kueue Workload objects below (status included) are checked against the CRDs, so
their shapes are the ones a cluster returns.
"""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from typing import Any

import pytest

from tests.support.crd import validate
from tests.workload.cases import meta_for, spec_for
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.jobset.view import (
    explain,
    first_failure,
    jobset_state,
    kueue_workload_for,
    list_rows,
    log_prefix,
    select_for_delete,
    select_workers,
    wait_exit_code,
    worker_statuses,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)


def _cond(kind: str, status: str, reason: str, message: str, at: str) -> dict[str, str]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": at,
    }


def _jobset(
    case: str, name: str, conditions: list[dict[str, str]], **status: Any
) -> dict[str, Any]:
    js = build_jobset(spec_for(case, name=name), meta_for(case))
    js["metadata"]["creationTimestamp"] = "2026-11-22T10:00:00Z"
    js["status"] = {"conditions": conditions, **{"restarts": 0, **status}}
    validate(js)
    return js


QUEUED = _jobset(
    "v6e-256-x2",
    "queued-1",
    [_cond("Suspended", "True", "SuspendedByKueue", "jobset suspended", "2026-11-22T10:00:01Z")],
)
RUNNING = _jobset("v5p-128-x4-spot", "running-1", [], restarts=2, restartsCountTowardsMax=1)
DONE = _jobset(
    "v5litepod-16-x1",
    "done-1",
    [_cond("Completed", "True", "AllJobsCompleted", "jobset completed", "2026-11-22T11:30:00Z")],
)
FAILED = _jobset(
    "v5litepod-16-x1",
    "failed-1",
    [
        _cond(
            "Failed",
            "True",
            "FailedJobs",
            "jobset failed due to user error",
            "2026-11-22T10:20:00Z",
        )
    ],
)


def _kueue(
    owner: str, conditions: list[dict[str, str]], checks: list[dict[str, str]]
) -> dict[str, Any]:
    wl = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"jobset-{owner}-3c9a1",
            "ownerReferences": [
                {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "name": owner,
                    "uid": "u",
                }
            ],
        },
        "spec": {
            "queueName": "xcli-queue",
            "podSets": [
                {
                    "name": "slice",
                    "count": 128,
                    "template": {"spec": {"containers": [{"name": "main", "image": "img"}]}},
                }
            ],
        },
        "status": {"conditions": conditions, "admissionChecks": checks},
    }
    validate(wl)
    return wl


def _pod(
    slice_: int, index: int, phase: str, code: int | None = None, at: str = ""
) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase}
    if code is not None:
        status["containerStatuses"] = [
            {
                "name": "main",
                "state": {
                    "terminated": {
                        "exitCode": code,
                        "reason": "Error" if code else "Completed",
                        "finishedAt": at,
                    }
                },
            }
        ]
    return {
        "metadata": {
            "name": f"failed-1-slice-{slice_}-{index}-abcde",
            "labels": {
                "jobset.sigs.k8s.io/job-index": str(slice_),
                "batch.kubernetes.io/job-completion-index": str(index),
            },
        },
        "spec": {"nodeName": f"gke-node-{index}"},
        "status": status,
    }


def test_states() -> None:
    assert [jobset_state(j) for j in (QUEUED, RUNNING, DONE, FAILED)] == [
        "queued",
        "running",
        "succeeded",
        "failed",
    ]


def test_list_rows() -> None:
    rows = {r.name: r for r in list_rows([QUEUED, RUNNING, DONE, FAILED], NOW)}
    assert (rows["queued-1"].slices, rows["queued-1"].chips) == (2, 512)
    assert (rows["running-1"].chips, rows["running-1"].restarts) == (256, 2)
    assert rows["running-1"].accelerator == "v5p-128" and rows["running-1"].priority == "medium"
    assert rows["done-1"].duration_seconds == 5400 and rows["done-1"].age_seconds == 7200
    assert rows["queued-1"].duration_seconds is None
    assert [r.name for r in list_rows([QUEUED, FAILED], NOW, state="failed")] == ["failed-1"]


def test_why_is_my_job_not_running_quota() -> None:
    kueue = _kueue(
        "queued-1",
        [
            _cond(
                "QuotaReserved",
                "False",
                "Pending",
                "couldn't assign flavors to pod set slice: insufficient unused quota for "
                "google.com/tpu in flavor 2xv6e-256, 512 more needed",
                "2026-11-22T10:00:02Z",
            )
        ],
        [],
    )
    assert kueue_workload_for("queued-1", [kueue]) is kueue
    assert kueue_workload_for("other", [kueue]) is None
    lines = explain(QUEUED, kueue, [])
    assert lines[0].startswith("queued: no quota reserved: couldn't assign flavors")
    assert "512 more needed" in lines[0]


def test_admission_check_pending_and_unscheduled_pods() -> None:
    check = {
        "name": "dws-prov",
        "state": "Pending",
        "message": "Waiting for resources. Currently there are not enough resources available",
        "lastTransitionTime": "2026-11-22T10:00:03Z",
    }
    reserved = _cond("QuotaReserved", "True", "QuotaReserved", "ok", "2026-11-22T10:00:02Z")
    kueue = _kueue("queued-1", [reserved], [check])
    pending = _pod(0, 0, "Pending")
    event = {
        "involvedObject": {"kind": "Pod", "name": pending["metadata"]["name"]},
        "reason": "FailedScheduling",
        "message": "0/8 nodes are available: 8 Insufficient google.com/tpu.",
    }
    lines = explain(QUEUED, kueue, [pending], [event])
    assert lines[0] == f"admission check dws-prov: Pending {check['message']}"
    assert lines[1].endswith(
        "not scheduled: 0/8 nodes are available: 8 Insufficient google.com/tpu."
    )
    assert explain(QUEUED, None, [])[0].startswith("queued: Kueue has not created a Workload")


def test_finished_workload_names_the_first_failing_worker() -> None:
    pods = [
        _pod(0, 0, "Failed", 137, "2026-11-22T10:19:59Z"),  # killed after worker 2 failed
        _pod(0, 1, "Failed", 143, "2026-11-22T10:19:58Z"),
        _pod(0, 2, "Failed", 1, "2026-11-22T10:19:50Z"),
        _pod(0, 3, "Running"),
    ]
    workers = worker_statuses(pods)
    assert [w.worker for w in workers] == ["s0/w0", "s0/w1", "s0/w2", "s0/w3"]
    first = first_failure(workers)
    assert first is not None and (first.worker, first.exit_code) == ("s0/w2", 1)
    lines = explain(FAILED, None, pods)
    assert lines[0] == "failed: FailedJobs jobset failed due to user error"
    assert (
        lines[1] == "first failure: worker s0/w2 (pod failed-1-slice-0-2-abcde) exit code 1 Error"
    )


def test_running_workload_reports_restarts() -> None:
    assert explain(RUNNING, None, []) == [
        "restarted 2 time(s): 1 after disruptions (free), 1 after failures (counted against "
        "--max-restarts)"
    ]


def test_fixtures_would_fail_validation_if_malformed() -> None:
    broken = copy.deepcopy(QUEUED)
    broken["status"]["conditions"][0]["status"] = "Maybe"
    with pytest.raises(AssertionError):
        validate(broken)


def test_wait_exit_codes() -> None:
    assert [wait_exit_code(j) for j in (QUEUED, RUNNING, DONE, FAILED)] == [None, None, 0, 1]


def test_select_for_delete() -> None:
    young = copy.deepcopy(DONE)
    young["metadata"].update(name="young-1", creationTimestamp="2026-11-22T11:50:00Z")
    foreign = copy.deepcopy(FAILED)
    foreign["metadata"]["name"] = "not-ours"
    del foreign["metadata"]["labels"]["app.kubernetes.io/managed-by"]
    everything = [QUEUED, RUNNING, DONE, FAILED, young, foreign]
    assert select_for_delete(everything, NOW, "succeeded", 3600) == ["done-1"]
    assert select_for_delete(everything, NOW, "succeeded", None) == ["done-1", "young-1"]
    assert select_for_delete(everything, NOW, "failed", None) == ["failed-1"]


def test_select_workers_and_prefixes() -> None:
    pods = [_pod(s, i, "Running") for s in range(2) for i in range(4)]
    workers = worker_statuses(pods)
    assert [w.worker for w in select_workers(workers, "2")] == ["s0/w2", "s1/w2"]
    assert [w.worker for w in select_workers(workers, "all", "1")] == [
        "s1/w0",
        "s1/w1",
        "s1/w2",
        "s1/w3",
    ]
    assert [w.worker for w in select_workers(workers, "3", "0")] == ["s0/w3"]
    assert log_prefix(workers[5], slices=2) == "[s1/w1]"
    assert log_prefix(workers[1], slices=1) == "[w1]"
