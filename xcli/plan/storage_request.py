"""The frozen requests of `xcli storage ...`, built by the CLI after its checks."""

from __future__ import annotations

from dataclasses import dataclass

from xcli.plan.cluster import ClusterRef


@dataclass(frozen=True)
class AttachRequest:
    """Attach one storage to a cluster. Exactly one of bucket, instance, disk, path is set,
    as the type needs (local provider: path)."""

    name: str
    type: str
    cluster: ClusterRef
    mount_point: str
    namespace: str = "default"
    readonly: bool = False
    auto_mount: bool = False
    mount_options: tuple[str, ...] = ()
    bucket: str = ""
    instance: str = ""
    disk: str = ""
    path: str = ""
    # where a Filestore, Lustre or Parallelstore instance or a disk lives (default: the zone)
    location: str = ""
    # the Kubernetes service account the workloads' pods run as (JobSets: the namespace's default)
    ksa: str = "default"
    created: bool = False

    @property
    def where(self) -> str:
        return self.location or self.cluster.zone


@dataclass(frozen=True)
class CreateRequest:
    """Create the backing resource, then attach it (the record says xcli created it)."""

    attach: AttachRequest
    size_gib: int = 0
    tier: str = "ZONAL"  # Filestore
    throughput: int = 1000  # Managed Lustre, MBps per TiB
    network: str = "default"
    share: str = "vol1"  # Filestore file share
