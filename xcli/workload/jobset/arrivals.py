"""Every pod's arrival marks of a JobSet, for `xcli workload stragglers` and `report`.

The pods are listed once (the Kubernetes gateway pages through them, 500 at a time), then each
running or finished pod's log is read with `timestamps=true` (the kubelet's time for each line:
the program needs no clock), at most CONCURRENCY at once. The current attempt's pods only: a
JobSet restart recreates every pod, and an older attempt's marks would be another run's steps.
A pod whose log cannot be read (not started, gone) is named in a note, not fatal.

One Cloud Logging query could read the same lines where the cluster sends container logs there
(GKE's default): docs/stragglers.md says what it would cost at 2,304 pods, and why the pod
logs are read instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from xcli.errors import CloudError
from xcli.plan.cluster import ClusterRef
from xcli.workload.goodput.gke_attempts import attempt_of, worker_label
from xcli.workload.jobset.live import NAMESPACE, Live, pods_of
from xcli.workload.jobset.logs import container_of
from xcli.workload.stragglers.marks import (
    Arrivals,
    WorkerMarks,
    from_log_lines,
    order_key,
    worker_marks,
)

# Log reads in flight at once: enough to hide a round trip each (2,304 pods in ~2,304/16 round
# trips), few enough not to crowd the API server (kube-apiserver's default
# --max-requests-inflight is 400 for the whole cluster).
CONCURRENCY = 16
PATHWAYS_HEAD = "pathways-head"
RJOB = "jobset.sigs.k8s.io/replicatedjob-name"

Obj = Mapping[str, Any]


def arrivals(
    live: Live,
    ref: ClusterRef,
    name: str,
    namespace: str = NAMESPACE,
    since_seconds: int | None = None,
) -> Arrivals:
    api = live.api(ref)
    pods = [p for p in pods_of(api, name, namespace) if _labels(p).get(RJOB) != PATHWAYS_HEAD]
    latest = max((attempt_of(p) for p in pods), default=0)
    pods = [p for p in pods if attempt_of(p) == latest]
    pods.sort(key=lambda p: order_key(worker_label(p)))

    def read(pod: Obj) -> tuple[WorkerMarks | None, str | None]:
        meta = pod.get("metadata") or {}
        host = (pod.get("spec") or {}).get("nodeName")
        try:
            lines = api.logs(
                meta["name"], namespace, container=container_of(pod), timestamps=True,
                since_seconds=since_seconds,
            )  # fmt: skip
            pairs = from_log_lines(lines)
        except CloudError as exc:
            return None, f"{worker_label(pod)} ({meta.get('name')}): {exc.message}"
        return worker_marks(worker_label(pod), host, pairs), None

    with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
        results = list(pool.map(read, pods))
    found = tuple(m for m, _ in results if m is not None and len(m.steps))
    unread = [why for _, why in results if why is not None]
    notes = [f"log not read: {why}" for why in unread[:5]]
    if len(unread) > 5:
        notes.append(f"... and {len(unread) - 5} more pods whose logs could not be read")
    pages = max(1, -(-len(pods) // 500))  # the list's pages (KubeApi.list's chunk size)
    return Arrivals(found, "pod logs", requests=pages + len(pods), notes=tuple(notes))


def _labels(pod: Obj) -> Mapping[str, str]:
    return (pod.get("metadata") or {}).get("labels") or {}
