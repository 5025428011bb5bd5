"""A storage attached to a cluster: the record `xcli storage attach` writes and workloads read.

One record per attached storage. Where it is kept depends on where the cluster is:
- GKE: a ConfigMap `xcli-storage-<name>` in the workloads' namespace, labelled
  `xcli.dev/storage: "true"`, its data the record's fields as strings (ConfigMap data is
  strings); `xcli storage list` lists the labelled ConfigMaps, a workload reads the ones it names
  (and every `auto_mount` one).
- Queued resources and the local provider (no Kubernetes): one JSON file per storage in
  `local_dir(cluster)` under xcli's state folder.

The record is pure data, so the workload package (which mounts it) and the storage command
(which writes it) agree on one shape.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from xcli.paths import state_dir
from xcli.plan.gke.kueue_objects import meta

LABEL = "xcli.dev/storage"
CONFIGMAP_PREFIX = "xcli-storage-"


@dataclass(frozen=True)
class Storage:
    """What a workload needs to mount one storage, and what `detach`/`delete` need to undo it.

    `source` names the backing resource in the type's own terms: the bucket for gcsfuse,
    `projects/P/locations/L/instances/I` for Filestore, Lustre and Parallelstore, the disk's
    `projects/P/zones/Z/disks/D` for pd/hyperdisk-ml, a directory on the local provider.
    `pvc` is the PersistentVolumeClaim in `namespace` (GKE only; empty elsewhere).
    `created` is true when `xcli storage create` made the backing resource (only then may
    `xcli storage delete` destroy it).
    """

    name: str
    type: str
    source: str
    mount_point: str
    readonly: bool = False
    auto_mount: bool = False
    mount_options: tuple[str, ...] = ()
    namespace: str = "default"
    pvc: str = ""
    created: bool = False
    attributes: dict[str, str] = field(default_factory=dict)  # type-specific, e.g. Filestore ip

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["mount_options"] = list(self.mount_options)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Storage:
        return cls(
            name=str(data["name"]),
            type=str(data["type"]),
            source=str(data["source"]),
            mount_point=str(data["mount_point"]),
            readonly=bool(data.get("readonly", False)),
            auto_mount=bool(data.get("auto_mount", False)),
            mount_options=tuple(str(o) for o in data.get("mount_options", ())),
            namespace=str(data.get("namespace", "default")),
            pvc=str(data.get("pvc", "")),
            created=bool(data.get("created", False)),
            attributes={str(k): str(v) for k, v in dict(data.get("attributes", {})).items()},
        )


# Characters a mount point may not hold: shell glob and brace characters, and (below) any
# whitespace or control character. Scripts quote every expansion, but a name that splits or
# globs where a script forgets to is how the symlink fallback once deleted files outside the
# mount point (issue 26), and such names are never needed for a mount point.
_GLOB_CHARS = frozenset("*?[]{}")


def mount_point_problem(path: str) -> str:
    """Why `path` cannot be a mount point ("" when it can): absolute, printable, no glob."""
    if not path.startswith("/"):
        return "is not an absolute path"
    bad = sorted({c for c in path if c in _GLOB_CHARS})
    if bad:
        return "holds glob characters " + " ".join(bad)
    if any(c.isspace() or not c.isprintable() for c in path):
        return "holds whitespace or control characters"
    return ""


def mounts_collide(a: str, b: str) -> bool:
    """Two mount points that are the same folder, or one inside the other (normalised)."""
    a, b = posixpath.normpath(a), posixpath.normpath(b)
    return a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/")


def configmap_name(name: str) -> str:
    return CONFIGMAP_PREFIX + name


def to_configmap(storage: Storage) -> dict[str, Any]:
    """The record as a ConfigMap: one key `storage` holding the record's JSON (sorted keys)."""
    metadata = meta(configmap_name(storage.name), storage.namespace)
    metadata.setdefault("labels", {})[LABEL] = "true"
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata,
        "data": {"storage": json.dumps(storage.to_json(), sort_keys=True)},
    }


def from_configmap(obj: dict[str, Any]) -> Storage:
    return Storage.from_json(json.loads(obj["data"]["storage"]))


def local_dir(cluster: str) -> Path:
    """Where queued-resource and local clusters keep their storage records on this machine."""
    return state_dir() / "storage" / cluster


def local_file(cluster: str, name: str) -> Path:
    return local_dir(cluster) / f"{name}.json"
