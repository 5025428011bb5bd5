"""Hand-written compute.v1 answers in the real shapes (Reservation from reservations.get,
ReservationBlock / ReservationSubBlock inside `resource` from their get calls, the
aggregatedList map). tests/providers/test_reservation.py validates each against compute.v1's
schemas, so a field name that does not exist fails there."""

from __future__ import annotations

from typing import Any

PROJECT, ZONE = "my-project", "us-east5-b"
BASE = f"projects/{PROJECT}/zones/{ZONE}/reservations"
SELF = "https://www.googleapis.com/compute/v1"
IRONWOOD = f"projects/{PROJECT}/zones/us-central1-c/reservations"  # TPU7x's zone in the goldens


def specific(
    name: str,
    machine: str = "ct5p-hightpu-4t",
    count: int = 64,
    in_use: int = 0,
    *,
    project: str = PROJECT,
    zone: str = ZONE,
    **extra: Any,
) -> dict[str, Any]:
    """A specific reservation of `count` VMs of `machine`, `in_use` of them taken."""
    return {
        "kind": "compute#reservation",
        "id": "4217348129812",
        "name": name,
        "zone": f"{SELF}/projects/{project}/zones/{zone}",
        "selfLink": f"{SELF}/projects/{project}/zones/{zone}/reservations/{name}",
        "status": "READY",
        "specificReservationRequired": True,
        "specificReservation": {
            "count": str(count),
            "inUseCount": str(in_use),
            "assuredCount": str(count),
            "instanceProperties": {"machineType": machine},
        },
        "shareSettings": {"shareType": "LOCAL"},
        **extra,
    }


def gpu(name: str, gpu_type: str, count: int = 4) -> dict[str, Any]:
    """A specific reservation of A3 VMs with 8 GPUs of `gpu_type` each."""
    out = specific(name, "a3-highgpu-8g", count)
    props = out["specificReservation"]["instanceProperties"]
    props["guestAccelerators"] = [{"acceleratorType": gpu_type, "acceleratorCount": 8}]
    return out


def aggregate(name: str, family: str, chips: int, in_use: int) -> dict[str, Any]:
    """An aggregate (TPU) reservation: chips of one family, counted per accelerator type."""
    accel = f"projects/{PROJECT}/zones/{ZONE}/acceleratorTypes/{family}"
    return {
        "kind": "compute#reservation",
        "name": name,
        "zone": f"{SELF}/projects/{PROJECT}/zones/{ZONE}",
        "status": "READY",
        "aggregateReservation": {
            "vmFamily": "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
            "workloadType": "BATCH",
            "reservedResources": [
                {"accelerator": {"acceleratorType": accel, "acceleratorCount": chips}}
            ],
            "inUseResources": [
                {"accelerator": {"acceleratorType": accel, "acceleratorCount": in_use}}
            ],
        },
    }


def block(name: str, count: int, in_use: int) -> dict[str, Any]:
    return {
        "resource": {
            "kind": "compute#reservationBlock",
            "name": name,
            "count": count,
            "inUseCount": in_use,
            "status": "READY",
            "reservationSubBlockCount": 2,
            "healthInfo": {"healthStatus": "HEALTHY"},
        }
    }


def sub_block(name: str, count: int, in_use: int) -> dict[str, Any]:
    return {
        "resource": {
            "kind": "compute#reservationSubBlock",
            "name": name,
            "count": count,
            "inUseCount": in_use,
            "status": "READY",
            "healthInfo": {"healthStatus": "HEALTHY", "healthyHostCount": count},
        }
    }


def aggregated(by_zone: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "kind": "compute#reservationAggregatedList",
        "items": {f"zones/{z}": {"reservations": rs} for z, rs in by_zone.items()},
    }


# What the golden scenarios name (tests/plan/gke_cases.py): enough free VMs for each.
DEFAULTS: dict[str, dict[str, Any]] = {
    f"{BASE}/my-reservation": specific("my-reservation", count=32),
    f"{BASE}/res-a": specific("res-a", count=32, in_use=16),  # room for one v5p-128 slice
    f"{BASE}/res-b": specific("res-b", count=64, in_use=16),
    # one GB200 NVLink domain: 18 A4X VMs of 4 GPUs (the gb200-4 golden)
    f"{BASE}/gb200-domain": {
        **specific("gb200-domain", "a4x-highgpu-4g", 18),
        "specificReservation": {
            "count": "18",
            "inUseCount": "0",
            "assuredCount": "18",
            "instanceProperties": {
                "machineType": "a4x-highgpu-4g",
                "guestAccelerators": [{"acceleratorType": "nvidia-gb200", "acceleratorCount": 4}],
            },
        },
    },
    # XPK's super-slicing recipe's reservation (the tpu7x-128-x4-super-slicing golden): a DENSE
    # TPU7x reservation in All Capacity mode, its block holding the four 4x4x4 sub-blocks' VMs
    f"{IRONWOOD}/golden-reservation": specific(
        "golden-reservation",
        "tpu7x-standard-4t",
        64,
        zone="us-central1-c",
        deploymentType="DENSE",
        advancedDeploymentControl={"reservationOperationalMode": "ALL_CAPACITY"},
    ),
    f"{IRONWOOD}/golden-reservation/reservationBlocks/block": (block("block", 64, 0)),
}
