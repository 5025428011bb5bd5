"""What only a live run does around a cluster's plan: read what already exists, make the checks
only the cloud can answer, and keep this machine's records (the cluster index, the records of
VM workloads). The CLI hands `LIVE`, or `DRY` for --dry-run, in `Deps.record`: the dry-run
plans against nothing, needs no credentials and leaves no trace, and the use cases never ask
which one they were given (STYLE.md section 4: --dry-run only chooses what runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from xcli.plan.cluster import ClusterRef, Worker
    from xcli.providers.base import ClusterAccess, LiveChecker, Observer
    from xcli.spec import ClusterSpec
    from xcli.storage.service import Reader, StorageGateways

T = TypeVar("T")


class Live:
    def read(self, read: Callable[[], T]) -> T | None:
        """What a live run reads before it plans (a GKE cluster's node pools for `cluster
        adapt`): `read()`, or None for a dry-run, which plans from what the flags say."""
        return read()

    def observe(self, observer: Observer | None, ref: ClusterRef, purpose: str) -> object | None:
        """What exists (the provider's own observation), for a plan that does only the rest."""
        return observer.observe(ref, purpose) if observer is not None else None

    def storage_reader(
        self,
        ref: ClusterRef,
        access: ClusterAccess | None,
        gateways: Callable[[], StorageGateways],
    ) -> Reader:
        """How `xcli storage` reads the storages attached to a cluster and its add-ons: through
        the cluster's Kubernetes API (`access`) and GKE, or from this machine's record files
        for a cluster without Kubernetes (those are read on a dry-run too: no network)."""
        from xcli.storage.service import FileReader, LiveReader

        return LiveReader(gateways(), access) if access is not None else FileReader()

    def check_create(self, checker: LiveChecker | None, spec: ClusterSpec) -> None:
        if checker is not None:
            checker.check_create(spec)

    def created(self, name: str, provider: str) -> None:
        from xcli import cluster_index

        cluster_index.record(name, provider)

    def repin_moved(self, backend: object, ref: ClusterRef, workers: list[Worker]) -> None:
        """Before connecting: a provider that pins host keys from its source of truth pins
        again the workers whose address changed (issue 26 item 10)."""
        repin = getattr(backend, "repin_moved", None)
        if repin is not None:
            repin(ref, workers)

    def deleted(self, name: str, provider: str) -> None:
        from xcli import cluster_index

        cluster_index.forget(name, provider)

    def stop_vm_workloads(
        self, name: str, provider: str, say: Callable[[str], None], stop: Callable[[Path], None]
    ) -> None:
        """VM workloads still running on the cluster are stopped first, while their workers can
        still be reached, so their records end as `stopped` rather than as a failure."""
        from xcli.vm_runs import running_on

        for folder in running_on(name, provider):
            say(f"stopping workload {folder.name} (its cluster is being deleted)")
            stop(folder)

    def end_vm_records(self, name: str, provider: str) -> None:
        from xcli.vm_runs import end_with_cluster

        end_with_cluster(name, provider)

    def end_storage_records(self, name: str, say: Callable[[str], None]) -> None:
        """After a delete: the storages attached to the cluster (records on this machine)."""
        from xcli.storage.files import forget_all

        forgotten = ", ".join(forget_all(name))
        if forgotten:
            say(f"forgot the storages attached to cluster {name}: {forgotten} (their data stays)")

    def forget_earlier_cluster(self, name: str, provider: str, say: Callable[[str], None]) -> None:
        """Before a create: the workload records a deleted cluster of the same name left."""
        from xcli.vm_runs import forget_ended_with_cluster

        forgotten = forget_ended_with_cluster(name, provider)
        if forgotten:
            say(f"forgot the workloads of an earlier cluster {name}: {', '.join(forgotten)}")


class Dry(Live):
    """--dry-run: nothing is read, checked against the cloud, recorded or stopped."""

    def read(self, read: Callable[[], T]) -> T | None:
        return None

    def observe(self, observer: Observer | None, ref: ClusterRef, purpose: str) -> object | None:
        return None

    def storage_reader(
        self,
        ref: ClusterRef,
        access: ClusterAccess | None,
        gateways: Callable[[], StorageGateways],
    ) -> Reader:
        from xcli.storage.service import DryReader, FileReader

        return DryReader() if access is not None else FileReader()

    def check_create(self, checker: LiveChecker | None, spec: ClusterSpec) -> None:
        return None

    def created(self, name: str, provider: str) -> None:
        return None

    def repin_moved(self, backend: object, ref: ClusterRef, workers: list[Worker]) -> None:
        return None

    def deleted(self, name: str, provider: str) -> None:
        return None

    def stop_vm_workloads(
        self, name: str, provider: str, say: Callable[[str], None], stop: Callable[[Path], None]
    ) -> None:
        return None

    def end_vm_records(self, name: str, provider: str) -> None:
        return None

    def end_storage_records(self, name: str, say: Callable[[str], None]) -> None:
        return None

    def forget_earlier_cluster(self, name: str, provider: str, say: Callable[[str], None]) -> None:
        return None


LIVE = Live()
DRY = Dry()
