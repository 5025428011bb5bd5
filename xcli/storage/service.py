"""How `xcli storage` reaches Google (`StorageGateways`) and what it reads before it plans.

What a live run reads first (the records already attached, whether the CSI driver add-on is
on, the record of the storage to detach) comes through a `Reader`. The use cases
(xcli/app/storage.py) get it from `deps.record.storage_reader`: `LiveReader` for a live run
(the records through the cluster's ClusterAccess, the add-on through GKE) and `DryReader` for
`--dry-run`, which reads nothing and so plans every step (nothing here branches on dry-run).
Clusters without Kubernetes keep their records in files on this machine: `FileReader` reads
those in both modes (no network, no credentials).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from xcli.errors import ConfigError, NotFoundError, UserError
from xcli.gateways.backoff import Sleep, event_sleep
from xcli.gateways.google.rest import RestGateway
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef
from xcli.plan.contract import Handler, StepContext
from xcli.plan.model import Plan
from xcli.plan.storage import LABEL, Storage, from_configmap
from xcli.plan.storage_types import unit
from xcli.providers.base import ClusterAccess
from xcli.storage import files

RunPlan = Callable[[Plan, Callable[[], Mapping[str, Any]]], Any]


def _container() -> Any:
    from xcli.gateways.google.container import ContainerGateway

    return ContainerGateway()


def _compute() -> Any:
    from xcli.gateways.google.compute import ComputeGateway

    return ComputeGateway()


@dataclass
class StorageGateways:
    """How `xcli storage` reaches Google (tests hand in fakes through
    `main(argv, storage_gateways=...)`). Clusters' Kubernetes APIs come from the provider's
    ClusterAccess (providers/base.py), handed to each call."""

    rest: RestGateway = field(default_factory=RestGateway)
    container: Callable[[], Any] = _container  # builds a ContainerGateway on first use
    compute: Callable[[], Any] = _compute  # a ComputeGateway (Lustre/Parallelstore network)
    sleep: Sleep = event_sleep
    clock: Callable[[], float] = time.monotonic
    _gke: list[Any] = field(default_factory=list, repr=False)
    _compute: list[Any] = field(default_factory=list, repr=False)

    def gke(self) -> Any:
        if not self._gke:
            self._gke.append(self.container())
        return self._gke[0]

    def vpc(self) -> Any:
        if not self._compute:
            self._compute.append(self.compute())
        return self._compute[0]

    def network_handlers(self) -> dict[str, Handler]:
        """The live side of the network and node steps (network.py, nodes.py)."""
        from xcli.storage import network, nodes

        return {
            network.PsaCheck.kind: lambda s, c: network.check_psa(self.rest, self.vpc(), s, c),
            network.EnsureFirewall.kind: lambda s, c: network.ensure_firewall(self.vpc(), s, c),
            nodes.RecreateNodes.kind: lambda s, c: nodes.recreate(self.gke(), s, c),
        }

    def handlers(self, api: KubeApi) -> dict[str, Handler]:
        """The live handlers of a storage plan on the cluster whose API is `api`."""
        from xcli.gateways.kube.handlers import KubeHandlers

        kube = KubeHandlers(lambda _c: api, sleep=self.sleep, clock=self.clock).handlers()

        def api_call(step: Any, ctx: StepContext) -> Mapping[str, Any]:
            if step.api.startswith("container."):
                result: Mapping[str, Any] = self.gke().run(step, ctx)
                return result
            return self.rest.run(step, ctx)

        return {
            **kube,
            **files.handlers(),
            "api_call": api_call,
            "api_read": self.rest.read,
            "bucket_iam": self.rest.iam,
            **self.network_handlers(),
        }


class Reader(Protocol):
    """What a live run reads before it plans (None: not read)."""

    def records(self, ref: ClusterRef, namespace: str) -> list[Storage] | None: ...
    def addon_on(self, ref: ClusterRef, kind: str) -> bool | None: ...


class DryReader:
    def records(self, ref: ClusterRef, namespace: str) -> list[Storage] | None:
        return None

    def addon_on(self, ref: ClusterRef, kind: str) -> bool | None:
        return None


class FileReader(DryReader):
    def records(self, ref: ClusterRef, namespace: str) -> list[Storage] | None:
        return files.records(ref.name)


@dataclass
class LiveReader:
    gateways: StorageGateways
    access: ClusterAccess
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def records(self, ref: ClusterRef, namespace: str) -> list[Storage] | None:
        api = self.access.kube_api(ref)
        found = api.list("v1", "ConfigMap", namespace, labels={LABEL: "true"})
        return sorted((from_configmap(c) for c in found), key=lambda s: s.name)

    def addon_on(self, ref: ClusterRef, kind: str) -> bool | None:
        cluster = self.gateways.gke().get_cluster(ref.project, ref.region, ref.name)
        if cluster is None:
            raise NotFoundError(
                f"cluster {ref.name} not found in {ref.project}/{ref.region}",
                hint="list clusters with: xcli cluster list",
            )
        storage = unit(kind)
        if storage.bucket_grant and not cluster.workload_identity_config.workload_pool:
            raise ConfigError(
                f"cluster {ref.name} has no Workload Identity: the bucket grant to the "
                "workloads' Kubernetes service account would not reach them",
                hint="turn it on (gcloud container clusters update --workload-pool="
                f"{ref.project}.svc.id.goog), or attach from a cluster xcli created",
            )
        config = getattr(cluster.addons_config, storage.addon_attr)
        return bool(config.enabled)


def find(records: list[Storage] | None, name: str, cluster: str) -> Storage:
    """The record named `name`; NotFoundError naming the storages there are."""
    for record in records or []:
        if record.name == name:
            return record
    names = [r.name for r in records or []]
    hint = f"storages on it: {', '.join(names)}" if names else "it has no storage attached"
    raise NotFoundError(f"no storage {name} attached to cluster {cluster}", hint=hint)


def check_new(records: list[Storage] | None, name: str, cluster: str) -> None:
    for record in records or []:
        if record.name == name:
            raise UserError(
                f"storage {name} is already attached to cluster {cluster} "
                f"({record.type} {record.source} at {record.mount_point})",
                hint=f"detach it first (xcli storage detach {name} --cluster {cluster}), "
                "or choose another name",
            )
