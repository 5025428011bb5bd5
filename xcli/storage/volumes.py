"""The PV and PVC that bind a storage on GKE, from its type's unit (xcli/plan/storage_types/:
the CSI driver, the volume, read-only-many or not, the file system type).

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

from typing import Any

from xcli.plan.storage_types import Volume, unit


def pv_name(namespace: str, name: str) -> str:
    """PersistentVolumes are cluster-wide: the namespace is part of the name."""
    return f"xcli-{namespace}-{name}"


def pvc_name(name: str) -> str:
    return f"xcli-{name}"


def pv(
    name: str, namespace: str, volume: Volume, readonly: bool, options: tuple[str, ...]
) -> dict[str, Any]:
    info = unit(volume.kind)
    mode = "ReadOnlyMany" if readonly or info.read_only_only else "ReadWriteMany"
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
            **({"fsType": info.fs_type} if info.fs_type else {}),
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
    mode = "ReadOnlyMany" if readonly or unit(volume.kind).read_only_only else "ReadWriteMany"
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
