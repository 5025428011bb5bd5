"""lustre: a Google Cloud Managed Lustre instance, through the Lustre CSI driver.

Sources: the driver's pre-provisioning guide
(https://github.com/GoogleCloudPlatform/lustre-csi-driver/blob/main/docs/preprov-guide.md),
lustre.v1 as google-cloud-lustre sends it (no discovery document exists for it), the
performance tiers page for the capacities
(https://cloud.google.com/managed-lustre/docs/performance-tiers), and Cluster Toolkit's
examples/gke-a4x/gke-a4x.yaml for the network (Private Service Access, `lustre_firewall_rule`
on TCP 988; xcli/storage/network_rules.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from xcli.errors import UserError
from xcli.plan.model import Fmt, Step
from xcli.plan.storage_types.base import (
    NetworkNeeds,
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

LUSTRE = "https://lustre.googleapis.com/v1"
# perUnitStorageThroughput (MBps per TiB) -> (min GiB, max GiB, step GiB up to `band` GiB,
# step GiB above it).
TIERS: dict[int, tuple[int, int, int, int, int]] = {
    1000: (9000, 10008000, 9000, 1530000, 72000),
    500: (18000, 20016000, 18000, 3060000, 144000),
    250: (36000, 40032000, 36000, 6120000, 288000),
    125: (72000, 12240000, 72000, 12240000, 72000),
}


class Lustre(StorageType):
    name = "lustre"
    driver = "lustre.csi.storage.gke.io"
    addon = "lustreCsiDriverConfig"
    addon_attr = "lustre_csi_driver_config"
    # Lustre's VPC page allocates a /20 so several instances fit
    network = NetworkNeeds("Managed Lustre", ("988",), 20, "network")
    recreates_nodes = True  # running nodes get the driver only when recreated (storage/nodes.py)
    creatable = True

    def volume(self, req: AttachRequest, after: tuple[str, ...]) -> tuple[list[Step], Volume]:
        p, where, i = req.cluster.project, req.where, req.instance
        # ip and filesystem split from mountPoint ("IP@tcp:/FS"): every driver version reads
        # them; `mountpoint` alone only since lustre-csi-driver commit 2b686a5f (node.go)
        read, out = self.read_source(
            req,
            f"{LUSTRE}/projects/{p}/locations/{where}/instances/{i}",
            "lustre.projects.locations.instances.get",
            {
                "ip": "mountPoint@before:@",
                "filesystem": "mountPoint@after::/",
                "mountpoint": "mountPoint",
                "network": "network@last",
                "size": "capacityGib",
            },
            after,
        )
        attrs: dict[str, Text] = {k: out[k] for k in ("ip", "filesystem", "mountpoint")}
        return [read], Volume(self.name, f"{p}/{where}/{i}", attrs, Fmt("{}Gi", out["size"]))

    def create_size(self, size: str, tier: str, throughput: int) -> int:
        gib = needs_size(self.name, size)
        capacity(throughput, gib)
        return gib

    def create_step(self, req: CreateRequest, labels: Mapping[str, str]) -> Step:
        """lustre.v1 instances.create (REST as google-cloud-lustre sends it), after the
        network's Private Service Access check and the TCP 988 firewall rule."""
        a = req.attach
        body: dict[str, object] = {
            "filesystem": filesystem(a.instance),
            "capacityGib": str(req.size_gib),
            "network": f"projects/{a.cluster.project}/global/networks/{req.network}",
            "perUnitStorageThroughput": str(req.throughput),
            "labels": dict(labels),
        }
        what = f"Managed Lustre instance {a.instance} ({req.size_gib} GiB) in {a.where}"
        return create_instance(
            req, LUSTRE, "lustre.projects.locations.instances.create", body, what
        )

    def delete_step(self, record: Storage, after: tuple[str, ...]) -> Step:
        return delete_instance(record, after, LUSTRE, "lustre")


def filesystem(instance: str) -> str:
    """A Lustre file system name: at most 8 letters and digits (from the instance name)."""
    return "".join(c for c in instance if c.isalnum())[:8] or "lustre"


def capacity(throughput: int, gib: int) -> None:
    low, high, step, band, big_step = TIERS[throughput]
    if gib > band:
        step = big_step
    if not low <= gib <= high or (gib - (band if gib > band else 0)) % step:
        raise UserError(
            f"Managed Lustre at {throughput} MBps/TiB takes {low}-{high} GiB in steps of {step}; "
            f"{gib} GiB asked",
            hint=f"give --size as a multiple of {step}GB, at least {low}GB",
        )


LUSTRE_TYPE = Lustre()
