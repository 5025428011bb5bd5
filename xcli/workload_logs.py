"""`xcli workload logs`: the workers' container logs, each line prefixed as `xcli ssh` does.

Lines come out whole, one at a time, from a single consumer: worker streams are read on
threads and handed over line by line, so two workers' output never mixes inside a line.
Without --follow each worker's log is printed as one block, in worker order (logs are fetched
concurrently); with --follow lines appear as they arrive, until every container has ended.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from xcli.errors import CloudError, UserError
from xcli.gateways.kube import KubeApi
from xcli.plan.jobset import CONTAINER
from xcli.providers.base import ClusterRef
from xcli.workload_live import NAMESPACE, Live, current, get_jobset, pods_of
from xcli.workload_report import current_pods
from xcli.workload_view import (
    WorkerStatus,
    log_prefix,
    select_workers,
    worker_statuses,
    workload_row,
)

# The API server's answer while a container has not started yet (a 400): wait, under --follow.
NOT_STARTED = ("is waiting to start", "ContainerCreating", "PodInitializing")
FETCH_THREADS = 16
POLL_SECONDS = 3.0


@dataclass(frozen=True)
class LogLine:
    """One line of a worker's log, or (note=True) a line xcli says about that worker."""

    prefix: str
    text: str
    note: bool = False


def check_selector(value: str, flag: str) -> str:
    if value != "all" and not value.isdigit():
        raise UserError(f"{flag} {value!r} is not a number or 'all'", hint=f"e.g. {flag} 0")
    return value if value == "all" else str(int(value))


def stream_logs(
    ref: ClusterRef,
    name: str,
    *,
    worker: str = "all",
    slice_: str = "all",
    follow: bool = False,
    since: int | None = None,
) -> Iterator[LogLine]:
    worker, slice_ = check_selector(worker, "--worker"), check_selector(slice_, "--slice")
    live = current()
    api = live.api(ref)
    js = get_jobset(ref, name)
    slices = workload_row(js, live.now()).slices
    pods = current_pods(js, pods_of(api, name))
    while not pods and follow:
        yield LogLine("", f"workload {name} has no pods yet; waiting for them", note=True)
        live.sleep(POLL_SECONDS * 5)
        pods = current_pods(js, pods_of(api, name))
    if not pods:
        raise UserError(
            f"workload {name} has no pods yet",
            hint=f"`xcli workload status {name}` says why; `--follow` waits for them",
        )
    chosen = select_workers(worker_statuses(pods), worker, slice_)
    if not chosen:
        have = ", ".join(w.worker for w in worker_statuses(pods))
        raise UserError(
            f"no worker {worker} in slice {slice_} of workload {name}", hint=f"workers: {have}"
        )
    targets = [(w, log_prefix(w, slices)) for w in chosen]
    if follow:
        yield from _follow(api, live, targets, since)
    else:
        yield from _blocks(api, targets, since)


def _blocks(
    api: KubeApi, targets: Sequence[tuple[WorkerStatus, str]], since: int | None
) -> Iterator[LogLine]:
    def fetch(target: tuple[WorkerStatus, str]) -> list[LogLine]:
        worker, prefix = target
        try:
            lines = api.logs(worker.pod, NAMESPACE, container=CONTAINER, since_seconds=since)
            return [LogLine(prefix, line) for line in lines]
        except CloudError as exc:
            return [LogLine(prefix, f"no logs ({worker.phase}): {exc.message}", note=True)]

    with ThreadPoolExecutor(max_workers=min(FETCH_THREADS, len(targets))) as pool:
        for block in pool.map(fetch, targets):
            yield from block


_DONE = object()


def _follow(
    api: KubeApi, live: Live, targets: Sequence[tuple[WorkerStatus, str]], since: int | None
) -> Iterator[LogLine]:
    lines: queue.Queue[Any] = queue.Queue(maxsize=10_000)
    stop = threading.Event()

    def pump(worker: WorkerStatus, prefix: str) -> None:
        try:
            while not stop.is_set():
                try:
                    for text in api.logs(
                        worker.pod,
                        NAMESPACE,
                        container=CONTAINER,
                        follow=True,
                        since_seconds=since,
                    ):
                        lines.put(LogLine(prefix, text))
                    return
                except CloudError as exc:
                    if not any(word in exc.message for word in NOT_STARTED):
                        lines.put(LogLine(prefix, f"log stream ended: {exc.message}", note=True))
                        return
                    live.sleep(POLL_SECONDS)  # not started yet: try again
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
