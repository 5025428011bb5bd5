"""A4X (GB200) multi-node NVLink through the NVIDIA DRA driver's ComputeDomain: the names the
cluster (driver install, Kueue configuration, ClusterQueue) and the workloads (the claim their
pods make) share, so that the two halves cannot drift apart.

- Every pod of an A4X workload claims one IMEX channel through the ResourceClaimTemplate its
  ComputeDomain makes; that template asks for one device of the DeviceClass
  `compute-domain-default-channel.nvidia.com`, which the driver's chart installs
  (NVIDIA/k8s-dra-driver-gpu v25.3.0,
  deployments/helm/nvidia-dra-driver-gpu/templates/deviceclass-compute-domain-default-channel.yaml).
- Kueue v0.19.2 admits a workload whose pods claim through a ResourceClaimTemplate only when the
  claim's DeviceClass is mapped to a logical resource in its Configuration
  (`resources.deviceClassMappings`; kubernetes-sigs/kueue v0.19.2 pkg/dra/claims.go l.209-218,
  "DeviceClass %s is not mapped in DRA configuration"), and charges `count` (1) of that
  resource per pod (site/content/en/docs/concepts/dynamic_resource_allocation.md, "Quota
  accounting"), which the ClusterQueue must cover like any other resource.
- The logical name is xcli's choice (Kueue only asks for a qualified name,
  apis/config/v1beta2/configuration_types.go DeviceClassMapping.Name): the driver's name and
  the device type its channel DeviceClass selects on.
"""

from __future__ import annotations

from typing import Any

from xcli.catalog import Accelerator

CHANNEL_DEVICE_CLASS = "compute-domain-default-channel.nvidia.com"
CHANNEL_RESOURCE = "compute-domain.nvidia.com/channel"
# Kueue reads ResourceClaimTemplates as resource.k8s.io/v1 (pkg/dra/claims.go imports
# k8s.io/api/resource/v1): "DRA support in Kueue requires a Kubernetes cluster running version
# 1.34 or later" (kueue v0.19.2 site/content/en/docs/tasks/manage/setup_dra.md).
MIN_KUBERNETES = (1, 34)


def needs_compute_domain(accel: Accelerator) -> bool:
    """GB200 (A4X): NVLink across the VMs of a rack needs a ComputeDomain."""
    return accel.gpu_network == "rdma" and accel.arch == "arm64"


def device_class_mappings(accel: Accelerator) -> list[dict[str, Any]]:
    """Kueue Configuration `resources.deviceClassMappings` for the cluster's workloads."""
    if not needs_compute_domain(accel):
        return []
    return [{"name": CHANNEL_RESOURCE, "deviceClassNames": [CHANNEL_DEVICE_CLASS]}]


def channel_quota(accel: Accelerator, vms: int) -> list[dict[str, Any]]:
    """The ClusterQueue quota of the channel resource: one per VM, since every pod of a workload
    runs on its own VM and claims one channel, so every workload the nodes can hold is
    admitted and none that they cannot."""
    if not needs_compute_domain(accel):
        return []
    return [{"name": CHANNEL_RESOURCE, "nominalQuota": vms}]
