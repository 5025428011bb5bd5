"""What each storage type is on GKE: its CSI driver and add-on, and the PV and PVC that bind it.

Shapes follow the drivers' own pre-provisioned examples: gcs-fuse-csi-driver
(https://github.com/GoogleCloudPlatform/gcs-fuse-csi-driver/tree/main/examples/static), the
Filestore driver's pre-provisioned PV
(https://github.com/kubernetes-sigs/gcp-filestore-csi-driver/blob/master/docs/kubernetes/pre-provisioned-pv.md),
the Lustre driver's (https://github.com/GoogleCloudPlatform/lustre-csi-driver/blob/main/docs/preprov-guide.md),
and the PD driver's. The PV is bound to its claim both ways (claimRef and volumeName) with an
empty storage class, so no provisioner ever touches it; reclaim policy Retain: deleting the
PV never deletes the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xcli.plan.steps import Text


@dataclass(frozen=True)
class TypeInfo:
    driver: str
    addon: str  # field of container.v1 AddonsConfig
    addon_attr: str  # the same field in google-cloud-container's message (snake case)
    gke_only: bool = True


TYPES: dict[str, TypeInfo] = {
    "gcsfuse": TypeInfo(
        "gcsfuse.csi.storage.gke.io", "gcsFuseCsiDriverConfig", "gcs_fuse_csi_driver_config"
    ),
    "filestore": TypeInfo(
        "filestore.csi.storage.gke.io",
        "gcpFilestoreCsiDriverConfig",
        "gcp_filestore_csi_driver_config",
    ),
    "lustre": TypeInfo(
        "lustre.csi.storage.gke.io", "lustreCsiDriverConfig", "lustre_csi_driver_config"
    ),
    "parallelstore": TypeInfo(
        "parallelstore.csi.storage.gke.io",
        "parallelstoreCsiDriverConfig",
        "parallelstore_csi_driver_config",
    ),
    "pd": TypeInfo(
        "pd.csi.storage.gke.io",
        "gcePersistentDiskCsiDriverConfig",
        "gce_persistent_disk_csi_driver_config",
    ),
}
TYPES["hyperdisk-ml"] = TYPES["pd"]

# gcsfuse mount options, from Google's TPU samples (gcsfuse samples/gke-csi-yaml/tpu/
# training-pv.yaml and checkpointing-pv.yaml) and tpu-recipes' dataset PV: datasets (read-only)
# cache metadata for ever; checkpoints add the file cache, parallel downloads, kernel
# read-ahead and streaming writes.
DATASET_OPTIONS = (
    "implicit-dirs",
    "metadata-cache:negative-ttl-secs:0",
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:stat-cache-max-size-mb:-1",
    "metadata-cache:type-cache-max-size-mb:-1",
)
CHECKPOINT_OPTIONS = (
    *DATASET_OPTIONS,
    "file-cache:max-size-mb:-1",
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
    "read_ahead_kb=1024",
    "write:enable-streaming-writes:true",
)
# Filestore over NFS: datasets and checkpoints alike (the driver's defaults), read-only shown.
NFS_READONLY = ("ro",)


def default_options(kind: str, readonly: bool) -> tuple[str, ...]:
    if kind == "gcsfuse":
        return DATASET_OPTIONS if readonly else CHECKPOINT_OPTIONS
    return ()


def pv_name(namespace: str, name: str) -> str:
    """PersistentVolumes are cluster-wide: the namespace is part of the name."""
    return f"xcli-{namespace}-{name}"


def pvc_name(name: str) -> str:
    return f"xcli-{name}"


@dataclass(frozen=True)
class Volume:
    """The CSI source of one storage: volume handle, attributes, capacity to declare."""

    kind: str
    handle: Text
    attributes: dict[str, Text]
    capacity: Text  # a Kubernetes quantity (a ref: read from the resource); gcsfuse ignores it


def gcsfuse_volume(bucket: str) -> Volume:
    attributes: dict[str, Text] = {
        # the driver's own bucket check needs extra IAM for its controller; the mount fails
        # clearly enough on a wrong bucket (gcsfuse samples set this too)
        "skipCSIBucketAccessCheck": "true",
        "gcsfuseMetadataPrefetchOnMount": "true",
        "gcsfuseLoggingSeverity": "warning",
        # xcli's JobSet pods use hostNetwork: the pod's KSA authenticates only with this
        # (gcs-fuse-csi-driver docs/authentication.md; GKE 1.33.3-gke.1226000+, Standard)
        "hostNetworkPodKSA": "true",
    }
    return Volume("gcsfuse", bucket, attributes, "64Gi")


def pv(
    name: str, namespace: str, volume: Volume, readonly: bool, options: tuple[str, ...]
) -> dict[str, Any]:
    info = TYPES[volume.kind]
    mode = "ReadOnlyMany" if readonly else "ReadWriteMany"
    if volume.kind in ("pd", "hyperdisk-ml"):
        mode = "ReadOnlyMany"  # one disk on many nodes: read-only only
    spec: dict[str, Any] = {
        "accessModes": [mode],
        "capacity": {"storage": volume.capacity},
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "",
        "volumeMode": "Filesystem",
        "claimRef": {"namespace": namespace, "name": pvc_name(name)},
        "csi": {
            "driver": info.driver,
            "volumeHandle": volume.handle,
            **({"volumeAttributes": dict(volume.attributes)} if volume.attributes else {}),
            **({"readOnly": True} if readonly else {}),
            **({"fsType": "ext4"} if info.driver.startswith("pd.") else {}),
        },
    }
    if options:
        spec["mountOptions"] = list(options)
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": pv_name(namespace, name),
            "labels": {"xcli.dev/storage": name},
            "annotations": {"pv.kubernetes.io/provisioned-by": info.driver},
        },
        "spec": spec,
    }


def pvc(name: str, namespace: str, volume: Volume, readonly: bool) -> dict[str, Any]:
    mode = "ReadOnlyMany" if readonly or volume.kind in ("pd", "hyperdisk-ml") else "ReadWriteMany"
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": pvc_name(name),
            "namespace": namespace,
            "labels": {"xcli.dev/storage": name},
        },
        "spec": {
            "accessModes": [mode],
            "resources": {"requests": {"storage": volume.capacity}},
            "storageClassName": "",
            "volumeName": pv_name(namespace, name),
        },
    }
