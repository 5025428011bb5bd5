"""A JobSet's attempts within one Kueue admission: each JobSet restart is an interruption. Pure.

JobSet recreates every child Job when a worker fails (`status.restarts`; the new pods carry
label `jobset.sigs.k8s.io/restart-attempt`, kubernetes-sigs/jobset api/jobset/v1alpha2). The
failed attempt's pods may still be readable for a while: their terminated container (exit code,
`finishedAt`) and `DisruptionTarget` condition say when and why it ended
(https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-conditions);
otherwise the next attempt's pods' creation is the restart's time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from xcli.workload.goodput.model import Cause, Segment

Obj = Mapping[str, Any]
RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
JOB_INDEX = "jobset.sigs.k8s.io/job-index"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def ts(text: str | None) -> float | None:
    """RFC 3339 as the API server writes it (Z, up to nanoseconds) to POSIX seconds."""
    if not text:
        return None
    head, dot, frac = text.rstrip("Z").partition(".")
    zone = ""
    for sign in "+-":
        if sign in frac:
            frac, _, rest = frac.partition(sign)
            zone = sign + rest
    base = datetime.fromisoformat(head + (zone or "+00:00")).timestamp()
    return base + (float("0." + frac) if dot and frac else 0.0)


def _labels(pod: Obj) -> Mapping[str, str]:
    meta = pod.get("metadata") or {}
    return {**(meta.get("annotations") or {}), **(meta.get("labels") or {})}


def attempt_of(pod: Obj) -> int:
    value = _labels(pod).get(RESTART_ATTEMPT, "0")
    return int(value) if value.isdigit() else 0


def worker_label(pod: Obj) -> str:
    labels = _labels(pod)
    return f"s{labels.get(JOB_INDEX, '0')}/w{labels.get(COMPLETION_INDEX, '0')}"


def created(pod: Obj) -> float | None:
    return ts((pod.get("metadata") or {}).get("creationTimestamp"))


def all_running_at(pods: Sequence[Obj], expected: int) -> float | None:
    """When the last of `expected` workers' containers started; None until all have."""
    starts = []
    for pod in pods:
        for cs in (pod.get("status") or {}).get("containerStatuses") or []:
            state = cs.get("state") or {}
            started = (state.get("running") or state.get("terminated") or {}).get("startedAt")
            if started:
                starts.append(ts(started) or 0.0)
    return max(starts) if expected and len(starts) >= expected else None


def _disruption_kind(reason: str, message: str) -> str:
    if reason == "PreemptionByScheduler":
        return "preemption"
    if reason == "TerminationByKubelet" and "shutdown" in message.lower():
        return "maintenance"  # graceful node shutdown: GKE's host maintenance and spot reclaim
    return "eviction"


def pod_failure(pod: Obj) -> tuple[float, Cause] | None:
    """When and why this pod's worker failed, if it did."""
    status = pod.get("status") or {}
    found: tuple[float, int] | None = None
    for cs in status.get("containerStatuses") or []:
        term = (cs.get("state") or {}).get("terminated") or {}
        at = ts(term.get("finishedAt"))
        if at is not None and term.get("exitCode") not in (None, 0):
            found = (at, int(term["exitCode"]))
    disruption = next(
        (c for c in status.get("conditions") or [] if c.get("type") == "DisruptionTarget"),
        None,
    )
    if found is None and disruption is None:
        return None
    at, code = found if found else (ts((disruption or {}).get("lastTransitionTime")) or 0.0, None)
    kind, detail = "worker exit", "" if code is None else f"exit status {code}"
    if disruption is not None and disruption.get("status") == "True":
        reason, message = disruption.get("reason", ""), disruption.get("message", "")
        kind = _disruption_kind(reason, message)
        detail = "; ".join(x for x in (detail, f"{reason}: {message}") if x)
    return at, Cause(kind, worker_label(pod), code, detail)


def attempt_segments(
    start: float, pods: Sequence[Obj], restarts: int, expected: int
) -> tuple[list[Segment], list[str]]:
    """The admission that began at `start`, split at each JobSet restart whose pods remain."""
    mine = [p for p in pods if (created(p) or start) >= start]
    by_attempt: dict[int, list[Obj]] = {}
    for pod in mine:
        by_attempt.setdefault(attempt_of(pod), []).append(pod)
    attempts = sorted(by_attempt)
    notes = []
    if attempts and attempts[0] > 0 and restarts >= attempts[0]:
        notes.append(
            f"JobSet restarts before attempt {attempts[0]} left no pods to read: they are not "
            "itemised as interruptions"
        )
    segments = []
    for i, n in enumerate(attempts):
        running = all_running_at(by_attempt[n], expected)
        nxt = attempts[i + 1] if i + 1 < len(attempts) else None
        if nxt is None:
            if running is not None:
                segments.append(Segment(max(start, running), None))
            continue
        failures = [f for p in by_attempt[n] if (f := pod_failure(p)) is not None]
        if failures:
            at, cause = min(failures, key=lambda f: f[0])
        else:
            at = min((created(p) or start) for p in by_attempt[nxt])
            cause = Cause("worker exit", detail=f"JobSet restart {nxt}")
        if running is not None and at >= running:
            segments.append(Segment(max(start, running), at, cause))
    return segments, notes
