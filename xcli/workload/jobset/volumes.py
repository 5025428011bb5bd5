"""Attached storages in a JobSet's pods: volumes, mounts and the CSI drivers' pod settings. Pure.

Each storage is a volume from its PersistentVolumeClaim (`xcli storage attach` made the PV and
PVC), mounted in every container at its mount point, read-only as recorded. Facts, from
GoogleCloudPlatform/gcs-fuse-csi-driver (`pkg/webhook/mutatingwebhook.go`, `config.go`,
`docs/known-issues.md`, `docs/releases.md`):
- the pod (template) annotation `gke-gcsfuse/volumes: "true"` makes the webhook inject the
  gcsfuse sidecar; without it the mount fails ("failed to find the sidecar container");
- the sidecar's resources come from `gke-gcsfuse/cpu-limit`, `memory-limit` and
  `ephemeral-storage-limit`; "0" means no limit (the default 256Mi memory limit OOM-kills the
  sidecar under training reads: issues #314, #372), as XPK sets them;
- on GKE 1.29.3-gke.1093000 and later the sidecar is a native sidecar (an init container with
  restartPolicy Always), which is what lets init containers use the volumes too;
- host-network pods (every pod xcli makes) authenticate as their Kubernetes service account
  only on GKE 1.33.3-gke.1226000+ (Standard) with the PV attribute `hostNetworkPodKSA: "true"`
  (the PV is `xcli storage attach`'s); the plan says so.
Parallelstore's driver reads `gke-parallelstore/volumes: "true"` (XPK `core/storage.py`).
The annotations and the host-network note are each storage type's own
(`pod_annotations`, `host_network_note` of its unit in xcli/plan/storage_types/): no type name
is compared here.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

from xcli.errors import ConfigError
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.read_first import ReadFirst
from xcli.plan.steps import K8sApply
from xcli.plan.storage import Storage
from xcli.plan.storage_types import find

# The Kubernetes service account a storage's access was granted to, when `attach` recorded one
# (else the namespace's `default` account, which pods use without naming it).
KSA_ATTRIBUTE = "ksa"


def volume_name(storage: Storage) -> str:
    return f"storage-{storage.name}"


def pod_settings(storages: Sequence[Storage]) -> dict[str, Any]:
    """volumes, volumeMounts, annotations and serviceAccountName for the pod template."""
    volumes: list[dict[str, Any]] = []
    mounts: list[dict[str, Any]] = []
    annotations: dict[str, str] = {}
    accounts = {s.attributes[KSA_ATTRIBUTE] for s in storages if s.attributes.get(KSA_ATTRIBUTE)}
    if len(accounts) > 1:
        raise ConfigError(
            "the storages were granted to different service accounts: "
            + ", ".join(sorted(accounts)),
            hint="a pod runs as one service account: mount storages attached for the same one",
        )
    for s in storages:
        if not s.pvc:
            raise ConfigError(
                f"storage {s.name} has no PersistentVolumeClaim recorded",
                hint=f"attach it again: xcli storage attach {s.name} ...",
            )
        claim = {"claimName": s.pvc, "readOnly": s.readonly}
        volumes.append({"name": volume_name(s), "persistentVolumeClaim": claim})
        mounts.append({"name": volume_name(s), "mountPath": s.mount_point, "readOnly": s.readonly})
        unit = find(s.type)  # None: a type this xcli does not know, mounted without settings
        if unit is not None:
            annotations.update(unit.pod_annotations)
    out: dict[str, Any] = {"volumes": volumes, "mounts": mounts, "annotations": annotations}
    if accounts:
        out["serviceAccountName"] = accounts.pop()
    return out


def add_to_jobset(jobset: dict[str, Any], storages: Sequence[Storage]) -> dict[str, Any]:
    """A copy of the JobSet with the storages in every pod template and container."""
    if not storages:
        return jobset
    settings = pod_settings(storages)
    out = copy.deepcopy(jobset)
    for rjob in out["spec"]["replicatedJobs"]:
        template = rjob["template"]["spec"]["template"]
        meta = template.setdefault("metadata", {})
        if settings["annotations"]:
            meta.setdefault("annotations", {}).update(settings["annotations"])
        pod = template["spec"]
        pod.setdefault("volumes", []).extend(copy.deepcopy(settings["volumes"]))
        if "serviceAccountName" in settings:
            pod["serviceAccountName"] = settings["serviceAccountName"]
        for container in pod["containers"]:
            container.setdefault("volumeMounts", []).extend(copy.deepcopy(settings["mounts"]))
    return out


def notes(storages: Sequence[Storage], host_network: bool) -> list[str]:
    """What each type of storage needs in host-network pods, once per type."""
    if not host_network:
        return []
    out: list[str] = []
    for s in storages:
        unit = find(s.type)
        note = unit.host_network_note if unit is not None else None
        if note and note not in out:
            out.append(note)
    return out


def add_to_plan(
    plan: Plan,
    storages: Sequence[Storage],
    extra_notes: Sequence[str],
    unread: Sequence[str] = (),
    cluster: str = "",
    namespace: str = "default",
) -> Plan:
    """The workload plan with the storages in its JobSet, and the notes that go with them.
    `unread`: named storages a dry-run did not read: the plan starts with the read of each
    one's record (plan/read_first.py) and mounts it from that record's answer, by refs."""
    reads = [_read_record(name, cluster, namespace) for name in unread]
    steps: list[Step] = list(reads)
    host_network = False
    for step in plan.steps:
        if isinstance(step, K8sApply) and step.manifest.get("kind") == "JobSet":
            manifest = add_to_jobset(dict(step.manifest), storages)
            manifest = _add_unread(manifest, unread)
            jobs = manifest["spec"]["replicatedJobs"]
            pods = [r["template"]["spec"]["template"]["spec"] for r in jobs]
            host_network = any(p.get("hostNetwork") for p in pods)
            after = (*step.after, *(r.id for r in reads))
            step = dataclasses.replace(step, manifest=manifest, after=after)
        steps.append(step)
    all_notes = (*plan.notes, *extra_notes, *notes(storages, host_network))
    return dataclasses.replace(plan, steps=tuple(steps), notes=all_notes)


def _read_record(name: str, cluster: str, namespace: str) -> ReadFirst:
    from xcli.plan.storage import configmap_name

    return ReadFirst(
        id=f"storage-{name}",
        summary=f"read storage {name}'s record, ConfigMap {namespace}/{configmap_name(name)} "
        f"(a live run reads it first: no record, no storage {name}, and nothing is applied)",
        cluster=cluster,
        api_version="v1",
        object_kind="ConfigMap",
        namespace=namespace,
        name=configmap_name(name),
        outputs={
            "pvc": "its PersistentVolumeClaim",
            "mount_point": "where the workers see it",
            "readonly": "whether it is mounted read-only",
        },
    )


def _add_unread(jobset: dict[str, Any], unread: Sequence[str]) -> dict[str, Any]:
    """The JobSet with a volume and a mount per unread storage, each from its record (refs)."""
    if not unread:
        return jobset
    out = copy.deepcopy(jobset)
    for rjob in out["spec"]["replicatedJobs"]:
        pod = rjob["template"]["spec"]["template"]["spec"]
        for name in unread:
            sid, volume = f"storage-{name}", f"storage-{name}"
            readonly = Ref(sid, "readonly")
            claim = {"claimName": Ref(sid, "pvc"), "readOnly": readonly}
            pod.setdefault("volumes", []).append({"name": volume, "persistentVolumeClaim": claim})
            for container in pod["containers"]:
                mount = {"name": volume, "mountPath": Ref(sid, "mount_point"), "readOnly": readonly}
                container.setdefault("volumeMounts", []).append(mount)
    return out
