"""What `workload list` and `workload status` print, as plain data (JSON-ready). Pure.

Builds on workload_view (state, rows, explanations) with the Kueue side: where a workload is
in admission (pending, quota reserved, admitted, evicted, finished), on which ClusterQueue and
flavors, which admission checks it waits for, and how busy its queue is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from xcli.spec import format_duration
from xcli.workload.jobset.view import (
    WorkloadRow,
    explain,
    first_failure,
    worker_statuses,
    workload_row,
)
from xcli.workload.jobset.waiting import waiting_reason

Obj = Mapping[str, Any]

RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"


def _conditions(obj: Obj | None) -> dict[str, Obj]:
    found = ((obj or {}).get("status") or {}).get("conditions") or []
    return {c.get("type", ""): c for c in found}


def admission(kueue: Obj | None) -> dict[str, Any]:
    """Kueue's view of one workload: state, reason and message, queue, flavors, checks."""
    if kueue is None:
        return {"state": "none", "reason": "", "message": "Kueue has no Workload for it"}
    conds = _conditions(kueue)
    state, cond = "pending", conds.get("QuotaReserved") or {}
    for kind, name in (
        ("Finished", "finished"),
        ("Evicted", "evicted"),
        ("Admitted", "admitted"),
        ("QuotaReserved", "quota-reserved"),
    ):
        if (conds.get(kind) or {}).get("status") == "True":
            state, cond = name, conds[kind]
            break
    status = kueue.get("status") or {}
    admitted = status.get("admission") or {}
    flavors: dict[str, str] = {}
    for podset in admitted.get("podSetAssignments") or []:
        flavors.update(podset.get("flavors") or {})
    checks = [
        {"name": c.get("name", ""), "state": c.get("state", ""), "message": c.get("message", "")}
        for c in status.get("admissionChecks") or []
    ]
    return {
        "state": state,
        "reason": cond.get("reason", ""),
        "message": cond.get("message", ""),
        "workload": (kueue.get("metadata") or {}).get("name", ""),
        "queue": (kueue.get("spec") or {}).get("queueName", ""),
        "cluster_queue": admitted.get("clusterQueue", ""),
        "flavors": flavors,
        "admission_checks": checks,
    }


def queue_position(summary: Obj, workload: str) -> dict[str, int] | None:
    """1-based positions of Kueue Workload `workload` in a PendingWorkloadsSummary (Kueue's
    visibility API counts from 0)."""
    for item in summary.get("items") or []:
        if (item.get("metadata") or {}).get("name") == workload:
            return {
                "local_queue": int(item.get("positionInLocalQueue", 0)) + 1,
                "cluster_queue": int(item.get("positionInClusterQueue", 0)) + 1,
            }
    return None


def row_dict(row: WorkloadRow) -> dict[str, Any]:
    return asdict(row)


def row_cells(row: WorkloadRow, note: str = "") -> list[str]:
    """NAME STATE PRIORITY ACCELERATOR SLICES CHIPS RESTARTS AGE DURATION NOTE."""
    duration = row.duration_seconds
    return [
        row.name,
        row.state,
        row.priority,
        row.accelerator,
        str(row.slices),
        str(row.chips),
        str(row.restarts),
        short_duration(row.age_seconds),
        "-" if duration is None else short_duration(duration),
        note,
    ]


def short_duration(seconds: int) -> str:
    """The two largest units: 90061 -> '1d1h'."""
    text = format_duration(max(0, seconds))
    parts = re.findall(r"\d+[dhms]", text)
    return "".join(parts[:2])


LIST_HEADERS = (
    "NAME",
    "STATE",
    "PRIORITY",
    "ACCELERATOR",
    "SLICES",
    "CHIPS",
    "RESTARTS",
    "AGE",
    "DURATION",
    "KUEUE",
)


def list_note(state: str, kueue: Obj | None) -> str:
    """The KUEUE column: admission state, and for a queued workload the short reason."""
    adm = admission(kueue)
    if state == "queued" and adm["state"] in ("pending", "evicted", "none"):
        reason = adm["reason"] or ("no Workload yet" if adm["state"] == "none" else "")
        return f"{adm['state']}: {reason}" if reason else adm["state"]
    return str(adm["state"])


def current_pods(js: Obj, pods: Iterable[Obj]) -> list[Obj]:
    """The pods of the JobSet's current attempt (pods of an earlier attempt may linger)."""
    attempt = str((js.get("status") or {}).get("restarts", 0) or 0)
    pods = list(pods)
    mine = [
        p
        for p in pods
        if ((p.get("metadata") or {}).get("labels") or {}).get(RESTART_ATTEMPT) in (None, attempt)
    ]
    return mine or pods


def status_report(
    js: Obj,
    kueue: Obj | None,
    pods: Iterable[Obj],
    events: Iterable[Obj],
    now: datetime,
    queue: Mapping[str, Any] | None = None,
    position: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Everything `workload status` shows: summary, Kueue admission, why, workers."""
    pods = current_pods(js, pods)
    row = workload_row(js, now)
    workers = worker_statuses(pods)
    first = first_failure(workers) if row.state == "failed" else None
    why = explain(js, kueue, pods, events)
    kueue_info = {**admission(kueue), "position": dict(position) if position else None}
    waiting = waiting_reason(kueue) if row.state == "queued" else None
    kueue_info["waiting"] = waiting[0] if waiting else None  # workload/jobset/waiting.py
    if waiting and waiting[0] != "other":  # Kueue's own words follow in explain()'s line
        why.insert(0, waiting[1])
    if row.state == "queued" and position:
        why.append(
            f"position {position['local_queue']} in LocalQueue {kueue_info['queue']} "
            f"({position['cluster_queue']} in its ClusterQueue)"
        )
    if row.state == "queued" and queue:
        why.append(
            f"ClusterQueue {queue.get('name')}: {queue.get('pending_workloads', 0)} pending, "
            f"{queue.get('admitted_workloads', 0)} admitted; "
            + ", ".join(
                f"{res} used {use.get('used')} of {use.get('quota')}"
                for res, use in (queue.get("resources") or {}).items()
            )
        )
    return {
        **row_dict(row),
        "kueue": kueue_info,
        "why": why,
        "slice_phases": slice_phases(workers),
        "workers": [_worker_dict(w) for w in workers],
        "first_failure": _worker_dict(first) if first else None,
    }


def slice_phases(workers: Iterable[Any]) -> dict[str, dict[str, int]]:
    """Per slice, how many workers are in each phase: {"0": {"Running": 64}, ...}."""
    found: dict[str, dict[str, int]] = {}
    for worker in workers:
        first = worker.worker.split("/")[0]  # s<N>, or a Pathways head
        phases = found.setdefault(first[1:] if "/" in worker.worker else first, {})
        phases[worker.phase] = phases.get(worker.phase, 0) + 1
    return found


def _worker_dict(worker: Any) -> dict[str, Any]:
    out = asdict(worker)
    finished = out.get("finished_at")
    out["finished_at"] = finished.isoformat() if finished else None
    return out


def status_lines(report: Mapping[str, Any], cluster: str) -> list[str]:
    """The text form of a status report, above the workers table."""
    age = short_duration(report["age_seconds"])
    lines = [
        f"workload {report['name']} on cluster {cluster}: {report['state']}",
        f"  {report['slices']} slice(s) of {report['accelerator']}, {report['chips']} chips, "
        f"priority {report['priority']}, restarts {report['restarts']} "
        f"(disruptions {report.get('disruptions', 0)}, failures {report.get('failures', 0)}), "
        f"age {age}",
    ]
    adm = report["kueue"]
    text = f"  kueue: {adm['state']}"
    if adm["state"] == "none":
        text += " (Kueue has no Workload for it: cleaned up after it finished, or not queued yet)"
    if adm.get("cluster_queue"):
        text += f" on ClusterQueue {adm['cluster_queue']}"
    if adm.get("flavors"):
        text += " (" + ", ".join(f"{k}: {v}" for k, v in sorted(adm["flavors"].items())) + ")"
    if adm.get("reason") and adm["reason"].lower() not in (adm["state"], "admitted"):
        text += f", {adm['reason']}"
    lines.append(text)
    for check in adm.get("admission_checks") or []:
        lines.append(
            f"  admission check {check['name']}: {check['state']} {check['message']}".rstrip()
        )
    for slice_id, phases in report.get("slice_phases", {}).items():
        counts = ", ".join(f"{n} {phase}" for phase, n in sorted(phases.items()))
        lines.append(f"  slice {slice_id}: {counts}")
    if report["why"]:
        lines.append("why:")
        lines += [f"  {line}" for line in report["why"]]
    return lines
