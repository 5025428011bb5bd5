"""In-cluster setup of a GKE cluster: JobSet, Kueue, the queue objects and the metadata ConfigMap.

Pure: `setup_steps` turns a ClusterSpec into steps; nothing here talks to a cluster.

The Kueue objects and priority classes themselves are built in kueue_objects.py.
Order (each line runs after the one above it; items on one line run concurrently):
  1. install JobSet and Kueue from their pinned release manifests (Kueue with fair sharing
     on in its Configuration, plan/gke/kueue_config.py); PriorityClasses
  2. wait until their CRDs are Established, their controllers Available and webhooks answer
  3. read the teams' ClusterQueues in the cohort (plan/gke/cohort_read.py); ResourceFlavor,
     ClusterQueue (its chips less the teams'), LocalQueue (and for GPU flex-start the
     ProvisioningRequestConfig and AdmissionCheck)
  4. the metadata ConfigMap, last, so that its presence means the setup finished

The metadata ConfigMap lives in the `default` namespace, beside the LocalQueue, because that is
where workloads run: a pod can only reference a ConfigMap of its own namespace (envFrom,
volumes), and reading it needs no access to kube-system.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli import __version__
from xcli.plan.gke import pathways_pool, system_pool
from xcli.plan.gke.cohort_read import carved, cohort_read
from xcli.plan.gke.jobset_config import jobset_config_patch
from xcli.plan.gke.kube_steps import K8sInstall, K8sWait
from xcli.plan.gke.kueue_config import kueue_config_patch
from xcli.plan.gke.kueue_objects import (
    CLUSTER_QUEUE,
    COHORT,
    KUEUE_API,
    LOCAL_QUEUE,
    NAMESPACE,
    PRIORITIES,
    Autoprovisioning,
    flavor_name,
    kueue_objects,
    meta,
    priority_classes,
    topology_name,
    uses_topology,
    vm_count,
)
from xcli.plan.gke.system_pool import Controllers
from xcli.plan.model import Step, refs_in
from xcli.plan.steps import K8sApply, Text
from xcli.spec import ClusterSpec

JOBSET_VERSION = "v0.12.0"
KUEUE_VERSION = "v0.19.2"
METADATA_CONFIGMAP = "xcli-cluster-metadata"
RELEASES = "https://github.com/kubernetes-sigs/{0}/releases/download/{1}/manifests.yaml"

CONTROLLERS = ("jobset-system/jobset-controller-manager", "kueue-system/kueue-controller-manager")
CRDS = (
    "jobsets.jobset.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "topologies.kueue.x-k8s.io",
    "clusterqueues.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
    "admissionchecks.kueue.x-k8s.io",
    "provisioningrequestconfigs.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",
)


def release_url(component: str, version: str) -> str:
    return RELEASES.format(component, version)


def controller_limits(component: str, ctl: Controllers) -> dict[str, Any]:
    """The controller's resources for the cluster's size (XPK's sizing, plan/gke/system_pool.py):
    the release defaults are sized for small clusters, and a Kueue controller out of memory
    stops all admission. Kueue's request equals its limit, as XPK sets it, so the scheduler
    places it on a node that holds it."""
    if component == "jobset":
        return {
            "deployment": "jobset-system/jobset-controller-manager",
            "container": "manager",
            "limits": {"memory": f"{ctl.jobset_mi}Mi"},
        }
    kueue = {"cpu": str(ctl.kueue_cpu), "memory": f"{ctl.kueue_mi}Mi"}
    return {
        "deployment": "kueue-system/kueue-controller-manager",
        "container": "manager",
        "limits": kueue,
        "requests": dict(kueue),
    }


def setup_steps(
    spec: ClusterSpec,
    cluster: Text,
    after: tuple[str, ...],
    *,
    cpu_machine_type: str | None = None,
    pathways: str | None = None,
    jobset_gates: tuple[str, ...] = (),
    extra_metadata: Mapping[str, Any] | None = None,
    nap: Autoprovisioning | None = None,
) -> list[Step]:
    """The in-cluster setup steps for `spec`, run against `cluster` once `after` have run.
    `cpu_machine_type`: the system pool's machine as given (None: sized by the cluster);
    `pathways`: the machine type of the Pathways heads' pool (None: no such pool);
    `jobset_gates`: JobSet feature gates to turn on (plan/gke/jobset_config.py);
    `extra_metadata`: more entries of the metadata ConfigMap (values may be step outputs: the
    ConfigMap then waits for those steps, e.g. the Vertex AI Tensorboard's);
    `nap`: node auto-provisioning's chip limits (None: the cluster makes its own pools)."""
    ctl = system_pool.size(vm_count(spec), cpu_machine_type).controllers
    installs = [
        K8sInstall(
            id=f"k8s-install-{name}",
            summary=f"install {title} {version} (server-side apply of its release manifest)",
            after=after,
            cluster=cluster,
            component=name,
            version=version,
            url=release_url(name, version),
            limits=controller_limits(name, ctl),
            config_patch=(
                kueue_config_patch(spec.accelerator)
                if name == "kueue"
                else jobset_config_patch(jobset_gates)
            ),
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
    priorities = []
    for obj in priority_classes():
        name = obj["metadata"]["name"]
        summary = f"priority class {name} ({obj['value']})"
        priorities.append(_apply(f"k8s-priority-{name}", summary, after, cluster, obj))
    acc = spec.accelerator
    chips = spec.total_chips if nap is None else nap.max_chips
    read = cohort_read(cluster, (wait.id,), flavor_name(spec), acc.resource_name, chips, COHORT)
    queue = []
    for key, obj in kueue_objects(spec, pathways, nap):
        summary = f"Kueue {obj['kind']} {obj['metadata']['name']}"
        if key == "cluster-queue":  # less the chips teams hold (plan/gke/cohort_read.py)
            carve = carved(obj, acc.resource_name, flavor_name(spec))
            summary += " (its chips less those teams hold)"
            queue.append(_apply(f"k8s-{key}", summary, (read.id,), cluster, carve))
            continue
        queue.append(_apply(f"k8s-{key}", summary, (wait.id,), cluster, obj))
    extra = dict(extra_metadata or {})
    outputs = tuple(sorted({r.step for r in refs_in(extra)}))
    done = tuple(s.id for s in [*priorities, *queue]) + outputs
    configmap = metadata_configmap(
        spec, pathways=pathways is not None, jobset_gates=jobset_gates, nap=nap
    )
    configmap["data"].update(extra)
    metadata = _apply(
        "k8s-metadata",
        f"ConfigMap {NAMESPACE}/{METADATA_CONFIGMAP} describing the cluster for workloads",
        done,
        cluster,
        configmap,
    )
    return [*installs, *priorities, wait, read, *queue, metadata]


def _apply(
    sid: str, summary: str, after: tuple[str, ...], cluster: Text, obj: dict[str, Any]
) -> K8sApply:
    return K8sApply(id=sid, summary=f"apply {summary}", after=after, cluster=cluster, manifest=obj)


def metadata_configmap(
    spec: ClusterSpec,
    pathways: bool = False,
    jobset_gates: tuple[str, ...] = (),
    nap: Autoprovisioning | None = None,
) -> dict[str, Any]:
    """What workloads need to know about the cluster, as strings (ConfigMap data is strings)."""
    acc = spec.accelerator
    data = {
        "cluster": spec.name,
        "project": spec.project,
        "zone": spec.zone,
        "accelerator": acc.name,
        "accelerator_kind": acc.kind,
        "gke_accelerator": acc.gke_accelerator,
        "provider": spec.provider,
        "slices": str(spec.num_slices if acc.kind != "gpu" else 1),
        "num_slices": str(spec.num_slices if acc.kind != "gpu" else 1),
        "num_nodes": str(spec.num_nodes if acc.kind == "gpu" else 1),
        "vms": str(vm_count(spec)),
        "chips_per_vm": str(acc.chips_per_vm),
        "total_chips": str(spec.total_chips),
        "resource_name": acc.resource_name,
        "capacity_type": spec.capacity.kind,
        "local_queue": LOCAL_QUEUE,
        "cluster_queue": CLUSTER_QUEUE,
        "resource_flavor": flavor_name(spec),
        "priority_classes": ",".join(name for name, _ in PRIORITIES),
        "jobset_version": JOBSET_VERSION,
        "kueue_version": KUEUE_VERSION,
        "xcli_version": __version__,
    }
    optional = {
        "topology": acc.topology,
        "gpu_network": acc.gpu_network,
        "kueue_topology": topology_name(spec) if uses_topology(spec) and nap is None else "",
        "cohort": COHORT,
        "reservation": spec.capacity.reservation,
        "max_run_duration_seconds": spec.capacity.max_run_duration,
        # the heads' pool exists: `workload create --pathways` refuses a cluster without it
        "pathways_pool": pathways_pool.POOL if pathways else "",
        "pathways_flavor": pathways_pool.FLAVOR if pathways else "",
        # JobSet feature gates turned on (cluster create --slice-restarts: RestartJob)
        "jobset_feature_gates": ",".join(jobset_gates),
        # node auto-provisioning: workloads of any shape of the family, within these chips
        # (XPK's resources ConfigMap keeps the same two numbers, minimum_chips and
        # maximum_chips: src/xpk/core/resources.py l.138-148)
        "autoprovisioning": "true" if nap is not None else "",
        "autoprovisioning_min_chips": str(nap.min_chips) if nap is not None else "",
        "autoprovisioning_max_chips": str(nap.max_chips) if nap is not None else "",
    }
    data.update({k: str(v) for k, v in optional.items() if v})  # absent, rather than empty
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(METADATA_CONFIGMAP, NAMESPACE),
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
