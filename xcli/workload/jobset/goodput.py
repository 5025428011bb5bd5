"""`xcli workload goodput` of a JobSet: read what xcli/workload/goodput/gke.py computes from.

One JobSet, its Kueue Workload and that Workload's events, the current attempt's pods, and
worker 0's log read with timestamps (the kubelet's time for each line: the program needs no
clock). `list_fractions` is what `workload list --output json` carries without reading pods
or logs: scheduling goodput from Kueue's admissions alone, the other two null.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from typing import Any

from xcli.errors import CloudError, XcliError
from xcli.plan.cluster import ClusterRef
from xcli.workload.goodput.compute import compute
from xcli.workload.goodput.gke import gke_timeline, ts, worker0_pods
from xcli.workload.jobset.live import NAMESPACE, Live, get_jobset, kueue_workloads, pods_of
from xcli.workload.jobset.logs import container_of
from xcli.workload.jobset.view import kueue_workload_for, workload_row

Obj = Mapping[str, Any]


def _peak(js: Obj) -> float | None:
    from xcli.catalog import lookup

    name = ((js.get("metadata") or {}).get("labels") or {}).get("xcli/accelerator", "")
    try:
        peak = lookup(name).peak_bf16_tflops.value * 1e12
    except XcliError:
        return None
    return peak or None  # a CPU shape has no accelerator peak: no MFU


def _expected_pods(js: Obj) -> int:
    total = 0
    for rjob in (js.get("spec") or {}).get("replicatedJobs") or []:
        job = rjob["template"]["spec"]
        total += int(rjob.get("replicas", 1)) * min(
            int(job.get("parallelism", 1)), int(job.get("completions", 1))
        )
    return total


def goodput_report(
    live: Live,
    ref: ClusterRef,
    name: str,
    namespace: str = NAMESPACE,
    seen: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`seen`: the JobSet, Kueue Workload and pods a caller already read (`workload status`'s
    status_objects), so they are not read twice."""
    api = live.api(ref)
    if seen is None:
        js = get_jobset(live, ref, name, namespace)
        kueue = kueue_workload_for(name, kueue_workloads(api, namespace))
        pods = pods_of(api, name, namespace)
    else:
        js, kueue, pods = seen["jobset"], seen["kueue"], seen["pods"]
    events: list[dict[str, Any]] = []
    if kueue is not None:
        wl_name = kueue["metadata"]["name"]
        fields = {"involvedObject.kind": "Workload", "involvedObject.name": wl_name}
        events = api.list("v1", "Event", namespace, fields=fields)
    lines: list[str] = []
    for lead in worker0_pods(pods):  # every attempt's worker 0 that is still there
        pod = lead["metadata"]["name"]
        with suppress(CloudError):  # not started yet, or gone: no marks from it
            container = container_of(lead)  # main; a headless Pathways head: its proxy
            lines += api.logs(pod, namespace, container=container, timestamps=True)
    now = live.now()
    row = workload_row(js, now)
    timeline = gke_timeline(
        js, kueue, pods, events, lines,
        now=now.timestamp(), expected_pods=_expected_pods(js), chips=row.chips,
        peak_flops_per_chip=_peak(js),
    )  # fmt: skip
    return compute(timeline).to_dict()


def list_fractions(js: Obj, kueue: Obj | None, now: float) -> dict[str, Any]:
    """From the objects `workload list` already read: scheduling goodput counts Kueue's
    admitted time (`accumulatedPastExecutionTimeSeconds` plus the current admission) as held,
    pods' start-up included; runtime and program goodput need pods and logs
    (`workload goodput NAME`), so they are null here (docs/goodput.md)."""
    status = (kueue or {}).get("status") or {}
    done = [
        c for c in (js.get("status") or {}).get("conditions") or []
        if c.get("type") in ("Completed", "Failed") and c.get("status") == "True"
    ]  # fmt: skip
    end = (ts(done[0].get("lastTransitionTime")) or now) if done else now
    submitted = ts((js.get("metadata") or {}).get("creationTimestamp")) or end
    held = float(status.get("accumulatedPastExecutionTimeSeconds") or 0)
    for cond in status.get("conditions") or []:
        if cond.get("type") == "Admitted" and cond.get("status") == "True":
            held += end - (ts(cond.get("lastTransitionTime")) or end)
    wall = end - submitted
    return {
        "scheduling_goodput": round(min(1.0, max(0.0, held / wall)), 4) if wall > 0 else None,
        "runtime_goodput": None,
        "program_goodput": None,
    }
