"""The forward behind `xcli workload connect`: a local port to the head pod's proxy, through
the Kubernetes API (xcli/gateways/kube/portforward.py), once the proxy serves."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xcli.errors import CloudError
from xcli.workload.pathways.jobset import PROXY_PORT

if TYPE_CHECKING:
    from xcli.gateways.kube.api import KubeApi
    from xcli.gateways.kube.portforward import Target


@dataclass(frozen=True)
class Waiting:
    """How long to wait for the proxy, on which clock, and what to say when it is late."""

    timeout: float
    clock: Callable[[], float]
    sleep: Callable[[float, threading.Event], None]
    late_hint: str
    warn: Callable[[str], None] | None = None  # hears a connection that could not be forwarded


def reserve(local_port: int) -> socket.socket:
    """The local port, listened on before the cluster is read: a port in use is said first."""
    from xcli.gateways.kube.portforward import listen

    return listen(local_port)


def forward(
    api: KubeApi,
    namespace: str,
    pod: str,
    local_port: int,
    waiting: Waiting,
    ready: Callable[[int], None],
    stop: threading.Event,
    listener: socket.socket | None = None,
) -> None:
    """Listen on 127.0.0.1:`local_port` (or on `listener`, from `reserve`), wait until the proxy
    accepts a connection, call `ready` with the port listened on, and forward until `stop` is
    set."""
    from xcli.gateways.kube.portforward import Forwarder

    stream = api.stream_target(namespace, pod, PROXY_PORT)
    forwarder = Forwarder(stream, local_port, warn=waiting.warn, listener=listener)
    try:
        _wait_serving(stream, waiting, stop)
        if stop.is_set():
            forwarder.listener.close()
            return
        ready(forwarder.port)
    except BaseException:
        forwarder.listener.close()
        raise
    forwarder.serve(stop)


def _wait_serving(stream: Target, waiting: Waiting, stop: threading.Event) -> None:
    from xcli.gateways.kube.portforward import probe

    deadline = waiting.clock() + waiting.timeout
    while not stop.is_set():
        why = probe(stream)
        if why is None:
            return
        if waiting.clock() >= deadline:
            raise CloudError(
                f"the Pathways proxy in pod {stream.pod} does not serve yet: {why}",
                hint=waiting.late_hint,
            )
        waiting.sleep(2.0, stop)
