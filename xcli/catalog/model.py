"""The Accelerator value: everything xcli needs to know about one slice or GPU VM shape."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal


@dataclass(frozen=True)
class Figure:
    """A published number with its unit and the public page it comes from."""

    value: float
    unit: str
    source: str
    note: str = ""


@dataclass(frozen=True)
class Accelerator:
    """One accelerator shape.

    For TPUs a shape is one slice: `chips` chips on `vms_per_slice` VMs of `chips_per_vm` chips
    (as GKE provisions them). The Cloud TPU API may pack a small v5e/v6e slice into one VM:
    `tpu_api_vms_per_slice` says how many VMs a queued resource of this type has.
    For GPUs a shape is one VM with `chips` GPUs.
    For CPUs (XPK's CPU-only shapes, n2-standard-32-256) a shape is `vms_per_slice` VMs of one
    machine type: `chips_per_vm` counts its vCPUs, `resource_name` is "cpu", and the node pool
    carries the node label `gke_label` = `gke_accelerator` (the shape's name) that its Kueue
    flavor and the pods select.
    """

    name: str  # canonical count form: v6e-256, h100-80gb-8
    family: str  # v4, v5e, v5p, v6e, tpu7x, or the GPU type (h100-80gb)
    kind: Literal["tpu", "gpu", "cpu"]
    topology: str | None
    topology_name: str | None  # the other name form for TPUs: v6e-16x16
    chips: int
    chips_per_vm: int
    vms_per_slice: int
    machine_type: str
    gke_accelerator: str
    gke_label: str  # node label whose value is gke_accelerator
    resource_name: str  # extended resource pods request: google.com/tpu or nvidia.com/gpu
    tpu_accelerator_type: str | None  # Cloud TPU API acceleratorType
    tpu_api_type: str | None  # Cloud TPU API acceleratorConfig.type (V6E, V5P, ...)
    tpu_api_vms_per_slice: int | None
    runtime_version: str | None
    placement: Literal["compact", "workload-policy"] | None  # multi-host placement, if any
    arch: str
    peak_bf16_tflops: Figure
    hbm: Figure
    hbm_bandwidth: Figure
    sources: dict[str, str] = field(default_factory=dict)
    # GPU-to-GPU network stack of a GPU machine: "tcpx" (A3 High), "tcpxo" (A3 Mega), "rdma"
    # (A3 Ultra, A4, A4X); None for TPUs and for GPUs without a GPUDirect stack
    gpu_network: str | None = None

    @property
    def multi_host(self) -> bool:
        return self.kind == "tpu" and self.vms_per_slice > 1

    @property
    def nvlink_domain_vms(self) -> int | None:
        """VMs in one NVLink domain of a GPU with a topology (gb200: 1x72 GPUs, 4 per VM: 18),
        the most one node pool placed by its workload policy holds; None for other GPUs."""
        if self.kind != "gpu" or not self.topology:
            return None
        gpus = 1
        for dim in self.topology.split("x"):
            gpus *= int(dim)
        return gpus // self.chips_per_vm

    def to_dict(self) -> dict[str, Any]:
        # asdict() deep-copies every value; the fields are flat (Figures and one str dict), so
        # a shallow walk gives the same dict in the same order at a fraction of the cost (it
        # dominates `xcli catalog list -o json`)
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Figure):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            elif isinstance(value, dict):
                value = dict(value)
            out[f.name] = value
        return out
