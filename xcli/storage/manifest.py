"""`storage attach --manifest FILE`: the user's PersistentVolume and PersistentVolumeClaim, as
XPK takes them (src/xpk/commands/storage.py `storage_attach`: `yaml.safe_load_all` of the file,
applied as it is; the Storage resource names the PV and PVC found in it, src/xpk/core/storage.py
`fill_storage_template`, at 367c838253be). Read and checked before anything is sent: YAML, one
PersistentVolume and one PersistentVolumeClaim (XPK's examples/storage/*-manifest-attach.yaml
hold exactly those), each against the Kubernetes schema (gateways/kube/schema.py), the PV's CSI
driver the --type's, and the claim bound to the volume.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from xcli.errors import UserError

KINDS = ("PersistentVolume", "PersistentVolumeClaim")
# metadata.name of both kinds: a DNS subdomain (Kubernetes API conventions, object names)
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# a resource.Quantity (k8s.io/apimachinery pkg/api/resource/quantity.go, the serialization form)
_QUANTITY = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]+)?$")
_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class Manifest:
    """The checked objects: the PV as written, the PVC in the workloads' namespace."""

    pv: dict[str, Any]
    pvc: dict[str, Any]

    @property
    def pv_name(self) -> str:
        return str(self.pv["metadata"]["name"])

    @property
    def pvc_name(self) -> str:
        return str(self.pvc["metadata"]["name"])

    @property
    def handle(self) -> str:
        return str(self.pv["spec"]["csi"]["volumeHandle"])

    @property
    def mount_options(self) -> tuple[str, ...]:
        return tuple(str(o) for o in self.pv["spec"].get("mountOptions") or ())


def read(path: str, driver: str, type_name: str, namespace: str) -> Manifest:
    """The PV and PVC of `path`, checked; the PVC gets `namespace` when it names none."""
    import yaml

    from xcli.user_files import read_text

    where = f"--manifest {path}"
    text = read_text(path, "--manifest", _LIMIT)
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise UserError(f"{where} is not YAML{at}", hint="fix the file") from None
    found: dict[str, dict[str, Any]] = {}
    for doc in docs:
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if kind not in KINDS or doc.get("apiVersion") != "v1":
            shown = (
                f"{doc.get('apiVersion')} {kind}" if isinstance(doc, dict) else type(doc).__name__
            )
            raise UserError(
                f"{where} holds {shown}: xcli applies a v1 PersistentVolume and its "
                "PersistentVolumeClaim only",
                hint="leave only those two in the file (a StorageClass a static volume names "
                "need not exist)",
            )
        if kind in found:
            raise UserError(
                f"{where} holds more than one {kind}", hint="attach one storage per file"
            )
        found[kind] = dict(doc)
    missing = [k for k in KINDS if k not in found]
    if missing:
        raise UserError(
            f"{where} holds no {missing[0]}",
            hint="the file needs both, as XPK's examples/storage/*-manifest-attach.yaml have them",
        )
    pv, pvc = found["PersistentVolume"], found["PersistentVolumeClaim"]
    pvc = _in_namespace(pvc, namespace, where)
    for obj in (pv, pvc):
        _check_object(obj, where)
    _check_pv(pv, driver, type_name, where)
    _check_binding(pv, pvc, namespace, where)
    return Manifest(pv, pvc)


def _in_namespace(pvc: dict[str, Any], namespace: str, where: str) -> dict[str, Any]:
    meta = dict(pvc.get("metadata") or {})
    given = meta.get("namespace")
    if given not in (None, namespace):
        raise UserError(
            f"{where}: the PersistentVolumeClaim is in namespace {given}, the workloads in "
            f"{namespace}",
            hint=f"give --namespace {given}, or change the claim's namespace",
        )
    meta["namespace"] = namespace  # XPK applies a claim without one to `default`
    return {**pvc, "metadata": meta}


def _check_object(obj: dict[str, Any], where: str) -> None:
    from xcli.gateways.kube.schema import problem

    kind = obj["kind"]
    name = (obj.get("metadata") or {}).get("name")
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > 253:
        raise UserError(
            f"{where}: the {kind}'s metadata.name {name!r} is not a Kubernetes name",
            hint="lowercase letters, digits, '-' and '.', at most 253",
        )
    why = problem(obj)
    if why:
        raise UserError(
            f"{where}: {kind} {name}: {why}",
            hint=f"fix the file (kubectl explain {kind.lower()}.spec says each field)",
        )
    spec = obj.get("spec") or {}
    amount = (
        spec.get("capacity") if kind == KINDS[0] else (spec.get("resources") or {}).get("requests")
    ) or {}
    size = amount.get("storage")
    if not isinstance(size, (str, int)) or not _QUANTITY.match(str(size)):
        field = "spec.capacity.storage" if kind == KINDS[0] else "spec.resources.requests.storage"
        raise UserError(
            f"{where}: {kind} {name}: {field} {size!r} is not a Kubernetes quantity",
            hint="e.g. 36000Gi or 1Ti (XPK's examples leave STORAGE_SIZE to fill in)",
        )


def _check_pv(pv: dict[str, Any], driver: str, type_name: str, where: str) -> None:
    name, spec = pv["metadata"]["name"], pv.get("spec") or {}
    if "namespace" in pv["metadata"]:
        raise UserError(
            f"{where}: PersistentVolume {name} names a namespace",
            hint="drop it: PersistentVolumes are cluster-wide",
        )
    csi = spec.get("csi")
    if not isinstance(csi, dict):
        raise UserError(
            f"{where}: PersistentVolume {name} has no spec.csi",
            hint=f"a {type_name} volume is a CSI volume of driver {driver}",
        )
    if csi.get("driver") != driver:
        raise UserError(
            f"{where}: PersistentVolume {name} is of CSI driver {csi.get('driver')}, not "
            f"{driver} (--type {type_name})",
            hint="give the --type of that driver, or fix spec.csi.driver",
        )
    if not str(csi.get("volumeHandle") or "").strip():
        raise UserError(
            f"{where}: PersistentVolume {name} has no spec.csi.volumeHandle",
            hint="the handle names the bucket, instance or disk",
        )


def _check_binding(pv: dict[str, Any], pvc: dict[str, Any], namespace: str, where: str) -> None:
    """The claim binds that volume: by the claim's volumeName, or the volume's claimRef."""
    pv_name, pvc_name = pv["metadata"]["name"], pvc["metadata"]["name"]
    volume = (pvc.get("spec") or {}).get("volumeName")
    ref = (pv.get("spec") or {}).get("claimRef") or {}
    if volume not in (None, pv_name):
        raise UserError(
            f"{where}: PersistentVolumeClaim {pvc_name} binds volume {volume}, not {pv_name}",
            hint="make spec.volumeName the volume's name",
        )
    if ref and (ref.get("name") != pvc_name or ref.get("namespace", namespace) != namespace):
        raise UserError(
            f"{where}: PersistentVolume {pv_name} is reserved for claim "
            f"{ref.get('namespace', namespace)}/{ref.get('name')}, not {namespace}/{pvc_name}",
            hint="make spec.claimRef name the claim in the file",
        )
    if volume is None and not ref:
        raise UserError(
            f"{where}: nothing binds PersistentVolumeClaim {pvc_name} to "
            f"PersistentVolume {pv_name}",
            hint="set the claim's spec.volumeName or the volume's spec.claimRef",
        )
