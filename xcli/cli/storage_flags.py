"""The flags of `xcli storage` and the frozen requests they become (xcli/app/storage.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from xcli import formats
from xcli.app.storage import AttachStorage, ClusterWhere, Mount, RemoveStorage, Source
from xcli.cli import complete
from xcli.cli.common import Common
from xcli.cli.providers import choice
from xcli.plan.storage_types import names as storage_types
from xcli.providers import DEFAULT


def where(func: Any) -> Any:
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
        help=f"Default: the provider that created the cluster here, else {DEFAULT.default()}.",
    )(func)
    return click.option(
        "--namespace",
        default="default",
        show_default=True,
        help="The workloads' Kubernetes namespace (GKE).",
    )(func)


def source(func: Any) -> Any:
    func = click.option(
        "--type",
        "kind",
        metavar="TYPE",
        default=None,
        help=f"Storage type: {', '.join(storage_types())}.",
    )(func)
    func = click.option("--bucket", default="", help="gcsfuse: the Cloud Storage bucket.")(func)
    func = click.option(
        "--instance", default="", help="filestore, lustre, parallelstore: the instance name."
    )(func)
    func = click.option("--disk", default="", help="pd, hyperdisk-ml: the disk name.")(func)
    func = click.option(
        "--location",
        default="",
        callback=formats.flag_callback(formats.location),
        help="Where the instance or disk is (default: --zone).",
    )(func)
    return click.option("--path", default="", help="Local clusters: the directory.")(func)


def mount(func: Any) -> Any:
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


# --- the requests ------------------------------------------------------------------------------


def cluster_of(common: Common, flags: dict[str, Any]) -> ClusterWhere:
    return ClusterWhere(flags["cluster"], flags["provider"], flags["namespace"], common)


def source_of(flags: dict[str, Any]) -> Source:
    return Source(
        kind=flags["kind"],
        bucket=flags["bucket"],
        instance=flags["instance"],
        disk=flags["disk"],
        location=flags["location"],
        path=flags["path"],
    )


def mount_of(flags: dict[str, Any]) -> Mount:
    return Mount(
        mount_point=flags["mount_point"],
        readonly=flags["readonly"],
        auto_mount=flags["auto_mount"],
        mount_options=tuple(flags["mount_options"]),
        ksa=flags["ksa"],
    )


def manifest(func: Any) -> Any:
    return click.option(
        "--manifest",
        default="",
        metavar="FILE",
        help="GKE: the PersistentVolume and PersistentVolumeClaim to apply, as written "
        "(XPK's --manifest); the PV names the source.",
    )(func)


def attach_of(common: Common, flags: dict[str, Any]) -> AttachStorage:
    if flags["kind"] is None:
        raise click.UsageError("Missing option '--type'.")
    source = source_of(flags)
    if flags.get("manifest"):
        source = dataclasses.replace(source, manifest=flags["manifest"])
    return AttachStorage(flags["name"], cluster_of(common, flags), source, mount_of(flags))


def remove_of(common: Common, flags: dict[str, Any]) -> RemoveStorage:
    return RemoveStorage(flags["name"], cluster_of(common, flags), source_of(flags))
