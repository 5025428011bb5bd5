"""Kueue objects and priority classes for a cluster (pure: dicts built from a ClusterSpec).

All Kueue objects use the storage version kueue.x-k8s.io/v1beta2 (Kueue v0.19.2 serves v1beta1,
deprecated, and v1beta2; its CRDs are in tests/data/kueue/).

Priority classes are scheduling.k8s.io/v1 PriorityClass objects, not Kueue
WorkloadPriorityClass. A JobSet whose pods name a PriorityClass gets that priority twice over:
Kueue uses the pods' priorityClassName as the workload priority when no
`kueue.x-k8s.io/priority-class` label is set (https://kueue.sigs.k8s.io/docs/concepts/workload_priority_class/),
and kube-scheduler uses it to order
and preempt pods on the nodes. A WorkloadPriorityClass would only reach Kueue, and the pods
would still run at priority 0. XPK's users already know these five names and values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xcli.plan.gke import pathways_pool
from xcli.plan.gke.dra import channel_quota
from xcli.spec import ClusterSpec

KUEUE_API = "kueue.x-k8s.io/v1beta2"
NAMESPACE = "default"
LOCAL_QUEUE = "xcli-queue"
CLUSTER_QUEUE = "xcli-cluster-queue"
COHORT = "xcli"  # every xcli ClusterQueue of a cluster joins it: the cluster's and its teams'
TOPOLOGY = "xcli-node-pools"
# Kueue topology levels, widest first: a TPU slice is one node pool (with its own placement),
# xcli's GPU nodes are one pool, a worker is one node. GKE labels every node with its pool
# (https://cloud.google.com/kubernetes-engine/docs/how-to/node-pools), so no node is left out;
# the finer gce-topology-block/subblock/host labels exist only on some machine families.
TOPOLOGY_LEVELS = ("cloud.google.com/gke-nodepool", "kubernetes.io/hostname")
# A3 Ultra, A4 and A4X nodes from a reservation carry Compute Engine's physical topology as
# labels (block, sub-block, host): the levels XPK's GPU Topology `gke-default` uses
# (https://cloud.google.com/ai-hypercomputer/docs/workloads/schedule-gke-workloads-tas; TAS
# "works best with compactly placed capacity, which can be obtained through reservations").
# Spot and on-demand capacity is not placed compactly, and the node-pool levels serve it.
# Cluster Toolkit pairs the same Topology with its SPECIFIC_RESERVATION A3 Ultra, A4 and A4X
# pools (cluster-toolkit@1047080 examples/gke-a4/kueue-configuration.yaml.tftpl l.15-33 with
# gke-a4.yaml l.273-276; gke-a3-ultragpu/, gke-a4x/ alike). Kueue counts only nodes carrying
# every level's label (kueue v0.19.2 pkg/util/tas/node.go l.27-31), so a reservation whose
# nodes lack the gce-topology labels would admit nothing: not settled by a source for
# reservations that are not dense; the AI Hypercomputer reservations these machines come in
# are the case both upstreams assume.
GCE_TOPOLOGY = "xcli-gce-topology"
GCE_TOPOLOGY_LEVELS = (
    "cloud.google.com/gce-topology-block",
    "cloud.google.com/gce-topology-subblock",
    "cloud.google.com/gce-topology-host",
    "kubernetes.io/hostname",
)
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
# GKE labels the nodes of every flex-start pool cloud.google.com/gke-flex-start=true (GKE's
# cluster autoscaler, GoogleCloudPlatform/cluster-autoscaler@7d25050
# pkg/cloudprovider/gke/labels/system_labels.go l.87-90; Cluster Toolkit's flex-start jobs select
# it on pools that do not set it themselves: cluster-toolkit@1047080
# examples/gke-consumption-options/dws-flex-start/dws-flex-start.yaml l.23 and
# dws-flex-start-queued-provisioning/nccl-jobset-example.yaml l.59).
FLEX_START_LABEL = "cloud.google.com/gke-flex-start"
# Queued-provisioning pools carry this taint (cluster-autoscaler@7d25050
# pkg/provisioningrequests/pods/pods.go l.35-40); GKE does not add the label of the same name,
# which is why xcli's queued pools set it themselves (providers/gke/bodies.py, as Cluster Toolkit's
# modules/compute/gke-node-pool/main.tf l.68-76 does).
QUEUED_LABEL = "cloud.google.com/gke-queued"


@dataclass(frozen=True)
class Autoprovisioning:
    """A node auto-provisioning cluster's chip limits (providers/gke/nap.py): GKE creates the
    accelerator pools when workloads ask, of any shape of the family, up to `max_chips`."""

    resource: str  # the GKE accelerator value the limits name: tpu-v6e-slice
    min_chips: int
    max_chips: int


def meta(name: str, namespace: str | None = None) -> dict[str, Any]:
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
            "metadata": meta(name),
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


def resource_flavor(spec: ClusterSpec, nap: Autoprovisioning | None = None) -> dict[str, Any]:
    """Node labels Kueue copies into admitted pods' nodeSelectors, and the taint tolerations.

    Capacity labels: GKE labels Spot nodes cloud.google.com/gke-spot=true and flex-start
    nodes cloud.google.com/gke-flex-start=true (FLEX_START_LABEL, GPU and TPU alike);
    queued-provisioning nodes are also tainted cloud.google.com/gke-queued, which the flavor
    then tolerates. No reservation label: its value would have to be the reservation's name
    while xcli accepts paths and blocks of shared reservations, and the accelerator labels
    already select only this cluster's pools.

    Under node auto-provisioning (`nap`) the flavor selects the accelerator alone, as XPK's
    does (AI-Hypercomputer/xpk@367c838 src/xpk/core/kueue_manager.py l.353-361 and the
    recipes/NAP_cluster-create.md golden: `nodeLabels: {"cloud.google.com/gke-tpu-accelerator":
    "tpu7x"}`): each workload's own nodeSelector names the topology and the capacity, and GKE
    makes a pool with those labels. No topologyName: the pools start with no nodes.
    """
    acc = spec.accelerator
    labels = {acc.gke_label: acc.gke_accelerator}
    if nap is not None:
        tolerations = [{"key": acc.resource_name, "operator": "Exists", "effect": "NoSchedule"}]
        return {
            "apiVersion": KUEUE_API,
            "kind": "ResourceFlavor",
            "metadata": meta(flavor_name(spec)),
            "spec": {"nodeLabels": labels, "tolerations": tolerations},
        }
    if acc.kind == "tpu" and acc.topology:
        labels[TPU_TOPOLOGY_LABEL] = acc.topology
    # a CPU shape's nodes carry no accelerator taint to tolerate
    tolerations = (
        []
        if acc.kind == "cpu"
        else [{"key": acc.resource_name, "operator": "Exists", "effect": "NoSchedule"}]
    )
    if spec.capacity.kind == "spot":
        labels[SPOT_LABEL] = "true"
    elif spec.capacity.kind == "flex-start":
        labels[FLEX_START_LABEL] = "true"
    if queued_provisioning(spec):
        tolerations.append({"key": QUEUED_LABEL, "operator": "Exists", "effect": "NoSchedule"})
    body: dict[str, Any] = {"nodeLabels": labels}
    if tolerations:
        body["tolerations"] = tolerations
    if uses_topology(spec):
        body["topologyName"] = topology_name(spec)
    return {
        "apiVersion": KUEUE_API,
        "kind": "ResourceFlavor",
        "metadata": meta(flavor_name(spec)),
        "spec": body,
    }


def uses_topology(spec: ClusterSpec) -> bool:
    """Kueue topology-aware scheduling where the nodes exist: Kueue then admits a TPU slice only
    where a whole node pool is free, and keeps GPU pods together (workload/scheduling.py). Not
    for flex-start pools, which scale from zero nodes: TAS places pods on nodes it sees, and
    there are none until the workload is admitted."""
    return spec.capacity.kind != "flex-start"


def uses_gce_topology(spec: ClusterSpec) -> bool:
    """RDMA GPU families (A3 Ultra, A4, A4X) on a reservation: the physical topology labels."""
    return spec.accelerator.gpu_network == "rdma" and spec.capacity.kind == "reservation"


def topology_name(spec: ClusterSpec) -> str:
    return GCE_TOPOLOGY if uses_gce_topology(spec) else TOPOLOGY


def topology(spec: ClusterSpec) -> dict[str, Any]:
    """https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/"""
    levels = GCE_TOPOLOGY_LEVELS if uses_gce_topology(spec) else TOPOLOGY_LEVELS
    return {
        "apiVersion": KUEUE_API,
        "kind": "Topology",
        "metadata": meta(topology_name(spec)),
        "spec": {"levels": [{"nodeLabel": label} for label in levels]},
    }


def queued_provisioning(spec: ClusterSpec) -> bool:
    """GPU flex-start pools use queued provisioning, which Kueue drives through an AdmissionCheck.

    TPU flex-start pools are plain autoscaled flex-start pools (no check). That is xcli's choice,
    not a GKE limit: XPK makes the same one (AI-Hypercomputer/xpk@367c838
    src/xpk/utils/kueue.py l.20-24, queued only for GPUs), while Cluster Toolkit also ships
    TPU v6e and 7x queued-provisioning examples whose ProvisioningRequestConfig carries
    `parameters.tpu-topology` (cluster-toolkit@1047080 examples/gke-consumption-options/
    dws-flex-start-queued-provisioning/tpu-dws-queues.yaml.tftpl). Plain flex-start for TPUs is
    Cluster Toolkit's dws-flex-start/gke-tpu-v6e example.
    """
    return spec.accelerator.kind == "gpu" and spec.capacity.kind == "flex-start"


def vm_count(spec: ClusterSpec) -> int:
    if spec.accelerator.kind == "gpu":
        return spec.num_nodes
    return spec.num_slices * spec.accelerator.vms_per_slice


def cluster_queue(
    spec: ClusterSpec, pathways: str | None = None, nap: Autoprovisioning | None = None
) -> dict[str, Any]:
    """`pathways`: the machine type of the Pathways heads' pool, None when it has none; `nap`:
    the auto-provisioning limits, whose maximum is the chip quota (XPK: the ClusterQueue's
    nominalQuota is the NAP maximum, src/xpk/commands/cluster.py l.1466-1469)."""
    resource = spec.accelerator.resource_name
    vms = vm_count(spec)
    chips = spec.total_chips
    if nap is not None:
        chips = nap.max_chips
        vms = nap.max_chips  # a VM has at least one chip, whatever shape NAP makes
    quota: list[dict[str, Any]] = [
        {"name": resource, "nominalQuota": chips},
        # a CPU shape's chips are its vCPUs: the machines' vCPUs are the quota
        *([] if resource == "cpu" else [{"name": "cpu", "nominalQuota": vms * CPU_PER_VM}]),
        {"name": "memory", "nominalQuota": f"{vms * MEMORY_TIB_PER_VM}Ti"},
        *channel_quota(spec.accelerator, vms),  # A4X: the IMEX channel each pod claims
    ]
    flavors: list[dict[str, Any]] = [{"name": flavor_name(spec), "resources": quota}]
    if pathways is not None:
        # Kueue lets a resource be covered by one group only, so the heads' flavor joins the
        # accelerator's group (with none of its chips); the node-pool label it carries keeps
        # heads off the TPU flavor and workers off this one
        covered = [q["name"] for q in quota]
        flavors.append(
            {"name": pathways_pool.FLAVOR, "resources": pathways_pool.quota(pathways, covered)}
        )
    body: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        # the cohort teams join (xcli/workload/team/objects.py); alone in it, nothing changes
        "cohortName": COHORT,
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
        "resourceGroups": [
            {
                "coveredResources": [q["name"] for q in quota],
                "flavors": flavors,
            }
        ],
    }
    if queued_provisioning(spec):
        body["admissionChecksStrategy"] = {"admissionChecks": [{"name": ADMISSION_CHECK}]}
    return {
        "apiVersion": KUEUE_API,
        "kind": "ClusterQueue",
        "metadata": meta(CLUSTER_QUEUE),
        "spec": body,
    }


def local_queue() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE_API,
        "kind": "LocalQueue",
        "metadata": meta(LOCAL_QUEUE, NAMESPACE),
        "spec": {"clusterQueue": CLUSTER_QUEUE},
    }


def provisioning_objects(spec: ClusterSpec) -> list[dict[str, Any]]:
    """ProvisioningRequestConfig + AdmissionCheck for GKE queued provisioning
    (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest).

    --max-run-duration goes to every ProvisioningRequest as its `maxRunDurationSeconds`
    parameter, the field GKE's queued provisioning reads: Kueue v0.19.2 copies the config's
    `parameters` into each request (pkg/controller/admissionchecks/provisioning/controller.go
    l.315), and a workload's own `provreq.kueue.x-k8s.io/maxRunDurationSeconds` annotation
    (how Cluster Toolkit's queued-provisioning jobs set it) still overrides it (l.318).
    """
    spec_body: dict[str, Any] = {
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
    }
    if spec.capacity.max_run_duration:
        spec_body["parameters"] = {"maxRunDurationSeconds": str(spec.capacity.max_run_duration)}
    config: dict[str, Any] = {
        "apiVersion": KUEUE_API,
        "kind": "ProvisioningRequestConfig",
        "metadata": meta(PROVISIONING_CONFIG),
        "spec": spec_body,
    }
    check: dict[str, Any] = {
        "apiVersion": KUEUE_API,
        "kind": "AdmissionCheck",
        "metadata": meta(ADMISSION_CHECK),
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


def kueue_objects(
    spec: ClusterSpec, pathways: str | None = None, nap: Autoprovisioning | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """(step key, object) for every Kueue object of the cluster, in apply order; `pathways`:
    the machine type of the Pathways heads' pool (None: no such pool); `nap`: the node
    auto-provisioning limits (None: the cluster has its own pools)."""
    tas = uses_topology(spec) and nap is None
    found = [("topology", topology(spec))] if tas else []
    found.append(("flavor", resource_flavor(spec, nap)))
    if pathways is not None:
        found.append(("pathways-flavor", pathways_pool.flavor(meta(pathways_pool.FLAVOR))))
    if queued_provisioning(spec):
        config, check = provisioning_objects(spec)
        found += [("provisioning-config", config), ("admission-check", check)]
    found += [
        ("cluster-queue", cluster_queue(spec, pathways, nap)),
        ("local-queue", local_queue()),
    ]
    return found
