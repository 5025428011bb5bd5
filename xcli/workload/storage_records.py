"""Where a workload finds the storage records of its cluster (the shapes of xcli/plan/storage.py).

- GKE, live: the labelled ConfigMaps `xcli-storage-*` in the workloads' namespace, read through
  the Kubernetes gateway when the workload is created (as the metadata ConfigMap is).
- GKE, --dry-run: no cluster is read, so the records come from `--storage-record FILE` (a
  record's JSON, or the ConfigMap as `kubectl get configmap xcli-storage-NAME -o yaml` prints
  it), the way `--cluster-metadata FILE` stands in for the metadata ConfigMap. Which of the two
  is the facts reader's choice (xcli/workload/facts.py), made by the CLI.
- Queued resources and the local provider: the JSON files on this machine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import ConfigError, UserError
from xcli.plan.storage import LABEL, Storage, from_configmap, local_dir
from xcli.workload.storage_mounts import Mounts

if TYPE_CHECKING:
    from xcli.gateways.kube.api import KubeApi
    from xcli.workload.facts import Facts
    from xcli.workload.request import WorkloadRequest


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


def check_request(request: WorkloadRequest) -> tuple[str, ...]:
    """What needs no records, checked first: the names and the targets' form."""
    from xcli.workload.storage_mounts import check_form, requested

    names = requested(request.storage)
    for flag, value in (
        ("--compilation-cache", request.compilation_cache),
        ("--checkpoint-dir", request.checkpoint_dir),
    ):
        if value:
            check_form(str(value), flag)
    return names


def gke_mounts(
    request: WorkloadRequest, facts: Facts, api: Callable[[], KubeApi], ns: str
) -> Mounts:
    """GKE: the records the facts reader gives (the cluster's, or --storage-record files)."""
    from xcli.workload.storage_mounts import resolve

    names = check_request(request)
    records, notes = facts.storages(api, ns, names)
    unread = facts.unread(names, records)
    known = tuple(n for n in names if n not in unread)
    mounts = resolve(records, known, request.cluster, request.compilation_cache,
                     request.checkpoint_dir)  # fmt: skip
    if notes or unread:
        return Mounts(mounts.storages, mounts.env, (*mounts.notes, *notes), unread)
    return mounts


def vm_mounts(request: WorkloadRequest) -> Mounts:
    """VM-style clusters: the record files on this machine."""
    from xcli.workload.storage_mounts import resolve

    names = check_request(request)
    return resolve(from_machine(request.cluster), names, request.cluster,
                   request.compilation_cache, request.checkpoint_dir)  # fmt: skip
