"""Goodput of a JobSet on GKE from its Kubernetes objects and timestamped pod logs. Pure.

Sources (the reader is xcli/workload/jobset/goodput.py):
- the JobSet: `metadata.creationTimestamp` (submission), its `Completed`/`Failed` condition
  (the end), the chips it asks for;
- its Kueue Workload: `Admitted` events and the `Admitted` condition's lastTransitionTime
  (each admission), `Preempted`/`EvictedDueTo<Reason>` events (each eviction and why; Kueue's
  event reasons, kubernetes-sigs/kueue pkg/workload), and
  `status.accumulatedPastExecutionTimeSeconds` when the events have expired;
- its pods: every container's `startedAt` (every worker running), `DisruptionTarget`
  conditions and exit codes;
- worker 0's log with timestamps (`GET .../log?timestamps=true`): the goodput marks.

Kubernetes deletes an evicted workload's pods, so an earlier admission's logs are gone; that
segment counts under `other` and a note says so (docs/goodput.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xcli.workload.goodput.gke_attempts import attempt_segments, ts
from xcli.workload.goodput.model import Cause, Mark, Segment, Timeline, parse_marks

PATHWAYS_HEAD = "pathways-head"  # the head's replicated job (xcli/workload/pathways/jobset.py)

__all__ = ["gke_timeline", "log_marks", "ts", "worker0_pods"]

Obj = Mapping[str, Any]
EVICTED_PREFIX = "EvictedDueTo"
CAUSES = {"Preempted": "preemption"}  # any other reason is an eviction (the detail names it)


def log_marks(lines: Iterable[str]) -> list[Mark]:
    """Marks of log lines read with timestamps=true: `<RFC 3339> <line>`."""
    marks = []
    for line in lines:
        stamp, _, text = line.partition(" ")
        at = ts(stamp) if stamp[:1].isdigit() else None
        if at is not None:
            marks.extend(parse_marks(at, text))
    return marks


def _conditions(obj: Obj | None) -> dict[str, Obj]:
    return {c.get("type", ""): c for c in ((obj or {}).get("status") or {}).get("conditions") or []}


def _event_times(event: Obj) -> list[float]:
    """Each occurrence an Event still tells: its first and (count > 1) its last time."""
    first = ts(event.get("firstTimestamp")) or ts(event.get("eventTime"))
    last = ts(event.get("lastTimestamp")) or first
    times = [t for t in (first,) if t is not None]
    if int(event.get("count") or 1) > 1 and last is not None and last != first:
        times.append(last)
    return times


def _cycles(
    kueue: Obj | None, events: Sequence[Obj]
) -> tuple[list[float], list[tuple[float, Cause]]]:
    admitted: set[float] = set()
    evicted: dict[float, Cause] = {}
    for event in events:
        reason = str(event.get("reason") or "")
        if reason == "Admitted":
            admitted.update(_event_times(event))
        elif reason.startswith(EVICTED_PREFIX):
            why = reason[len(EVICTED_PREFIX) :]
            cause = Cause(CAUSES.get(why, "eviction"), detail=f"{why}: {event.get('message', '')}")
            for at in _event_times(event):
                evicted[at] = cause
    cond = _conditions(kueue).get("Admitted") or {}
    current = ts(cond.get("lastTransitionTime"))
    if cond.get("status") == "True" and current is not None:
        admitted.add(current)
    return sorted(admitted), sorted(evicted.items(), key=lambda e: e[0])


def gke_timeline(
    js: Obj,
    kueue: Obj | None,
    pods: Sequence[Obj],
    events: Sequence[Obj],
    worker0_log: Sequence[str],  # every worker-0 pod's timestamped log, any attempt
    *,
    now: float,
    expected_pods: int,
    chips: int,
    peak_flops_per_chip: float | None,
) -> Timeline:
    """`pods`: the JobSet's pods, every attempt that still has some."""
    submitted = ts((js.get("metadata") or {}).get("creationTimestamp")) or now
    done = _conditions(js).get("Completed") or _conditions(js).get("Failed") or {}
    finished = done.get("status") == "True"
    end = (ts(done.get("lastTransitionTime")) or now) if finished else now
    admissions, evictions = _cycles(kueue, events)
    notes = []
    segments: list[Segment] = []
    for i, start in enumerate(admissions):
        ends = [e for e in evictions if e[0] >= start]
        later = admissions[i + 1] if i + 1 < len(admissions) else None
        if later is not None:  # an earlier admission: its pods are gone
            stop, cause = ends[0] if ends and ends[0][0] <= later else (later, Cause("eviction"))
            segments.append(Segment(start, stop, cause, logs=False))
            notes.append(
                f"the logs of the admission at {_iso(start)} are gone (Kubernetes deleted its "
                "pods at the eviction): its time counts as other"
            )
            continue
        if ends:  # evicted and not admitted again yet
            segments.append(Segment(start, ends[0][0], ends[0][1], logs=False))
            continue
        restarts = int((js.get("status") or {}).get("restarts") or 0)
        current, more = attempt_segments(start, pods, restarts, expected_pods)
        segments += current
        notes += more
    past = float(
        ((kueue or {}).get("status") or {}).get("accumulatedPastExecutionTimeSeconds") or 0
    )
    held_before = sum((s.end or end) - s.start for s in segments if s.end is not None)
    if past > held_before + 1:
        notes.append(
            f"Kueue counts {past:.0f}s admitted before the current admission; its events have "
            "expired, so that time is not itemised"
        )
    return Timeline(
        submitted=submitted,
        admitted=admissions[0] if admissions else None,
        end=end,
        segments=tuple(segments),
        marks=tuple(sorted(log_marks(worker0_log), key=lambda m: m.at)),
        finished=finished,
        chips=chips,
        peak_flops_per_chip=peak_flops_per_chip,
        notes=tuple(notes),
    )


def worker0_pods(pods: Sequence[Obj]) -> list[Obj]:
    """Worker 0's pod of every attempt, oldest attempt first; for a Pathways workload its head,
    where the program that prints the progress lines runs."""
    from xcli.workload.goodput.gke_attempts import attempt_of, worker_label

    rjob = "jobset.sigs.k8s.io/replicatedjob-name"
    heads = [
        p
        for p in pods
        if ((p.get("metadata") or {}).get("labels") or {}).get(rjob) == PATHWAYS_HEAD
    ]
    return sorted(heads or [p for p in pods if worker_label(p) == "s0/w0"], key=attempt_of)


def _iso(at: float) -> str:
    from xcli.workload.goodput.model import iso

    return iso(at)
