"""What `workload list` and `workload status` show, computed from Kubernetes API objects. Pure.

The callers (xcli/workload/jobset/live.py) fetch the JobSets, the Kueue Workload
that owns the admission of each, the pods and their events, and hand the JSON here.
Field names follow JobSet v1alpha2 (status.conditions, restarts, replicatedJobsStatus),
Kueue v1beta2 (status.conditions QuotaReserved/Admitted/Evicted/Finished, admissionChecks)
and core/v1 Pods and Events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

JOB_INDEX = "jobset.sigs.k8s.io/job-index"
RJOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
# A Pathways JobSet's head (xcli/workload/pathways/jobset.py HEAD): one pod, named "head" in
# status and logs (`workload logs NAME --slice head`), apart from the slices' workers.
HEAD = "head"
HEAD_JOB = "pathways-head"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
STATES = ("queued", "running", "succeeded", "failed")

Obj = Mapping[str, Any]


def _condition(obj: Obj, kind: str) -> Obj | None:
    for cond in obj.get("status", {}).get("conditions", []) or []:
        if cond.get("type") == kind:
            return dict(cond)
    return None


def _true(obj: Obj, kind: str) -> bool:
    cond = _condition(obj, kind)
    return cond is not None and cond.get("status") == "True"


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def jobset_state(js: Obj) -> str:
    """queued (suspended by Kueue until admitted), running, succeeded or failed."""
    if _true(js, "Completed"):
        return "succeeded"
    if _true(js, "Failed"):
        return "failed"
    if js.get("spec", {}).get("suspend") or _true(js, "Suspended"):
        return "queued"
    return "running"


@dataclass(frozen=True)
class WorkloadRow:
    """One line of `xcli workload list`."""

    name: str
    state: str
    priority: str
    accelerator: str
    slices: int
    chips: int
    restarts: int
    age_seconds: int
    duration_seconds: int | None  # creation to finish; None while not finished
    disruptions: int = 0  # restarts outside --max-restarts (restart_counts)
    failures: int = 0  # restarts that spent --max-restarts
    slice_restarts: int = 0  # of those, restarts of one slice's Job only (--restart-scope slice)


@dataclass(frozen=True)
class RestartCounts:
    disruptions: int
    failures: int
    slice_restarts: int

    @property
    def total(self) -> int:
        return self.disruptions + self.failures


def restart_counts(js: Obj) -> RestartCounts:
    """Restarts outside the budget (disruptions) and inside it (failures), from the JobSet's
    counters (jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go l.210-218, l.276-288):
    `restarts` counts every whole-JobSet restart, `restartsCountTowardsMax` only the counted
    ones; per Job index, `jobRestarts` and `jobRestartsCountTowardsMax` the same for one Job.
    xcli's only ignore-max rules are its disruption rules, so the difference is disruptions."""
    status = js.get("status") or {}
    whole = int(status.get("restarts") or 0)
    counted = int(status.get("restartsCountTowardsMax") or 0)
    per_job = per_job_counted = 0
    for st in status.get("replicatedJobsStatus") or []:
        per_job += sum(int(n) for n in st.get("jobRestarts") or [])
        per_job_counted += sum(int(n) for n in st.get("jobRestartsCountTowardsMax") or [])
    failures = counted + per_job_counted
    return RestartCounts(whole + per_job - failures, failures, per_job)


def workload_row(js: Obj, now: datetime) -> WorkloadRow:
    meta, spec = js.get("metadata", {}), js.get("spec", {})
    labels = meta.get("labels", {}) or {}
    slices = chips = 0
    for rjob in spec.get("replicatedJobs", []):
        job = rjob["template"]["spec"]
        pods = min(job.get("parallelism", 1), job.get("completions", 1))
        pod = job["template"]["spec"]
        per_pod = sum(_accelerators(c) for c in pod.get("containers", []))
        slices += rjob.get("replicas", 1)
        chips += rjob.get("replicas", 1) * pods * per_pod
    created = _time(meta.get("creationTimestamp")) or now
    state = jobset_state(js)
    counts = restart_counts(js)
    end = _condition(js, "Completed" if state == "succeeded" else "Failed")
    finished = _time(end.get("lastTransitionTime")) if end and state in STATES[2:] else None
    return WorkloadRow(
        name=meta.get("name", ""),
        state=state,
        priority=labels.get("xcli/priority", _priority_class(spec)),
        accelerator=labels.get("xcli/accelerator", "-"),
        slices=slices,
        chips=chips,
        restarts=counts.total,
        age_seconds=max(0, int((now - created).total_seconds())),
        duration_seconds=int((finished - created).total_seconds()) if finished else None,
        disruptions=counts.disruptions,
        failures=counts.failures,
        slice_restarts=counts.slice_restarts,
    )


def _accelerators(container: Obj) -> int:
    limits = container.get("resources", {}).get("limits", {}) or {}
    return sum(int(str(limits.get(k, 0))) for k in ("google.com/tpu", "nvidia.com/gpu"))


def _priority_class(spec: Obj) -> str:
    for rjob in spec.get("replicatedJobs", []):
        name = rjob["template"]["spec"]["template"]["spec"].get("priorityClassName")
        if name:
            return str(name)
    return "-"


def list_rows(jobsets: Iterable[Obj], now: datetime, state: str | None = None) -> list[WorkloadRow]:
    """Newest first; only `state` if given."""
    rows = [workload_row(js, now) for js in jobsets]
    rows = [r for r in rows if state in (None, r.state)]
    return sorted(rows, key=lambda r: (r.age_seconds, r.name))


@dataclass(frozen=True)
class WorkerStatus:
    worker: str  # s<slice>/w<index>, as `xcli ssh` prefixes lines
    pod: str
    phase: str
    node: str | None
    exit_code: int | None
    reason: str
    finished_at: datetime | None


def worker_statuses(pods: Iterable[Obj]) -> list[WorkerStatus]:
    """One entry per pod, in slice then worker order."""
    out = []
    for pod in pods:
        meta, status = pod.get("metadata", {}), pod.get("status", {})
        labels = {**(meta.get("annotations") or {}), **(meta.get("labels") or {})}
        worker = f"s{labels.get(JOB_INDEX, '0')}/w{labels.get(COMPLETION_INDEX, '0')}"
        if labels.get(RJOB_LABEL) == HEAD_JOB:
            worker = HEAD
        code, reason, finished = None, status.get("reason", ""), None
        for cs in status.get("containerStatuses", []) or []:
            term = (cs.get("state") or {}).get("terminated")
            if term:
                code, finished = term.get("exitCode"), _time(term.get("finishedAt"))
                reason = term.get("reason", reason)
        out.append(
            WorkerStatus(
                worker=worker,
                pod=meta.get("name", ""),
                phase=status.get("phase", "Unknown"),
                node=pod.get("spec", {}).get("nodeName"),
                exit_code=code,
                reason=reason or "",
                finished_at=finished,
            )
        )
    return sorted(out, key=_order)


def _order(w: WorkerStatus) -> tuple[int, ...]:
    """The head first, then slice by slice, worker by worker."""
    return (-1,) if w.worker == HEAD else tuple(int(p[1:]) for p in w.worker.split("/"))


def first_failure(workers: Sequence[WorkerStatus]) -> WorkerStatus | None:
    """The worker that failed first: the earliest non-zero exit (or failed phase)."""
    failed = [w for w in workers if (w.exit_code not in (None, 0)) or w.phase == "Failed"]
    if not failed:
        return None
    return min(failed, key=lambda w: (w.finished_at is None, w.finished_at or datetime.min))


def kueue_workload_for(jobset_name: str, workloads: Iterable[Obj]) -> Obj | None:
    """The Kueue Workload that Kueue created for a JobSet (it owns none; the JobSet owns it)."""
    for wl in workloads:
        for owner in wl.get("metadata", {}).get("ownerReferences", []) or []:
            if owner.get("kind") == "JobSet" and owner.get("name") == jobset_name:
                return wl
    return None


def explain(
    js: Obj, kueue: Obj | None, pods: Iterable[Obj], events: Iterable[Obj] = ()
) -> list[str]:
    """Answer "why is my job not running?" (or how it ended), most important line first."""
    state = jobset_state(js)
    workers = worker_statuses(pods)
    lines: list[str] = []
    if state == "queued":
        lines += _admission(kueue)
    if state in ("succeeded", "failed"):
        cond = _condition(js, "Completed" if state == "succeeded" else "Failed") or {}
        lines.append(f"{state}: {cond.get('reason', '')} {cond.get('message', '')}".strip())
        first = first_failure(workers)
        if first is not None:
            lines.append(
                f"first failure: worker {first.worker} (pod {first.pod}) exit code "
                f"{first.exit_code if first.exit_code is not None else '-'} {first.reason}".rstrip()
            )
    pending = {w.pod for w in workers if w.phase == "Pending"}
    for event in events:
        involved = event.get("involvedObject", {}).get("name")
        if involved in pending and event.get("reason") == "FailedScheduling":
            lines.append(f"pod {involved} not scheduled: {event.get('message', '')}")
            pending.discard(involved)
    counts = restart_counts(js)
    if counts.total:
        lines.append(
            f"restarted {counts.total} time(s): {counts.disruptions} after disruptions (free), "
            f"{counts.failures} after failures (counted against --max-restarts)"
        )
    return lines


def _admission(kueue: Obj | None) -> list[str]:
    if kueue is None:
        return ["queued: Kueue has not created a Workload for it yet (is the queue-name right?)"]
    lines = []
    reserved = _condition(kueue, "QuotaReserved")
    if reserved is None or reserved.get("status") != "True":
        why = (reserved or {}).get("message") or "waiting for Kueue to consider it"
        lines.append(f"queued: no quota reserved: {why}")
    evicted = _condition(kueue, "Evicted")
    if evicted and evicted.get("status") == "True":
        lines.append(f"evicted ({evicted.get('reason')}): {evicted.get('message', '')}")
    for check in kueue.get("status", {}).get("admissionChecks", []) or []:
        if check.get("state") != "Ready":
            lines.append(
                f"admission check {check.get('name')}: {check.get('state')} "
                f"{check.get('message', '')}".rstrip()
            )
    return lines


# ---- selections for wait, delete and logs --------------------------------------------------


def wait_exit_code(js: Obj) -> int | None:
    """`workload wait`: 0 succeeded, 1 failed, None still queued or running (124 on timeout is
    the caller's)."""
    return {"succeeded": 0, "failed": 1}.get(jobset_state(js))


def select_for_delete(
    jobsets: Iterable[Obj],
    now: datetime,
    state: str | None,
    older_than: int | None,
    contains: str = "",
) -> list[str]:
    """`workload delete [--state S] [--older-than D] [--name-contains X]`: names of xcli's
    workloads in state S (any, when None; `finished`: succeeded or failed) whose age is more
    than D seconds and whose name holds X, oldest first."""
    states = FINISHED if state == "finished" else (state,)
    rows = [workload_row(js, now) for js in jobsets if _managed(js)]
    chosen = [
        r
        for r in rows
        if (state is None or r.state in states)
        and (older_than is None or r.age_seconds > older_than)
        and contains in r.name
    ]
    return [r.name for r in sorted(chosen, key=lambda r: (-r.age_seconds, r.name))]


# XPK's FINISHED: "FAILED and SUCCESSFUL are sub-states of FINISHED" (src/xpk/parser/workload.py
# l.450-465 at 367c838253be)
FINISHED = ("succeeded", "failed")


def _managed(js: Obj) -> bool:
    labels = js.get("metadata", {}).get("labels", {}) or {}
    return bool(labels.get("app.kubernetes.io/managed-by") == "xcli")


def select_workers(
    workers: Sequence[WorkerStatus], worker: str = "all", slice_: str = "all"
) -> list[WorkerStatus]:
    """`workload logs --worker all|N --slice all|N`, the same selection words as `xcli ssh`."""
    out = []
    for w in workers:
        if w.worker == HEAD:  # --slice head (or every pod)
            if slice_ in ("all", HEAD) and worker == "all":
                out.append(w)
            continue
        s, i = (part[1:] for part in w.worker.split("/"))
        if slice_ in ("all", s) and worker in ("all", i):
            out.append(w)
    return out


def log_prefix(worker: WorkerStatus, slices: int) -> str:
    """Line prefix as `xcli ssh` prints it: [w3] for one slice, [s1/w3] for several."""
    if worker.worker == HEAD:
        return f"[{HEAD}]"
    return f"[{worker.worker}]" if slices > 1 else f"[{worker.worker.split('/')[1]}]"
