"""The image levers of `cluster create` on GKE: image streaming and secondary boot disks. Pure.

Both are fields of the accelerator node pools' NodeConfig (container.v1 discovery document):
- `gcfsConfig.enabled` turns on image streaming: containers start while their image is still
  being fetched (https://cloud.google.com/kubernetes-engine/docs/how-to/image-streaming). It
  needs the COS containerd node image and images in Artifact Registry (or public Docker Hub).
- `secondaryBootDisks[] = {diskImage, mode: CONTAINER_IMAGE_CACHE}` attaches a disk cloned from
  a prepared image that already holds the container images
  (https://cloud.google.com/kubernetes-engine/docs/how-to/data-container-image-preloading).
  Image streaming must be on for it, and the field exists only at node-pool creation (no
  UpdateNodePoolRequest field), so changing the disk means a new node pool.
The system pool gets neither: it runs the controllers, not the training image.
"""

from __future__ import annotations

import re
from typing import Any

from xcli.errors import UserError
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

IMAGE_TYPE = "COS_CONTAINERD"
CACHE_MODE = "CONTAINER_IMAGE_CACHE"
# A Compute Engine image: projects/P/global/images/NAME, or global/images/NAME in the cluster's
# own project (the forms the preloading docs and gke-disk-image-builder's output use). Image
# names are RFC 1035 labels of at most 63 characters (compute.v1 Image.name).
_IMAGE = re.compile(
    r"^(projects/(?P<project>[a-z][-a-z0-9.:]{4,61}[a-z0-9])/)?global/images/"
    r"(?P<name>[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$"
)


def streaming(spec: ClusterSpec) -> bool:
    """Image streaming is on when asked for, and whenever a secondary boot disk is given."""
    return gke_opts.of(spec).image_streaming or bool(boot_disks(spec))


def boot_disks(spec: ClusterSpec) -> tuple[str, ...]:
    return gke_opts.of(spec).secondary_boot_disk


def disk_image(value: str, project: str) -> str:
    """The fully qualified image of a --secondary-boot-disk value; UserError if malformed."""
    found = _IMAGE.match(value)
    if found is None:
        raise UserError(
            f"--secondary-boot-disk {value!r} is not a disk image",
            hint="give projects/PROJECT/global/images/NAME (or global/images/NAME in the "
            "cluster's project); build one with gke-disk-image-builder (docs/storage.md)",
        )
    return f"projects/{found['project'] or project}/global/images/{found['name']}"


# Secondary boot disks on Standard clusters: GKE 1.28.3-gke.1067000 and later (the preloading
# page above).
MIN_BOOT_DISK_VERSION = (1, 28, 3, 1067000)
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)-gke\.(\d+)$")


def check(spec: ClusterSpec) -> None:
    """Refuse a malformed disk image, or a --gke-version too old for one, before planning."""
    for value in boot_disks(spec):
        disk_image(value, spec.project)
    version = str(gke_opts.of(spec).gke_version or "")
    found = _VERSION.match(version)
    if boot_disks(spec) and found and tuple(map(int, found.groups())) < MIN_BOOT_DISK_VERSION:
        raise UserError(
            f"--secondary-boot-disk needs GKE 1.28.3-gke.1067000 or later, not {version}",
            hint="pass a later --gke-version, or drop it to take the release channel's default",
        )


def apply(spec: ClusterSpec, body: dict[str, Any]) -> dict[str, Any]:
    """An accelerator node pool's create body with the levers set (a new dict)."""
    if not streaming(spec):
        return body
    pool = dict(body["nodePool"])
    config = dict(pool["config"])
    config["imageType"] = IMAGE_TYPE
    config["gcfsConfig"] = {"enabled": True}
    disks = [disk_image(d, spec.project) for d in boot_disks(spec)]
    if disks:
        config["secondaryBootDisks"] = [{"diskImage": d, "mode": CACHE_MODE} for d in disks]
    pool["config"] = config
    return {**body, "nodePool": pool}


def notes(spec: ClusterSpec) -> list[str]:
    """What the levers need from the project, said once in the plan."""
    if not streaming(spec):
        return []
    out = [
        "image streaming (gcfsConfig) on the accelerator pools: needs the Container File "
        "System API (containerfilesystem.googleapis.com) enabled, and images in Artifact "
        "Registry or public Docker Hub; other images are pulled whole. Node pools that "
        "already exist keep their settings"
    ]
    if boot_disks(spec):
        out.append(
            "secondary boot disk(s): set at node-pool creation only; existing pools keep what "
            "they have (a new disk image means a new node pool)"
        )
    if not gke_opts.of(spec).image_streaming:
        out.append("image streaming turned on: secondary boot disks require it")
    return out
