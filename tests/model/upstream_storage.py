"""xcli's storage PersistentVolumes against the CSI drivers' own examples, field by field.

The upstream files are pinned in tests/data/upstream (tests/data/SOURCES.md: repository, commit,
path, licence). Compared: the access modes, the shape of the volume handle, every volume
attribute and mount option the example sets (xcli must set it too), and every one xcli sets
beyond the example (it must be in CHOSEN, with the reason, or in another upstream sample of the
same driver). Each drift is one line naming xcli's PV, the field and the upstream file.
"""

from __future__ import annotations

from typing import Any

import yaml

from tests.conftest import DATA

UP = DATA / "upstream"
GCSFUSE = "GoogleCloudPlatform/gcsfuse/samples/gke-csi-yaml/tpu/"
# CSI driver -> the upstream examples of a PV (the first one is the reference for the report)
PVS: dict[str, tuple[str, ...]] = {
    "lustre.csi.storage.gke.io": (
        "GoogleCloudPlatform/lustre-csi-driver/examples/pre-prov/preprov-pvc-pv.yaml",
    ),
    "filestore.csi.storage.gke.io": (
        "kubernetes-sigs/gcp-filestore-csi-driver/examples/kubernetes/pre-provision/preprov-pv.yaml",
    ),
    "gcsfuse.csi.storage.gke.io": (GCSFUSE + "training-pv.yaml", GCSFUSE + "checkpointing-pv.yaml"),
}
# (driver, field, key) xcli sets beyond every upstream example -> why
CHOSEN: dict[tuple[str, str, str], str] = {
    ("gcsfuse.csi.storage.gke.io", "mountOptions", "metadata-cache:type-cache-max-size-mb:-1"): (
        "unlimited type cache as AI-Hypercomputer/tpu-recipes c8cfe2f68908 training/ironwood/"
        "deepseek3-671b/4k-bf16-tpu7x-4x8x8-gcs/xpk/dataset_pvc.yaml sets it (xcli/storage/"
        "volumes.py DATASET_OPTIONS)"
    ),
    ("gcsfuse.csi.storage.gke.io", "volumeAttributes", "gcsfuseLoggingSeverity"): (
        "warning, so the sidecar's log is readable at scale (gcs-fuse-csi-driver docs, "
        "volume attributes table)"
    ),
    ("gcsfuse.csi.storage.gke.io", "volumeAttributes", "hostNetworkPodKSA"): (
        "TPU pods run with hostNetwork; gcs-fuse-csi-driver 5fcdc04a examples/multi-nic/"
        "cloudtpu.yaml sets it for them (audit E.40)"
    ),
    ("lustre.csi.storage.gke.io", "volumeAttributes", "mountpoint"): (
        "the example names it as the alternative to ip + filesystem (drivers since "
        "lustre-csi-driver 2b686a5f read it); it does not replace them for older drivers (F.A2)"
    ),
}


def upstream_pv(path: str) -> dict[str, Any]:
    for doc in yaml.safe_load_all((UP / path).read_text(encoding="utf-8")):
        if doc and doc.get("kind") == "PersistentVolume":
            return dict(doc)
    raise AssertionError(f"{path}: no PersistentVolume")


def _fields(pv: dict[str, Any]) -> dict[str, set[str]]:
    spec = pv["spec"]
    return {
        "volumeAttributes": set(spec["csi"].get("volumeAttributes") or {}),
        "mountOptions": set(spec.get("mountOptions") or []),
    }


def _where(field: str) -> str:
    return f"spec.csi.{field}" if field == "volumeAttributes" else f"spec.{field}"


def pv_drift(pv: dict[str, Any]) -> list[str]:
    driver = pv["spec"]["csi"]["driver"]
    examples = [upstream_pv(p) for p in PVS[driver]]
    ours = _fields(pv)
    missing = [
        {f: _fields(up)[f] - ours[f] for f in ours} for up in examples
    ]  # per example: what it sets and xcli does not
    best = min(range(len(examples)), key=lambda n: sum(len(m) for m in missing[n].values()))
    up, path, name = examples[best], PVS[driver][best], pv["metadata"]["name"]
    lines = []
    read_only = pv["spec"].get("accessModes") == ["ReadOnlyMany"]  # `--read-only` attach, chosen
    if pv["spec"].get("accessModes") != up["spec"].get("accessModes") and not read_only:
        lines.append(f"PersistentVolume {name} spec.accessModes differs from {path}")
    handle, up_handle = pv["spec"]["csi"]["volumeHandle"], up["spec"]["csi"]["volumeHandle"]
    if handle.count("/") != str(up_handle).split("#")[0].strip().count("/"):
        lines.append(
            f"PersistentVolume {name} spec.csi.volumeHandle {handle}: not shaped as "
            f"{up_handle} in {path}"
        )
    for field, keys in missing[best].items():
        if keys:
            lines.append(
                f"PersistentVolume {name} {_where(field)} lacks {', '.join(sorted(keys))} "
                f"that {path} sets"
            )
    known = set().union(*(_fields(e)[f] for e in examples for f in ours))
    for field, keys in ours.items():
        extra = {k for k in keys - known if (driver, field, k) not in CHOSEN}
        if extra:
            lines.append(
                f"PersistentVolume {name} {_where(field)} sets {', '.join(sorted(extra))}: in no "
                f"upstream example ({', '.join(PVS[driver])}) and not listed in CHOSEN"
            )
    return lines


def storage_drift(objects: list[dict[str, Any]]) -> list[str]:
    """One line per field where a PV of xcli departs from its driver's examples."""
    lines = []
    for pv in (o for o in objects if o.get("kind") == "PersistentVolume"):
        if pv.get("spec", {}).get("csi", {}).get("driver") in PVS:
            lines += pv_drift(pv)
    return lines
