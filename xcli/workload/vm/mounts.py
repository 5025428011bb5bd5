"""Storages on VM-style workers: each worker mounts them before the command, and lets go after.

Cloud TPU VMs (queued resources) mount gcsfuse buckets with gcsfuse itself, installed from its
GitHub release when the image lacks it, with the VM's service account (`cluster create
--service-account EMAIL`, scope cloud-platform by default); the mount is passed into the
container at the same path and unmounted when the run ends, failed or not. The local provider
binds the storage's folder at the mount point (templates/workload/vm-mounts.sh.j2 says how).
Pure: the scripts are values in the plan, as the workload's own script is.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from typing import Any

from xcli.errors import UserError
from xcli.plan.cluster import Worker
from xcli.plan.model import Plan
from xcli.plan.steps import SshFanout, WorkerCommand
from xcli.plan.storage import Storage
from xcli.templating import render
from xcli.workload.spec import WorkloadSpec
from xcli.workload.storage_mounts import Mounts
from xcli.workload.vm.plan import Runtime, plan_vm_workload

# The gcsfuse release installed where the image has none (the reference's latest tag, v3.11.2).
GCSFUSE_VERSION = "3.11.2"
GCSFUSE_DEB = (
    "https://github.com/GoogleCloudPlatform/gcsfuse/releases/download/"
    f"v{GCSFUSE_VERSION}/gcsfuse_{GCSFUSE_VERSION}_ARCH.deb"
)


def check(storages: Sequence[Storage], vm_storage: str | None) -> None:
    """`vm_storage`: how the provider's VMs mount storages (its Capabilities.vm_storage):
    "mount" (Cloud TPU VMs mount the types whose unit is `vm_mountable`) or "folder"."""
    from xcli.plan.storage_types import find

    for s in storages:
        unit = find(s.type)
        if vm_storage == "mount" and not (unit is not None and unit.vm_mountable):
            raise UserError(
                f"storage {s.name} is {s.type}: Cloud TPU VM workers mount only gcsfuse buckets",
                hint="mount it on a GKE cluster, or attach a bucket (--type gcsfuse)",
            )
        if vm_storage == "folder" and not s.source.startswith("/"):
            raise UserError(
                f"storage {s.name}: {s.source!r} is not a folder on this machine",
                hint="on the local provider a storage is an absolute folder path",
            )


def gcsfuse_options(options: Sequence[str]) -> tuple[list[str], list[str]]:
    """Recorded mount options -> gcsfuse flags and config-file lines.

    `name` -> `--name`; `key=value` -> `-o key=value`; `section:key:value` (the CSI driver's
    form of a config-file setting) -> `section:` / `  key: value` in a config file.
    """
    flags: list[str] = []
    sections: dict[str, list[str]] = {}
    for option in options:
        if option in ("ro", "rw"):
            continue  # the record's readonly decides
        if ":" in option:
            section, _, rest = option.partition(":")
            key, _, value = rest.rpartition(":")
            sections.setdefault(section, []).append(f"  {key}: {value}" if key else f"  {rest}")
        elif "=" in option:
            flags.append("-o " + shlex.quote(option))
        else:
            flags.append(shlex.quote("--" + option.lstrip("-")))
    lines = [line for section, body in sections.items() for line in (f"{section}:", *body)]
    return flags, lines


def _bind_script(storages: Sequence[Storage], inner: str) -> str:
    parts = ["set -eu"]
    for s in storages:
        src, dst = shlex.quote(s.source), shlex.quote(s.mount_point)
        parts.append(f"mkdir -p {dst}")
        parts.append(f"mount --bind {src} {dst}")
        if s.readonly:
            parts.append(f"mount -o remount,bind,ro {dst}")
    parts.append(f"exec /bin/sh -c {shlex.quote(inner)}")
    return "; ".join(parts)


def wrap_script(storages: Sequence[Storage], inner: str, cloud_vms: bool) -> str:
    mounts: list[dict[str, Any]] = []
    for s in storages:
        flags, config = gcsfuse_options(s.mount_options) if cloud_vms else ([], [])
        mounts.append(
            {
                "source": shlex.quote(s.source.removeprefix("gs://")),
                "target": shlex.quote(s.mount_point),
                "readonly": s.readonly,
                "flags": flags,
                "config": " ".join(shlex.quote(line) for line in config),
            }
        )
    return render(
        "workload/vm-mounts.sh.j2",
        kind="gcsfuse" if cloud_vms else "bind",
        mounts=mounts,
        deb_url=shlex.quote(GCSFUSE_DEB),
        inner=shlex.quote(inner),
        bind_script=shlex.quote(_bind_script(storages, inner)),
    )


def docker_volumes(storages: Sequence[Storage]) -> list[str]:
    """`-v` values for a container on a worker: the mount point at the same path."""
    return [f"{s.mount_point}:{s.mount_point}{':ro' if s.readonly else ''}" for s in storages]


def wrap_plan(plan: Plan, storages: Sequence[Storage], cloud_vms: bool) -> Plan:
    """The workload plan with every worker's run script wrapped in the mounts."""
    if not storages:
        return plan
    steps = []
    for step in plan.steps:
        if isinstance(step, SshFanout):  # the run's workers; `stop` stays as it is
            wrapped = tuple(
                dataclasses.replace(w, argv=_wrapped_argv(w, storages, cloud_vms))
                for w in step.workers
            )
            step = dataclasses.replace(step, workers=wrapped)
        steps.append(step)
    return dataclasses.replace(plan, steps=tuple(steps))


def _wrapped_argv(
    w: WorkerCommand, storages: Sequence[Storage], cloud_vms: bool
) -> tuple[str, ...]:
    shell, flag, script = w.argv
    return (shell, flag, wrap_script(storages, script, cloud_vms))


def plan(
    spec: WorkloadSpec, workers: Sequence[Worker], cloud_vms: bool, detach: bool, mounts: Mounts
) -> Plan:
    """The VM workload plan with the storages mounted around every worker's run.

    Cloud TPU VMs pass the mounts into the container; the local provider runs the command as
    a plain process when storages are mounted (the bind lives in the process's own mount
    namespace, which a container started from there would not reach).
    """
    storages = mounts.storages
    runtime: Runtime | None = "process" if storages and not cloud_vms else None
    volumes = docker_volumes(storages) if cloud_vms else []
    built = plan_vm_workload(
        spec, workers, cloud_vms=cloud_vms, runtime=runtime, detach=detach, volumes=volumes
    )
    wrapped = wrap_plan(built, storages, cloud_vms)
    notes = list(mounts.notes)
    if storages and not cloud_vms:
        notes.append("local provider: with storages the command runs as a plain process")
    if storages and cloud_vms:
        notes.append(
            "every worker mounts the buckets with gcsfuse (installed if missing) as the VM's "
            "service account, and unmounts them when the run ends"
        )
    return dataclasses.replace(wrapped, notes=(*wrapped.notes, *notes))
