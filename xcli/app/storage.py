"""`xcli storage create | attach | detach | list | delete`: data and checkpoints for workloads.

Each use case takes a frozen request (the flags as given), checks it, finds the cluster and how
it keeps storages (its provider's capabilities: a Kubernetes cluster keeps labelled ConfigMaps,
reached through the provider's ClusterAccess; others keep record files on this machine), reads
what exists through the reader `deps.record` gives (nothing on a dry-run of a Kubernetes
cluster), builds the plan (xcli/storage/) and runs it through `deps.run_plan`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from xcli.app.storage_request import (
    ClusterWhere,
    Mount,
    Source,
    Target,
    attach_request,
    target_of,
)
from xcli.errors import UserError
from xcli.plan.storage_types import find as find_type
from xcli.plan.storage_types import unit
from xcli.storage import create, files, gke
from xcli.storage.service import check_new, find

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.plan.model import Plan
    from xcli.plan.storage import Storage
    from xcli.plan.storage_request import AttachRequest
    from xcli.storage.service import Reader

__all__ = ["ClusterWhere", "Mount", "Source"]


@dataclass(frozen=True)
class AttachStorage:
    name: str
    cluster: ClusterWhere
    source: Source
    mount: Mount


@dataclass(frozen=True)
class CreateStorage:
    attach: AttachStorage
    size: str  # filestore, lustre: e.g. 1TB
    tier: str  # filestore
    throughput: int  # lustre: MBps per TiB
    network: str
    share: str = "vol1"  # filestore: the file share's name (XPK's --vol)


@dataclass(frozen=True)
class RemoveStorage:
    """Detach or delete: the storage by name; on a dry-run the source describes it."""

    name: str
    cluster: ClusterWhere
    source: Source


@dataclass(frozen=True)
class Found:
    """The record to undo, and whether another storage still needs its bucket grant."""

    record: Storage
    grant_shared: bool = False


def attach(req: AttachStorage, deps: Deps) -> None:
    """Attach existing storage: CSI driver add-on, access, PV and PVC, and a record."""
    if req.source.manifest:
        from xcli.app.storage_manifest import attach_manifest

        attach_manifest(req, deps)
        return
    areq, target = attach_request(req.name, req.cluster, req.source, req.mount, deps)
    reader = reader_of(target, deps)
    _check_type(areq, target)
    check_new_name(areq, target, reader)
    if not target.kube:
        plan = files.plan_attach(target.ref.name, _local_record(areq, target))
    else:
        plan = gke.plan_attach(areq, reader.addon_on(target.ref, areq.type))
    confirm_recreate(plan, target, deps)
    run_storage_plan(plan, target, deps)


def create_storage(req: CreateStorage, deps: Deps) -> None:
    """Create the backing resource (a bucket, a Filestore or Lustre instance), then attach it."""
    from xcli.plan.storage_request import CreateRequest
    from xcli.spec import check_name

    a = req.attach
    network = check_name(req.network, "network", 63)
    areq, target = attach_request(
        a.name, a.cluster, a.source, a.mount, deps, created=True, new_bucket=True
    )
    kind = unit(areq.type)
    gib = kind.create_size(req.size, req.tier, req.throughput)
    areq = replace(areq, location=kind.create_location(areq, req.tier))
    creq = CreateRequest(
        attach=areq,
        size_gib=gib,
        tier=req.tier,
        throughput=req.throughput,
        network=network,
        share=_share(req.share, req.tier),
    )
    reader = reader_of(target, deps)
    if not target.cloud:
        raise UserError(
            "a local cluster's storage is a directory: there is nothing to create",
            hint=f"mkdir it, then: xcli storage attach {areq.name} --path DIR --cluster "
            f"{target.ref.name}",
        )
    if not kind.creatable:
        raise UserError(f"xcli cannot create {areq.type} storage", hint=kind.not_creatable_hint)
    _check_type(areq, target)
    check_new_name(areq, target, reader)
    addon = reader.addon_on(target.ref, areq.type) if target.kube else None
    plan = create.plan_create(creq, addon, target.kube)
    confirm_recreate(plan, target, deps)
    run_storage_plan(plan, target, deps)


def detach(req: RemoveStorage, deps: Deps) -> None:
    """Detach: the PV, PVC, access grant and record go; the data stays."""
    from xcli.storage import unread

    target, found = _existing(req, deps)
    if found is None:  # a dry-run that read nothing: the plan says what is read first
        run_storage_plan(
            unread.plan_detach(req.name, req.cluster.namespace, target.ref.name), target, deps
        )
        return
    if not target.kube:
        plan = files.plan_detach(target.ref.name, found.record)
    else:
        plan = gke.plan_detach(
            found.record, target.ref.name, target.ref.project, found.grant_shared
        )
    run_storage_plan(plan, target, deps)


def delete(req: RemoveStorage, deps: Deps) -> None:
    """Detach, then delete what `storage create` made, with its data (asking first)."""
    from xcli.storage import unread

    deps.require_answerable(f"delete storage {req.name}")  # before anything is read
    target, found = _existing(req, deps, created=True)
    if found is None:  # a dry-run that read nothing: the plan says what is read first
        run_storage_plan(
            unread.plan_delete(req.name, req.cluster.namespace, target.ref.name), target, deps
        )
        return
    record = found.record
    kind = find_type(record.type)
    if not record.created or kind is None or not kind.creatable:
        raise UserError(
            f"storage {record.name} ({record.type} {record.source}) was not created by xcli "
            "storage create: xcli does not delete it",
            hint=f"detach it instead: xcli storage detach {record.name} --cluster "
            f"{target.ref.name}",
        )
    plan = create.plan_delete(
        record, target.ref.name, target.ref.project, target.kube, found.grant_shared
    )
    deps.confirm(f"delete {record.type} {record.source} and ALL the data in it")
    run_storage_plan(plan, target, deps)


def list_storages(cluster: ClusterWhere, deps: Deps) -> list[Storage]:
    """The storages attached to a cluster, by name (read even when the run is a dry-run: a
    list changes nothing)."""
    from xcli.app.record import LIVE

    target = target_of(cluster, deps)
    reader = LIVE.storage_reader(target.ref, target.access, deps.storage_gateways)
    return reader.records(target.ref, cluster.namespace) or []


def _existing(req: RemoveStorage, deps: Deps, created: bool = False) -> tuple[Target, Found | None]:
    """The target and the record to undo (read, or described by the flags for a dry-run;
    None: a dry-run of a Kubernetes cluster with nothing described)."""
    from xcli.storage import checks

    name = checks.storage_name(req.name)
    namespace = checks.namespace(req.cluster.namespace)
    target = target_of(req.cluster, deps)
    given = None
    if req.source.kind is not None:
        described, _ = attach_request(name, req.cluster, req.source, Mount(), deps, created)
        given = gke.record_of(described)
    found = reader_of(target, deps).records(target.ref, namespace)
    if found is None:  # nothing was read (a dry-run of a Kubernetes cluster)
        return target, (None if given is None else Found(given))
    record = find(found, name, target.ref.name)
    shared = any(_same_grant(record, other) for other in found if other.name != name)
    return target, Found(record, shared)


def confirm_recreate(plan: Plan, target: Target, deps: Deps) -> None:
    """Recreating every node evicts running pods: ask (after the reads, before any change)."""
    from xcli.storage.nodes import RecreateNodes

    if any(s.kind == RecreateNodes.kind for s in plan.steps):
        deps.confirm(
            f"turning on the Lustre CSI driver recreates the nodes of every node pool of "
            f"cluster {target.ref.name}, evicting running pods; go on?"
        )


def reader_of(target: Target, deps: Deps) -> Reader:
    return deps.record.storage_reader(target.ref, target.access, deps.storage_gateways)


def run_storage_plan(plan: Plan, target: Target, deps: Deps) -> None:
    deps.run_plan(plan, lambda: _handlers(target, deps))


def _handlers(target: Target, deps: Deps) -> Mapping[str, Any]:
    if target.access is None:
        return files.handlers()
    return deps.storage_gateways().handlers(target.access.kube_api(target.ref))


def _check_type(req: AttachRequest, target: Target) -> None:
    """What each kind of cluster can attach (before anything is read)."""
    if not target.cloud and not req.path:
        raise UserError(
            f"cluster {target.ref.name} is a local cluster: a storage is a directory here",
            hint=f"give --path DIR (the directory workloads see at {req.mount_point})",
        )
    if target.cloud and req.path:
        raise UserError("--path is for local clusters", hint="give --bucket, --instance or --disk")
    if target.cloud and not target.kube and not unit(req.type).vm_mountable:
        raise UserError(
            f"queued-resource clusters mount Cloud Storage buckets only, not {req.type}",
            hint="use --type gcsfuse --bucket BUCKET, or a GKE cluster for other types",
        )


def check_new_name(req: AttachRequest, target: Target, reader: Reader) -> None:
    """Refuse a name already attached, and a mount point inside another storage's."""
    from xcli.storage import checks

    existing = reader.records(target.ref, req.namespace)
    check_new(existing, req.name, target.ref.name)
    checks.mount_point(req.mount_point, req.name, existing or [])


def _local_record(req: AttachRequest, target: Target) -> Storage:
    record = gke.record_of(req)
    if not target.cloud:
        record = replace(record, source=req.path)
    return replace(record, namespace="", pvc="", attributes={})


def _zone_or_region(req: AttachRequest, zonal: bool) -> str:
    return req.cluster.zone if zonal else req.cluster.region


def _same_grant(a: Storage, b: Storage) -> bool:
    ksa = a.attributes.get("ksa"), b.attributes.get("ksa")
    same = (a.type, a.source, a.namespace, a.readonly) == (
        b.type,
        b.source,
        b.namespace,
        b.readonly,
    )
    return same and ksa[0] == ksa[1]


def _share(name: str, tier: str) -> str:
    """A Filestore file share name (file.v1 FileShareConfig.name, Google.Cloud.Filestore.V1
    reference: "1-16 characters for the basic service tier and 1-63 characters for all other
    service tiers. Must use lowercase letters, numbers, or underscores [a-z0-9_]. Must start
    with a letter.")."""
    import re

    most = 16 if tier.startswith("BASIC") else 63
    if not re.fullmatch(rf"[a-z][a-z0-9_]{{0,{most - 1}}}", name):
        raise UserError(
            f"--share {name!r} is not a Filestore file share name",
            hint=f"a lowercase letter, then lowercase letters, digits or underscores, at most "
            f"{most} in all (tier {tier})",
        )
    return name
