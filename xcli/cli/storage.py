"""`xcli storage create | attach | detach | list | delete`: data and checkpoints for workloads.

The CLI checks every flag, builds a frozen request, picks how the cluster is read (live, or
nothing for --dry-run) and hands the plan to run_plan. Planning lives in xcli/storage/.
"""

from __future__ import annotations

from typing import Any

import click

from xcli.cli import storage_flags as flags_
from xcli.cli.common import Common, change_options, common_options, confirm, emit, read_options
from xcli.cli.common import run_plan as run
from xcli.errors import UserError


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


@storage.command(
    epilog="""\b
Examples:
  xcli storage attach data --type gcsfuse --bucket my-data --readonly --cluster demo --dry-run
  xcli storage attach fs --type filestore --instance my-fs --cluster demo --dry-run
  xcli storage attach scratch --type lustre --instance my-lustre --cluster demo --dry-run"""
)
@click.argument("name")
@flags_.where
@flags_.source
@flags_.mount
@common_options
def attach(common: Common, **flags: Any) -> None:
    """Attach existing storage NAME: CSI driver add-on, access, PV and PVC, and a record."""
    from xcli.storage.use import attach_plan

    req, target = flags_.attach_request(common, flags)
    plan = attach_plan(req, target, flags_.reader(common, target))
    _confirm_recreate(common, plan, req.cluster.name)
    run(common, plan, lambda: flags_.handlers(target))


def _confirm_recreate(common: Common, plan: Any, cluster: str) -> None:
    """Recreating every node evicts running pods: ask (after the reads, before any change)."""
    if any(s.kind == "recreate_nodes" for s in plan.steps):
        confirm(
            common,
            f"turning on the Lustre CSI driver recreates the nodes of every node pool of "
            f"cluster {cluster}, evicting running pods; go on?",
        )


@storage.command(
    epilog="""\b
Examples:
  xcli storage create ckpt --type gcsfuse --bucket my-ckpt-bucket --cluster demo --dry-run
  xcli storage create fs --type filestore --size 1TB --cluster demo --dry-run
  xcli storage create scratch --type lustre --size 9000GB --cluster demo --dry-run"""
)
@click.argument("name")
@flags_.where
@flags_.source
@flags_.mount
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
    help="filestore, lustre: the cluster's VPC network (lustre: it needs Private Service "
    "Access; see docs/storage-command.md).",
)
@common_options
def create(
    common: Common, size: str, tier: str, throughput: int, network: str, **flags: Any
) -> None:
    """Create storage NAME (a bucket, a Filestore or Lustre instance), then attach it."""
    from xcli.spec import check_name
    from xcli.storage import checks
    from xcli.storage.request import CreateRequest
    from xcli.storage.use import create_plan

    flags["bucket_is_new"] = True
    network = check_name(network, "network", 63)
    req, target = flags_.attach_request(common, flags, created=True)
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
        req = flags_.replace(req, location=where)
    creq = CreateRequest(
        attach=req, size_gib=gib, tier=tier, throughput=int(throughput), network=network
    )
    plan = create_plan(creq, target, flags_.reader(common, target))
    _confirm_recreate(common, plan, req.cluster.name)
    run(common, plan, lambda: flags_.handlers(target))


@storage.command(
    epilog="""\b
Examples:
  xcli storage detach data --cluster demo
  xcli storage detach data --type gcsfuse --bucket my-data --cluster demo --dry-run"""
)
@click.argument("name")
@flags_.where
@flags_.source
@change_options
def detach(common: Common, **flags: Any) -> None:
    """Detach storage NAME: removes the PV, PVC, access grant and record; never the data."""
    from xcli.storage.use import detach_plan, record_for

    target, found = flags_.existing(common, flags, record_for)
    run(common, detach_plan(found, target), lambda: flags_.handlers(target))


@storage.command(
    epilog="""\b
Examples:
  xcli storage delete ckpt --cluster demo
  xcli storage delete ckpt --type gcsfuse --bucket my-ckpt-bucket --cluster demo --dry-run"""
)
@click.argument("name")
@flags_.where
@flags_.source
@common_options
def delete(common: Common, **flags: Any) -> None:
    """Detach storage NAME, then delete what `xcli storage create` made, with its data."""
    from xcli.cli.common import require_answerable
    from xcli.storage.use import delete_plan, record_for

    require_answerable(common, f"delete storage {flags['name']}")  # before anything is read
    target, found = flags_.existing(common, flags, record_for, created=True)
    plan = delete_plan(found, target)
    record = found.record
    confirm(common, f"delete {record.type} {record.source} and ALL the data in it")
    run(common, plan, lambda: flags_.handlers(target))


@storage.command(
    name="list",
    epilog="""\b
Examples:
  xcli storage list --cluster demo
  xcli storage list --cluster demo -o json""",
)
@flags_.where
@read_options
def list_(common: Common, cluster: str, provider: str | None, namespace: str) -> None:
    """List the storages attached to a cluster."""
    from xcli.cli.table import print_table

    target = flags_.target_of(common, cluster, provider)
    records = flags_.live_reader(target).records(target.ref, namespace) or []
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
