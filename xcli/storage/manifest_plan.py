"""The plan of `storage attach --manifest FILE` on GKE (pure): the CSI driver add-on (left out
when a live run read it on), a bucket's grant (gcsfuse), then the file's PersistentVolume and
claim as written (storage/manifest.py checked them) and xcli's record, whose source is the PV's
volume handle (as XPK reads a storage's bucket from it, src/xpk/core/storage.py `_get_bucket`
at 367c838253be)."""

from __future__ import annotations

from xcli.plan.model import Plan, Step
from xcli.plan.steps import K8sApply
from xcli.plan.storage import Storage, to_configmap
from xcli.plan.storage_request import AttachRequest
from xcli.plan.storage_types import unit
from xcli.storage import nodes
from xcli.storage.gke import addon_step, bucket_iam, project_number
from xcli.storage.manifest import Manifest


def manifest_record(req: AttachRequest, objects: Manifest, path: str) -> Storage:
    """The record of a --manifest storage: its source is the PV's volume handle (as XPK reads
    a storage's bucket from it, src/xpk/core/storage.py `_get_bucket`), its PV and PVC the
    file's."""
    return Storage(
        name=req.name,
        type=req.type,
        source=objects.handle,
        mount_point=req.mount_point,
        readonly=req.readonly,
        auto_mount=req.auto_mount,
        mount_options=objects.mount_options,
        namespace=req.namespace,
        pvc=objects.pvc_name,
        created=False,
        attributes={"ksa": req.ksa, "pv": objects.pv_name, "manifest": path},
    )


def plan_attach_manifest(
    req: AttachRequest, objects: Manifest, path: str, addon_on: bool | None
) -> Plan:
    """`storage attach --manifest FILE`: the add-on (left out when a live run read it on), a
    bucket's grant (gcsfuse), then the file's PV and PVC as written and xcli's record."""
    kind = unit(req.type)
    steps: list[Step] = []
    ready: list[str] = []
    if not addon_on:
        steps.append(addon_step(req))
        ready.append("addon")
        if kind.recreates_nodes:
            steps.append(nodes.recreate_step(req.cluster, ("addon",)))
            ready.append("recreate-nodes")
    record = manifest_record(req, objects, path)
    if kind.bucket_grant:
        project = req.cluster.project
        steps += [project_number(project), bucket_iam(record, project, "add")]
        ready.append("bucket-iam")
    objects_to_apply = [
        ("pv", "PersistentVolume", objects.pv),
        ("pvc", "PersistentVolumeClaim", objects.pvc),
        ("record", "ConfigMap", to_configmap(record)),
    ]
    for sid, object_kind, manifest in objects_to_apply:
        name = manifest["metadata"]["name"]
        steps.append(
            K8sApply(
                id=sid,
                summary=f"apply {object_kind} {name}"
                + (f" (from --manifest {path})" if sid != "record" else ""),
                after=tuple(ready),
                cluster=req.cluster.name,
                manifest=manifest,
            )
        )
        ready = [sid]
    notes = [
        f"the PersistentVolume and its claim are --manifest {path}'s, applied as written "
        f"(the claim in namespace {req.namespace})"
    ]
    if kind.network is not None:
        notes.append(
            f"xcli does not check the network of a --manifest {kind.network.product} volume "
            "(Private Service Access, firewall): the PersistentVolume names its address"
        )
    if addon_on is None:
        notes.append(
            "a live run reads the cluster first and leaves out the add-on update "
            "when the driver is already on"
        )
    return Plan(
        title=f"attach {req.type} storage {req.name} to cluster {req.cluster.name} from "
        f"--manifest {path}",
        steps=tuple(steps),
        notes=tuple(notes),
    )
