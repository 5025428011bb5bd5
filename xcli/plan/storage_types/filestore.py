"""filestore: a Filestore instance over NFS, through the Filestore CSI driver.

Sources: the driver's pre-provisioned PV
(https://github.com/kubernetes-sigs/gcp-filestore-csi-driver/blob/master/docs/kubernetes/pre-provisioned-pv.md),
file.v1 (instances.create, instances.get, instances.delete), and the service tier pages for
the capacities (https://cloud.google.com/filestore/docs/service-tiers, -zonal, -regional;
file.v1 says "BASIC instances offer a maximum capacity of 63.9 TB").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from xcli.errors import UserError
from xcli.plan.model import Fmt, Step
from xcli.plan.storage_types.base import (
    StorageType,
    Volume,
    create_instance,
    delete_instance,
    needs_size,
)

if TYPE_CHECKING:
    from xcli.plan.steps import Text
    from xcli.plan.storage import Storage
    from xcli.plan.storage_request import AttachRequest, CreateRequest

FILE = "https://file.googleapis.com/v1"
# Filestore tiers: (smallest, largest) capacity in GiB, and whether the instance lives in a
# zone (else in a region). BASIC_* and ZONAL: zone; REGIONAL and ENTERPRISE: region (file.v1
# and XPK's core/filestore.py agree on the location kind).
TIERS: dict[str, tuple[int, int, bool]] = {
    "BASIC_HDD": (1024, 65434, True),  # 1 TiB .. 63.9 TiB
    "BASIC_SSD": (2560, 65434, True),  # 2.5 TiB .. 63.9 TiB
    "ZONAL": (1024, 102400, True),  # 1 TiB .. 100 TiB
    "REGIONAL": (100, 102400, False),  # 100 GiB .. 100 TiB
    "ENTERPRISE": (1024, 10240, False),  # 1 TiB .. 10 TiB
}


class Filestore(StorageType):
    name = "filestore"
    # XPK's --instance: "If not set, then the "name" parameter is inferred as an instance name."
    # (src/xpk/parser/storage.py:164-168 at 367c838253be)
    name_is_source = "instance"
    driver = "filestore.csi.storage.gke.io"
    addon = "gcpFilestoreCsiDriverConfig"
    addon_attr = "gcp_filestore_csi_driver_config"
    creatable = True

    def volume(self, req: AttachRequest, after: tuple[str, ...]) -> tuple[list[Step], Volume]:
        p, where, i = req.cluster.project, req.where, req.instance
        read, out = self.read_source(
            req,
            f"{FILE}/projects/{p}/locations/{where}/instances/{i}",
            "file.projects.locations.instances.get",
            {
                "ip": "networks.0.ipAddresses.0",
                "share": "fileShares.0.name",
                "size": "fileShares.0.capacityGb",
            },
            after,
        )
        handle = Fmt("modeInstance/{}/{}/{}", where, i, out["share"])
        attrs: dict[str, Text] = {"ip": out["ip"], "volume": out["share"]}
        return [read], Volume(self.name, handle, attrs, Fmt("{}Gi", out["size"]))

    def create_size(self, size: str, tier: str, throughput: int) -> int:
        gib = needs_size(self.name, size)
        capacity(tier, gib)
        return gib

    def create_location(self, req: AttachRequest, tier: str) -> str:
        zonal = TIERS[tier][2]
        return req.location or (req.cluster.zone if zonal else req.cluster.region)

    def create_step(self, req: CreateRequest, labels: Mapping[str, str]) -> Step:
        """file.v1 instances.create, one file share, on the cluster's network."""
        a = req.attach
        body: dict[str, object] = {
            "tier": req.tier,
            "fileShares": [{"name": req.share, "capacityGb": str(req.size_gib)}],
            "networks": [{"network": req.network, "modes": ["MODE_IPV4"]}],
            "labels": dict(labels),
        }
        what = f"Filestore {req.tier} instance {a.instance} ({req.size_gib} GiB) in {a.where}"
        return create_instance(req, FILE, "file.projects.locations.instances.create", body, what)

    def create_notes(self, req: CreateRequest) -> list[str]:
        kind = "zonal" if TIERS[req.tier][2] else "regional"
        return [f"location {req.attach.where}: tier {req.tier} is {kind}"]

    def delete_step(self, record: Storage, after: tuple[str, ...]) -> Step:
        return delete_instance(record, after, FILE, "file")


def capacity(tier: str, gib: int) -> None:
    low, high, _zonal = TIERS[tier]
    if not low <= gib <= high:
        raise UserError(
            f"Filestore tier {tier} takes {low}-{high} GiB; {gib} GiB asked",
            hint=f"give --size between {low}GB and {high}GB, or another --tier",
        )


FILESTORE = Filestore()
