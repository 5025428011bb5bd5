"""The live side of `xcli workload ...` on GKE: what is read from, and sent to, a cluster.

Planning stays pure (xcli/workload/jobset/plan.py, xcli/workload/jobset/manifest.py); this
module reads the cluster's metadata and workloads through the Kubernetes gateway and builds
the handlers that run the plans.

How a cluster is reached is one object, `Live`: a function from ClusterRef to KubeApi (the
cluster's provider's ClusterAccess, providers/base.py), plus the clocks and sleep the polling
loops use (Deps.timing). Every function here takes it as its first argument; the JobSet kind
(xcli/workload/jobset/kind.py) holds one, built by the use cases from their Deps
(xcli/app/workload_facts.py:cluster_live): tests put an in-memory API server in the provider
registry (`Registry.with_cluster_access`) and a fake clock in `main(argv, timing=...)`. No
module global, no environment variable changes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from xcli.errors import CloudError, ConfigError, Interrupted, NotFoundError
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef
from xcli.plan.contract import Handler
from xcli.plan.gke.versions import version_note
from xcli.workload.jobset.manifest import API_VERSION as JOBSET_API
from xcli.workload.jobset.report import admission, queue_position
from xcli.workload.jobset.view import (
    JOBSET_NAME,
    jobset_state,
    kueue_workload_for,
    select_for_delete,
    wait_exit_code,
)
from xcli.workload.spec import ClusterMeta, cluster_meta_from_dict

METADATA_CONFIGMAP = "xcli-cluster-metadata"  # namespace default, written by `cluster create`
NAMESPACE = "default"
KUEUE_API = "kueue.x-k8s.io/v1beta2"
# Kueue's on-demand visibility API: the pending workloads of a LocalQueue, in admission order.
VISIBILITY = (
    "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{namespace}/localqueues/{queue}"
    "/pendingworkloads"
)
TIMEOUT_EXIT = 124  # what `timeout(1)` returns; CI scripts already know it
# How long `workload wait` keeps waiting through API errors that waiting can fix: once it has
# seen the workload, an outage of up to ten minutes; before any answer, a few seconds.
OUTAGE_SECONDS = 600.0
OUTAGE_BEFORE_FIRST_ANSWER = 8.0

Obj = dict[str, Any]


def _default_sleep() -> Callable[[float, threading.Event], None]:
    from xcli.gateways.backoff import event_sleep

    return event_sleep


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Live:
    """How this process reaches clusters, and tells time. One KubeApi per cluster is kept."""

    # the cluster's provider's ClusterAccess (xcli/app/workload_facts.py:cluster_live)
    connect: Callable[[ClusterRef], KubeApi]
    now: Callable[[], datetime] = _utcnow  # wall clock: ages and durations
    clock: Callable[[], float] = time.monotonic  # timeouts
    # (seconds, cancel event): xcli.gateways.backoff.event_sleep, which Ctrl-C ends at once
    sleep: Callable[[float, threading.Event], None] = field(default_factory=_default_sleep)
    _apis: dict[ClusterRef, KubeApi] = field(default_factory=dict, repr=False)

    def api(self, ref: ClusterRef) -> KubeApi:
        if ref not in self._apis:
            self._apis[ref] = self.connect(ref)
        return self._apis[ref]


def not_set_up(ref: ClusterRef) -> ConfigError:
    return ConfigError(
        f"cluster {ref.name} was not set up by xcli: it has no ConfigMap "
        f"{NAMESPACE}/{METADATA_CONFIGMAP} (JobSet, Kueue and the workload queue come with it)",
        hint=f"run `xcli cluster create --cluster {ref.name} ...` with the cluster's shape: on "
        "an existing cluster it adds only the missing in-cluster setup",
    )


def read_cluster(
    live: Live,
    ref: ClusterRef,
    namespace: str = NAMESPACE,
    warn: Callable[[str], None] | None = None,
) -> tuple[ClusterMeta, list[str]]:
    """The cluster's metadata (ConfigMap `xcli-cluster-metadata`, read through
    workload_spec.cluster_meta_from_dict) and the names of the JobSets in `namespace`.

    The ConfigMap is always in `default`; a namespace other than that must hold a team's
    LocalQueue (`xcli team create`), else Kueue would never admit the workload. `warn` hears
    when the cluster was set up by an xcli this one cannot fully use (plan/gke/versions.py)."""
    api = live.api(ref)
    config = api.get("v1", "ConfigMap", METADATA_CONFIGMAP, NAMESPACE)
    if config is None:
        raise not_set_up(ref)
    meta = cluster_meta_from_dict(config.get("data") or {}, ref.name)
    team = namespace != NAMESPACE
    if team and api.get(KUEUE_API, "LocalQueue", meta.local_queue, namespace) is None:
        raise ConfigError(
            f"namespace {namespace} on cluster {ref.name} has no LocalQueue {meta.local_queue}, "
            "so Kueue would never admit the workload",
            hint=f"make it a team: xcli team create --cluster {ref.name} --team {namespace} "
            "--quota TYPE=CHIPS (or drop --namespace)",
        )
    note = version_note(config.get("data") or {}, ref.name)
    if note and warn is not None:
        warn(note)
    return meta, [js["metadata"]["name"] for js in jobsets(api, namespace)]


def handlers(live: Live, ref: ClusterRef) -> Mapping[str, Handler]:
    """Live handlers for the workload plans' step kinds: `k8s_apply` (server-side apply,
    fieldManager xcli, force) and `k8s_delete` (foreground delete, then wait until gone)."""
    from xcli.gateways.kube.handlers import KubeHandlers

    api = live.api(ref)
    return KubeHandlers(lambda _cluster: api, sleep=live.sleep, clock=live.clock).handlers()


def jobsets(api: KubeApi, namespace: str = NAMESPACE) -> list[Obj]:
    return api.list(JOBSET_API, "JobSet", namespace)


def get_jobset(live: Live, ref: ClusterRef, name: str, namespace: str = NAMESPACE) -> Obj:
    """One workload's JobSet; NotFoundError naming the workloads there are."""
    api = live.api(ref)
    found = api.get(JOBSET_API, "JobSet", name, namespace)
    if found is not None:
        return found
    names = sorted(js["metadata"]["name"] for js in jobsets(api, namespace))
    hint = "workloads on it: " + ", ".join(names[:10]) if names else "it runs no workloads"
    where = "" if namespace == NAMESPACE else f" in namespace {namespace}"
    raise NotFoundError(f"no workload {name} on cluster {ref.name}{where}", hint=hint)


def kueue_workloads(api: KubeApi, namespace: str = NAMESPACE) -> list[Obj]:
    return api.list(KUEUE_API, "Workload", namespace)


def pods_of(api: KubeApi, name: str, namespace: str = NAMESPACE) -> list[Obj]:
    return api.list("v1", "Pod", namespace, labels={JOBSET_NAME: name})


def list_workloads(
    live: Live, ref: ClusterRef, namespace: str = NAMESPACE
) -> tuple[list[Obj], list[Obj]]:
    """Every JobSet and every Kueue Workload of a namespace."""
    api = live.api(ref)
    return jobsets(api, namespace), kueue_workloads(api, namespace)


def status_objects(
    live: Live, ref: ClusterRef, name: str, namespace: str = NAMESPACE
) -> dict[str, Any]:
    """What `workload status` explains: the JobSet, its Kueue Workload, its pods, the
    scheduling events of its pods, and the ClusterQueue's usage."""
    api = live.api(ref)
    js = get_jobset(live, ref, name, namespace)
    pods = pods_of(api, name, namespace)
    events: list[Obj] = []
    if any((p.get("status") or {}).get("phase") == "Pending" for p in pods):
        scheduling = {"involvedObject.kind": "Pod", "reason": "FailedScheduling"}
        events = api.list("v1", "Event", namespace, fields=scheduling)
    kueue = kueue_workload_for(name, kueue_workloads(api, namespace))
    return {
        "jobset": js,
        "kueue": kueue,
        "position": pending_position(api, kueue, namespace),
        "pods": pods,
        # newest first: explain() quotes the first event it finds for each pending pod
        "events": sorted(events, key=lambda e: str(e.get("lastTimestamp") or ""), reverse=True),
        "queue": _queue_usage(api),
    }


def _queue_usage(api: KubeApi) -> dict[str, Any] | None:
    """The ClusterQueue's usage, if this account may read it (a cluster-scoped object)."""
    from xcli.gateways.kube.status import cluster_status

    try:
        queue: dict[str, Any] | None = cluster_status(api).get("queue")
    except CloudError as exc:
        if exc.retryable or exc.status in ("Forbidden", "403"):
            return None
        raise
    return queue


def pending_position(
    api: KubeApi, kueue: Mapping[str, Any] | None, namespace: str = NAMESPACE
) -> dict[str, int] | None:
    """Where a pending Kueue Workload stands in its queues (Kueue's visibility API, served
    by the Kueue controller). None when it is not pending, or the API cannot tell (not served,
    not readable with this account): the position is a help, not a requirement."""
    if kueue is None or admission(kueue)["state"] != "pending":
        return None
    queue = (kueue.get("spec") or {}).get("queueName", "")
    path = VISIBILITY.format(namespace=namespace, queue=queue)
    try:
        summary = api.get_path(path, f"pending workloads of LocalQueue {queue}")
    except CloudError:
        return None
    return queue_position(summary or {}, kueue["metadata"]["name"])


def wait_for(
    live: Live,
    ref: ClusterRef,
    name: str,
    timeout: int | None,
    on_state: Callable[[str], None],
    namespace: str = NAMESPACE,
) -> int:
    """Poll the JobSet until it succeeds (0) or fails (1); 124 once `timeout` seconds pass.

    `on_state` hears each new state (queued, running, ...) once.
    """
    try:
        return _wait_for(live, ref, name, timeout, on_state, namespace)
    except (KeyboardInterrupt, Interrupted):
        raise Interrupted(
            f"stopped waiting; workload {name} keeps running on cluster {ref.name}",
            hint=f"wait again with `xcli workload wait {name} --cluster {ref.name}`, or stop it "
            f"with `xcli workload delete {name} --cluster {ref.name}`",
        ) from None


def _wait_for(
    live: Live,
    ref: ClusterRef,
    name: str,
    timeout: int | None,
    on_state: Callable[[str], None],
    namespace: str,
) -> int:
    cancelled = threading.Event()  # nobody sets it: in the main thread Ctrl-C raises itself
    start, delay, last = live.clock(), 2.0, ""
    failing_since: float | None = None
    while True:
        try:
            js = get_jobset(live, ref, name, namespace)
            failing_since = None
        except CloudError as exc:
            # A long wait outlives API server hiccups (503, connection reset): keep waiting,
            # but not through an outage longer than OUTAGE_SECONDS, nor when nothing has
            # answered yet (no route to Google at all: say so within seconds, not never).
            now = live.clock()
            failing_since = now if failing_since is None else failing_since
            budget = OUTAGE_SECONDS if last else OUTAGE_BEFORE_FIRST_ANSWER
            if not exc.retryable or now - failing_since >= budget:
                raise
            js = {}
        state = jobset_state(js) if js else last
        if state != last:
            on_state(state)
            last = state
        code = wait_exit_code(js) if js else None
        if code is not None:
            return code
        left = None if timeout is None else timeout - (live.clock() - start)
        if left is not None and left <= 0:
            return TIMEOUT_EXIT
        live.sleep(delay if left is None else min(delay, left), cancelled)
        delay = min(delay * 1.5, 15.0)


def select_deletions(
    live: Live,
    ref: ClusterRef,
    state: str | None,
    older_than: int | None,
    namespace: str = NAMESPACE,
    contains: str = "",
) -> tuple[list[str], dict[str, Obj]]:
    """`delete [--state S] [--older-than D] [--name-contains X]`: the matching xcli
    workloads, oldest first, and every JobSet by name (to describe them)."""
    found = jobsets(live.api(ref), namespace)
    names = select_for_delete(found, live.now(), state, older_than, contains)
    return names, {js["metadata"]["name"]: js for js in found}
