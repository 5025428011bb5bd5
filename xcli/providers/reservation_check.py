"""What a reservation must be for the slices xcli is about to create (pure: JSON in, a reason out).

The JSON is compute.v1's: `Reservation` from reservations.get, `ReservationBlock` /
`ReservationSubBlock` from reservationBlocks.get / reservationSubBlocks.get (inside their
`resource` field). The rules follow what the reservation fields mean in the compute.v1
discovery document and what XPK checks before it creates node pools (XPK PR #1057,
https://github.com/AI-Hypercomputer/xpk/pull/1057): the machine type of a specific reservation,
the accelerator of an aggregate (TPU) one, the GPU type of a GPU one, free = count - in use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xcli.errors import UserError


@dataclass(frozen=True)
class Want:
    """What the slices need from a reservation."""

    consumer: str  # the project the VMs are created in
    zone: str
    machine_type: str  # ct5p-hightpu-4t, a3-highgpu-8g
    gpu: str | None  # GKE accelerator name for GPU VMs (nvidia-h100-80gb), else None
    chips_per_vm: int
    vms_per_slice: int
    targeted: bool = True  # the request names the reservation (GKE SPECIFIC_RESERVATION, QR)
    all_capacity: bool = False  # GKE dynamic slicing: DENSE, in ALL_CAPACITY mode

    @property
    def tpu_family(self) -> str:
        """Aggregate reservations name the family as the machine type's prefix: ct5p, ct6e."""
        return self.machine_type.split("-", 1)[0]


@dataclass(frozen=True)
class Room:
    """How much of a reservation (or its block / sub-block) is free, in VMs."""

    name: str
    free: int
    in_use: int
    total: int
    # set when xcli cannot count the room (a Cloud TPU reservation sized in cores): the
    # Cloud TPU API checks the capacity itself, and this says what was read
    unchecked: str | None = None

    def slices(self, vms_per_slice: int) -> int:
        if self.unchecked is not None:
            return 1 << 30
        return max(self.free, 0) // vms_per_slice

    def describe(self) -> str:
        if self.unchecked is not None:
            return self.unchecked
        return f"{self.free} free VMs ({self.in_use} of {self.total} in use)"


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def refuse(name: str, why: str, hint: str) -> UserError:
    return UserError(f"reservation {name}: {why}; nothing was created", hint=hint)


def check(name: str, owner: str, data: Mapping[str, Any], want: Want) -> None:
    """Refuse a reservation that cannot hold these VMs at all (not a question of how many)."""
    status = data.get("status", "")
    if status and status != "READY":
        raise refuse(name, f"it is {status}, not READY", "wait until it is READY, or use another")
    zone = str(data.get("zone", "")).rsplit("/", 1)[-1]
    if zone and zone != want.zone:
        raise refuse(name, f"it is in zone {zone}, not {want.zone}", f"pass --zone {zone}")
    _check_shape(name, data, want)
    if want.all_capacity:
        _check_all_capacity(name, data)
    if owner != want.consumer:
        _check_shared(name, owner, data, want.consumer)
    if data.get("specificReservationRequired") and not want.targeted:
        raise refuse(
            name,
            "it requires specific targeting (specificReservationRequired) and this request "
            "does not name it",
            "name it with --reservation NAME",
        )


def _check_all_capacity(name: str, data: Mapping[str, Any]) -> None:
    """compute.v1 Reservation.deploymentType (DENSE: "densely deployed reservation blocks", what
    XPK requires for super-slicing, src/xpk/commands/cluster.py l.312-340) and
    advancedDeploymentControl.reservationOperationalMode ("applicable only to DENSE";
    ALL_CAPACITY is the mode GKE's dynamic slicing needs). A DENSE reservation that does not
    say its mode is let through, as XPK lets every DENSE one through."""
    kind = data.get("deploymentType") or "not DENSE"
    hint = (
        "dynamic slicing needs a TPU Cluster Director reservation in All Capacity mode: list "
        'them with gcloud compute reservations list --filter="deploymentType=DENSE"'
    )
    if kind != "DENSE":
        raise refuse(name, f"its deploymentType is {kind}, and --super-slicing needs DENSE", hint)
    control = data.get("advancedDeploymentControl") or {}
    mode = control.get("reservationOperationalMode")
    if mode and mode != "ALL_CAPACITY":
        raise refuse(
            name, f"it is in {mode} mode, and --super-slicing needs ALL_CAPACITY mode", hint
        )


def _check_shape(name: str, data: Mapping[str, Any], want: Want) -> None:
    specific = data.get("specificReservation")
    if specific is not None:
        props = specific.get("instanceProperties") or {}
        machine = props.get("machineType", "")
        if machine and machine != want.machine_type:
            raise refuse(
                name,
                f"it reserves {machine} VMs, and this cluster needs {want.machine_type}",
                "pick the accelerator the reservation holds, or another reservation",
            )
        gpus = {g.get("acceleratorType", "") for g in props.get("guestAccelerators") or []}
        if want.gpu and gpus and want.gpu not in gpus:
            raise refuse(
                name,
                f"it reserves {', '.join(sorted(gpus))} GPUs, and this cluster needs {want.gpu}",
                "pick the GPU the reservation holds, or another reservation",
            )
        return
    aggregate = data.get("aggregateReservation")
    if aggregate is not None and _aggregate(data, want) is None:
        types = [
            str(r.get("accelerator", {}).get("acceleratorType", "")).rsplit("/", 1)[-1]
            for r in aggregate.get("reservedResources") or []
        ]
        raise refuse(
            name,
            f"it reserves {', '.join(types) or 'no'} TPU chips, and this cluster needs "
            f"{want.tpu_family} ({want.machine_type})",
            "pick the accelerator the reservation holds, or another reservation",
        )


def _aggregate(data: Mapping[str, Any], want: Want) -> tuple[int, int] | None:
    """(reserved, in use) chips of the wanted TPU family in an aggregate reservation."""
    aggregate = data.get("aggregateReservation") or {}

    def chips(key: str) -> int | None:
        for item in aggregate.get(key) or []:
            accel = item.get("accelerator") or {}
            if str(accel.get("acceleratorType", "")).endswith(f"/{want.tpu_family}"):
                return _int(accel.get("acceleratorCount"))
        return None

    reserved = chips("reservedResources")
    return None if reserved is None else (reserved, chips("inUseResources") or 0)


def _check_shared(name: str, owner: str, data: Mapping[str, Any], consumer: str) -> None:
    share = data.get("shareSettings") or {}
    kind = share.get("shareType", "LOCAL")
    projects = set(share.get("projectMap") or {})
    projects |= {str(v.get("projectId", "")) for v in (share.get("projectMap") or {}).values()}
    if kind == "ORGANIZATION" or (kind == "SPECIFIC_PROJECTS" and consumer in projects):
        return
    raise refuse(
        name,
        f"it belongs to project {owner} and is not shared with project {consumer} "
        f"(share type {kind})",
        f"ask its owner to share it with {consumer} (SPECIFIC_PROJECTS), or create the "
        f"cluster in {owner}",
    )


def room(name: str, data: Mapping[str, Any], want: Want) -> Room:
    """Free VMs of a reservation (specific: VMs; aggregate: chips / chips per VM)."""
    specific = data.get("specificReservation")
    if specific is not None:
        total, used = _int(specific.get("count")), _int(specific.get("inUseCount"))
        return Room(name, total - used, used, total)
    counts = _aggregate(data, want) or (0, 0)
    per_vm = max(want.chips_per_vm, 1)
    total, used = counts[0] // per_vm, counts[1] // per_vm
    return Room(name, total - used, used, total)


def part_room(name: str, resource: Mapping[str, Any]) -> Room:
    """Free VMs of a block or sub-block (count and inUseCount; a sub-block counts hosts)."""
    total, used = _int(resource.get("count")), _int(resource.get("inUseCount"))
    return Room(name, total - used, used, total)


def assign(rooms: list[Room], slices: tuple[int, ...], want: Want) -> dict[str, str]:
    """Slices fill the first reservation, then the next: slice index -> reservation."""
    out: dict[str, str] = {}
    todo = list(slices)
    for r in rooms:
        for _ in range(r.slices(want.vms_per_slice)):
            if not todo:
                break
            out[f"slice-{todo.pop(0)}"] = r.name
    if todo:
        need = len(slices) * want.vms_per_slice
        free = "; ".join(f"{r.name}: {r.describe()}" for r in rooms)
        what = "slice" if len(slices) == 1 else "slices"
        raise UserError(
            f"not enough free reservation capacity: {len(slices)} {what} of "
            f"{want.vms_per_slice} VMs need {need} VMs, and only {len(slices) - len(todo)} "
            f"fit ({free}); nothing was created",
            hint="use fewer --num-slices, add another reservation (--reservation A,B), or "
            "wait for VMs in it to be freed",
        )
    return out


def tpu_api_room(name: str, short: str, listing: Mapping[str, Any], want: Want) -> Room | None:
    """The room of Cloud TPU API reservation `short` in a tpu v2alpha1 reservations.list
    answer (`Reservation`: name, state, standard {size, capacityUnits, usage.total}); None
    when the listing has no reservation of that name."""
    for item in listing.get("reservations") or []:
        if str(item.get("name", "")).rsplit("/", 1)[-1] != short:
            continue
        state = item.get("state", "")
        if state and state != "ACTIVE":
            raise refuse(
                name, f"it is {state}, not ACTIVE", "wait until it is ACTIVE, or use another"
            )
        standard = item.get("standard") or {}
        size, used = _int(standard.get("size")), _int((standard.get("usage") or {}).get("total"))
        units = standard.get("capacityUnits", "")
        if units != "CHIPS":
            seen = f"a Cloud TPU reservation of {size} {str(units).lower() or 'units'}"
            return Room(name, 0, 0, 0, unchecked=f"{seen}; the Cloud TPU API checks its capacity")
        per_vm = max(want.chips_per_vm, 1)
        return Room(name, (size - used) // per_vm, used // per_vm, size // per_vm)
    return None
