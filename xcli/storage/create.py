"""Plans of `xcli storage create | delete`: make the backing resource, then attach it; detach,
then delete what create made (pure).

- gcsfuse: storage.v1 buckets.insert, in the cluster's region, with uniform bucket-level access
  (needed for read-write access through Workload Identity, gcs-fuse-csi-driver
  docs/authentication.md) and a hierarchical namespace (atomic directory renames for
  checkpoints, and higher initial QPS: https://cloud.google.com/storage/docs/hns-overview).
- filestore: file.v1 instances.create, one file share, on the cluster's network.
- lustre: lustre.v1 instances.create (REST as google-cloud-lustre sends it; no discovery
  document exists for it), after the network's Private Service Access check and the TCP 988
  firewall rule (network.py): an instance cannot be created without the first, nor mounted
  without the second.
"""

from __future__ import annotations

import dataclasses

from xcli.plan.model import Plan, Step
from xcli.plan.operations import OperationCall
from xcli.plan.steps import ApiCall
from xcli.plan.storage import Storage
from xcli.plan.storage_steps import STORAGE_API
from xcli.storage import files, network
from xcli.storage.checks import FILESTORE_TIERS
from xcli.storage.gke import FILE, LUSTRE, attach_steps, detach_steps, project_number, record_of
from xcli.storage.request import CreateRequest

LABELS = {"created-by": "xcli"}


def create_step(req: CreateRequest) -> Step:
    a = req.attach
    p, labels = a.cluster.project, {**LABELS, "xcli-storage": a.name}
    if a.type == "gcsfuse":
        return ApiCall(
            id="create",
            summary=f"create bucket {a.bucket} in {a.cluster.region}",
            api="storage.buckets.insert",
            method="POST",
            url=f"{STORAGE_API}/b?project={p}",
            body={
                "name": a.bucket,
                "location": a.cluster.region,
                "iamConfiguration": {"uniformBucketLevelAccess": {"enabled": True}},
                "hierarchicalNamespace": {"enabled": True},
                "labels": labels,
            },
        )
    base = f"projects/{p}/locations/{a.where}"
    if a.type == "filestore":
        url, api = (
            f"{FILE}/{base}/instances?instanceId={a.instance}",
            "file.projects.locations.instances.create",
        )
        body: dict[str, object] = {
            "tier": req.tier,
            "fileShares": [{"name": req.share, "capacityGb": str(req.size_gib)}],
            "networks": [{"network": req.network, "modes": ["MODE_IPV4"]}],
            "labels": labels,
        }
        what = f"Filestore {req.tier} instance {a.instance} ({req.size_gib} GiB) in {a.where}"
    else:
        url, api = (
            f"{LUSTRE}/{base}/instances?instanceId={a.instance}",
            "lustre.projects.locations.instances.create",
        )
        body = {
            "filesystem": lustre_fs(a.instance),
            "capacityGib": str(req.size_gib),
            "network": f"projects/{p}/global/networks/{req.network}",
            "perUnitStorageThroughput": str(req.throughput),
            "labels": labels,
        }
        what = f"Managed Lustre instance {a.instance} ({req.size_gib} GiB) in {a.where}"
    return OperationCall(
        id="create",
        summary=f"create {what}",
        api=api,
        method="POST",
        url=url,
        body=body,
        poll=f"GET {url.split('/projects/')[0]}/{base}/operations/{{name}}",
        timeout_seconds=3600,
    )


def lustre_fs(instance: str) -> str:
    """A Lustre file system name: at most 8 letters and digits (from the instance name)."""
    return "".join(c for c in instance if c.isalnum())[:8] or "lustre"


def plan_create(req: CreateRequest, addon_on: bool | None, kube: bool) -> Plan:
    a = req.attach
    first = create_step(req)
    if kube and a.type in network.NEEDS_PSA:  # the network's prerequisites before the instance
        number = project_number(a.cluster.project, why=network.WHY_NUMBER)
        checks = network.checks(a.type, a.cluster, req.network, (number.id,))
        first = dataclasses.replace(first, after=("psa", "firewall"))  # cheap rule first
        after = (first.id, "firewall")
        tail = attach_steps(a, addon_on, after=after, network_checked=True)
        steps = [number, *checks, first, *tail]
    elif kube:
        steps = [first, *attach_steps(a, addon_on, after=(first.id,))]
    else:
        steps = [first, files.write_step(a.cluster.name, record_of(a), after=(first.id,))]
    notes = ["`xcli storage delete` deletes it again, with its data"]
    if kube:
        notes += network.plan_notes(a.type, addon_on)
    if a.type == "filestore":
        notes.append(
            f"location {a.where}: tier {req.tier} is "
            f"{'zonal' if FILESTORE_TIERS[req.tier][2] else 'regional'}"
        )
    return Plan(
        title=f"create {a.type} storage {a.name} and attach it to cluster {a.cluster.name}",
        steps=tuple(steps),
        notes=tuple(notes),
    )


def delete_step(record: Storage, after: tuple[str, ...]) -> Step:
    if record.type == "gcsfuse":
        return ApiCall(
            id="delete",
            summary=f"delete bucket {record.source} (Cloud Storage refuses while objects remain)",
            after=after,
            api="storage.buckets.delete",
            method="DELETE",
            url=f"{STORAGE_API}/b/{record.source}",
            accept=("NOT_FOUND",),
        )
    base = FILE if record.type == "filestore" else LUSTRE
    service = "file" if record.type == "filestore" else "lustre"
    location = record.source.rsplit("/instances/", 1)[0]
    return OperationCall(
        id="delete",
        summary=f"delete {record.type} instance {record.source} and every file on it",
        after=after,
        api=f"{service}.projects.locations.instances.delete",
        method="DELETE",
        url=f"{base}/{record.source}",
        accept=("NOT_FOUND",),
        poll=f"GET {base}/{location}/operations/{{name}}",
        timeout_seconds=3600,
        destructive=True,
    )


def plan_delete(
    record: Storage, cluster: str, project: str, kube: bool, keep_grant: bool = False
) -> Plan:
    if kube:
        steps = detach_steps(record, cluster, project, keep_grant)
    else:
        steps = list(files.plan_detach(cluster, record).steps)
    # the record goes last: a delete that stopped half way can be run again
    last = steps.pop()
    delete = delete_step(record, (steps[-1].id,) if steps else ())
    steps += [delete, dataclasses.replace(last, after=(delete.id,))]
    return Plan(
        title=f"delete {record.type} storage {record.name} of cluster {cluster}, and its data",
        steps=tuple(steps),
    )
