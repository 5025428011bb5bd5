"""Storage on clusters without Kubernetes (queued resources, the local provider): the record
is a JSON file on this machine (xcli.plan.storage.local_file), written by a plan step.

Local provider: a storage is a directory on this machine (`--path DIR`), whatever its type
says; workloads bind it at the mount point. Queued resources: a gcsfuse bucket, which the
workload mounts on every VM with gcsfuse; nothing is changed on Google's side here (the VMs'
service account needs access to the bucket, see docs/storage-command.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xcli.errors import CloudError
from xcli.plan.contract import Handler, StepContext
from xcli.plan.model import Plan
from xcli.plan.steps import LocalAction
from xcli.plan.storage import Storage, local_dir, local_file
from xcli.state_files import write_private

WRITE, REMOVE = "write_storage_record", "remove_storage_record"


def records(cluster: str) -> list[Storage]:
    """Every storage recorded for a cluster on this machine, by name."""
    folder = local_dir(cluster)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            found.append(Storage.from_json(json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, KeyError, TypeError) as exc:
            raise CloudError(
                f"the storage record {path.name} of cluster {cluster} is damaged: {exc}",
                hint=f"remove it (it only records the attachment): rm {path}",
            ) from None
    return found


def forget_all(cluster: str) -> list[str]:
    """After the cluster is deleted: its attachment records go with it, as a GKE cluster's
    ConfigMaps do (the data stays), so a new cluster of that name does not inherit them
    (issue 26). Damaged records go too; returns the names forgotten."""
    folder = local_dir(cluster)
    names = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        path.unlink(missing_ok=True)
        names.append(path.stem)
    return names


def write_step(cluster: str, record: Storage, after: tuple[str, ...] = ()) -> LocalAction:
    return LocalAction(
        id="record",
        summary=f"record storage {record.name} for cluster {cluster} on this machine",
        after=after,
        action=WRITE,
        args={"path": str(local_file(cluster, record.name)), "record": record.to_json()},
    )


def plan_attach(cluster: str, record: Storage) -> Plan:
    return Plan(
        title=f"attach {record.type} storage {record.name} to cluster {cluster}",
        steps=(write_step(cluster, record),),
    )


def plan_detach(cluster: str, record: Storage) -> Plan:
    step = LocalAction(
        id="delete-record",
        summary=f"forget storage {record.name} of cluster {cluster} (the data stays)",
        action=REMOVE,
        args={"path": str(local_file(cluster, record.name))},
    )
    return Plan(title=f"detach storage {record.name} from cluster {cluster}", steps=(step,))


def _write(step: LocalAction, ctx: StepContext) -> Mapping[str, Any]:
    path = Path(step.args["path"])
    # whole or not at all (workloads read it concurrently), owner-only
    write_private(path, json.dumps(step.args["record"], indent=2, sort_keys=True) + "\n")
    return {"path": str(path)}


def _remove(step: LocalAction, ctx: StepContext) -> Mapping[str, Any]:
    path = Path(step.args["path"])
    existed = path.exists()
    path.unlink(missing_ok=True)
    return {"existed": existed}


def handlers() -> dict[str, Handler]:
    def local(step: LocalAction, ctx: StepContext) -> Mapping[str, Any]:
        return (_write if step.action == WRITE else _remove)(step, ctx)

    return {"local": local}
