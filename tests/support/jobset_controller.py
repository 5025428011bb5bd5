"""A model of the two controllers that decide a failed JobSet's fate, for replays in tests.

No controller runs in tests/support/fakekube.py, so a replay drives this model instead: pods
fail (their status as the kubelet or the taint manager leaves it), the Job controller's rules
turn them into the Job's `Failed` condition, and JobSet's failure policy turns that into an
action and its counters. Each function mirrors one upstream function; the file and line are
named beside it (the facts are in docs/upstream.md, "Restarts and disruptions").

- Kubernetes Job controller: kubernetes/kubernetes pkg/controller/job/pod_failure_policy.go
  (matchPodFailurePolicy @2b02db1b: the two message formats at l.48 and l.61, the condition
  match at l.80-89; the exit-code match skips running containers and exit code 0) and
  job_controller.go (@6ae037f1: getFailJobMessage takes the first failed pod in list order; a
  FailJob match gives reason PodFailurePolicy, otherwise failures past backoffLimit give
  BackoffLimitExceeded).
- JobSet v0.12.0 (kubernetes-sigs/jobset@f22e565a) pkg/controllers/failure_policy.go:
  executeFailurePolicy l.45-71, findFirstFailedPolicyRuleAndJob l.87-119 (rules in order, then
  the earliest failed Job), ruleIsApplicable l.142-164, the actions l.215-388 and the budget
  total l.548-550; the webhook's RestartJob-gate refusal pkg/webhooks/jobset_webhook.go
  l.440-444.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]

RESTART_JOB_ACTIONS = ("RestartJob", "RestartJobAndIgnoreMaxRestarts")
GATE_REFUSAL = (
    "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed "
    "when RestartJob feature gate is disabled"
)


class WebhookRefused(Exception):
    pass


def admit(jobset: Obj, *, restart_job_gate: bool) -> None:
    """The JobSet validating webhook's failure-policy checks (jobset_webhook.go l.425-494)."""
    policy = jobset["spec"].get("failurePolicy") or {}
    names = {r["name"] for r in jobset["spec"]["replicatedJobs"]}
    for rule in policy.get("rules") or []:
        if rule["action"] in RESTART_JOB_ACTIONS and not restart_job_gate:
            raise WebhookRefused(GATE_REFUSAL)
        for target in rule.get("targetReplicatedJobs") or []:
            if target not in names:
                raise WebhookRefused(f"invalid replicatedJob name '{target}'")
    for rjob in jobset["spec"]["replicatedJobs"]:
        if rjob.get("replicas", 1) > 1024:
            raise WebhookRefused("replicas must be <= 1024")


# --- the Job controller -----------------------------------------------------------------


def _exit_code_matches(rule: Obj, pod: Obj) -> tuple[str, int] | None:
    """matchOnExitCodes: terminated, non-zero, the named container; init containers too."""
    req = rule["onExitCodes"]
    status = pod.get("status") or {}
    for cs in [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]:
        code = ((cs.get("state") or {}).get("terminated") or {}).get("exitCode")
        if code in (None, 0):
            continue
        if req.get("containerName") not in (None, cs["name"]):
            continue
        inside = code in req["values"]
        if inside == (req["operator"] == "In"):
            return cs["name"], int(code)
    return None


def _condition_matches(rule: Obj, pod: Obj) -> str | None:
    """matchOnPodConditions: Type and Status only, never the reason (l.80-89)."""
    for pattern in rule["onPodConditions"]:
        for cond in (pod.get("status") or {}).get("conditions") or []:
            if cond["type"] == pattern["type"] and cond["status"] == pattern.get("status", "True"):
                return str(cond["type"])
    return None


def match_pod_failure_policy(policy: Obj, pod: Obj) -> tuple[str | None, bool]:
    """(the FailJob message or None, counts toward backoffLimit) for one failed pod."""
    meta = pod["metadata"]
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule["action"]
        if "onExitCodes" in rule:
            hit = _exit_code_matches(rule, pod)
            if hit is None:
                continue
            if action == "FailJob":  # l.48
                return (
                    f"Container {hit[0]} for pod {meta['namespace']}/{meta['name']} failed with "
                    f"exit code {hit[1]} matching {action} rule at index {index}"
                ), True
        else:
            kind = _condition_matches(rule, pod)
            if kind is None:
                continue
            if action == "FailJob":  # l.61
                return (
                    f"Pod {meta['namespace']}/{meta['name']} has condition {kind} matching "
                    f"{action} rule at index {index}"
                ), True
        return None, action != "Ignore"
    return None, True


def job_failure(job_spec: Obj, failed_pods: list[Obj]) -> tuple[str, str] | None:
    """The (reason, message) the Job controller copies into the Job's Failed condition."""
    policy = job_spec.get("podFailurePolicy") or {}
    counted = 0
    for pod in failed_pods:  # list order: getFailJobMessage takes the first FailJob
        message, counts = match_pod_failure_policy(policy, pod)
        if message is not None:
            return "PodFailurePolicy", message
        counted += counts
    if counted > job_spec.get("backoffLimit", 6):
        return "BackoffLimitExceeded", "Job has reached the specified backoff limit"
    return None


# --- JobSet's failure policy --------------------------------------------------------------


@dataclass(frozen=True)
class FailedJob:
    replicated_job: str
    index: int
    reason: str
    message: str
    at: float  # the Failed condition's lastTransitionTime


def _applicable(rule: Obj, job: FailedJob) -> bool:
    """ruleIsApplicable l.142-164; patterns go through Go's regexp.MatchString: unanchored."""
    reasons = rule.get("onJobFailureReasons") or []
    patterns = rule.get("onJobFailureMessagePatterns") or []
    targets = rule.get("targetReplicatedJobs") or []
    return (
        (not reasons or job.reason in reasons)
        and (not patterns or any(re.search(p, job.message) for p in patterns))
        and (not targets or job.replicated_job in targets)
    )


def _rjob_status(jobset: Obj, name: str, replicas: int) -> Obj:
    statuses = jobset["status"].setdefault("replicatedJobsStatus", [])
    for st in statuses:
        if st["name"] == name:
            return st  # type: ignore[no-any-return]
    st = {"name": name, "ready": 0, "succeeded": 0, "failed": 0, "active": replicas,
          "suspended": 0, "jobRestarts": [0] * replicas,
          "jobRestartsCountTowardsMax": [0] * replicas}  # fmt: skip
    statuses.append(st)
    return st


def counted_total(jobset: Obj) -> int:
    """restartsCountTowardsMax + every Job's jobRestartsCountTowardsMax (l.548-550)."""
    status = jobset["status"]
    per_job = sum(
        sum(st.get("jobRestartsCountTowardsMax") or [])
        for st in status.get("replicatedJobsStatus") or []
    )
    return int(status.get("restartsCountTowardsMax") or 0) + per_job


def _fail(jobset: Obj, reason: str, message: str) -> str:
    jobset["status"]["conditions"] = [
        {"type": "Failed", "status": "True", "reason": reason, "message": message,
         "lastTransitionTime": "2026-11-22T11:00:00Z"}
    ]  # fmt: skip
    jobset["status"]["terminalState"] = "Failed"
    return reason


def execute_failure_policy(jobset: Obj, failed: list[FailedJob], *, restart_job_gate: bool) -> str:
    """Apply the failure policy to the current attempt's failed Jobs; the action's name (or
    the Failed reason) comes back, and `jobset["status"]` holds the new counters."""
    status = jobset.setdefault("status", {})
    status.setdefault("restarts", 0)
    policy = jobset["spec"].get("failurePolicy")
    first = min(failed, key=lambda j: j.at)
    if policy is None:  # l.53-62
        return _fail(
            jobset,
            "FailedJobs",
            f"jobset failed due to one or more job failures (first failed job: {first.index})",
        )
    action, job, rule_name = "RestartJobSet", first, "DefaultFailurePolicy"
    for rule in policy.get("rules") or []:
        matching = [j for j in failed if _applicable(rule, j)]
        if matching:
            action, job, rule_name = rule["action"], min(matching, key=lambda j: j.at), rule["name"]
            break
    name = f"{jobset['metadata']['name']}-{job.replicated_job}-{job.index}"
    max_restarts = int(policy.get("maxRestarts") or 0)
    if action == "FailJobSet":  # l.215-222
        why = f"applying FailJobSet failure policy action (first failed job: {name})"
        return _fail(jobset, "FailJobSetFailurePolicyAction", why)
    if action in RESTART_JOB_ACTIONS and not restart_job_gate:  # l.346-348, l.373-375
        raise RuntimeError("RestartJob feature gate is disabled")
    if action in ("RestartJobSet", "RestartJob") and counted_total(jobset) >= max_restarts:
        why = f"jobset failed due to reaching max number of restarts (first failed job: {name})"
        return _fail(jobset, "ReachedMaxRestarts", why)
    if action in ("RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts"):  # l.225-297
        status["restarts"] += 1
        if action == "RestartJobSet":
            status["restartsCountTowardsMax"] = int(status.get("restartsCountTowardsMax") or 0) + 1
    else:  # l.300-388: only this Job
        replicas = next(
            r["replicas"]
            for r in jobset["spec"]["replicatedJobs"]
            if r["name"] == job.replicated_job
        )
        st = _rjob_status(jobset, job.replicated_job, replicas)
        st["jobRestarts"][job.index] += 1
        if action == "RestartJob":
            st["jobRestartsCountTowardsMax"][job.index] += 1
    status["conditions"] = [
        {"type": "RestartingJobSet", "status": "True", "reason": f"FailurePolicy_{rule_name}",
         "message": action, "lastTransitionTime": "2026-11-22T11:00:00Z"}
    ]  # fmt: skip
    return action
