"""Replays of failures through a model of the Job and JobSet controllers
(tests/support/jobset_controller.py): a preemption restarts outside --max-restarts, a crash
inside it, a user error fails at once, and `workload status` shows both counts.

The JobSet is the one `workload create` renders, validated against the pinned v0.12.0 CRD
after every step (status included); the pods are shaped as the kubelet leaves them.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from typing import Any

import pytest

from tests.support import jobset_controller as ctl
from tests.support.crd import validate
from tests.support.workload_cluster import JOBSETS, WHERE, Cluster, add_kueue, cluster, cond, set_up
from tests.workload.cases import meta_for, spec_for
from xcli.catalog import lookup
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.jobset.view import restart_counts
from xcli.workload.pathways.jobset import build_jobset as build_pathways
from xcli.workload.pathways.spec import PathwaysSpec

__all__ = ["cluster"]  # the fixture

CASE = "v5p-128-x4-spot"  # --max-restarts 3, 4 slices


def _jobset(**overrides: Any) -> dict[str, Any]:
    js = build_jobset(spec_for(CASE, name="train-1", **overrides), meta_for(CASE))
    js["metadata"]["creationTimestamp"] = "2026-11-22T10:00:00Z"
    js["status"] = {"restarts": 0}
    validate(js)
    ctl.admit(js, restart_job_gate=False)
    return js


def _pod(slice_: int, index: int, code: int, disruption: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "phase": "Failed",
        "containerStatuses": [
            {
                "name": "main",
                "state": {"terminated": {"exitCode": code, "finishedAt": "2026-11-22T10:30:00Z"}},
            }
        ],
    }
    if disruption:  # e.g. the kubelet's graceful node shutdown (Kubernetes pod disruption docs)
        status["conditions"] = [
            {"type": "DisruptionTarget", "status": "True", "reason": disruption},
            {"type": "Ready", "status": "False"},
        ]
    name = f"train-1-slice-{slice_}-{index}-abcde"
    return {"metadata": {"name": name, "namespace": "default"}, "status": status}


def _fail(js: dict[str, Any], *pods: dict[str, Any], slice_: int = 0, gate: bool = False) -> str:
    """One slice's Job fails with these pods; the JobSet controller acts; the status is valid."""
    job = js["spec"]["replicatedJobs"][0]
    failure = ctl.job_failure(job["template"]["spec"], list(pods))
    assert failure is not None
    action = ctl.execute_failure_policy(
        js,
        [ctl.FailedJob(job["name"], slice_, *failure, at=float(slice_))],
        restart_job_gate=gate,
    )
    validate(js)
    return action


def _counts(js: dict[str, Any]) -> tuple[int, int]:
    status = js["status"]
    return status["restarts"], status.get("restartsCountTowardsMax", 0)


def test_a_preemption_is_free_and_a_crash_is_counted() -> None:
    js = _jobset()
    job_spec = js["spec"]["replicatedJobs"][0]["template"]["spec"]
    # the Job controller's own words, matched by the Disruption rule's pattern
    assert ctl.job_failure(job_spec, [_pod(0, 1, 143, "TerminationByKubelet")]) == (
        "PodFailurePolicy",
        "Pod default/train-1-slice-0-1-abcde has condition DisruptionTarget matching FailJob "
        "rule at index 0",
    )
    assert _fail(js, _pod(0, 1, 143, "TerminationByKubelet")) == (
        "RestartJobSetAndIgnoreMaxRestarts"
    )
    assert _counts(js) == (1, 0)
    # preempted while the program's SIGTERM handler exited 1: still a disruption
    assert _fail(js, _pod(2, 0, 1, "PreemptionByScheduler"), slice_=2) == (
        "RestartJobSetAndIgnoreMaxRestarts"
    )
    assert _counts(js) == (2, 0)
    # SIGTERM not handled, no disruption condition: a crash, within the budget
    assert _fail(js, _pod(0, 3, 143)) == "RestartJobSet"
    assert _counts(js) == (3, 1)
    assert js["status"]["conditions"][0]["reason"] == "FailurePolicy_DefaultFailurePolicy"


def test_the_budget_holds_crashes_only() -> None:
    js = _jobset()
    for _ in range(3):
        assert _fail(js, _pod(1, 0, 137)) == "RestartJobSet"
        assert _fail(js, _pod(1, 0, 137, "DeletionByTaintManager")) == (
            "RestartJobSetAndIgnoreMaxRestarts"
        )
    assert _counts(js) == (6, 3)
    assert _fail(js, _pod(1, 0, 137)) == "ReachedMaxRestarts"  # the 4th counted failure


def test_a_user_error_fails_at_once() -> None:
    js = _jobset()
    assert _fail(js, _pod(3, 2, 1), slice_=3) == "FailJobSetFailurePolicyAction"
    assert _counts(js) == (0, 0)
    assert "first failed job: train-1-slice-3" in js["status"]["conditions"][0]["message"]


def test_endless_evictions_end_at_the_pods_own_bound() -> None:
    """A node-pressure eviction is a DisruptionTarget the Job rule cannot tell apart: the
    guard in the container's command (the real /bin/sh) fails attempt 3 + 2 + 1 with exit 1,
    the lowest code the exit-code rule fails on."""
    js = _jobset(max_disruptions=2)
    command = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    argv = command["containers"][0]["command"]
    for _ in range(2):
        assert _fail(js, _pod(0, 0, 137, "TerminationByKubelet")) == (
            "RestartJobSetAndIgnoreMaxRestarts"
        )
    runs = {}
    for attempt in (2, 5, 6):
        env = {"XCLI_RESTART_ATTEMPT": str(attempt), "PATH": "/usr/bin:/bin"}
        argv_true = [*argv[:2], argv[2].replace(spec_for(CASE).command, "exit 0")]
        done = subprocess.run(argv_true, env=env, capture_output=True, text=True, check=False)
        runs[attempt] = (done.returncode, done.stderr)
    assert runs[2] == (0, "") and runs[5] == (0, "")
    code, err = runs[6]
    assert code == 1 and "past --max-restarts 3 + --max-disruptions 2" in err
    assert _fail(js, _pod(0, 0, code)) == "FailJobSetFailurePolicyAction"


def test_the_pattern_never_matches_an_exit_code_message() -> None:
    js = _jobset()
    job_spec = js["spec"]["replicatedJobs"][0]["template"]["spec"]
    failure = ctl.job_failure(job_spec, [_pod(0, 0, 2)])
    assert failure is not None and failure[1].startswith("Container main for pod default/")
    disruption, _ = js["spec"]["failurePolicy"]["rules"]
    assert not ctl._applicable(disruption, ctl.FailedJob("slice", 0, *failure, at=0.0))


def test_status_shows_disruptions_and_failures(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    js = _jobset()
    _fail(js, _pod(0, 1, 143, "TerminationByKubelet"))
    _fail(js, _pod(0, 1, 143, "TerminationByKubelet"))
    _fail(js, _pod(0, 3, 42))
    set_up(cluster.fake)
    cluster.fake.put(f"{JOBSETS}/train-1", js)
    add_kueue(
        cluster.fake,
        "train-1",
        [cond("Admitted", "True", "Admitted", "ok", "2026-11-22T10:00:02Z")],
    )
    code, out, err = cluster.run(["workload", "status", "train-1", *WHERE], capsys)
    assert code == 0, err
    assert "restarts 3 (disruptions 2, failures 1)" in out
    assert "restarted 3 time(s): 2 after disruptions (free), 1 after failures" in out
    code, out, err = cluster.run(["workload", "status", "train-1", *WHERE, "-o", "json"], capsys)
    report = json.loads(out)
    assert (report["restarts"], report["disruptions"], report["failures"]) == (3, 2, 1)


# --- --restart-scope slice: an elastic Pathways JobSet, one worker slice restarted alone ---

ELASTIC = PathwaysSpec(
    name="elastic-1",
    accelerator=lookup("v5p-128"),
    num_slices=2,
    gcs_location="gs://my-bucket/pathways",
    image="us-docker.pkg.dev/my-project/repo/train:1",
    command="python3 train.py",
    elastic_slices=1,
    restart_scope="slice",
    max_restarts=3,
)


def test_slice_scope_restarts_one_job_and_needs_the_gate() -> None:
    js = build_pathways(ELASTIC)
    js["status"] = {"restarts": 0}
    validate(js)  # the pinned CRD admits it, gate or not (tests/support/jobset_controller.py)
    with pytest.raises(ctl.WebhookRefused, match="RestartJob feature gate is disabled"):
        ctl.admit(js, restart_job_gate=False)
    ctl.admit(js, restart_job_gate=True)
    # worker slice 1's Job exceeds its backoffLimit (its containers restart in place first)
    worker = ctl.FailedJob("worker", 1, "BackoffLimitExceeded", "Job has reached the "
                           "specified backoff limit", at=1.0)  # fmt: skip
    assert ctl.execute_failure_policy(js, [worker], restart_job_gate=True) == "RestartJob"
    validate(js)
    (status,) = js["status"]["replicatedJobsStatus"]
    assert (status["name"], status["jobRestarts"], status["jobRestartsCountTowardsMax"]) == (
        "worker", [0, 1], [0, 1],
    )  # fmt: skip
    assert js["status"]["restarts"] == 0  # slice 0 and the head went on
    counts = restart_counts(js)
    assert (counts.slice_restarts, counts.failures, counts.disruptions) == (1, 1, 0)
    # the head failing restarts everything (no rule targets it), counted too
    head = ctl.FailedJob("pathways-head", 0, "BackoffLimitExceeded", "", at=2.0)
    assert ctl.execute_failure_policy(js, [head], restart_job_gate=True) == "RestartJobSet"
    assert restart_counts(js).failures == 2
    # the budget is the total of both kinds: two more slice restarts, then the JobSet fails
    assert ctl.execute_failure_policy(js, [worker], restart_job_gate=True) == "RestartJob"
    assert ctl.execute_failure_policy(js, [worker], restart_job_gate=True) == ("ReachedMaxRestarts")


def test_slice_scope_without_elastic_slices_is_refused() -> None:
    from xcli.errors import UserError
    from xcli.workload.pathways.spec import check

    with pytest.raises(UserError, match="--restart-scope slice restarts one slice"):
        check(replace(ELASTIC, elastic_slices=0))
