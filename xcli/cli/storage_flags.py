"""The flags of `xcli storage` and how they become a request, a target and a reader."""

from __future__ import annotations

from typing import Any

import click

from xcli import formats
from xcli.cli import complete
from xcli.cli.common import Common
from xcli.cli.providers import choice
from xcli.errors import UserError
from xcli.plan.storage import TYPES


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
        help="Default: the provider that created the cluster here, else gke.",
    )(func)
    return click.option(
        "--namespace",
        default="default",
        show_default=True,
        help="The workloads' Kubernetes namespace (GKE).",
    )(func)


def source(func: Any) -> Any:
    func = click.option(
        "--type", "kind", metavar="TYPE", default=None, help=f"Storage type: {', '.join(TYPES)}."
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


# --- helpers ----------------------------------------------------------------------------------


def replace(req: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(req, **changes)


def target_of(common: Common, cluster: str, provider: str | None) -> Any:
    from xcli.cli.providers import ref_for, registry
    from xcli.cluster_index import provider_for
    from xcli.storage.use import Target

    name = provider_for(cluster, provider, "gke")
    caps = registry().capabilities(name)
    ref = ref_for(cluster, name, common)
    return Target(ref=ref, kube=not caps.vm_workloads, cloud=caps.cloud)


def attach_request(common: Common, f: dict[str, Any], created: bool = False) -> tuple[Any, Any]:
    from xcli.storage import checks
    from xcli.storage.request import AttachRequest

    name = checks.storage_name(f["name"])
    if f["kind"] is None:
        raise click.UsageError("Missing option '--type'.")
    kind = checks.storage_type(f["kind"])
    namespace = checks.namespace(f["namespace"])
    options = checks.mount_options(f["mount_options"], kind)
    target = target_of(common, f["cluster"], f["provider"])
    if target.cloud:
        _need_source(kind, f, new=bool(f.get("bucket_is_new")), created=created)
    if kind in ("pd", "hyperdisk-ml"):
        f["readonly"] = True  # one disk on many nodes: read-only (ReadOnlyMany)
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


def existing(
    common: Common, f: dict[str, Any], record_for: Any, created: bool = False
) -> tuple[Any, Any]:
    """The target and the record to undo (read, or described by the flags for a dry-run)."""
    from xcli.storage import checks
    from xcli.storage.gke import record_of

    name = checks.storage_name(f["name"])
    namespace = checks.namespace(f["namespace"])
    target = target_of(common, f["cluster"], f["provider"])
    given = None
    if f["kind"] is not None:
        f.update(
            mount_point=None, readonly=False, auto_mount=False, mount_options=(), ksa="default"
        )
        req, _ = attach_request(common, f, created=created)
        given = record_of(req)
    return target, record_for(reader(common, target), target, name, namespace, given)


def reader(common: Common, target: Any) -> Any:
    from xcli.storage.service import DryReader

    return DryReader() if common.dry_run and target.kube else live_reader(target)


def live_reader(target: Any) -> Any:
    from xcli.storage.service import FileReader, LiveReader

    return LiveReader(gateways()) if target.kube else FileReader()


def gateways() -> Any:
    from xcli.cli.deps import current
    from xcli.storage.service import StorageGateways

    found = current().storage_gateways
    return found if found is not None else StorageGateways()


def handlers(target: Any) -> Any:
    from xcli.storage import files

    return gateways().handlers(target.ref) if target.kube else files.handlers()
