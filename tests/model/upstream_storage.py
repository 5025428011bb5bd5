"""xcli's storage PersistentVolumes against the CSI drivers' own examples, field by field.

The upstream files are pinned in tests/data/upstream (tests/data/SOURCES.md: repository, commit,
path, licence). Where xcli differs on purpose, CHOSEN says so and why; any other difference is
one line naming xcli's object, the field and the upstream file.
"""

from __future__ import annotations

from typing import Any

import yaml

from tests.conftest import DATA

UP = DATA / "upstream"
# CSI driver -> (upstream file, the PV's `csi` fields compared, source line for the report)
PVS: dict[str, tuple[str, tuple[str, ...]]] = {
    "lustre.csi.storage.gke.io": (
        "GoogleCloudPlatform/lustre-csi-driver/examples/pre-prov/preprov-pvc-pv.yaml",
        ("volumeAttributes",),
    ),
    "filestore.csi.storage.gke.io": (
        "kubernetes-sigs/gcp-filestore-csi-driver/examples/kubernetes/pre-provision/preprov-pv.yaml",
        ("volumeAttributes",),
    ),
    "gcsfuse.csi.storage.gke.io": (
        "GoogleCloudPlatform/gcsfuse/samples/gke-csi-yaml/tpu/training-pv.yaml",
        ("volumeAttributes",),
    ),
}
# (driver, field, key) -> why xcli differs from the upstream example on purpose
CHOSEN: dict[tuple[str, str, str], str] = {
    ("gcsfuse.csi.storage.gke.io", "volumeAttributes", "gcsfuseMetadataPrefetchOnMount"): (
        "kept: xcli sets it as the gcs-fuse-csi-driver docs advise for training reads; the "
        "sample PV leaves it to the default"
    ),
    ("lustre.csi.storage.gke.io", "volumeAttributes", "mountpoint"): (
        "the driver reads mountpoint since lustre-csi-driver 2b686a5f (2025-11-25), and the "
        "example names it as the alternative; older drivers need ip and filesystem"
    ),
}


def upstream_pv(path: str) -> dict[str, Any]:
    for doc in yaml.safe_load_all((UP / path).read_text(encoding="utf-8")):
        if doc and doc.get("kind") == "PersistentVolume":
            return dict(doc)
    raise AssertionError(f"{path}: no PersistentVolume")


def _keys(value: Any) -> set[str]:
    return set(value) if isinstance(value, dict) else set()


def storage_drift(objects: list[dict[str, Any]]) -> list[str]:
    """One line per field where a PV of xcli lacks what its driver's example sets."""
    lines = []
    for pv in (o for o in objects if o.get("kind") == "PersistentVolume"):
        csi = pv.get("spec", {}).get("csi", {})
        if csi.get("driver") not in PVS:
            continue
        path, fields = PVS[csi["driver"]]
        up = upstream_pv(path)["spec"]["csi"]
        for field in fields:
            missing = _keys(up.get(field)) - _keys(csi.get(field))
            missing = {k for k in missing if (csi["driver"], field, k) not in CHOSEN}
            if missing:
                lines.append(
                    f"PersistentVolume {pv['metadata']['name']} spec.csi.{field} lacks "
                    f"{', '.join(sorted(missing))} that {path} sets"
                )
    return lines
