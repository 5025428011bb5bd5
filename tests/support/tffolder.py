"""Read the node-pool settings back out of a written Terraform deployment folder.

Values come from terraform.tfvars.json through the root module's calls (main.tf, parsed with
python-hcl2): an argument `x = var.a.b` takes tfvars["a"]["b"]. The module's resource is parsed
too and must wire each setting from the module variable named here; if a module changed how an
attribute is set, `pool_wiring_errors` says so and the settings below would no longer be true.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.tfschema import parse

_VAR = re.compile(r"^\$\{var\.([a-z_]+)(?:\.([a-z_]+))?\}$")
_UNKNOWN = object()

RESERVATION_VALUES = "${local.specific_reservation ? [var.reservation] : null}"
# (path inside the google_container_node_pool resource) -> the expression it must have
TPU_WIRING = {
    "count": "${var.num_slices}",
    "name": "${var.name_prefix}-${count.index}",
    "node_count": "${var.autoscaling == null ? var.node_count : null}",
    "node_config.machine_type": "${var.machine_type}",
    "node_config.spot": "${var.spot}",
    "node_config.flex_start": "${var.flex_start ? true : null}",
    "node_config.max_run_duration": "${var.max_run_duration}",
    "max_pods_per_node": "${var.max_pods_per_node}",
    "node_config.reservation_affinity.values": RESERVATION_VALUES,
    "dynamic.placement_policy.content.tpu_topology": "${var.tpu_topology}",
    "dynamic.autoscaling.content.max_node_count": "${autoscaling.value.max_node_count}",
}
GPU_WIRING = {
    "name": "${var.name}",
    "node_count": "${var.autoscaling == null ? var.node_count : null}",
    "node_config.machine_type": "${var.machine_type}",
    "node_config.spot": "${var.spot}",
    "node_config.flex_start": "${var.flex_start ? true : null}",
    "node_config.max_run_duration": "${var.max_run_duration}",
    "max_pods_per_node": "${var.max_pods_per_node}",
    "node_config.guest_accelerator.type": "${var.accelerator_type}",
    "node_config.guest_accelerator.count": "${var.accelerator_count}",
    "node_config.reservation_affinity.values": RESERVATION_VALUES,
    "dynamic.autoscaling.content.total_max_node_count": "${autoscaling.value.max_node_count}",
    "dynamic.network_config.content.dynamic.additional_node_network_configs.for_each": (
        "${var.additional_node_networks}"
    ),
    "dynamic.network_config.content.dynamic.additional_node_network_configs.content.subnetwork": (
        "${additional_node_network_configs.value.subnetwork}"
    ),
}


def module_calls(folder: Path) -> dict[str, dict[str, Any]]:
    """Root module calls: module name -> {argument: raw parsed value}."""
    calls: dict[str, dict[str, Any]] = {}
    for entry in parse(folder / "main.tf").get("module", []):
        for name, body in entry.items():
            calls[name.strip('"')] = {k: v for k, v in body.items() if not k.startswith("__")}
    return calls


def resolve(value: Any, tfvars: dict[str, Any]) -> Any:
    """A root-module argument's value: var references looked up in tfvars, others unknown."""
    if not isinstance(value, str) or not value.startswith("${"):
        return value
    match = _VAR.match(value)
    if not match:
        return _UNKNOWN
    head, tail = match.groups()
    found = tfvars[head]
    return found[tail] if tail else found


def module_inputs(folder: Path, module: str) -> dict[str, Any]:
    tfvars = json.loads((folder / "terraform.tfvars.json").read_text())
    call = module_calls(folder)[module]
    return {k: resolve(v, tfvars) for k, v in call.items() if k not in ("source", "depends_on")}


def _lookup(body: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(body, list):  # blocks, and `dynamic` entries: the one holding `part`
            holding = [item for item in body if isinstance(item, dict) and part in item]
            if not holding:
                return _UNKNOWN
            body = holding[0]
        if not isinstance(body, dict) or part not in body:
            return _UNKNOWN
        body = body[part]
    return body[0] if isinstance(body, list) and len(body) == 1 else body


def pool_wiring_errors(module_main: Path, resource: str, wiring: dict[str, str]) -> list[str]:
    doc = parse(module_main)
    body = doc["resource"][0]["google_container_node_pool"][resource]
    errors = []
    for path, expected in wiring.items():
        got = _lookup(body, path)
        if got != expected:
            errors.append(f"{module_main}: {path} is {got!r}, expected {expected!r}")
    return errors


def _reservation(inputs: dict[str, Any]) -> Any:
    return inputs["reservation"]


def folder_pools(folder: Path) -> list[dict[str, Any]]:
    """The node pools the folder creates, in the shape of tf_node_pool_settings()."""
    calls = module_calls(folder)
    if "tpu_node_pool" not in calls and "gpu_node_pool" not in calls:
        return []  # node auto-provisioning: GKE makes the pools
    if "tpu_node_pool" in calls:
        errors = pool_wiring_errors(folder / "modules/tpu-node-pool/main.tf", "slice", TPU_WIRING)
        assert not errors, errors
        m = module_inputs(folder, "tpu_node_pool")
        count = m["autoscaling"]["max_node_count"] if m["autoscaling"] else m["node_count"]
        return [
            {
                "name": f"{m['name_prefix']}-{i}",
                "machine_type": m["machine_type"],
                "node_count": count,
                "tpu_topology": m["tpu_topology"] if m["placement_type"] else None,
                "accelerator_type": None,
                "accelerator_count": None,
                "spot": m["spot"],
                "reservation": _reservation(m),
                "flex_start": m["flex_start"],
                "max_run_duration": m["max_run_duration"],
                "max_pods_per_node": m["max_pods_per_node"],
                "additional_node_networks": [],
            }
            for i in range(m["num_slices"])
        ]
    errors = pool_wiring_errors(folder / "modules/gpu-node-pool/main.tf", "gpu", GPU_WIRING)
    assert not errors, errors
    m = module_inputs(folder, "gpu_node_pool")
    count = m["autoscaling"]["max_node_count"] if m["autoscaling"] else m["node_count"]
    return [
        {
            "name": m["name"],
            "machine_type": m["machine_type"],
            "node_count": count,
            "tpu_topology": None,
            "accelerator_type": m["accelerator_type"],
            "accelerator_count": m["accelerator_count"],
            "spot": m["spot"],
            "reservation": _reservation(m),
            "flex_start": m["flex_start"],
            "max_run_duration": m["max_run_duration"],
            "max_pods_per_node": m["max_pods_per_node"],
            "additional_node_networks": m.get("additional_node_networks", []),
        }
    ]
