"""Node auto-provisioning (NAP) for a GKE cluster (`cluster create --enable-autoprovisioning`).

With NAP the cluster gets no accelerator node pools of its own: GKE's cluster autoscaler
creates a pool when a pending pod asks for one (its accelerator, TPU topology, Spot or
reservation node selectors) and deletes it once empty, within the cluster's resource limits.
So one cluster runs workloads of several slice sizes of one accelerator family without being
re-created; the cost is the pool creation at submit time (docs/tpu.md).

Facts (docs/upstream.md, "Node auto-provisioning"):
- the cluster body's `autoscaling` (container v1 discovery `ClusterAutoscaling`:
  enableNodeAutoprovisioning, autoscalingProfile, resourceLimits, autoprovisioningLocations,
  autoprovisioningNodePoolDefaults);
- the accelerator's limit is named by its GKE accelerator value (`tpu-v6e-slice`,
  `nvidia-tesla-a100`), from 0 (or --autoprovisioning-min-chips) to the chips of the shape asked
  for (or --autoprovisioning-max-chips): XPK's rule and names (AI-Hypercomputer/xpk@367c838
  src/xpk/core/nap.py create_autoprovisioning_config, its recipes/NAP_cluster-create.md golden);
- the limits bind every pool, the system pool too (GKE "About node auto-provisioning",
  "Resource limits"), so cpu and memory are the accelerator VMs' worst case plus the system
  pool's largest size; `optimize-utilization` and the zone as the only location are XPK's too;
- Spot and reservations are asked for by the pods, not the NAP defaults: the discovery
  document's `AutoprovisioningNodePoolDefaults` has no spot or reservation field, and GKE's
  autoscaler reads `cloud.google.com/gke-spot`, `cloud.google.com/reservation-name`,
  `-affinity` and `-project` from the pod (GoogleCloudPlatform/cluster-autoscaler@1c2a686
  pkg/cloudprovider/gke/labels/system_labels.go SpotLabel, ReservationNameLabel,
  ReservationAffinityLabel, ReservationProjectLabel); xcli/workload/jobset/manifest.py writes
  them.
Pure.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from xcli.errors import UserError
from xcli.plan.gke import pathways_pool
from xcli.plan.gke import system_pool as cpu_pool
from xcli.plan.gke.kueue_objects import CPU_PER_VM, MEMORY_TIB_PER_VM, Autoprovisioning
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

PROFILE = "OPTIMIZE_UTILIZATION"  # XPK: --autoscaling-profile=optimize-utilization
GB_PER_TIB = 1024
# The first GKE versions whose NAP makes pools of each TPU family (GKE "Use node
# auto-provisioning", Requirements: 1.27.6 or later for v4 and v5e; 1.28.7-gke.1020000 or
# later and 1.29.2-gke.1035000 or later for v5p; 1.31.1-gke.1146000 or later for Trillium).
# tpu7x and GPUs are not listed there: no version is checked for them.
MIN_VERSIONS: dict[str, tuple[tuple[int, ...], ...]] = {
    "v4": ((1, 27, 6),),
    "v5e": ((1, 27, 6),),
    "v5p": ((1, 28, 7, 1020000), (1, 29, 2, 1035000)),
    "v6e": ((1, 31, 1, 1146000),),
}
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+)(?:-gke\.(\d+))?)?$")


@dataclass(frozen=True)
class Limits:
    resource: str  # the GKE accelerator value NAP limits: tpu-v6e-slice, nvidia-tesla-a100
    min_chips: int
    max_chips: int
    cpu: int  # vCPUs of the whole cluster at most
    memory_gb: int


def enabled(spec: ClusterSpec) -> bool:
    return gke_opts.of(spec).autoprovisioning


def quota(spec: ClusterSpec) -> Autoprovisioning | None:
    """What the in-cluster setup needs to know (plan/gke/kueue_objects.py), None without NAP."""
    if not enabled(spec):
        return None
    lim = limits(spec)
    return Autoprovisioning(lim.resource, lim.min_chips, lim.max_chips)


def max_vms(spec: ClusterSpec, max_chips: int) -> int:
    """The accelerator VMs the chip limit allows, counted with the shape's chips per VM."""
    return math.ceil(max_chips / spec.accelerator.chips_per_vm)


def limits(spec: ClusterSpec) -> Limits:
    opts = gke_opts.of(spec)
    low = opts.autoprovisioning_min_chips or 0
    high = opts.autoprovisioning_max_chips or spec.total_chips
    vms = max_vms(spec, high)
    system = cpu_pool.size(vms, opts.cpu_machine_type)
    cpus, gib = next(((c, g) for n, c, g in cpu_pool.MACHINES if n == system.machine), (0, 0))
    # the system pool's autoscaling maximum is 4 x its size (bodies.cluster_body)
    top = 4 * system.nodes
    cpu, memory = vms * CPU_PER_VM + top * cpus, vms * MEMORY_TIB_PER_VM * GB_PER_TIB + top * gib
    if opts.pathways_machine:  # the heads' pool counts too, at its largest (pathways_pool.py)
        shape = pathways_pool.SHAPES.get(
            opts.pathways_machine, pathways_pool.SHAPES[pathways_pool.DEFAULT_MACHINE]
        )
        cpu += pathways_pool.MAX_NODES * shape.guest_cpus
        memory += pathways_pool.MAX_NODES * math.ceil(shape.memory_mb / 1024)
    return Limits(
        resource=spec.accelerator.gke_accelerator,
        min_chips=low,
        max_chips=high,
        cpu=cpu,
        memory_gb=memory,
    )


def check(spec: ClusterSpec) -> None:
    """Refuse, before any call, what NAP cannot make or the flags contradict."""
    opts = gke_opts.of(spec)
    if not opts.autoprovisioning:
        if opts.autoprovisioning_min_chips is not None or opts.autoprovisioning_max_chips:
            raise UserError(
                "--autoprovisioning-min-chips and --autoprovisioning-max-chips need "
                "--enable-autoprovisioning",
                hint="add --enable-autoprovisioning, or drop the chip limits",
            )
        return
    accel, cap = spec.accelerator, spec.capacity
    if opts.super_slicing:
        raise UserError(
            "--enable-autoprovisioning and --super-slicing both decide the cluster's TPU pools",
            hint="choose one: --super-slicing for TPU7x sub-blocks of an All Capacity "
            "reservation, --enable-autoprovisioning for pools GKE makes per workload "
            "(docs/tpu.md)",
        )
    if cap.kind == "flex-start":
        raise UserError(
            "--flex-start with --enable-autoprovisioning is not in xcli: flex-start pools "
            "are xcli's own autoscaled pools",
            hint="drop --enable-autoprovisioning (a flex-start pool already scales from zero), "
            "or choose --spot, --on-demand or --reservation",
        )
    if cap.kind == "reservation" and len(cap.reservations) > 1:
        raise UserError(
            "a node auto-provisioning cluster takes one reservation",
            hint="name one reservation; XPK refuses several too ('NAP based clusters only "
            "support a single reservation')",
        )
    if cap.kind == "reservation" and "/reservationBlocks/" in str(cap.reservation):
        raise UserError(
            "a node auto-provisioning cluster cannot target a reservation block",
            hint="name the reservation (NAME or projects/P/reservations/R), or drop "
            "--enable-autoprovisioning to create the pools on the block",
        )
    if accel.multi_host and accel.placement == "workload-policy":
        raise UserError(
            f"{accel.name} needs a workload policy, which auto-provisioned pools do not get "
            "from xcli",
            hint="drop --enable-autoprovisioning for multi-host tpu7x, or use a single-host "
            "shape such as tpu7x-8",
        )
    if accel.gpu_network:
        raise UserError(
            f"{accel.name} needs GPUDirect networks on its pools, which auto-provisioned pools "
            "do not get from xcli",
            hint="drop --enable-autoprovisioning for this GPU, or use one without GPUDirect "
            "(a100-40gb-8, l4-8)",
        )
    _check_version(accel.family, opts.gke_version)
    lim = limits(spec)
    if lim.max_chips <= lim.min_chips:
        raise UserError(
            f"--autoprovisioning-max-chips {lim.max_chips} must be above the minimum "
            f"{lim.min_chips}",
            hint=f"raise --autoprovisioning-max-chips above {lim.min_chips}",
        )
    if lim.max_chips < accel.chips:
        raise UserError(
            f"--autoprovisioning-max-chips {lim.max_chips} is less than one {accel.name} "
            f"({accel.chips} chips)",
            hint=f"pass --autoprovisioning-max-chips {accel.chips} or more, or a smaller "
            "--tpu-type/--device-type",
        )


def _check_version(family: str, version: str | None) -> None:
    """Refuse a --gke-version older than the first whose NAP makes this family's pools. Only
    the parts given are compared ("1.30" is GKE's newest 1.30); an alias is left to GKE."""
    found = _VERSION.match((version or "").strip())
    floors = MIN_VERSIONS.get(family)
    if found is None or not floors:
        return
    given = tuple(int(p) for p in found.groups() if p is not None)
    floor = next((f for f in floors if f[:2] == given[:2]), floors[0])
    if given[:2] > floor[:2] or given >= floor[: len(given)]:
        return
    want = ".".join(map(str, floor[:3])) + (f"-gke.{floor[3]}" if len(floor) > 3 else "")
    raise UserError(
        f"--gke-version {version}: GKE's node auto-provisioning makes {family} pools from "
        f"{want} on",
        hint=f"pass --gke-version {want} or later, or leave it out for the channel's default",
    )


def autoscaling(spec: ClusterSpec, scopes: list[str]) -> dict[str, Any]:
    """The cluster body's `autoscaling` (ClusterAutoscaling) for NAP."""
    lim = limits(spec)
    return {
        "enableNodeAutoprovisioning": True,
        "autoscalingProfile": PROFILE,
        "resourceLimits": [
            {"resourceType": "cpu", "minimum": "0", "maximum": str(lim.cpu)},
            {"resourceType": "memory", "minimum": "0", "maximum": str(lim.memory_gb)},
            {
                "resourceType": lim.resource,
                "minimum": str(lim.min_chips),
                "maximum": str(lim.max_chips),
            },
        ],
        "autoprovisioningLocations": [spec.zone],
        "autoprovisioningNodePoolDefaults": {
            "oauthScopes": scopes,
            "management": {"autoRepair": True, "autoUpgrade": True},
        },
    }


def with_autoscaling(spec: ClusterSpec, body: dict[str, Any]) -> dict[str, Any]:
    """The clusters.create body, with NAP's `autoscaling` where it is asked for."""
    if enabled(spec):
        cluster = body["cluster"]
        cluster["autoscaling"] = autoscaling(spec, cluster["nodePools"][0]["config"]["oauthScopes"])
    return body


def notes(spec: ClusterSpec) -> list[str]:
    if not enabled(spec):
        return []
    lim = limits(spec)
    return [
        f"node auto-provisioning: no {spec.accelerator.name} node pools are created now; GKE "
        f"creates pools when workloads are submitted (minutes per pool: a TPU slice gets one "
        f"of its own) and deletes them when empty, with {lim.min_chips}..{lim.max_chips} "
        f"{lim.resource} chips in the cluster ({lim.cpu:,} vCPUs and {lim.memory_gb:,} GB "
        "across all pools)",
        "workloads of any shape of the family run within that limit; raise it with "
        "`xcli cluster create ... --enable-autoprovisioning --autoprovisioning-max-chips N`",
    ]
