"""`storage detach | delete NAME --dry-run` without the storage described (pure).

A live run reads the storage's record first (a ConfigMap, plan/storage.py) and plans with it.
A dry-run reads nothing, so these plans start with that read (plan/read_first.py) and take
what only the record knows through refs: the PV and PVC names (xcli's `xcli-...` names, or
those of the user's --manifest), and the backing resource. What does not depend on the record
is printed as it is: the record ConfigMap's own name, derived from the storage's name. What
the record's type adds is said in the notes, with the way to see each request: describe the
storage (--type and its --bucket, --instance or --disk) and the dry-run plans it exactly.
"""

from __future__ import annotations

from xcli.plan.gke.kube_steps import K8sDelete
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.read_first import ReadFirst
from xcli.plan.steps import Text
from xcli.plan.storage import configmap_name

OUTPUTS = {
    "pvc": "the PersistentVolumeClaim the record names",
    "pv": "the PersistentVolume the record names",
    "type": "the storage type",
    "source": "the bucket, instance or disk behind it",
}
_DESCRIBE = (
    "to see every request exactly, describe the storage: --type and the --bucket, --instance "
    "or --disk it was attached with"
)


def _read(name: str, namespace: str, cluster: str) -> ReadFirst:
    return ReadFirst(
        id="record",
        summary=f"read storage {name}'s record, ConfigMap {namespace}/{configmap_name(name)} "
        f"(a live run reads it first: no record, no storage {name})",
        cluster=cluster,
        api_version="v1",
        object_kind="ConfigMap",
        namespace=namespace,
        name=configmap_name(name),
        outputs=OUTPUTS,
    )


def _steps(name: str, namespace: str, cluster: str) -> list[Step]:
    def delete(sid: str, after: str, what: str, resource: str, ns: str, obj: Text) -> K8sDelete:
        return K8sDelete(
            id=sid,
            summary=what,
            after=(after,),
            cluster=cluster,
            api_version="v1",
            resource=resource,
            namespace=ns,
            name=obj,
            propagation="Background",
        )

    return [
        _read(name, namespace, cluster),
        delete("delete-pvc", "record", f"delete the PersistentVolumeClaim {namespace}/"
               "${record.pvc} (waits for pods using it)", "persistentvolumeclaims", namespace,
               Ref("record", "pvc")),
        delete("delete-pv", "delete-pvc", "delete the PersistentVolume ${record.pv} (reclaim "
               "policy Retain: the data stays)", "persistentvolumes", "", Ref("record", "pv")),
        delete("delete-record", "delete-pv", f"delete the record ConfigMap {namespace}/"
               f"{configmap_name(name)}", "configmaps", namespace, configmap_name(name)),
    ]  # fmt: skip


def plan_detach(name: str, namespace: str, cluster: str) -> Plan:
    return Plan(
        title=f"detach storage {name} from cluster {cluster}",
        steps=tuple(_steps(name, namespace, cluster)),
        notes=(
            "a dry-run reads no cluster: what the record names is shown as ${record.*}",
            "a gcsfuse record adds, before the record goes: revoke the workloads' bucket "
            "grant (storage.v1 setIamPolicy), unless another storage uses the same one",
            _DESCRIBE,
            "the data is not touched; the CSI driver add-on stays on",
        ),
    )


def plan_delete(name: str, namespace: str, cluster: str) -> Plan:
    return Plan(
        title=f"delete storage {name} of cluster {cluster}, and its data",
        steps=tuple(_steps(name, namespace, cluster)),
        notes=(
            "a dry-run reads no cluster: what the record names is shown as ${record.*}",
            "a live run goes on only for a storage `xcli storage create` made (the record "
            "says so), and asks first; it then deletes ${record.source}, with every file on "
            "it (storage.v1 buckets.delete, file.v1 or lustre.v1 instances.delete, by the "
            "record's type) before the record goes, and for gcsfuse revokes the bucket grant",
            _DESCRIBE,
        ),
    )
