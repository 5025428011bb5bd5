"""`xcli storage create | attach | detach | list | delete`: data and checkpoints for workloads.

The CLI checks every flag, builds a frozen request, picks how the cluster is read (live, or
nothing for --dry-run) and hands the plan to run_plan. Planning lives in xcli/storage/.
"""

from __future__ import annotations

from typing import Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, change_options, common_options, confirm, emit, read_options
from xcli.cli.common import run_plan as run
from xcli.cli.providers import choice
from xcli.errors import UserError
from xcli.plan.storage import TYPES


@click.group(
    epilog="""\b
Examples:
  xcli storage attach data --type gcsfuse --bucket my-data --readonly --cluster demo --dry-run
  xcli storage create ckpt --type gcsfuse --bucket my-ckpt-bucket --cluster demo --dry-run
  xcli storage create fs --type filestore --size 1TB --cluster demo --dry-run
  xcli storage list --cluster demo
  xcli storage detach data --cluster demo
  xcli storage delete ckpt --cluster demo"""
)
def storage() -> None:
    """Attach buckets, file systems and disks to a cluster; workloads mount them by name."""


def _where(func: Any) -> Any:
    func = click.option(
        "--cluster",
        required=True,
        is_eager=True,
        help="The cluster.",
        shell_complete=complete.clusters,
    )(func)
    func = click.option(
        "--provider",
        type=choice(),
        default=None,
        help="Default: the provider that created the cluster here, else gke.",
    )(func)
    return click.option(
        "--namespace",
        default="default",
        show_default=True,
        help="The workloads' Kubernetes namespace (GKE).",
    )(func)


def _source(func: Any) -> Any:
    func = click.option(
        "--type", "kind", metavar="TYPE", default=None, help=f"Storage type: {', '.join(TYPES)}."
    )(func)
    func = click.option("--bucket", default="", help="gcsfuse: the Cloud Storage bucket.")(func)
    func = click.option(
        "--instance", default="", help="filestore, lustre, parallelstore: the instance name."
    )(func)
    func = click.option("--disk", default="", help="pd, hyperdisk-ml: the disk name.")(func)
    func = click.option(
        "--location", default="", help="Where the instance or disk is (default: --zone)."
    )(func)
    return click.option("--path", default="", help="Local clusters: the directory.")(func)


def _mount(func: Any) -> Any:
    func = click.option(
        "--mount-point", default=None, help="Absolute path in every worker (default: /mnt/NAME)."
    )(func)
    func = click.option(
        "--readonly",
        is_flag=True,
        help="Read-only (datasets): read-only access, dataset mount options.",
    )(func)
    func = click.option(
        "--auto-mount", is_flag=True, help="Mount it in every workload, named or not."
    )(func)
    func = click.option(
        "--mount-options",
        multiple=True,
        metavar="OPTS",
        help="Mount options, comma-separated (default: the type's "
        "recommended ones for datasets or checkpoints).",
    )(func)
    return click.option(
        "--kubernetes-service-account",
        "ksa",
        default="default",
        show_default=True,
        help="GKE: the service account the workloads' pods run as.",
    )(func)


@storage.command(
    epilog="""\b
Examples:
  xcli storage attach data --type gcsfuse --bucket my-data --readonly --cluster demo --dry-run
  xcli storage attach fs --type filestore --instance my-fs --cluster demo --dry-run
  xcli storage attach scratch --type lustre --instance my-lustre --cluster demo --dry-run"""
)
@click.argument("name")
@_where
@_source
@_mount
@change_options
def attach(common: Common, **flags: Any) -> None:
    """Attach existing storage NAME: CSI driver add-on, access, PV and PVC, and a record."""
    from xcli.storage.use import attach_plan

    req, target = _attach_request(common, flags)
    plan = attach_plan(req, target, _reader(common, target))
    run(common, plan, lambda: _handlers(target))


@storage.command(
    epilog="""\b
Examples:
  xcli storage create ckpt --type gcsfuse --bucket my-ckpt-bucket --cluster demo --dry-run
  xcli storage create fs --type filestore --size 1TB --cluster demo --dry-run
  xcli storage create scratch --type lustre --size 9000GB --cluster demo --dry-run"""
)
@click.argument("name")
@_where
@_source
@_mount
@click.option("--size", default="", help="filestore, lustre: capacity, e.g. 1TB (= 1024 GiB).")
@click.option(
    "--tier",
    default="ZONAL",
    show_default=True,
    type=click.Choice(["BASIC_HDD", "BASIC_SSD", "ZONAL", "REGIONAL", "ENTERPRISE"]),
    help="filestore: the service tier.",
)
@click.option(
    "--throughput",
    default=1000,
    show_default=True,
    type=click.Choice([1000, 500, 250, 125]),
    help="lustre: MBps per TiB.",
)
@click.option(
    "--network",
    default="default",
    show_default=True,
    help="filestore, lustre: the cluster's VPC network.",
)
@change_options
def create(
    common: Common, size: str, tier: str, throughput: int, network: str, **flags: Any
) -> None:
    """Create storage NAME (a bucket, a Filestore or Lustre instance), then attach it."""
    from xcli.storage import checks
    from xcli.storage.request import CreateRequest
    from xcli.storage.use import create_plan

    flags["bucket_is_new"] = True
    req, target = _attach_request(common, flags, created=True)
    gib = 0
    if req.type in ("filestore", "lustre"):
        if not size:
            raise UserError(f"creating {req.type} storage needs --size", hint="e.g. --size 1TB")
        gib = checks.size_gib(size)
        if req.type == "filestore":
            checks.filestore_capacity(tier, gib)
        else:
            checks.lustre_capacity(int(throughput), gib)
    if req.type == "filestore":
        zonal = checks.FILESTORE_TIERS[tier][2]
        where = req.location or (req.cluster.zone if zonal else req.cluster.region)
        req = _replace(req, location=where)
    creq = CreateRequest(
        attach=req, size_gib=gib, tier=tier, throughput=int(throughput), network=network
    )
    run(common, create_plan(creq, target, _reader(common, target)), lambda: _handlers(target))


@storage.command(
    epilog="""\b
Examples:
  xcli storage detach data --cluster demo
  xcli storage detach data --type gcsfuse --bucket my-data --cluster demo --dry-run"""
)
@click.argument("name")
@_where
@_source
@change_options
def detach(common: Common, **flags: Any) -> None:
    """Detach storage NAME: removes the PV, PVC, access grant and record; never the data."""
    from xcli.storage.use import detach_plan, record_for

    target, record = _existing(common, flags, record_for)
    run(common, detach_plan(record, target), lambda: _handlers(target))


@storage.command(
    epilog="""\b
Examples:
  xcli storage delete ckpt --cluster demo
  xcli storage delete ckpt --type gcsfuse --bucket my-ckpt-bucket --cluster demo --dry-run"""
)
@click.argument("name")
@_where
@_source
@common_options
def delete(common: Common, **flags: Any) -> None:
    """Detach storage NAME, then delete what `xcli storage create` made, with its data."""
    from xcli.storage.use import delete_plan, record_for

    target, record = _existing(common, flags, record_for, created=True)
    plan = delete_plan(record, target)
    confirm(common, f"delete {record.type} {record.source} and ALL the data in it")
    run(common, plan, lambda: _handlers(target))


@storage.command(
    name="list",
    epilog="""\b
Examples:
  xcli storage list --cluster demo
  xcli storage list --cluster demo -o json""",
)
@_where
@read_options
def list_(common: Common, cluster: str, provider: str | None, namespace: str) -> None:
    """List the storages attached to a cluster."""
    from xcli.cli.table import print_table

    target = _target(common, cluster, provider)
    records = _live_reader(target).records(target.ref, namespace) or []
    if common.output != "text":
        emit(common.output, [r.to_json() for r in records])
        return
    if not records:
        click.echo(f"no storage attached to cluster {cluster}")
        return
    rows = [
        [
            r.name,
            r.type,
            r.source,
            r.mount_point,
            "ro" if r.readonly else "rw",
            "yes" if r.auto_mount else "no",
            "yes" if r.created else "no",
        ]
        for r in records
    ]
    print_table(["NAME", "TYPE", "SOURCE", "MOUNT POINT", "ACCESS", "AUTO", "CREATED"], rows)


# --- helpers ----------------------------------------------------------------------------------


def _replace(req: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(req, **changes)


def _target(common: Common, cluster: str, provider: str | None) -> Any:
    from xcli.cli.providers import ref_for, registry
    from xcli.cluster_index import provider_for
    from xcli.storage.use import Target

    name = provider_for(cluster, provider, "gke")
    caps = registry().capabilities(name)
    ref = ref_for(cluster, name, common)
    return Target(ref=ref, kube=not caps.vm_workloads, cloud=caps.cloud)


def _attach_request(common: Common, f: dict[str, Any], created: bool = False) -> tuple[Any, Any]:
    from xcli.storage import checks
    from xcli.storage.request import AttachRequest

    name = checks.storage_name(f["name"])
    if f["kind"] is None:
        raise click.UsageError("Missing option '--type'.")
    kind = checks.storage_type(f["kind"])
    namespace = checks.namespace(f["namespace"])
    options = checks.mount_options(f["mount_options"], kind)
    target = _target(common, f["cluster"], f["provider"])
    if target.cloud:
        _need_source(kind, f, new=bool(f.get("bucket_is_new")), created=created)
    mount = f["mount_point"] or f"/mnt/{name}"
    if f["path"]:
        _check_dir(f["path"])
    req = AttachRequest(
        name=name,
        type=kind,
        cluster=target.ref,
        mount_point=checks.mount_point(mount, name, []),
        namespace=namespace,
        readonly=f["readonly"],
        auto_mount=f["auto_mount"],
        mount_options=options,
        bucket=checks.bucket_name(f["bucket"], new=False) if f["bucket"] else "",
        instance=f["instance"],
        disk=f["disk"],
        path=f["path"],
        location=f["location"],
        ksa=checks.namespace(f["ksa"]),
        created=created,
    )
    return req, target


def _need_source(kind: str, f: dict[str, Any], *, new: bool, created: bool) -> None:
    from xcli.spec import check_name
    from xcli.storage import checks

    if kind == "gcsfuse":
        if not f["bucket"]:
            raise UserError("gcsfuse storage needs --bucket", hint="e.g. --bucket my-data")
        checks.bucket_name(f["bucket"], new=new)
    elif kind in ("pd", "hyperdisk-ml"):
        if not f["disk"]:
            raise UserError(f"{kind} storage needs --disk", hint="the name of an existing disk")
        check_name(f["disk"], "disk", 63)
    else:
        if not f["instance"] and not created:
            raise UserError(f"{kind} storage needs --instance", hint="the instance's name")
        f["instance"] = f["instance"] or f["name"]
        check_name(f["instance"], "instance", 63)


def _check_dir(path: str) -> None:
    from pathlib import Path

    if not Path(path).is_absolute() or not Path(path).is_dir():
        raise UserError(
            f"--path {path} is not an existing directory given by its absolute path",
            hint="create it first (mkdir -p), and give its full path",
        )


def _existing(
    common: Common, f: dict[str, Any], record_for: Any, created: bool = False
) -> tuple[Any, Any]:
    """The target and the record to undo (read, or described by the flags for a dry-run)."""
    from xcli.storage import checks
    from xcli.storage.gke import record_of

    name = checks.storage_name(f["name"])
    namespace = checks.namespace(f["namespace"])
    target = _target(common, f["cluster"], f["provider"])
    given = None
    if f["kind"] is not None:
        f.update(
            mount_point=None, readonly=False, auto_mount=False, mount_options=(), ksa="default"
        )
        req, _ = _attach_request(common, f, created=created)
        given = record_of(req)
    return target, record_for(_reader(common, target), target, name, namespace, given)


def _reader(common: Common, target: Any) -> Any:
    from xcli.storage.service import DryReader

    return DryReader() if common.dry_run and target.kube else _live_reader(target)


def _live_reader(target: Any) -> Any:
    from xcli.storage.service import FileReader, LiveReader

    return LiveReader(_gateways()) if target.kube else FileReader()


def _gateways() -> Any:
    from xcli.cli.deps import current
    from xcli.storage.service import StorageGateways

    found = current().storage_gateways
    return found if found is not None else StorageGateways()


def _handlers(target: Any) -> Any:
    from xcli.storage import files

    return _gateways().handlers(target.ref) if target.kube else files.handlers()
