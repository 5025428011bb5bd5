"""Request bodies for a GKE cluster with TPU or GPU node pools (pure: no network, no credentials).

Every body is REST JSON as the discovery document names it (camelCase, enums by name); the live
gateway parses the same dict into the request message, so the dry-run shows what is sent.
Field facts: container.v1 discovery document (NodeConfig.flexStart, NodeConfig.maxRunDuration,
NodePool.queuedProvisioning, PlacementPolicy.policyName); Ironwood (tpu7x) multi-host slices use
a workload-policy resource policy in place of tpuTopology (GKE "About Ironwood (TPU7x)" page).
"""

from __future__ import annotations

from typing import Any

from xcli.errors import UserError
from xcli.plan.gke import system_pool as cpu_pool
from xcli.plan.gke.kueue_objects import QUEUED_LABEL, queued_provisioning
from xcli.plan.model import Step
from xcli.plan.steps import Text
from xcli.providers.gke import options as gke_opts
from xcli.providers.gke import pods as gke_pods
from xcli.providers.gke import slicing
from xcli.spec import ClusterSpec

CONTAINER = "https://container.googleapis.com/v1"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
RELEASE_CHANNELS = ("RAPID", "REGULAR", "STABLE", "EXTENDED")
DEFAULT_CPU_MACHINE = cpu_pool.DEFAULT_MACHINE
SYSTEM_POOL = "system"
POOL_LANE = "node-pools"
POOL_NAME_LIMIT = 40  # GKE node pool names: at most 40 characters


def cluster_url(project: str, region: str, name: str | None = None) -> str:
    base = f"{CONTAINER}/projects/{project}/locations/{region}/clusters"
    return f"{base}/{name}" if name else base


def operations_url(project: str, region: str) -> str:
    return f"{CONTAINER}/projects/{project}/locations/{region}/operations"


def pool_name(cluster: str, index: int) -> str:
    return f"{cluster}-np-{index}"


def policy_name(spec: ClusterSpec) -> str:
    """One workload policy per cluster and topology; deleted with the cluster."""
    return f"{spec.name}-wp-{spec.accelerator.topology}{slicing.policy_suffix(spec)}"


def check_gke_spec(spec: ClusterSpec) -> None:
    """What GKE cannot do, refused before any call."""
    if spec.capacity.kind == "guaranteed":
        raise UserError(
            "--guaranteed is a queued-resource option; GKE node pools cannot request it",
            hint="use --provider queued-resource, or --reservation / --flex-start on GKE",
        )
    if spec.capacity.kind == "reservation" and spec.capacity.reservation == "-":
        raise UserError(
            "--reservation - (any reservation) is not supported on GKE",
            hint="name the reservation: --reservation NAME or projects/P/reservations/R",
        )
    last = pool_name(spec.name, pool_count(spec) - 1)
    if len(last) > POOL_NAME_LIMIT:
        keep = POOL_NAME_LIMIT - len(last) + len(spec.name)
        raise UserError(
            f"node pool name {last!r} would be longer than GKE's {POOL_NAME_LIMIT} characters",
            hint=f"use a cluster name of at most {keep} characters",
        )
    channel = gke_opts.of(spec).channel
    if channel not in RELEASE_CHANNELS:
        raise UserError(
            f"release channel {channel.lower()!r} does not exist",
            hint="use one of " + ", ".join(c.lower() for c in RELEASE_CHANNELS),
        )
    pod_range(spec)  # refuses a plan whose nodes cannot all get Pod addresses


def pod_range(spec: ClusterSpec) -> int | None:
    """The Pod range prefix the cluster asks for; None for GKE's default /14 (pods.py)."""
    return gke_pods.pod_range(spec, 4 * system_pool_size(spec))


def system_pool(spec: ClusterSpec) -> cpu_pool.SystemPool:
    """The CPU pool for the controllers (Kueue, JobSet) and DNS, sized by the cluster
    (plan/gke/system_pool.py); --cpu-machine-type is kept as given."""
    vms = (
        spec.num_nodes
        if spec.accelerator.kind == "gpu"
        else (spec.accelerator.vms_per_slice * spec.num_slices)
    )
    sized = cpu_pool.size(vms, _chosen_machine(spec))
    asked = gke_opts.of(spec).cpu_num_nodes
    if asked and asked > sized.nodes:  # XPK's --default-pool-cpu-num-nodes: more, never fewer
        from dataclasses import replace

        return replace(sized, nodes=asked)
    return sized


def cpu_nodes_note(spec: ClusterSpec) -> str | None:
    """--cpu-num-nodes below what the controllers need is raised to it, and the plan says so."""
    asked = gke_opts.of(spec).cpu_num_nodes
    pool = system_pool(spec)
    if not asked or asked >= pool.nodes:
        return None
    return (
        f"--cpu-num-nodes {asked}: the system pool gets {pool.nodes} x {pool.machine}, the "
        "fewest that hold the Kueue and JobSet controllers and kube-dns for this cluster"
    )


def _chosen_machine(spec: ClusterSpec) -> str | None:
    return gke_opts.of(spec).cpu_machine_type


def system_pool_size(spec: ClusterSpec) -> int:
    return system_pool(spec).nodes


def system_pool_note(spec: ClusterSpec) -> str | None:
    return cpu_nodes_note(spec) or cpu_pool.note(system_pool(spec), _chosen_machine(spec))


def cluster_body(spec: ClusterSpec) -> dict[str, Any]:
    channel = gke_opts.of(spec).channel
    pool = system_pool(spec)
    machine, size = pool.machine, pool.nodes
    ip_policy: dict[str, Any] = {"useIpAliases": True}
    prefix = pod_range(spec)
    if prefix is not None:
        ip_policy["clusterIpv4CidrBlock"] = f"/{prefix}"
    cluster: dict[str, Any] = {
        "name": spec.name,
        "locations": [spec.zone],
        "releaseChannel": {"channel": channel},
        "ipAllocationPolicy": ip_policy,
        "networkConfig": {"datapathProvider": "ADVANCED_DATAPATH"},
        "workloadIdentityConfig": {"workloadPool": f"{spec.project}.svc.id.goog"},
        "resourceLabels": {"created-by": "xcli"},
        "nodePools": [
            {
                "name": SYSTEM_POOL,
                "initialNodeCount": size,
                "config": {
                    "machineType": machine,
                    "workloadMetadataConfig": {"mode": "GKE_METADATA"},
                    "oauthScopes": SCOPES,
                },
                # 4 x size: the autoscaling maximum pod_range counts with
                "autoscaling": {"enabled": True, "minNodeCount": size, "maxNodeCount": 4 * size},
                "management": {"autoRepair": True, "autoUpgrade": True},
            }
        ],
    }
    opts = gke_opts.of(spec)
    if opts.gke_version:
        cluster["initialClusterVersion"] = opts.gke_version
    if opts.ml_diagnostics:  # plan/ml_diagnostics.py: XPK's --enable-managed-mldiagnostics
        cluster["managedMachineLearningDiagnosticsConfig"] = {"enabled": True}
    if opts.lustre_legacy_port:
        # AddonsConfig.lustreCsiDriverConfig (container.v1): XPK's --enable-legacy-lustre-port
        # with --enable-lustre-csi-driver (AI-Hypercomputer/xpk@367c838
        # src/xpk/commands/cluster.py l.1391-1394); `storage attach --type lustre` later finds
        # the driver on and keeps this setting
        cluster["addonsConfig"] = {
            "lustreCsiDriverConfig": {"enabled": True, "enableLegacyLustrePort": True}
        }
    if opts.ray_version:
        # AddonsConfig.rayOperatorConfig (container.v1): XPK's create-ray passes gcloud's
        # `--addons RayOperator` (AI-Hypercomputer/xpk@367c838 src/xpk/commands/cluster.py
        # l.1373-1374); GKE then installs and runs KubeRay (plan/gke/ray.py)
        cluster.setdefault("addonsConfig", {})["rayOperatorConfig"] = {"enabled": True}
    return slicing.cluster_body(spec, {"cluster": cluster})


def _capacity(spec: ClusterSpec) -> dict[str, Any]:
    """NodeConfig fields for the capacity choice."""
    cap = spec.capacity
    if cap.kind == "spot":
        return {"spot": True, "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}
    if cap.kind == "reservation":
        return {
            "reservationAffinity": {
                "consumeReservationType": "SPECIFIC_RESERVATION",
                "key": RESERVATION_KEY,
                "values": [str(cap.reservation)],
            }
        }
    if cap.kind == "flex-start":
        out: dict[str, Any] = {
            "flexStart": True,
            "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
        }
        # A queued-provisioning pool gets its duration from each ProvisioningRequest
        # (kueue_objects.provisioning_objects): Cluster Toolkit's queued-provisioning examples
        # never set the pool's max_run_duration and pass maxRunDurationSeconds instead
        # (cluster-toolkit@1047080 examples/gke-consumption-options/
        # dws-flex-start-queued-provisioning/nccl-jobset-example.yaml l.22-23).
        if cap.max_run_duration and not queued_provisioning(spec):
            out["maxRunDuration"] = f"{cap.max_run_duration}s"
        return out
    # on-demand: never silently consume an open reservation meant for something else
    return {"reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}


def _node_config(spec: ClusterSpec, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "machineType": spec.accelerator.machine_type,
        "workloadMetadataConfig": {"mode": "GKE_METADATA"},
        "oauthScopes": SCOPES,
        "resourceLabels": labels,
        **_capacity(spec),
    }


def _sizing(spec: ClusterSpec, pool: dict[str, Any], nodes: int) -> None:
    """Fixed size, or for flex-start autoscaling from zero (what GKE's flex-start docs pair);
    and the pods-per-node cap of the accelerator's pools (pods.py)."""
    cap = gke_pods.max_pods(spec.accelerator)
    if cap is not None:
        pool["maxPodsConstraint"] = {"maxPodsPerNode": str(cap)}
    if spec.capacity.kind != "flex-start":
        pool["initialNodeCount"] = nodes
        pool["management"] = {"autoRepair": True, "autoUpgrade": True}
        return
    pool["initialNodeCount"] = 0
    pool["autoscaling"] = {
        "enabled": True,
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": nodes,
        "locationPolicy": "ANY",
    }
    pool["management"] = {"autoRepair": False, "autoUpgrade": True}


def tpu_pool_body(spec: ClusterSpec, index: int) -> dict[str, Any]:
    accel = spec.accelerator
    labels = {"xcli-accelerator": accel.name, "xcli-slice": str(index)}
    pool: dict[str, Any] = {
        "name": pool_name(spec.name, index),
        "locations": [spec.zone],
        "config": _node_config(spec, labels),
    }
    if accel.multi_host and accel.placement == "workload-policy":
        pool["placementPolicy"] = {"policyName": policy_name(spec)}
    elif accel.multi_host:
        pool["placementPolicy"] = {"type": "COMPACT", "tpuTopology": accel.topology}
    _sizing(spec, pool, accel.vms_per_slice)
    return {"nodePool": pool}


def cpu_pool_body(spec: ClusterSpec, index: int) -> dict[str, Any]:
    """One node pool of a CPU shape (XPK's n2-standard-32-256: 256 n2-standard-32 VMs): the
    node label its Kueue flavor selects (NodeConfig.labels), no placement, no taint (XPK's
    CPU pools: src/xpk/core/nodepool.py l.388-394, --num-nodes the shape's VM count)."""
    accel = spec.accelerator
    labels = {"xcli-accelerator": accel.name, "xcli-slice": str(index)}
    config = _node_config(spec, labels)
    config["labels"] = {accel.gke_label: accel.gke_accelerator}
    pool: dict[str, Any] = {
        "name": pool_name(spec.name, index),
        "locations": [spec.zone],
        "config": config,
    }
    _sizing(spec, pool, accel.vms_per_slice)
    return {"nodePool": pool}


def gpu_pool_body(spec: ClusterSpec) -> dict[str, Any]:
    accel = spec.accelerator
    config = _node_config(spec, {"xcli-accelerator": accel.name, "xcli-slice": "0"})
    config["accelerators"] = [
        {
            "acceleratorCount": str(accel.chips_per_vm),
            "acceleratorType": accel.gke_accelerator,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
        }
    ]
    config["gvnic"] = {"enabled": True}
    pool: dict[str, Any] = {"name": pool_name(spec.name, 0), "locations": [spec.zone]}
    pool["config"] = config
    _sizing(spec, pool, spec.num_nodes)
    if queued_provisioning(spec):
        # GKE taints queued-provisioning nodes cloud.google.com/gke-queued but does not label
        # them so; Cluster Toolkit adds the label for workloads that select it
        # (cluster-toolkit@1047080 modules/compute/gke-node-pool/main.tf l.68-76).
        pool["queuedProvisioning"] = {"enabled": True}
        config["labels"] = {QUEUED_LABEL: "true"}
    return {"nodePool": pool}


def pool_body(spec: ClusterSpec, index: int) -> dict[str, Any]:
    if spec.accelerator.kind == "cpu":
        return cpu_pool_body(spec, index)
    return gpu_pool_body(spec) if spec.accelerator.kind == "gpu" else tpu_pool_body(spec, index)


def policy_body(spec: ClusterSpec) -> dict[str, Any]:
    """compute.resourcePolicies.insert body: a HIGH_THROUGHPUT workload policy (tpu7x)."""
    return {
        "name": policy_name(spec),
        "description": f"created by xcli for GKE cluster {spec.name}",
        "workloadPolicy": {
            "type": "HIGH_THROUGHPUT",
            "acceleratorTopology": spec.accelerator.topology,
            **slicing.policy_fields(spec),  # PROVISION_ONLY for dynamic slicing
        },
    }


def pool_count(spec: ClusterSpec) -> int:
    return 1 if spec.accelerator.kind == "gpu" else spec.num_slices


def setup_steps(spec: ClusterSpec, cluster: Text, after: tuple[str, ...]) -> list[Step]:
    """The in-cluster setup (plan/gke/incluster.py) with what this cluster's options ask for: the
    system pool's machine type, the Pathways heads' pool and node auto-provisioning's limits."""
    from xcli.plan.gke import incluster
    from xcli.plan.gke.jobset_config import gates
    from xcli.providers.gke import nap, tensorboard

    opts = gke_opts.of(spec)
    steps = incluster.setup_steps(
        spec,
        cluster,
        after,
        cpu_machine_type=opts.cpu_machine_type,
        pathways=opts.pathways_machine,
        jobset_gates=gates(opts.slice_restarts),
        extra_metadata=tensorboard.metadata(spec),
        nap=nap.quota(spec),
    )
    steps = slicing.setup(spec, steps)  # dynamic slicing's Kueue objects (slicing.py)
    if opts.ray_version:  # XPK's create-ray: the RayCluster, after the Kueue setup as in XPK
        from xcli.plan.gke.ray import ray_steps

        steps += ray_steps(spec, opts.ray_version, cluster, after)
    return steps
