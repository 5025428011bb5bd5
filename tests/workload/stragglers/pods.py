"""A JobSet's pods and their timestamped logs, made from a VM run's recorded marks: the same
arrivals as the GKE path reads them (tests and benchmarks/stragglers.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from xcli.workload.stragglers.marks import WorkerMarks


def rfc3339(at: float) -> str:
    """As the kubelet writes `timestamps=true` lines (RFC 3339, nanoseconds, Z)."""
    whole = int(at)
    nanos = round((at - whole) * 1e9)
    if nanos == 1_000_000_000:
        whole, nanos = whole + 1, 0
    stamp = datetime.fromtimestamp(whole, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{nanos:09d}Z"


def pod_for(jobset: str, worker: str, node: str) -> dict[str, Any]:
    slice_, _, index = worker.partition("/")
    s, w = slice_.lstrip("s"), index.lstrip("w")
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{jobset}-slice-{s}-{w}-x{s}y{w}",
            "namespace": "default",
            "creationTimestamp": "2026-11-22T10:00:00Z",
            "labels": {
                "jobset.sigs.k8s.io/jobset-name": jobset,
                "jobset.sigs.k8s.io/replicatedjob-name": "slice",
                "jobset.sigs.k8s.io/job-index": s,
                "jobset.sigs.k8s.io/restart-attempt": "0",
                "batch.kubernetes.io/job-completion-index": w,
            },
        },
        "spec": {"nodeName": node, "containers": [{"name": "main", "image": "trainer:1"}]},
        "status": {"phase": "Running"},
    }


def log_of(marks: WorkerMarks, other: Iterable[str] = ()) -> str:
    pairs = zip(marks.steps, marks.times, strict=True)
    lines = [f"{rfc3339(at)} XCLI_GOODPUT arrive={s}" for s, at in pairs]
    return "\n".join([*other, *lines]) + "\n"
