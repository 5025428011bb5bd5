"""Terraform mode's view of the GPUDirect network stack (pure): the gpu-network module's inputs,
and the cluster and node-pool settings, all from the same plan values as the API path
(xcli.providers.gke.gpu_network), so the two paths create the same resources."""

from __future__ import annotations

from typing import Any

from xcli.errors import UserError
from xcli.providers.gke import gpu_network as gn
from xcli.spec import ClusterSpec


def check(spec: ClusterSpec) -> None:
    gn.check(spec)
    if gn.is_a4x(spec):
        raise UserError(
            f"{spec.accelerator.name} needs the GB200 NVLink-domain workload policy, which "
            "--terraform does not write yet",
            hint="drop --terraform to create the cluster through the API",
        )


def additional_node_networks(spec: ClusterSpec) -> list[dict[str, str]]:
    """The pool's extra NICs in order, as the node pool body's additionalNodeNetworkConfigs."""
    net = gn.gpu_network(spec)
    return [{"network": s.network, "subnetwork": s.name} for s in net.nics] if net else []


def module_inputs(spec: ClusterSpec) -> dict[str, Any] | None:
    """terraform.tfvars.json's `gpu_network`: the gpu-network module's inputs, or None."""
    net = gn.gpu_network(spec)
    if net is None:
        return None
    return {
        "description": f"created by xcli for GKE cluster {spec.name}",
        "internal_source_ranges": [gn.INTERNAL_SOURCE],
        "networks": [
            {
                "name": vpc.name,
                "mtu": vpc.mtu,
                "network_profile": vpc.profile,
                "firewall": vpc.firewall,
                "subnets": [{"name": s.name, "cidr": s.cidr} for s in vpc.subnets],
            }
            for vpc in net.vpcs
        ],
    }


def add_inputs(spec: ClusterSpec, inputs: dict[str, Any]) -> None:
    """Add the stack to a deployment's inputs (nothing for other accelerators)."""
    module = module_inputs(spec)
    if module is None:
        return
    inputs["cluster"]["enable_multi_networking"] = True
    pool = inputs["gpu_node_pool"]
    pool["additional_node_networks"] = additional_node_networks(spec)
    inputs["gpu_node_pool"] = dict(sorted(pool.items()))
    inputs["gpu_network"] = module
