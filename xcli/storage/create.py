"""Plans of `xcli storage create | delete`: make the backing resource, then attach it; detach,
then delete what create made (pure). Each type's create and delete requests are its unit's
(xcli/plan/storage_types/):

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
from xcli.plan.storage import Storage
from xcli.plan.storage_request import CreateRequest
from xcli.plan.storage_types import unit
from xcli.storage import files, network
from xcli.storage.gke import attach_steps, detach_steps, project_number, record_of

LABELS = {"created-by": "xcli"}


def create_step(req: CreateRequest) -> Step:
    a = req.attach
    return unit(a.type).create_step(req, {**LABELS, "xcli-storage": a.name})


def plan_create(req: CreateRequest, addon_on: bool | None, kube: bool) -> Plan:
    a = req.attach
    kind = unit(a.type)
    first = create_step(req)
    if kube and kind.network is not None:  # the network's prerequisites before the instance
        number = project_number(a.cluster.project, why=network.WHY_NUMBER)
        checks = network.checks(a.type, a.cluster, req.network, (number.id,))
        first = dataclasses.replace(first, after=("psa",))
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
    notes += kind.create_notes(req)
    return Plan(
        title=f"create {a.type} storage {a.name} and attach it to cluster {a.cluster.name}",
        steps=tuple(steps),
        notes=tuple(notes),
    )


def delete_step(record: Storage, after: tuple[str, ...]) -> Step:
    return unit(record.type).delete_step(record, after)


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
