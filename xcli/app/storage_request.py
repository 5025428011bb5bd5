"""The requests of `xcli storage ...` as given, and their checks: which cluster, which source,
how it is mounted; from them the storage layer's frozen AttachRequest and the Target."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.storage_request import AttachRequest
    from xcli.providers.base import ClusterAccess


@dataclass(frozen=True)
class ClusterWhere:
    cluster: str
    provider: str | None  # None: the one that created it on this machine, else the default
    namespace: str  # the workloads' Kubernetes namespace
    where: Location


@dataclass(frozen=True)
class Source:
    kind: str | None  # the storage type (--type); None: not given (detach, delete)
    bucket: str = ""
    instance: str = ""
    disk: str = ""
    location: str = ""
    path: str = ""
    manifest: str = ""  # attach: the user's PV and PVC file (XPK's --manifest)


@dataclass(frozen=True)
class Mount:
    mount_point: str | None = None  # None: /mnt/NAME
    readonly: bool = False
    auto_mount: bool = False
    mount_options: tuple[str, ...] = ()
    ksa: str = "default"


@dataclass(frozen=True)
class Target:
    """The cluster, and how it keeps storages (its provider's registry capabilities)."""

    ref: ClusterRef
    kube: bool  # Kubernetes: PV, PVC and a ConfigMap record; else a record file on this machine
    cloud: bool  # queued resources: a cloud, no Kubernetes; local: neither
    # how a live run reaches its Kubernetes API (its provider's ClusterAccess), when `kube`
    access: ClusterAccess | None = None


def target_of(where: ClusterWhere, deps: Deps) -> Target:
    from xcli.app.where import cluster_access, ref_for
    from xcli.cluster_index import provider_for

    registry = deps.registry
    name = provider_for(where.cluster, where.provider, registry.default())
    caps = registry.capabilities(name)
    ref = ref_for(registry, where.cluster, name, where.where)
    access = cluster_access(registry, ref) if caps.kubernetes else None
    return Target(ref=ref, kube=caps.kubernetes, cloud=caps.cloud, access=access)


def attach_request(
    name: str,
    where: ClusterWhere,
    source: Source,
    mount: Mount,
    deps: Deps,
    created: bool = False,
    new_bucket: bool = False,
) -> tuple[AttachRequest, Target]:
    """The checked request to attach `name` (`source.kind` given), and its target. `created`:
    made by `storage create` (an instance defaults to the storage's name); `new_bucket`: the
    bucket is about to be created (its name is checked as a new one)."""
    from xcli.plan.storage_request import AttachRequest
    from xcli.plan.storage_types import unit
    from xcli.storage import checks

    name = checks.storage_name(name)
    kind = unit(source.kind or "").name
    namespace = checks.namespace(where.namespace)
    options = checks.mount_options(mount.mount_options, kind)
    target = target_of(where, deps)
    field = unit(kind).name_is_source
    cloud_source = target.cloud and not source.manifest  # a manifest's PV names its source
    if field and not getattr(source, field) and not created and cloud_source:
        inferred = dataclasses.replace(source, **{field: name})
        try:  # a name that cannot be one is the "needs --bucket|--instance" refusal below
            unit(kind).check_source(
                name, inferred.bucket, inferred.instance, inferred.disk, new_bucket=False,
                created=False,
            )  # fmt: skip
        except UserError:
            pass
        else:
            deps.say(f"note: no --{field} given: {field} {name}, the storage's name, as XPK "
                     "infers it")  # fmt: skip
            source = inferred
    instance = source.instance
    given = {"--bucket": source.bucket, "--instance": source.instance, "--disk": source.disk}
    if cloud_source:  # a source flag of another type would be dropped without a word (issue 37)
        from xcli.errors import collect

        def refuse(flag: str) -> None:
            raise UserError(
                f"{flag} names another type's source; {kind} storage takes "
                f"{unit(kind).source_flag}",
                hint=f"drop {flag}",
            )

        collect(*(lambda f=f: refuse(f) for f, v in given.items()
                  if v and f != unit(kind).source_flag))  # fmt: skip
        instance = unit(kind).check_source(
            name,
            source.bucket,
            source.instance,
            source.disk,
            new_bucket=new_bucket,
            created=created,
        )
    # one resource on many nodes, read-only only (a disk): ReadOnlyMany
    readonly = mount.readonly or unit(kind).read_only_only
    if source.path:
        _check_dir(source.path)
    req = AttachRequest(
        name=name,
        type=kind,
        cluster=target.ref,
        mount_point=checks.mount_point(mount.mount_point or f"/mnt/{name}", name, []),
        namespace=namespace,
        readonly=readonly,
        auto_mount=mount.auto_mount,
        mount_options=options,
        bucket=checks.bucket_name(source.bucket, new=False) if source.bucket else "",
        instance=instance,
        disk=source.disk,
        path=source.path,
        location=source.location,
        ksa=checks.namespace(mount.ksa),
        created=created,
    )
    return req, target


def _check_dir(path: str) -> None:
    from pathlib import Path

    if not Path(path).is_absolute() or not Path(path).is_dir():
        raise UserError(
            f"--path {path} is not an existing directory given by its absolute path",
            hint="create it first (mkdir -p), and give its full path",
        )
