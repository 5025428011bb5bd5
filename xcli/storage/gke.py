"""Plans of `xcli storage attach | detach` on GKE (pure: no network, no credentials).

attach: turn the type's CSI driver add-on on (one container.v1 cluster update, waited for;
left out when a live run has read that it is on), read what the volume needs from the backing
resource's API (Filestore IP and share, Lustre mount point, the project number for the
Workload Identity principal), grant the workloads' Kubernetes service account access to a
bucket (storage.v1 IAM, read-modify-write), then apply the PV, the PVC and the record.

detach undoes it in reverse: the record goes last, so a detach that stopped half way can be
run again. It leaves the add-on on (other storages and other tools may use it) and never
touches the data.
"""

from __future__ import annotations

from collections.abc import Sequence

from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Fmt, Plan, Ref, Step
from xcli.plan.operations import OperationCall
from xcli.plan.steps import K8sApply
from xcli.plan.storage import Storage, configmap_name, to_configmap
from xcli.plan.storage_request import AttachRequest
from xcli.plan.storage_steps import ApiRead, BucketIam
from xcli.plan.storage_types import find, unit
from xcli.providers.gke import bodies as gke
from xcli.storage import network, nodes
from xcli.storage import volumes as vol

CRM = "https://cloudresourcemanager.googleapis.com/v3"
PRINCIPAL = (
    "principal://iam.googleapis.com/projects/{}/locations/global/workloadIdentityPools/"
    "{}.svc.id.goog/subject/ns/{}/sa/{}"
)
READER, WRITER = "roles/storage.objectViewer", "roles/storage.objectUser"


def source_of(req: AttachRequest) -> str:
    """The record's `source`: the backing resource in the type's own terms."""
    return unit(req.type).source_of(req)


def record_of(req: AttachRequest) -> Storage:
    return Storage(
        name=req.name,
        type=req.type,
        source=source_of(req),
        mount_point=req.mount_point,
        readonly=req.readonly,
        auto_mount=req.auto_mount,
        mount_options=req.mount_options or unit(req.type).default_options(req.readonly),
        namespace=req.namespace,
        pvc=vol.pvc_name(req.name),
        created=req.created,
        attributes={"ksa": req.ksa, "pv": vol.pv_name(req.namespace, req.name)},
    )


def addon_step(req: AttachRequest, after: tuple[str, ...] = ()) -> OperationCall:
    info = unit(req.type)
    ref = req.cluster
    url = gke.cluster_url(ref.project, ref.region, ref.name)
    return OperationCall(
        id="addon",
        summary=f"turn on the {info.driver} CSI driver add-on of cluster {ref.name}",
        after=after,
        api="container.projects.locations.clusters.update",
        method="PUT",
        url=url,
        body={"update": {"desiredAddonsConfig": {info.addon: {"enabled": True}}}},
        poll=f"GET {gke.operations_url(ref.project, ref.region)}/{{name}}",
        timeout_seconds=3600,
    )


def project_number(
    project: str, after: tuple[str, ...] = (), why: str = "the Workload Identity principal"
) -> ApiRead:
    return ApiRead(
        id="project-number",
        summary=f"read the number of project {project} (for {why})",
        after=after,
        api="cloudresourcemanager.projects.get",
        method="GET",
        url=f"{CRM}/projects/{project}",
        outputs={"number": "name@last"},
    )


def principal(project: str, namespace: str, ksa: str) -> Fmt:
    return Fmt(PRINCIPAL, Ref("project-number", "number"), project, namespace, ksa)


def bucket_iam(record: Storage, project: str, action: str) -> BucketIam:
    ksa = record.attributes.get("ksa", "default")
    role = READER if record.readonly else WRITER
    verb = "grant" if action == "add" else "revoke"
    return BucketIam(
        id="bucket-iam",
        summary=f"{verb} {role} on bucket {record.source} for Kubernetes service account "
        f"{record.namespace}/{ksa}",
        after=("project-number",),
        bucket=record.source,
        role=role,
        member=principal(project, record.namespace, ksa),
        action=action,
    )


def attach_steps(
    req: AttachRequest,
    addon_on: bool | None,
    after: Sequence[str] = (),
    network_checked: bool = False,
) -> list[Step]:
    """The attach steps, after the steps named in `after` (create's). `addon_on`: what a live
    run read (None: not read, as in a dry-run: the update is planned). Lustre and
    Parallelstore first check the network (network.py), unless `network_checked` (create did)."""
    kind = unit(req.type)
    steps: list[Step] = []
    ready: list[str] = list(after)
    reads, volume = kind.volume(req, tuple(after))
    guard = tuple(after)  # what changes the cluster waits for: the PSA check, when there is one
    if kind.network is not None and not network_checked:
        net = Ref("read-source", kind.network.network_output)
        number = project_number(req.cluster.project, tuple(after), network.WHY_NUMBER)
        checks = network.checks(req.type, req.cluster, net, ("read-source", number.id))
        steps += [*reads, number, *checks]
        guard, ready = ("psa",), [*ready, "read-source", "firewall"]
        reads = []
    if not addon_on:
        steps.append(addon_step(req, guard))
        ready.append("addon")
        if kind.recreates_nodes:  # running nodes get the driver only when recreated (nodes.py)
            steps.append(nodes.recreate_step(req.cluster, ("addon",)))
            ready.append("recreate-nodes")
    steps += reads
    ready += [r.id for r in reads]
    record = record_of(req)
    if kind.bucket_grant:
        project = req.cluster.project
        steps += [project_number(project, tuple(after)), bucket_iam(record, project, "add")]
        ready.append("bucket-iam")
    options = req.mount_options or kind.default_options(req.readonly)
    objects = [
        ("pv", "PersistentVolume", vol.pv(req.name, req.namespace, volume, req.readonly, options)),
        ("pvc", "PersistentVolumeClaim", vol.pvc(req.name, req.namespace, volume, req.readonly)),
        ("record", "ConfigMap", to_configmap(record)),
    ]
    for sid, object_kind, manifest in objects:
        name = manifest["metadata"]["name"]
        steps.append(
            K8sApply(
                id=sid,
                summary=f"apply {object_kind} {name}",
                after=tuple(ready),
                cluster=req.cluster.name,
                manifest=manifest,
            )
        )
        ready = [sid]
    return steps


def plan_attach(req: AttachRequest, addon_on: bool | None) -> Plan:
    note = unit(req.type).plan_note
    notes = [note] if note else []
    if addon_on is None:
        notes.append(
            "a live run reads the cluster first and leaves out the add-on update "
            "when the driver is already on"
        )
    notes += network.plan_notes(req.type, addon_on)
    return Plan(
        title=f"attach {req.type} storage {req.name} to cluster {req.cluster.name}",
        steps=tuple(attach_steps(req, addon_on)),
        notes=tuple(notes),
    )


def detach_steps(
    record: Storage, cluster: str, project: str, keep_grant: bool = False
) -> list[Step]:
    """`keep_grant`: another attached storage gives the same account the same role on the
    same bucket, so the grant stays."""
    ns = record.namespace
    pv = record.attributes.get("pv", vol.pv_name(ns, record.name))
    steps: list[Step] = [
        K8sDelete(
            id="delete-pvc",
            summary=f"delete PersistentVolumeClaim {ns}/{record.pvc} (waits for pods using it)",
            cluster=cluster,
            api_version="v1",
            resource="persistentvolumeclaims",
            namespace=ns,
            name=record.pvc,
            propagation="Background",
        ),
        K8sDelete(
            id="delete-pv",
            summary=f"delete PersistentVolume {pv} (reclaim policy Retain: the data stays)",
            after=("delete-pvc",),
            cluster=cluster,
            api_version="v1",
            resource="persistentvolumes",
            namespace="",
            name=pv,
            propagation="Background",
        ),
    ]
    last = "delete-pv"
    kind = find(record.type)
    if kind is not None and kind.bucket_grant and not keep_grant:
        steps += [project_number(project, (last,)), bucket_iam(record, project, "remove")]
        last = "bucket-iam"
    steps.append(
        K8sDelete(
            id="delete-record",
            summary=f"delete the record ConfigMap {ns}/{configmap_name(record.name)}",
            after=(last,),
            cluster=cluster,
            api_version="v1",
            resource="configmaps",
            namespace=ns,
            name=configmap_name(record.name),
            propagation="Background",
        )
    )
    return steps


def plan_detach(record: Storage, cluster: str, project: str, keep_grant: bool = False) -> Plan:
    notes = ["the data is not touched; the CSI driver add-on stays on"]
    if keep_grant:
        notes.append(f"the bucket grant stays: another storage uses bucket {record.source} too")
    return Plan(
        title=f"detach storage {record.name} from cluster {cluster}",
        steps=tuple(detach_steps(record, cluster, project, keep_grant)),
        notes=tuple(notes),
    )
