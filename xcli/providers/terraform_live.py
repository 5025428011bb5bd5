"""The live handlers for the steps that run after `terraform apply` (xcli/terraform/after_apply.py).

One function, `handlers(spec)`, gives them: for gke the Kubernetes handlers (KubeHandlers over
a KubeConnector: clusters.get for the endpoint and CA, then the cluster's API with Google
credentials); for queued-resource the queued-resource handlers (wait for ACTIVE, SSH key,
host keys).

How they reach Google and the cluster is one seam, `Connections`. `install(Connections(...))`
replaces it for the whole process: tests install a ContainerGateway and TpuGateway over fake
Google APIs, a KubeApi over an in-memory API server, a local release manifest and a fake clock.
Nothing else in xcli calls it, and no environment variable changes it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xcli.execute.result import Handler
from xcli.gateways.container import ContainerGateway
from xcli.gateways.kube import KubeApi
from xcli.gateways.kube_handlers import Fetch, KubeHandlers, fetch_manifest
from xcli.gateways.tpu import TpuGateway
from xcli.providers.gke_standard import KubeConnector
from xcli.providers.qr_handlers import QrHandlers, Sleep, event_sleep
from xcli.spec import ClusterSpec


@dataclass(frozen=True)
class Connections:
    """How post-apply handlers reach the cloud and the cluster, and tell time."""

    container: Callable[[], ContainerGateway] = ContainerGateway
    kube: Callable[[str, str | None], KubeApi] = KubeApi  # (endpoint, CA) -> cluster API
    tpu: Callable[[str], TpuGateway] = TpuGateway  # zone -> Cloud TPU API
    fetch: Fetch = fetch_manifest  # release manifests of JobSet and Kueue
    sleep: Sleep = event_sleep  # Kubernetes waits; wakes at once on Ctrl-C
    tpu_sleep: Sleep = event_sleep  # queued-resource waits; wakes at once on Ctrl-C
    clock: Callable[[], float] = time.monotonic


_CONNECTIONS: Connections | None = None


def install(connections: Connections | None) -> None:
    """Use `connections` from now on (None: back to the defaults). For tests and embedding."""
    global _CONNECTIONS
    _CONNECTIONS = connections


def current() -> Connections:
    return _CONNECTIONS or Connections()


def handlers(spec: ClusterSpec) -> Mapping[str, Handler]:
    """Handlers for the step kinds post_apply_steps(spec, ...) makes; built lazily (no
    credentials are looked up until a step talks to Google or the cluster)."""
    conn = current()
    if spec.provider == "gke":
        connect = KubeConnector(conn.container(), conn.kube)
        kube = KubeHandlers(connect, fetch=conn.fetch, sleep=conn.sleep, clock=conn.clock)
        return kube.handlers()
    if spec.provider == "queued-resource":
        qr = QrHandlers(conn.tpu(spec.zone), sleep=conn.tpu_sleep, clock=conn.clock)
        return qr.mapping()
    return {}
