"""pd and hyperdisk-ml: an existing Compute Engine disk, read-only on many nodes, through the
Compute Engine persistent disk CSI driver (the same driver and add-on for both).

Sources: the driver's pre-provisioned volume (volumeHandle projects/P/zones/Z/disks/D,
fsType ext4), and compute.v1 disks.get (sizeGb). One disk on many nodes is ReadOnlyMany only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xcli.errors import UserError
from xcli.plan.compute import COMPUTE
from xcli.plan.model import Fmt, Step
from xcli.plan.storage_types.base import StorageType, Volume

if TYPE_CHECKING:
    from xcli.plan.storage_request import AttachRequest


class Disk(StorageType):
    driver = "pd.csi.storage.gke.io"
    addon = "gcePersistentDiskCsiDriverConfig"
    addon_attr = "gce_persistent_disk_csi_driver_config"
    source_flag = "--disk"
    read_only_only = True
    fs_type = "ext4"
    not_creatable_hint = (
        "create the disk with gcloud compute disks create, then attach it with --disk"
    )

    def __init__(self, name: str) -> None:
        self.name = name

    def check_source(
        self, name: str, bucket: str, instance: str, disk: str, *, new_bucket: bool, created: bool
    ) -> str:
        from xcli.spec import check_name

        if not disk:
            raise UserError(
                f"{self.name} storage needs --disk", hint="the name of an existing disk"
            )
        check_name(disk, "disk", 63)
        return instance

    def source_of(self, req: AttachRequest) -> str:
        return f"projects/{req.cluster.project}/zones/{req.where}/disks/{req.disk}"

    def volume(self, req: AttachRequest, after: tuple[str, ...]) -> tuple[list[Step], Volume]:
        p, where = req.cluster.project, req.where
        read, out = self.read_source(
            req,
            f"{COMPUTE}/projects/{p}/zones/{where}/disks/{req.disk}",
            "compute.disks.get",
            {"size": "sizeGb"},
            after,
        )
        return [read], Volume(self.name, self.source_of(req), {}, Fmt("{}Gi", out["size"]))


PD = Disk("pd")
HYPERDISK_ML = Disk("hyperdisk-ml")
