"""`xcli storage create | attach | detach | list | delete`: data and checkpoints for workloads.

The CLI turns the flags into a frozen request and calls one use case (xcli/app/storage.py);
how the cluster is read (live, or nothing for --dry-run) comes with the dependencies
(cli/wiring.py). It renders `storage list`.
"""

from __future__ import annotations

from typing import Any

import click

from xcli.cli import storage_flags as flags_
from xcli.cli.common import Common, change_options, common_options, emit, read_options


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
  xcli storage attach scratch --type lustre --instance my-lustre --cluster demo --dry-run
  xcli storage attach scratch --type lustre --manifest lustre-pv.yaml --cluster demo --dry-run"""
)
@click.argument("name")
@flags_.where
@flags_.source
@flags_.manifest
@flags_.mount
@common_options
def attach(common: Common, **flags: Any) -> None:
    """Attach existing storage NAME: CSI driver add-on, access, PV and PVC, and a record."""
    from xcli.app import storage as use_case
    from xcli.cli.wiring import deps

    use_case.attach(flags_.attach_of(common, flags), deps(common))


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
@click.option(
    "--share",
    default="vol1",
    show_default=True,
    help="filestore: the file share's name (XPK's --vol).",
)
@common_options
def create(
    common: Common, size: str, tier: str, throughput: int, network: str, share: str, **flags: Any
) -> None:
    """Create storage NAME (a bucket, a Filestore or Lustre instance), then attach it."""
    from xcli.app import storage as use_case
    from xcli.cli.wiring import deps

    attach = flags_.attach_of(common, flags)
    request = use_case.CreateStorage(attach, size, tier, int(throughput), network, share)
    use_case.create_storage(request, deps(common))


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
    from xcli.app import storage as use_case
    from xcli.cli.wiring import deps

    use_case.detach(flags_.remove_of(common, flags), deps(common))


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
    from xcli.app import storage as use_case
    from xcli.cli.wiring import deps

    use_case.delete(flags_.remove_of(common, flags), deps(common))


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
    from xcli.app import storage as use_case
    from xcli.cli.table import print_table
    from xcli.cli.wiring import deps

    where = use_case.ClusterWhere(cluster, provider, namespace, common)
    records = use_case.list_storages(where, deps(common))
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
