"""`xcli workload logs`: the workers' container logs, each line prefixed as `xcli ssh` does.

Lines come out whole, one at a time, from a single consumer: worker streams are read on
threads and handed over line by line, so two workers' output never mixes inside a line.
Without --follow each worker's log is printed as one block, in worker order (logs are fetched
concurrently); with --follow lines appear as they arrive, until every container has ended.
"""

from __future__ import annotations

import heapq
import queue
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from xcli.errors import CloudError, UserError
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef
from xcli.workload.goodput.gke_attempts import ts
from xcli.workload.jobset.live import NAMESPACE, Live, get_jobset, pods_of
from xcli.workload.jobset.manifest import CONTAINER
from xcli.workload.jobset.report import RESTART_ATTEMPT, current_pods
from xcli.workload.jobset.view import (
    HEAD,
    HEAD_JOB,
    WorkerStatus,
    jobset_state,
    log_prefix,
    select_workers,
    worker_statuses,
    workload_row,
)
from xcli.workload.protocol import WORKER_BY_WORKER, LogLine, LogView

Obj = Mapping[str, Any]
Target = tuple[WorkerStatus, str, str]  # the worker, its line prefix, the container read

# The API server's answer while a container has not started yet (a 400): wait, under --follow.
NOT_STARTED = ("is waiting to start", "ContainerCreating", "PodInitializing")
FETCH_THREADS = 16
POLL_SECONDS = 3.0
# Polls (POLL_SECONDS apart) for a slice's pods to appear (followers come after their
# leader is placed), or for a restart's new pods after every stream has ended.
POD_POLLS = 20


def check_selector(value: str, flag: str, also: tuple[str, ...] = ()) -> str:
    """`also`: other words the flag takes here (`--slice head` of a Pathways workload)."""
    if value != "all" and value not in also and not value.isdigit():
        raise UserError(f"{flag} {value!r} is not a number or 'all'", hint=f"e.g. {flag} 0")
    return value if value == "all" or value in also else str(int(value))


def container_of(pod: Obj) -> str:
    """The container whose log is the pod's: `main` (every xcli worker, a Pathways head with a
    program), else the pod's first (a Pathways server, or a headless head's proxy)."""
    names = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or []]
    return CONTAINER if CONTAINER in names or not names else names[0]


def stream_logs(
    live: Live,
    ref: ClusterRef,
    name: str,
    *,
    worker: str = "all",
    slice_: str = "all",
    follow: bool = False,
    since: int | None = None,
    namespace: str = NAMESPACE,
    view: LogView = WORKER_BY_WORKER,
) -> Iterator[LogLine]:
    worker = check_selector(worker, "--worker")
    slice_ = check_selector(slice_, "--slice", (HEAD,))
    api = live.api(ref)
    js = get_jobset(live, ref, name, namespace)
    slices = workload_row(js, live.now()).slices
    if follow:
        where = (ref, namespace)
        followed = _follow_attempts(where, api, live, name, (worker, slice_, slices), since, view)
        yield from followed
        return
    pods = current_pods(js, pods_of(api, name, namespace))
    if not pods:
        raise UserError(
            f"workload {name} has no pods yet",
            hint=f"`xcli workload status {name}` says why; `--follow` waits for them",
        )
    blocks = _blocks(api, _targets(name, pods, worker, slice_, slices), since, namespace, view)
    if view.merge:  # every block is in its pod's time order: one stream by time
        yield from heapq.merge(*blocks, key=lambda line: line.at or 0.0)
    else:
        for block in blocks:
            yield from block


def _targets(name: str, pods: Sequence[Obj], worker: str, slice_: str, slices: int) -> list[Target]:
    chosen = select_workers(worker_statuses(pods), worker, slice_)
    if not chosen:
        have = ", ".join(w.worker for w in worker_statuses(pods))
        raise UserError(
            f"no worker {worker} in slice {slice_} of workload {name}", hint=f"workers: {have}"
        )
    containers = {(p.get("metadata") or {}).get("name", ""): container_of(p) for p in pods}
    return [(w, log_prefix(w, slices), containers.get(w.pod, CONTAINER)) for w in chosen]


def _attempt(js: Obj) -> int:
    return int((js.get("status") or {}).get("restarts", 0) or 0)


def _complete(js: Obj, pods: Sequence[Obj], worker: str, slice_: str) -> bool:
    """Whether every selected worker's pod exists (follower pods appear only once their
    slice's leader is placed)."""
    jobs = (js.get("spec") or {}).get("replicatedJobs") or []
    if not jobs:
        return bool(pods)
    wanted: set[str] = set()
    for rjob in jobs:
        if rjob.get("name") == HEAD_JOB:  # a Pathways head: one pod
            wanted |= {HEAD} if slice_ in ("all", HEAD) and worker == "all" else set()
            continue
        job = rjob["template"]["spec"]
        per_slice = min(int(job.get("parallelism", 1)), int(job.get("completions", 1)))
        wanted |= {
            f"s{s}/w{i}"
            for s in range(int(rjob.get("replicas", 1)))
            for i in range(per_slice)
            if slice_ in ("all", str(s)) and worker in ("all", str(i))
        }
    return wanted <= {w.worker for w in worker_statuses(pods)}


def _follow_attempts(
    where: tuple[ClusterRef, str],
    api: KubeApi,
    live: Live,
    name: str,
    selection: tuple[str, str, int],
    since: int | None,
    view: LogView = WORKER_BY_WORKER,
) -> Iterator[LogLine]:
    """Follow the current attempt's pods; when the JobSet restarts (new pods), follow those;
    stop when it has finished, or when nothing new comes after the streams end."""
    ref, namespace = where
    followed: int | None = None
    polls = 0
    while True:
        js = get_jobset(live, ref, name, namespace)
        attempt, finished = _attempt(js), jobset_state(js) in ("succeeded", "failed")
        pods = [
            p
            for p in pods_of(api, name, namespace)
            if ((p.get("metadata") or {}).get("labels") or {}).get(RESTART_ATTEMPT)
            in (None, str(attempt))
        ]
        complete = _complete(js, pods, *selection[:2]) or polls >= POD_POLLS or finished
        if attempt != followed and pods and complete:
            if followed is not None:
                yield LogLine("", f"workload {name} restarted (attempt {attempt})", note=True)
            targets = _targets(name, pods, *selection)
            yield from _follow(api, live, targets, since, namespace, view.timed)
            followed, polls = attempt, 0
            continue
        if finished or (followed is not None and polls >= POD_POLLS):
            return
        if polls == 0 and followed is None:
            yield LogLine("", f"workload {name}: waiting for its pods", note=True)
        polls += 1
        live.sleep(POLL_SECONDS, threading.Event())  # main thread: Ctrl-C raises itself


def _blocks(
    api: KubeApi,
    targets: Sequence[Target],
    since: int | None,
    namespace: str = NAMESPACE,
    view: LogView = WORKER_BY_WORKER,
) -> list[list[LogLine]]:
    """Each worker's log, fetched 16 at once, in worker order."""

    def fetch(target: Target) -> list[LogLine]:
        worker, prefix, container = target
        try:
            lines = api.logs(
                worker.pod, namespace, container=container, since_seconds=since,
                timestamps=view.timed,
            )  # fmt: skip
            return [_line(prefix, line, view.timed) for line in lines]
        except CloudError as exc:
            return [LogLine(prefix, f"no logs ({worker.phase}): {exc.message}", note=True)]

    with ThreadPoolExecutor(max_workers=min(FETCH_THREADS, len(targets))) as pool:
        return list(pool.map(fetch, targets))


def _line(prefix: str, raw: str, timed: bool) -> LogLine:
    """A log line; `timed`: read with timestamps=true, `<RFC 3339> <line>` (the kubelet's time
    for the line), the time taken off into `at`."""
    if not timed:
        return LogLine(prefix, raw)
    stamp, _, text = raw.partition(" ")
    try:
        at = ts(stamp)
    except ValueError:  # not a time: the line as it came
        return LogLine(prefix, raw)
    return LogLine(prefix, text, at=at)


_DONE = object()


def _follow(
    api: KubeApi,
    live: Live,
    targets: Sequence[Target],
    since: int | None,
    namespace: str = NAMESPACE,
    timed: bool = False,
) -> Iterator[LogLine]:
    """Every worker's stream as lines arrive; merged, that is their arrival order (the kubelet
    sends each line as it is written, so it is the time order up to the streams' delay)."""
    lines: queue.Queue[Any] = queue.Queue(maxsize=10_000)
    stop = threading.Event()

    def pump(worker: WorkerStatus, prefix: str, container: str) -> None:
        try:
            while not stop.is_set():
                try:
                    for text in api.logs(
                        worker.pod,
                        namespace,
                        container=container,
                        follow=True,
                        since_seconds=since,
                        timestamps=timed,
                    ):
                        lines.put(_line(prefix, text, timed))
                    return
                except CloudError as exc:
                    if not any(word in exc.message for word in NOT_STARTED):
                        lines.put(LogLine(prefix, f"log stream ended: {exc.message}", note=True))
                        return
                    live.sleep(POLL_SECONDS, threading.Event())  # not started yet: try again
        except Exception as exc:  # a broken stream ends this worker's output, not the others
            lines.put(LogLine(prefix, f"log stream broke: {exc}", note=True))
        finally:
            lines.put(_DONE)

    threads = [
        threading.Thread(target=pump, args=target, daemon=True, name=f"logs {target[1]}")
        for target in targets
    ]
    for thread in threads:
        thread.start()
    running = len(threads)
    try:
        while running:
            item = lines.get()
            if item is _DONE:
                running -= 1
            else:
                yield item
    finally:
        stop.set()
