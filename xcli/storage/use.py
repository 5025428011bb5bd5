"""attach, create, detach, delete: check against what the reader found, then build the plan."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from xcli.errors import UserError
from xcli.plan.cluster import ClusterRef
from xcli.plan.model import Plan
from xcli.plan.storage import Storage
from xcli.storage import checks, create, files, gke
from xcli.storage.request import AttachRequest, CreateRequest
from xcli.storage.service import Reader, check_new, find

if TYPE_CHECKING:
    from xcli.providers.base import ClusterAccess


@dataclass(frozen=True)
class Target:
    """The cluster, and how it keeps storages (its provider's registry capabilities)."""

    ref: ClusterRef
    kube: bool  # GKE: PV, PVC and a ConfigMap record; else a record file on this machine
    cloud: bool  # queued resources: a cloud, no Kubernetes; local: neither
    # how a live run reaches its Kubernetes API (its provider's ClusterAccess), when `kube`
    access: ClusterAccess | None = None


def check_type(req: AttachRequest, target: Target) -> None:
    """What each kind of cluster can attach (before anything is read)."""
    if not target.cloud and not req.path:
        raise UserError(
            f"cluster {target.ref.name} is a local cluster: a storage is a directory here",
            hint=f"give --path DIR (the directory workloads see at {req.mount_point})",
        )
    if target.cloud and req.path:
        raise UserError("--path is for local clusters", hint="give --bucket, --instance or --disk")
    if target.cloud and not target.kube and req.type != "gcsfuse":
        raise UserError(
            f"queued-resource clusters mount Cloud Storage buckets only, not {req.type}",
            hint="use --type gcsfuse --bucket BUCKET, or a GKE cluster for other types",
        )


def attach_plan(req: AttachRequest, target: Target, reader: Reader) -> Plan:
    check_type(req, target)
    existing = reader.records(target.ref, req.namespace)
    check_new(existing, req.name, target.ref.name)
    checks.mount_point(req.mount_point, req.name, existing or [])
    if not target.kube:
        return files.plan_attach(target.ref.name, _local_record(req, target))
    return gke.plan_attach(req, reader.addon_on(target.ref, req.type))


def _local_record(req: AttachRequest, target: Target) -> Storage:
    record = gke.record_of(req)
    if not target.cloud:
        record = replace(record, source=req.path)
    return replace(record, namespace="", pvc="", attributes={})


def create_plan(req: CreateRequest, target: Target, reader: Reader) -> Plan:
    a = req.attach
    if not target.cloud:
        raise UserError(
            "a local cluster's storage is a directory: there is nothing to create",
            hint=f"mkdir it, then: xcli storage attach {a.name} --path DIR --cluster "
            f"{target.ref.name}",
        )
    if a.type not in ("gcsfuse", "filestore", "lustre"):
        hint = (
            "GKE's Parallelstore CSI driver is no longer supported: create a Managed Lustre "
            "instance instead (--type lustre)"
        )
        if a.type in ("pd", "hyperdisk-ml"):
            hint = "create the disk with gcloud compute disks create, then attach it with --disk"
        raise UserError(f"xcli cannot create {a.type} storage", hint=hint)
    check_type(a, target)
    existing = reader.records(target.ref, a.namespace)
    check_new(existing, a.name, target.ref.name)
    checks.mount_point(a.mount_point, a.name, existing or [])
    addon = reader.addon_on(target.ref, a.type) if target.kube else None
    return create.plan_create(req, addon, target.kube)


@dataclass(frozen=True)
class Found:
    """The record to undo, and whether another storage still needs its bucket grant."""

    record: Storage
    grant_shared: bool = False


def record_for(
    reader: Reader, target: Target, name: str, namespace: str, given: Storage | None
) -> Found:
    """The record to undo: read (live, or from files), else described by the flags (a GKE
    dry-run reads nothing)."""
    found = reader.records(target.ref, namespace)
    if found is None:
        if given is None:
            raise UserError(
                "a --dry-run reads nothing from the cluster, so it needs the storage described",
                hint="add --type and the --bucket, --instance or --disk it was attached with",
            )
        return Found(given)
    record = find(found, name, target.ref.name)
    shared = any(_same_grant(record, other) for other in found if other.name != name)
    return Found(record, shared)


def _same_grant(a: Storage, b: Storage) -> bool:
    ksa = a.attributes.get("ksa"), b.attributes.get("ksa")
    same = (a.type, a.source, a.namespace, a.readonly) == (
        b.type,
        b.source,
        b.namespace,
        b.readonly,
    )
    return same and ksa[0] == ksa[1]


def detach_plan(found: Found, target: Target) -> Plan:
    if not target.kube:
        return files.plan_detach(target.ref.name, found.record)
    return gke.plan_detach(found.record, target.ref.name, target.ref.project, found.grant_shared)


def delete_plan(found: Found, target: Target) -> Plan:
    record = found.record
    if not record.created or record.type not in ("gcsfuse", "filestore", "lustre"):
        raise UserError(
            f"storage {record.name} ({record.type} {record.source}) was not created by xcli "
            "storage create: xcli does not delete it",
            hint=f"detach it instead: xcli storage detach {record.name} --cluster "
            f"{target.ref.name}",
        )
    return create.plan_delete(
        record, target.ref.name, target.ref.project, target.kube, found.grant_shared
    )
