"""The live handlers for the steps that run after `terraform apply` (TerraformSupport.post_apply).

One function, `handlers(spec, support)`, gives them: the provider's TerraformSupport builds
them (support.live_handlers) over the connections below: for gke the Kubernetes handlers, for
queued-resource the queued-resource handlers (xcli/providers/*_terraform.py).

How they reach Google and the cluster is one value, `Connections`, passed in: the CLI hands the
one its entry point was given (`main(argv, terraform_connections=...)`, see
xcli/cli/deps.py), else the real ones. Tests pass a ContainerGateway and TpuGateway over fake
Google APIs, a KubeApi over an in-memory API server, a local release manifest and a fake clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.handlers import Fetch, fetch_manifest
from xcli.gateways.tpu.api import TpuGateway
from xcli.plan.contract import Handler
from xcli.providers.queued_resource.handlers import Sleep, event_sleep
from xcli.spec import ClusterSpec
from xcli.terraform.support import TerraformSupport


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


def handlers(
    spec: ClusterSpec, support: TerraformSupport, connections: Connections | None = None
) -> Mapping[str, Handler]:
    """Handlers for the step kinds support.post_apply(spec, ...) makes, over `connections`
    (None: the real ones); built lazily (no credentials are looked up until a step talks to
    Google or the cluster)."""
    return support.live_handlers(spec, connections or Connections())
