"""What the Terraform modules are given, computed from a ClusterSpec and the catalogue (pure).

`tf_node_pool_settings(spec)` is the per-pool view of a GKE deployment, in fields that can be
compared with the node-pool request bodies of the API path (so the two paths cannot drift);
`module_inputs(spec)` is what goes to terraform.tfvars.json. All arithmetic and every capacity
rule live here, before anything is written; the modules' preconditions repeat the rules so a
hand-edited tfvars file cannot bypass them.
"""

from __future__ import annotations

from typing import Any

from xcli.errors import UserError
from xcli.spec import ClusterSpec, check_name

# GKE: cluster names up to 40 characters; pool names are <cluster>-np-<i>.
_MAX_GKE_NAME = 40
_MAX_QR_NAME = 63
_CHANNELS = ("rapid", "regular", "stable")


def pool_name(spec: ClusterSpec, index: int) -> str:
    return f"{spec.name}-np-{index}"


def check_terraform_spec(spec: ClusterSpec) -> None:
    """Refuse, before anything is written, what the Terraform modules cannot express."""
    capacity = spec.capacity.kind
    if spec.provider == "queued-resource":
        # room for the "-<slice>" suffix of multislice names (up to -1023)
        check_name(spec.name, "cluster", _MAX_QR_NAME - 5)
        if spec.accelerator.kind != "tpu" or spec.accelerator.tpu_accelerator_type is None:
            raise UserError(
                f"{spec.accelerator.name} is not offered through Cloud TPU queued resources",
                hint="use --provider gke for it",
            )
        if capacity != "on-demand":
            raise UserError(
                f"--{capacity} cannot be expressed for queued resources in --terraform mode",
                hint="the google-beta provider's queued resource has no spot, flex-start, "
                "guaranteed or reservation; use --on-demand, or drop --terraform to use the API",
            )
        return
    if spec.provider != "gke":
        raise UserError(
            f"--terraform does not apply to --provider {spec.provider}",
            hint="use --provider gke or --provider queued-resource",
        )
    check_name(pool_name(spec, max(spec.num_slices, 1) - 1), "node pool", _MAX_GKE_NAME)
    if capacity == "guaranteed":
        raise UserError(
            "--guaranteed applies only to --provider queued-resource",
            hint="for GKE choose --on-demand, --spot, --reservation or --flex-start",
        )
    if spec.accelerator.placement == "workload-policy":
        raise UserError(
            f"{spec.accelerator.name} needs a workload-policy placement, which --terraform "
            "does not write yet",
            hint="drop --terraform to create it through the API, or pick a single-host shape",
        )
    channel = str(spec.options.get("release_channel") or "regular").lower()
    if channel not in _CHANNELS:
        raise UserError(
            f"release channel {channel!r} is not one of {', '.join(_CHANNELS)}",
            hint="pass --release-channel rapid, regular or stable",
        )


def _capacity(spec: ClusterSpec) -> dict[str, Any]:
    cap = spec.capacity
    seconds = cap.max_run_duration
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
    any), flex_start, max_run_duration ("21600s" or None).
    """
    accel = spec.accelerator
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
        }
        for i in range(spec.num_slices)
    ]


def tf_queued_resource_settings(spec: ClusterSpec) -> dict[str, Any]:
    """The queued-resource view, comparable with the API path's QueuedResource body."""
    accel = spec.accelerator
    return {
        "accelerator_type": accel.tpu_accelerator_type,
        "runtime_version": str(spec.options.get("runtime_version") or accel.runtime_version),
        "slices": spec.num_slices,
        "capacity": spec.capacity.kind,
    }


def _autoscaling(spec: ClusterSpec, maximum: int) -> dict[str, Any] | None:
    if spec.capacity.kind != "flex-start":
        return None
    return {"min_node_count": 0, "max_node_count": maximum, "location_policy": "ANY"}


def _pool_inputs(spec: ClusterSpec) -> tuple[str, dict[str, Any]]:
    accel = spec.accelerator
    flex = spec.capacity.kind == "flex-start"
    common = {**_capacity(spec), "auto_repair": not flex, "zones": [spec.zone]}
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


def module_inputs(spec: ClusterSpec) -> dict[str, Any]:
    """Everything terraform.tfvars.json holds: literal values, never interpolated."""
    inputs: dict[str, Any] = {"project_id": spec.project, "region": spec.region, "zone": spec.zone}
    if spec.provider == "queued-resource":
        qr = tf_queued_resource_settings(spec)
        inputs["queued_resource"] = {
            "name": spec.name,
            "num_slices": spec.num_slices,
            "accelerator_type": qr["accelerator_type"],
            "runtime_version": qr["runtime_version"],
            "network": spec.options.get("network") or None,
            "subnetwork": spec.options.get("subnetwork") or None,
            "enable_external_ips": not spec.options.get("internal_ips"),
            "description": f"xcli cluster {spec.name}",
        }
        return inputs
    inputs["cluster"] = {
        "name": spec.name,
        "zones": [spec.zone],
        "release_channel": str(spec.options.get("release_channel") or "regular").upper(),
        "gke_version": spec.options.get("gke_version") or None,
        "labels": {"created-by": "xcli"},
    }
    key, pool = _pool_inputs(spec)
    inputs[key] = dict(sorted(pool.items()))
    return inputs
