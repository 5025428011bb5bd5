"""The reservation pre-flight: read each reservation named by --reservation (and its block and
sub-block) before anything is created, refuse one that cannot hold the slices, and say which
slice goes to which reservation. Shared by the GKE and queued-resource providers.

The plan holds one `ReservationCheck` step, first: the dry-run prints the reads (no
credentials needed), a live run makes them (compute.v1 reservations.get, reservationBlocks.get,
reservationSubBlocks.get) and fails the plan with the reason (reservation_check.py); every
create step runs after it. With several reservations, how many slices each can take is known
only after the reads, so node pools name their reservation by reference (`${reservation.slice-1}`)
and the live run fills them in order: each reservation takes as many slices as its free VMs
hold, then the next one takes the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.errors import UserError
from xcli.gateways.google.compute import ComputeGateway
from xcli.plan.compute import COMPUTE
from xcli.plan.contract import StepContext
from xcli.plan.model import Ref, Step
from xcli.providers.reservation_check import (
    Room,
    Want,
    assign,
    check,
    part_room,
    room,
    tpu_api_room,
)
from xcli.spec import ClusterSpec

STEP_ID = "reservation"
ALL_CAPACITY_CHECK = (
    "deploymentType DENSE and advancedDeploymentControl.reservationOperationalMode "
    "ALL_CAPACITY (GKE's dynamic slicing runs only on All Capacity mode reservations)"
)
GET = "compute.reservations.get"
# Cloud TPU API reservations, a resource of their own (tpu v2alpha1
# projects.locations.reservations.list; Reservation.name "projects/P/locations/L/reservations/R",
# the format QueuedResource.reservationName takes in tpu v2). A queued resource may name one
# that compute.v1 does not know, so for queued resources a compute miss looks there too.
TPU_RESERVATIONS = (
    "https://tpu.googleapis.com/v2alpha1/projects/{owner}/locations/{zone}/reservations"
)


@dataclass(frozen=True)
class Target:
    """One --reservation entry: NAME or projects/P/reservations/R, maybe a block or sub-block."""

    value: str  # as given: what the node pool's reservationAffinity names
    owner: str
    name: str
    block: str | None = None
    sub_block: str | None = None

    def urls(self, zone: str) -> tuple[tuple[str, str], ...]:
        """(discovery method id, URL) of each read, reservation first."""
        base = f"{COMPUTE}/projects/{self.owner}/zones/{zone}/reservations/{self.name}"
        out = [(GET, base)]
        if self.block:
            base += f"/reservationBlocks/{self.block}"
            out.append(("compute.reservationBlocks.get", base))
        if self.sub_block:
            out.append(
                (
                    "compute.reservationSubBlocks.get",
                    f"{base}/reservationSubBlocks/{self.sub_block}",
                )
            )
        return tuple(out)


def target(value: str, project: str) -> Target:
    owner, rest = project, value
    if value.startswith("projects/"):
        _, owner, _, rest = value.split("/", 3)
    parts = rest.split("/")
    block = parts[2] if len(parts) > 2 else None
    sub_block = parts[4] if len(parts) > 4 else None
    return Target(value, owner, parts[0], block, sub_block)


@dataclass(frozen=True, kw_only=True)
class ReservationCheck(Step):
    """Read the reservations, check them against `want`, place `slices` in them in order."""

    kind: ClassVar[str] = "reservation_check"

    targets: tuple[Target, ...]
    want: Want
    slices: tuple[int, ...]  # slice (node pool) indices to place, in order
    tpu_api: bool = False  # queued resources: a Cloud TPU API reservation is also accepted
    # GKE dynamic slicing (providers/gke/slicing.py): the reservation must be in All Capacity mode
    all_capacity: bool = False

    def details(self) -> dict[str, Any]:
        reads = [
            {"api": api, "request": {"method": "GET", "url": url}}
            for t in self.targets
            for api, url in t.urls(self.want.zone)
        ]
        need = len(self.slices) * self.want.vms_per_slice
        checks = [
            "status READY",
            f"zone {self.want.zone}",
            f"machine type {self.want.machine_type}"
            + (f" with {self.want.gpu} GPUs" if self.want.gpu else ""),
            f"free VMs: {len(self.slices)} x {self.want.vms_per_slice} = {need} in all",
            f"shared with project {self.want.consumer} when another project owns it",
            "named by the request when it requires specific targeting",
        ]
        if self.want.all_capacity:
            checks.append(ALL_CAPACITY_CHECK)
        order = ", ".join(t.value for t in self.targets)
        owners = sorted({t.owner for t in self.targets})
        missing = [
            f"GET {COMPUTE}/projects/{o}/aggregated/reservations (which zone it is in)"
            for o in owners
        ]
        if self.tpu_api:
            missing = [
                "GET "
                + TPU_RESERVATIONS.format(owner=o, zone=self.want.zone)
                + " (a Cloud TPU API reservation; its state ACTIVE and free chips)"
                for o in owners
            ] + missing
        slices = ", ".join(map(str, self.slices))
        if len(self.targets) == 1:
            assign = f"slice{'s' if len(self.slices) > 1 else ''} {slices}: {order}"
        else:
            assign = (
                f"slices {slices} fill {order} in that order, each as far as its free VMs go "
                "(known after the reads; the node pools name theirs as ${reservation.slice-N})"
            )
        return {"reads": reads, "if_not_found": missing, "checks": checks, "assign": assign}


def want_for(spec: ClusterSpec, all_capacity: bool = False) -> Want:
    accel = spec.accelerator
    gpu = accel.kind == "gpu"
    return Want(
        consumer=spec.project,
        zone=spec.zone,
        machine_type=accel.machine_type,
        gpu=accel.gke_accelerator if gpu else None,
        chips_per_vm=accel.chips_per_vm,
        vms_per_slice=spec.num_nodes if gpu else accel.vms_per_slice,
        all_capacity=all_capacity,
    )


def check_step(
    spec: ClusterSpec, slices: tuple[int, ...], tpu_api: bool = False, all_capacity: bool = False
) -> list[Step]:
    """The pre-flight step for these slices; none without a named reservation or a slice.
    `all_capacity`: refuse a reservation that is not in All Capacity mode (dynamic slicing)."""
    names = spec.capacity.reservations
    if spec.capacity.kind != "reservation" or names in ((), ("-",)) or not slices:
        return []
    targets = tuple(target(v, spec.project) for v in names)
    listed = ", ".join(names)
    return [
        ReservationCheck(
            id=STEP_ID,
            summary=f"read reservation{'s' if len(names) > 1 else ''} {listed} and check "
            f"{'them' if len(names) > 1 else 'it'} before anything is created",
            targets=targets,
            want=want_for(spec, all_capacity),
            slices=slices,
            tpu_api=tpu_api,  # the caller says: queued resources also know Cloud TPU reservations
        )
    ]


TpuList = Callable[[str], Mapping[str, Any]]  # GET of a tpu.googleapis.com URL, as JSON


def run_check(
    compute: ComputeGateway,
    step: ReservationCheck,
    ctx: StepContext,
    tpu_list: TpuList | None = None,
) -> Mapping[str, Any]:
    """The live handler: read, refuse with the reason, and say where each slice goes.
    `tpu_list` (queued resources) reads the Cloud TPU API's reservations on a compute miss."""
    rooms: list[Room] = []
    for t in step.targets:
        found = _read(compute, t, step.want, tpu_list if step.tpu_api else None)
        rooms.append(found)
        ctx.report(f"{t.value}: {rooms[-1].describe()}")
    placed = assign(rooms, step.slices, step.want)
    ctx.report(", ".join(f"{k} -> {v}" for k, v in placed.items()))
    return placed


def _read(compute: ComputeGateway, t: Target, want: Want, tpu_list: TpuList | None) -> Room:
    (_, url), *parts = t.urls(want.zone)
    data = compute.get_json(url, f"read reservation {t.value}", t.owner, want.zone)
    if data is None:
        tpu_room = _tpu_api_room(t, want, tpu_list) if tpu_list and not parts else None
        if tpu_room is not None:
            return tpu_room
        raise _missing(compute, t, want)
    check(t.value, t.owner, data, want)
    found = room(t.value, data, want)
    for _, part_url in parts:
        what = "block" if "/reservationSubBlocks/" not in part_url else "sub-block"
        got = compute.get_json(part_url, f"read reservation {what} {t.value}", t.owner, want.zone)
        if got is None:
            raise UserError(
                f"reservation {t.value}: its {what} does not exist; nothing was created",
                hint="list them: gcloud compute reservations blocks list " + t.name,
            )
        found = part_room(t.value, got.get("resource") or got)
    return found


def _tpu_api_room(t: Target, want: Want, tpu_list: TpuList) -> Room | None:
    """The reservation among the Cloud TPU API's reservations of the zone, every page."""
    url = TPU_RESERVATIONS.format(owner=t.owner, zone=want.zone)
    token = ""
    while True:
        page = tpu_list(url + (f"?pageToken={token}" if token else ""))
        found = tpu_api_room(t.value, t.name, page, want)
        token = str(page.get("nextPageToken") or "")
        if found is not None or not token:
            return found


def _missing(compute: ComputeGateway, t: Target, want: Want) -> UserError:
    """Not in this zone: say where it is, if it is anywhere in the project."""
    url = f"{COMPUTE}/projects/{t.owner}/aggregated/reservations"
    params = {"filter": f"name = {t.name}"}
    data = compute.get_json(url, f"look for reservation {t.name}", t.owner, want.zone, params)
    zones = [
        key.removeprefix("zones/")
        for key, scoped in ((data or {}).get("items") or {}).items()
        if any(r.get("name") == t.name for r in scoped.get("reservations") or [])
    ]
    if zones:
        return UserError(
            f"reservation {t.value}: it is in zone {zones[0]}, not {want.zone}; "
            "nothing was created",
            hint=f"pass --zone {zones[0]}, or name a reservation in {want.zone}",
        )
    return UserError(
        f"reservation {t.value} does not exist in project {t.owner}; nothing was created",
        hint=f"list reservations: gcloud compute reservations list --project {t.owner}",
    )


def pool_body(spec: ClusterSpec, index: int, body: dict[str, Any]) -> dict[str, Any]:
    """A node pool's body; with several reservations it names the one the pre-flight chose
    for its slice (a reference the live run fills in)."""
    if spec.capacity.kind != "reservation" or len(spec.capacity.reservations) < 2:
        return body
    config = body["nodePool"]["config"]
    affinity = {**config["reservationAffinity"], "values": [Ref(STEP_ID, f"slice-{index}")]}
    pool = {**body["nodePool"], "config": {**config, "reservationAffinity": affinity}}
    return {**body, "nodePool": pool}
