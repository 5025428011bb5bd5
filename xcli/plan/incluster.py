"""In-cluster setup of a GKE cluster: JobSet, Kueue, the queue objects and the metadata ConfigMap.

Pure: `setup_steps` turns a ClusterSpec into steps; nothing here talks to a cluster.

Order (each line runs after the one above it, items on a line run concurrently):
  1. install JobSet and Kueue from their pinned release manifests; PriorityClasses
  2. wait until their CRDs are Established, their controllers Available and webhooks answer
  3. ResourceFlavor, ClusterQueue, LocalQueue (and for GPU flex-start the
     ProvisioningRequestConfig and AdmissionCheck)
  4. the metadata ConfigMap, last, so that its presence means the setup finished

Priority classes are scheduling.k8s.io/v1 PriorityClass objects, not Kueue
WorkloadPriorityClass. A JobSet whose pods name a PriorityClass gets that priority twice over:
Kueue uses the pods' priorityClassName as the workload priority when no
`kueue.x-k8s.io/priority-class` label is set (k8s.md §2.1), and kube-scheduler uses it to order
and preempt pods on the nodes. A WorkloadPriorityClass would only reach Kueue, and the pods
would still run at priority 0. XPK's users already know these five names and values.

The metadata ConfigMap lives in the `default` namespace, beside the LocalQueue, because that is
where workloads run: a pod can only reference a ConfigMap of its own namespace (envFrom,
volumes), and reading it needs no access to kube-system.
"""

from __future__ import annotations

from typing import Any

from xcli import __version__
from xcli.plan.kube_steps import K8sInstall, K8sWait
from xcli.plan.model import Step
from xcli.plan.steps import K8sApply, Text
from xcli.spec import ClusterSpec

JOBSET_VERSION = "v0.12.0"
KUEUE_VERSION = "v0.19.2"
KUEUE_API = "kueue.x-k8s.io/v1beta2"
RELEASES = "https://github.com/kubernetes-sigs/{0}/releases/download/{1}/manifests.yaml"

NAMESPACE = "default"
LOCAL_QUEUE = "xcli-queue"
CLUSTER_QUEUE = "xcli-cluster-queue"
METADATA_CONFIGMAP = "xcli-cluster-metadata"
ADMISSION_CHECK = "xcli-dws-prov"
PROVISIONING_CONFIG = "xcli-dws-config"
MANAGED_BY = {"app.kubernetes.io/managed-by": "xcli"}

# (name, value): XPK's five classes; workloads default to "medium".
PRIORITIES = (
    ("very-low", 100),
    ("low", 250),
    ("medium", 500),
    ("high", 750),
    ("very-high", 1000),
)

# ClusterQueue quota for cpu and memory, per VM: above every accelerator machine type xcli
# creates (the largest, a3-ultragpu-8g, has 224 vCPUs and under 3 TiB), so chips stay the only
# quota that binds, while workloads that do declare cpu or memory requests are still admitted
# (Kueue refuses a workload requesting a resource its ClusterQueue does not cover).
CPU_PER_VM = 256
MEMORY_TIB_PER_VM = 4

TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
SPOT_LABEL = "cloud.google.com/gke-spot"
QUEUED_LABEL = "cloud.google.com/gke-queued"

CONTROLLERS = ("jobset-system/jobset-controller-manager", "kueue-system/kueue-controller-manager")
CRDS = (
    "jobsets.jobset.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "clusterqueues.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
    "admissionchecks.kueue.x-k8s.io",
    "provisioningrequestconfigs.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",
)


def release_url(component: str, version: str) -> str:
    return RELEASES.format(component, version)


def setup_steps(spec: ClusterSpec, cluster: Text, after: tuple[str, ...]) -> list[Step]:
    """The in-cluster setup steps for `spec`, run against `cluster` once `after` have run."""
    installs = [
        K8sInstall(
            id=f"k8s-install-{name}",
            summary=f"install {title} {version} (server-side apply of its release manifest)",
            after=after,
            cluster=cluster,
            component=name,
            version=version,
            url=release_url(name, version),
        )
        for name, title, version in (
            ("jobset", "JobSet", JOBSET_VERSION),
            ("kueue", "Kueue", KUEUE_VERSION),
        )
    ]
    wait = K8sWait(
        id="k8s-wait-controllers",
        summary="wait for the JobSet and Kueue CRDs, controllers and webhooks",
        after=tuple(s.id for s in installs),
        cluster=cluster,
        crds=CRDS,
        deployments=CONTROLLERS,
        probes=webhook_probes(),
        timeout_seconds=900,
    )
    priorities = [
        _apply(
            f"k8s-priority-{name}", f"priority class {name} ({obj['value']})", after, cluster, obj
        )
        for name, obj in ((o["metadata"]["name"], o) for o in priority_classes())
    ]
    queue = [
        _apply(f"k8s-{key}", f"Kueue {obj['kind']} {name}", (wait.id,), cluster, obj)
        for key, obj in kueue_objects(spec)
        for name in [obj["metadata"]["name"]]
    ]
    done = tuple(s.id for s in [*priorities, *queue])
    metadata = _apply(
        "k8s-metadata",
        f"ConfigMap {NAMESPACE}/{METADATA_CONFIGMAP} describing the cluster for workloads",
        done,
        cluster,
        metadata_configmap(spec),
    )
    return [*installs, *priorities, wait, *queue, metadata]


def _apply(
    sid: str, summary: str, after: tuple[str, ...], cluster: Text, obj: dict[str, Any]
) -> K8sApply:
    return K8sApply(id=sid, summary=f"apply {summary}", after=after, cluster=cluster, manifest=obj)


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta["labels"] = dict(MANAGED_BY)
    return meta


def priority_classes() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": _meta(name),
            "value": value,
            "globalDefault": False,
            "preemptionPolicy": "PreemptLowerPriority",
            "description": f"xcli workload priority {name}; select it with --priority {name}",
        }
        for name, value in PRIORITIES
    ]


def flavor_name(spec: ClusterSpec) -> str:
    """One ResourceFlavor per accelerator shape, named after it: v6e-256, h100-80gb-8."""
    return spec.accelerator.name


def resource_flavor(spec: ClusterSpec) -> dict[str, Any]:
    """Node labels Kueue copies into admitted pods' nodeSelectors, and the taint tolerations.

    Capacity labels: GKE labels Spot nodes cloud.google.com/gke-spot=true and flex-start nodes
    cloud.google.com/gke-queued=true (the selectors XPK's users run with). No reservation label:
    its value would have to be the reservation's name while xcli accepts paths and blocks of
    shared reservations, and the accelerator labels already select only this cluster's pools.
    """
    acc = spec.accelerator
    labels = {acc.gke_label: acc.gke_accelerator}
    if acc.kind == "tpu" and acc.topology:
        labels[TPU_TOPOLOGY_LABEL] = acc.topology
    tolerations = [{"key": acc.resource_name, "operator": "Exists", "effect": "NoSchedule"}]
    if spec.capacity.kind == "spot":
        labels[SPOT_LABEL] = "true"
    elif spec.capacity.kind == "flex-start":
        labels[QUEUED_LABEL] = "true"
        tolerations.append({"key": QUEUED_LABEL, "operator": "Exists", "effect": "NoSchedule"})
    return {
        "apiVersion": KUEUE_API,
        "kind": "ResourceFlavor",
        "metadata": _meta(flavor_name(spec)),
        "spec": {"nodeLabels": labels, "tolerations": tolerations},
    }


def queued_provisioning(spec: ClusterSpec) -> bool:
    """GPU flex-start pools use queued provisioning, which Kueue drives through an AdmissionCheck.

    TPU flex-start pools are plain autoscaled flex-start pools: GKE refuses queued provisioning
    for TPUs, so they get no check (xpk PR #900).
    """
    return spec.accelerator.kind == "gpu" and spec.capacity.kind == "flex-start"


def vm_count(spec: ClusterSpec) -> int:
    if spec.accelerator.kind == "gpu":
        return spec.num_nodes
    return spec.num_slices * spec.accelerator.vms_per_slice


def cluster_queue(spec: ClusterSpec) -> dict[str, Any]:
    resource = spec.accelerator.resource_name
    vms = vm_count(spec)
    quota: list[dict[str, Any]] = [
        {"name": resource, "nominalQuota": spec.total_chips},
        {"name": "cpu", "nominalQuota": vms * CPU_PER_VM},
        {"name": "memory", "nominalQuota": f"{vms * MEMORY_TIB_PER_VM}Ti"},
    ]
    body: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never"},
        "resourceGroups": [
            {
                "coveredResources": [q["name"] for q in quota],
                "flavors": [{"name": flavor_name(spec), "resources": quota}],
            }
        ],
    }
    if queued_provisioning(spec):
        body["admissionChecksStrategy"] = {"admissionChecks": [{"name": ADMISSION_CHECK}]}
    return {
        "apiVersion": KUEUE_API,
        "kind": "ClusterQueue",
        "metadata": _meta(CLUSTER_QUEUE),
        "spec": body,
    }


def local_queue() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE_API,
        "kind": "LocalQueue",
        "metadata": _meta(LOCAL_QUEUE, NAMESPACE),
        "spec": {"clusterQueue": CLUSTER_QUEUE},
    }


def provisioning_objects(spec: ClusterSpec) -> list[dict[str, Any]]:
    """ProvisioningRequestConfig + AdmissionCheck for GKE queued provisioning (k8s.md §2.6)."""
    config: dict[str, Any] = {
        "apiVersion": KUEUE_API,
        "kind": "ProvisioningRequestConfig",
        "metadata": _meta(PROVISIONING_CONFIG),
        "spec": {
            "provisioningClassName": "queued-provisioning.gke.io",
            "managedResources": [spec.accelerator.resource_name],
            "podSetUpdates": {
                "nodeSelector": [
                    {
                        "key": "autoscaling.gke.io/provisioning-request",
                        "valueFromProvisioningClassDetail": "ResizeRequestName",
                    }
                ]
            },
        },
    }
    check: dict[str, Any] = {
        "apiVersion": KUEUE_API,
        "kind": "AdmissionCheck",
        "metadata": _meta(ADMISSION_CHECK),
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": PROVISIONING_CONFIG,
            },
        },
    }
    return [config, check]


def kueue_objects(spec: ClusterSpec) -> list[tuple[str, dict[str, Any]]]:
    """(step key, object) for every Kueue object of the cluster, in apply order."""
    found = [("flavor", resource_flavor(spec))]
    if queued_provisioning(spec):
        config, check = provisioning_objects(spec)
        found += [("provisioning-config", config), ("admission-check", check)]
    found += [("cluster-queue", cluster_queue(spec)), ("local-queue", local_queue())]
    return found


def metadata_configmap(spec: ClusterSpec) -> dict[str, Any]:
    """What workloads need to know about the cluster, as strings (ConfigMap data is strings)."""
    acc = spec.accelerator
    data = {
        "cluster": spec.name,
        "project": spec.project,
        "zone": spec.zone,
        "accelerator": acc.name,
        "accelerator_kind": acc.kind,
        "gke_accelerator": acc.gke_accelerator,
        "topology": acc.topology or "",
        "slices": str(spec.num_slices if acc.kind == "tpu" else 1),
        "nodes": str(vm_count(spec)),
        "chips_per_vm": str(acc.chips_per_vm),
        "total_chips": str(spec.total_chips),
        "resource_name": acc.resource_name,
        "capacity_type": spec.capacity.kind,
        "reservation": spec.capacity.reservation or "",
        "max_run_duration_seconds": str(spec.capacity.max_run_duration or ""),
        "local_queue": LOCAL_QUEUE,
        "cluster_queue": CLUSTER_QUEUE,
        "resource_flavor": flavor_name(spec),
        "priority_classes": ",".join(name for name, _ in PRIORITIES),
        "jobset_version": JOBSET_VERSION,
        "kueue_version": KUEUE_VERSION,
        "xcli_version": __version__,
    }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _meta(METADATA_CONFIGMAP, NAMESPACE),
        "data": data,
    }


def webhook_probes() -> tuple[dict[str, Any], ...]:
    """Objects applied with dryRun=All: accepted only once both controllers' webhooks answer.

    The JobSet passes JobSet's own webhooks and Kueue's JobSet webhook; the ResourceFlavor
    passes Kueue's. The image is never pulled: a dry run stores and schedules nothing.
    """
    jobset: dict[str, Any] = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "xcli-webhook-probe", "namespace": NAMESPACE},
        "spec": {
            "suspend": True,
            "replicatedJobs": [
                {
                    "name": "probe",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "template": {
                                "spec": {
                                    "restartPolicy": "Never",
                                    "containers": [{"name": "probe", "image": "pause"}],
                                }
                            }
                        }
                    },
                }
            ],
        },
    }
    flavor: dict[str, Any] = {
        "apiVersion": KUEUE_API,
        "kind": "ResourceFlavor",
        "metadata": {"name": "xcli-webhook-probe"},
        "spec": {},
    }
    return (jobset, flavor)
