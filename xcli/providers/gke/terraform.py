"""Terraform mode for gke: a regional GKE cluster (gke-cluster module) and its TPU or GPU node
pools (tpu-node-pool / gpu-node-pool), then the API path's in-cluster setup after apply.

`tf_node_pool_settings(spec)` is the per-pool view of the deployment, in fields that can be
compared with the node-pool request bodies of the API path (so the two paths cannot drift);
`GkeTerraform.inputs(spec)` is what goes to terraform.tfvars.json. All arithmetic and every
capacity rule live here, before anything is written; the modules' preconditions repeat the
rules so a hand-edited tfvars file cannot bypass them. Pure, except `live_handlers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.plan.gke.kueue_objects import queued_provisioning
from xcli.plan.model import Step
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import gpu_network_tf, limits, nap
from xcli.providers.gke import options as gke_opts
from xcli.providers.gke import pods as gke_pods
from xcli.spec import ClusterSpec, check_name

if TYPE_CHECKING:
    from xcli.plan.contract import Handler

# GKE: cluster names up to 40 characters; pool names are <cluster>-np-<i>.
_MAX_GKE_NAME = 40
_CHANNELS = ("rapid", "regular", "stable")
_MODULE_OF = {
    "cluster": "gke-cluster",
    "tpu_node_pool": "tpu-node-pool",
    "gpu_node_pool": "gpu-node-pool",
    "gpu_network": "gpu-network",
}


def pool_name(spec: ClusterSpec, index: int) -> str:
    return f"{spec.name}-np-{index}"


def _capacity(spec: ClusterSpec) -> dict[str, Any]:
    cap = spec.capacity
    # queued provisioning (GPU flex-start) takes the duration from the ProvisioningRequest, not
    # from the pool: the API path's rule (xcli/providers/gke/bodies.py _capacity)
    seconds = None if queued_provisioning(spec) else cap.max_run_duration
    return {
        "spot": cap.kind == "spot",
        "reservation": cap.reservation if cap.kind == "reservation" else None,
        "flex_start": cap.kind == "flex-start",
        "max_run_duration": f"{seconds}s" if seconds is not None else None,
    }


def tf_node_pool_settings(spec: ClusterSpec) -> list[dict[str, Any]]:
    """One dict per node pool: the fields the API path's nodePools.create bodies also carry.

    machine_type, node_count (VMs of the pool; for flex-start the autoscaling maximum, since
    the pool starts at 0), tpu_topology (multi-host TPU slices only), accelerator_type and
    accelerator_count (GPU pools only), spot, reservation (None, a name or path, or "-" for
    any), flex_start, max_run_duration ("21600s" or None), max_pods_per_node (None for the
    cluster's default).
    """
    accel = spec.accelerator
    if nap.enabled(spec):  # GKE makes the accelerator pools
        return []
    if accel.kind == "gpu":
        return [
            {
                "name": pool_name(spec, 0),
                "machine_type": accel.machine_type,
                "node_count": spec.num_nodes,
                "tpu_topology": None,
                "accelerator_type": accel.gke_accelerator,
                "accelerator_count": accel.chips_per_vm,
                **_capacity(spec),
                "max_pods_per_node": gke_pods.max_pods(accel),
                "additional_node_networks": gpu_network_tf.additional_node_networks(spec),
            }
        ]
    return [
        {
            "name": pool_name(spec, i),
            "machine_type": accel.machine_type,
            "node_count": accel.vms_per_slice,
            "tpu_topology": accel.topology if accel.multi_host else None,
            "accelerator_type": None,
            "accelerator_count": None,
            **_capacity(spec),
            "max_pods_per_node": gke_pods.max_pods(accel),
            "additional_node_networks": [],
        }
        for i in range(spec.num_slices)
    ]


def _autoscaling(spec: ClusterSpec, maximum: int) -> dict[str, Any] | None:
    if spec.capacity.kind != "flex-start":
        return None
    return {"min_node_count": 0, "max_node_count": maximum, "location_policy": "ANY"}


def _pool_inputs(spec: ClusterSpec) -> tuple[str, dict[str, Any]]:
    accel = spec.accelerator
    flex = spec.capacity.kind == "flex-start"
    common = {
        **_capacity(spec),
        "auto_repair": not flex,
        "zones": [spec.zone],
        "max_pods_per_node": gke_pods.max_pods(accel),
    }
    if accel.kind == "gpu":
        return "gpu_node_pool", {
            "name": pool_name(spec, 0),
            "node_count": spec.num_nodes,
            "machine_type": accel.machine_type,
            "accelerator_type": accel.gke_accelerator,
            "accelerator_count": accel.chips_per_vm,
            "gpu_driver_version": "LATEST",
            "queued_provisioning": flex,
            "autoscaling": _autoscaling(spec, spec.num_nodes),
            **common,
        }
    return "tpu_node_pool", {
        "name_prefix": f"{spec.name}-np",
        "num_slices": spec.num_slices,
        "machine_type": accel.machine_type,
        "node_count": accel.vms_per_slice,
        "tpu_topology": accel.topology if accel.multi_host else None,
        "placement_type": "COMPACT" if accel.multi_host else None,
        "autoscaling": _autoscaling(spec, accel.vms_per_slice),
        **common,
    }


def _cluster_autoscaling(spec: ClusterSpec) -> dict[str, Any]:
    """The API path's `autoscaling` (nap.autoscaling) in the gke-cluster module's names: the
    provider's google_container_cluster `cluster_autoscaling` block (tests/data/terraform)."""
    api = nap.autoscaling(spec, list(gke.SCOPES))
    return {
        "autoscaling_profile": api["autoscalingProfile"],
        "auto_provisioning_locations": api["autoprovisioningLocations"],
        "oauth_scopes": api["autoprovisioningNodePoolDefaults"]["oauthScopes"],
        "resource_limits": [
            {
                "resource_type": r["resourceType"],
                "minimum": int(r["minimum"]),
                "maximum": int(r["maximum"]),
            }
            for r in api["resourceLimits"]
        ],
    }


def _pod_range(spec: ClusterSpec) -> str | None:
    prefix = gke.pod_range(spec)
    return None if prefix is None else f"/{prefix}"


class GkeTerraform:
    # node auto-provisioning: the cluster_autoscaling inputs (_cluster_autoscaling);
    # super_slicing and num_cubes are taken so that check() can refuse them with the reason
    flags = frozenset(
        {
            "release_channel",
            "gke_version",
            "force",
            "enable_autoprovisioning",
            "autoprovisioning_min_chips",
            "autoprovisioning_max_chips",
            "super_slicing",
            "num_cubes",
        }
    )

    def check(self, spec: ClusterSpec) -> None:
        opts = gke_opts.of(spec)
        if opts.super_slicing or opts.num_cubes is not None:
            raise UserError(
                "--super-slicing cannot be written to a Terraform folder yet: it needs a "
                "PROVISION_ONLY workload policy and the slice controller add-on "
                "(addons_config.slice_controller_config, as Cluster Toolkit's gke-cluster module "
                "writes it), and xcli's Terraform modules write neither",
                hint="drop --terraform to create it through the API (the same requests the "
                "dry-run prints), or use Cluster Toolkit's gke-tpu-7x-advanced blueprint with "
                "enable_dynamic_slicing_for_tpus: true",
            )
        check_name(pool_name(spec, max(spec.num_slices, 1) - 1), "node pool", _MAX_GKE_NAME)
        if spec.capacity.kind == "guaranteed":
            raise UserError(
                "--guaranteed applies only to --provider queued-resource",
                hint="for GKE choose --on-demand, --spot, --reservation or --flex-start",
            )
        if len(spec.capacity.reservations) > 1:
            raise UserError(
                "--reservation with several reservations cannot be written to a Terraform "
                "folder: which slice goes where is decided by reading them first",
                hint="name one reservation, or drop --terraform to create it through the API",
            )
        if spec.accelerator.kind == "cpu" or spec.num_slices < 1:  # issue 36's shapes
            what = "a CPU shape" if spec.accelerator.kind == "cpu" else "--num-slices 0"
            raise UserError(
                f"{what} cannot be written to a Terraform folder yet (its modules make TPU "
                "and GPU pools)",
                hint="drop --terraform to create it through the API",
            )
        if spec.accelerator.placement == "workload-policy":
            raise UserError(
                f"{spec.accelerator.name} needs a workload-policy placement, which --terraform "
                "does not write yet",
                hint="drop --terraform to create it through the API, or pick a single-host shape",
            )
        nap.check(spec)  # what node auto-provisioning refuses on the API path too
        gpu_network_tf.check(spec)
        gke.pod_range(spec)  # refuses a plan whose nodes cannot all get Pod addresses
        limits.check(spec)  # GKE's node cap and the default subnet's size
        channel = (gke_opts.of(spec).release_channel or "regular").lower()
        if channel not in _CHANNELS:
            raise UserError(
                f"release channel {channel!r} is not one of {', '.join(_CHANNELS)}",
                hint="pass --release-channel rapid, regular or stable",
            )

    def modules(self, spec: ClusterSpec) -> tuple[str, ...]:
        if nap.enabled(spec):  # no pool module: GKE makes the pools
            return ("gke-cluster",)
        pool = "gpu-node-pool" if spec.accelerator.kind == "gpu" else "tpu-node-pool"
        if gpu_network_tf.module_inputs(spec) is not None:
            return ("gke-cluster", "gpu-network", pool)
        return ("gke-cluster", pool)

    def inputs(self, spec: ClusterSpec) -> dict[str, Any]:
        inputs: dict[str, Any] = {
            "cluster": {
                "name": spec.name,
                "zones": [spec.zone],
                "release_channel": gke_opts.of(spec).channel,
                "gke_version": gke_opts.of(spec).gke_version,
                "labels": {"created-by": "xcli"},
                # the API path's Pod range, sized for the same nodes (xcli/providers/gke/pods.py)
                "pod_range": _pod_range(spec),
            }
        }
        if nap.enabled(spec):
            inputs["cluster"]["cluster_autoscaling"] = _cluster_autoscaling(spec)
        else:
            key, pool = _pool_inputs(spec)
            inputs[key] = dict(sorted(pool.items()))
        gpu_network_tf.add_inputs(spec, inputs)
        return inputs

    def module_of(self, variable: str) -> str:
        return _MODULE_OF[variable]

    def root_context(self, spec: ClusterSpec) -> dict[str, Any]:
        return {
            "mode": "gke",
            "pool": None if nap.enabled(spec) else spec.accelerator.kind,
            "nap": nap.enabled(spec),
            "gpu_network": gpu_network_tf.module_inputs(spec) is not None,
        }

    def instructions(self, spec: ClusterSpec) -> list[str]:
        return [
            "After apply, xcli installs JobSet and Kueue in the cluster; `xcli cluster create`",
            "with --apply does it for you.",
            "",
        ]

    def notes(self, spec: ClusterSpec, binary: str | None) -> tuple[list[str], list[str]]:
        if binary is not None:  # with a binary, the setup runs after apply
            return [], []
        setup = (
            "the cluster also needs JobSet, Kueue, the queues and the metadata ConfigMap: run "
            "this same command with --apply once terraform or tofu is on PATH (xcli then runs "
            "terraform and installs them after the apply)"
        )
        return [setup], []

    def post_apply(self, spec: ClusterSpec, after: str) -> Sequence[Step]:
        """The in-cluster setup of the API path (xcli.plan.gke.incluster.setup_steps: JobSet,
        Kueue, the queues, priority classes and the metadata ConfigMap), against the regional
        cluster the gke-cluster module makes (location = the zone's region, as the API path)."""
        from xcli.providers.gke.bodies import setup_steps
        from xcli.providers.gke.gpu_objects import object_steps, with_objects
        from xcli.providers.gke.planner import cluster_resource

        cluster = cluster_resource(spec.project, spec.region, spec.name)
        # and for GPUDirect clusters the network objects, installers and NRI injector
        return with_objects(
            setup_steps(spec, cluster, (after,)), object_steps(spec, cluster, (after,))
        )

    def live_handlers(self, spec: ClusterSpec, connections: Any) -> Mapping[str, Handler]:
        """The Kubernetes handlers (KubeHandlers over a KubeConnector: clusters.get for the
        endpoint and CA, then the cluster's API with Google credentials)."""
        from xcli.gateways.kube.handlers import KubeHandlers
        from xcli.providers.gke.access import KubeConnector

        conn = connections
        connect = KubeConnector(conn.container(), conn.kube)
        kube = KubeHandlers(connect, fetch=conn.fetch, sleep=conn.sleep, clock=conn.clock)
        return kube.handlers()


TERRAFORM = GkeTerraform()
