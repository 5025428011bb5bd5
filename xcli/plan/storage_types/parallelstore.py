"""parallelstore: a Parallelstore instance, through GKE's Parallelstore CSI driver (which Google
marks as no longer supported: attach only, and the plan says so).

Sources: parallelstore.v1 instances.get (accessPoints, network), the driver's pre-provisioned
volume attributes, and the Parallelstore "Configure a VPC network" page for the network
(Private Service Access, an ingress rule for every TCP port; xcli/storage/network_rules.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xcli.plan.model import Fmt, Step
from xcli.plan.storage_types.base import NetworkNeeds, StorageType, Volume

if TYPE_CHECKING:
    from xcli.plan.steps import Text
    from xcli.plan.storage_request import AttachRequest

PARALLELSTORE = "https://parallelstore.googleapis.com/v1"


class Parallelstore(StorageType):
    name = "parallelstore"
    driver = "parallelstore.csi.storage.gke.io"
    addon = "parallelstoreCsiDriverConfig"
    addon_attr = "parallelstore_csi_driver_config"
    pod_annotations = {"gke-parallelstore/volumes": "true"}  # XPK core/storage.py
    # Parallelstore's VPC page allocates a /24 (64 addresses per instance)
    network = NetworkNeeds("Parallelstore", (), 24, "network_name")
    plan_note = (
        "Google marks GKE's Parallelstore CSI driver as no longer supported (container.v1 "
        "parallelstoreCsiDriverConfig is deprecated): prefer Managed Lustre (--type lustre)"
    )
    not_creatable_hint = (
        "GKE's Parallelstore CSI driver is no longer supported: create a Managed Lustre "
        "instance instead (--type lustre)"
    )

    def volume(self, req: AttachRequest, after: tuple[str, ...]) -> tuple[list[Step], Volume]:
        p, where, i = req.cluster.project, req.where, req.instance
        read, out = self.read_source(
            req,
            f"{PARALLELSTORE}/projects/{p}/locations/{where}/instances/{i}",
            "parallelstore.projects.locations.instances.get",
            {
                "access_points": "accessPoints",
                "network": "network",
                "network_name": "network@last",
                "size": "capacityGib",
            },
            after,
        )
        handle = f"{p}/{where}/{i}/default-pool/default-container"
        attrs: dict[str, Text] = {"accessPoints": out["access_points"], "network": out["network"]}
        return [read], Volume(self.name, handle, attrs, Fmt("{}Gi", out["size"]))


PARALLELSTORE_TYPE = Parallelstore()
