"""Where a workload finds the storage records of its cluster (the shapes of xcli/plan/storage.py).

- GKE, live: the labelled ConfigMaps `xcli-storage-*` in the workloads' namespace, read through
  the Kubernetes gateway when the workload is created (as the metadata ConfigMap is).
- GKE, --dry-run: no cluster is read, so the records come from `--storage-record FILE` (a
  record's JSON, or the ConfigMap as `kubectl get configmap xcli-storage-NAME -o yaml` prints
  it), the way `--cluster-metadata FILE` stands in for the metadata ConfigMap.
- Queued resources and the local provider: the JSON files on this machine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import ConfigError, UserError
from xcli.plan.storage import LABEL, Storage, from_configmap, local_dir
from xcli.workload.storage_mounts import Mounts

if TYPE_CHECKING:
    from xcli.gateways.kube import KubeApi


def from_cluster(api: KubeApi, namespace: str) -> list[Storage]:
    found = api.list("v1", "ConfigMap", namespace, labels={LABEL: "true"})
    return [_parse(lambda o=obj: from_configmap(o), _where(obj)) for obj in found]


def from_machine(cluster: str) -> list[Storage]:
    folder = local_dir(cluster)
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        out.append(_parse(lambda t=text: Storage.from_json(json.loads(t)), f"record {path.name}"))
    return out


def from_files(paths: Sequence[Path]) -> list[Storage]:
    """--storage-record FILE (repeatable): a record, or its ConfigMap, as YAML or JSON."""
    import yaml

    from xcli.user_files import MIB, read_text

    out = []
    for path in paths:
        text = read_text(path, "--storage-record", MIB, "a ConfigMap's limit")
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = None
        if not isinstance(data, dict):
            raise UserError(
                f"--storage-record {path} holds no storage record",
                hint="give the record's JSON or its ConfigMap "
                "(kubectl get configmap xcli-storage-NAME -o yaml)",
            )
        if data.get("kind") == "ConfigMap":
            out.append(_parse(lambda d=data: from_configmap(d), f"--storage-record {path}"))
        else:
            out.append(_parse(lambda d=data: Storage.from_json(d), f"--storage-record {path}"))
    return out


def _where(obj: dict[str, Any]) -> str:
    return "ConfigMap " + str((obj.get("metadata") or {}).get("name", "?"))


def _parse(read: Any, where: str) -> Storage:
    try:
        storage: Storage = read()
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"{where} is not a storage record ({type(exc).__name__}: {exc})",
            hint="attach the storage again (`xcli storage attach`), or fix the record",
        ) from None
    return storage


def check_flags(flags: Mapping[str, Any], dry_run: bool, gke: bool) -> tuple[str, ...]:
    """What needs no records, checked first: the names, the targets' form, --storage-record."""
    from xcli.workload.storage_mounts import check_form, requested

    names = requested(flags.get("storage") or ())
    for flag in ("compilation_cache", "checkpoint_dir"):
        if flags.get(flag):
            check_form(str(flags[flag]), "--" + flag.replace("_", "-"))
    if flags.get("storage_record"):
        if not gke:
            raise UserError(
                "--storage-record is for GKE workloads with --dry-run",
                hint="drop it: VM-style clusters keep their storage records on this machine",
            )
        if not dry_run:
            raise UserError(
                "--storage-record is for --dry-run",
                hint="drop it: a live run reads the cluster's storage records itself",
            )
    return names


def gke_mounts(
    flags: Mapping[str, Any], dry_run: bool, api: Callable[[], KubeApi], cluster: str, ns: str
) -> Mounts:
    """GKE: the records from the cluster (live) or from --storage-record files (dry-run)."""
    from xcli.workload.storage_mounts import resolve

    names = check_flags(flags, dry_run, gke=True)
    if dry_run:
        records = from_files(flags.get("storage_record") or ())
        given = {r.name for r in records}
        missing = [n for n in names if n not in given]
        if missing:
            raise UserError(
                f"a dry-run reads no cluster, so storage {missing[0]} is unknown",
                hint=f"pass --storage-record FILE (kubectl get configmap "
                f"xcli-storage-{missing[0]} -o yaml > FILE)",
            )
    else:  # every workload: auto-mount storages are mounted even when none is named
        records = from_cluster(api(), ns)
    mounts = resolve(records, names, cluster, flags.get("compilation_cache"),
                     flags.get("checkpoint_dir"))  # fmt: skip
    if dry_run and (names or flags.get("storage_record")):
        # (kept to storage dry-runs, so the plain plans stay as they were)
        note = "storage records from --storage-record files only (no cluster read): " + (
            "auto-mount storages of the cluster are not shown"
        )
        mounts = Mounts(mounts.storages, mounts.env, (*mounts.notes, note))
    return mounts


def vm_mounts(flags: Mapping[str, Any], dry_run: bool, cluster: str) -> Mounts:
    from xcli.workload.storage_mounts import resolve

    names = check_flags(flags, dry_run, gke=False)
    return resolve(from_machine(cluster), names, cluster, flags.get("compilation_cache"),
                   flags.get("checkpoint_dir"))  # fmt: skip
