"""`cluster create --pathways` on GKE: the heads' CPU pool and the check of its machine type.

The facts (pool, machine, the head's needs, the Kueue flavor) and their sources are in
xcli/plan/gke/pathways_pool.py. This module adds the steps: a read of the machine type in the zone
(Compute `machineTypes.get`: XPK lists the zone's types instead, xpk@367c838
src/xpk/core/pathways.py; one GET answers the same question for the one type asked), then the
node pool, after the cluster. A machine type xcli knows to be too small is refused before any
call; one it does not know is judged by the live read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.errors import UserError
from xcli.gateways.google.compute import ComputeGateway
from xcli.plan import compute
from xcli.plan.contract import StepContext
from xcli.plan.gke import pathways_pool as pw
from xcli.plan.model import Step
from xcli.plan.operations import OperationCall
from xcli.providers.gke import bodies as gke
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

CHECK_ID = "pathways-machine"
POOL_ID = "pathways-pool"


@dataclass(frozen=True, kw_only=True)
class MachineCheck(Step):
    """Read the machine type in the zone and refuse it if it cannot hold a Pathways head."""

    kind: ClassVar[str] = "pathways_machine_check"

    project: str
    zone: str
    machine_type: str

    @property
    def url(self) -> str:
        zone = f"{compute.COMPUTE}/projects/{self.project}/zones/{self.zone}"
        return f"{zone}/machineTypes/{self.machine_type}"

    def details(self) -> dict[str, Any]:
        known = pw.SHAPES.get(self.machine_type)
        return {
            "api": "compute.machineTypes.get",
            "request": {"method": "GET", "url": self.url},
            "checks": [
                f"offered in {self.zone}",
                f"guestCpus >= {pw.MIN_GUEST_CPUS}",
                f"memoryMb >= {pw.MIN_MEMORY_MB}",
            ],
            "catalogue": (
                {"guestCpus": known.guest_cpus, "memoryMb": known.memory_mb} if known else None
            ),
        }


def _machine(spec: ClusterSpec) -> str:
    return gke_opts.of(spec).pathways_cpu_machine_type or pw.DEFAULT_MACHINE


def check(spec: ClusterSpec) -> None:
    """Before any call: Pathways needs TPUs, and a head machine that can hold a head."""
    if not gke_opts.of(spec).pathways:
        if gke_opts.of(spec).pathways_cpu_machine_type:
            raise UserError(
                "--pathways-cpu-machine-type applies only with --pathways",
                hint="add --pathways, or drop --pathways-cpu-machine-type",
            )
        return
    if spec.accelerator.kind != "tpu":
        raise UserError(
            f"--pathways runs on TPU slices; {spec.accelerator.name} is a GPU",
            hint="pick a --tpu-type, or drop --pathways",
        )
    name = _machine(spec)
    shape = pw.SHAPES.get(name)
    if shape is not None and not pw.fits(shape):
        raise UserError(
            f"--pathways-cpu-machine-type {name} ({shape.guest_cpus} vCPUs, "
            f"{shape.memory_mb} MB) is too small for a Pathways head, which needs {pw.need()}",
            hint=f"pass --pathways-cpu-machine-type {pw.DEFAULT_MACHINE} (the default) "
            "or n4-standard-64",
        )


def pool_body(spec: ClusterSpec) -> dict[str, Any]:
    """nodePools.create body of the heads' pool (container.v1 NodePool)."""
    return {
        "nodePool": {
            "name": pw.POOL,
            "locations": [spec.zone],
            "initialNodeCount": pw.MIN_NODES,
            "config": {
                "machineType": _machine(spec),
                "workloadMetadataConfig": {"mode": "GKE_METADATA"},
                "oauthScopes": list(pw.SCOPES),
                "resourceLabels": {"xcli-role": "pathways-head"},
                "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
            },
            "autoscaling": {
                "enabled": True,
                "minNodeCount": pw.MIN_NODES,
                "maxNodeCount": pw.MAX_NODES,
            },
            "management": {"autoRepair": True, "autoUpgrade": True},
        }
    }


def read_steps(spec: ClusterSpec) -> list[Step]:
    """The read of the machine type: a pre-flight step, before anything is created."""
    if not gke_opts.of(spec).pathways:
        return []
    return [
        MachineCheck(
            id=CHECK_ID,
            summary=f"check machine type {_machine(spec)} can hold a Pathways head",
            project=spec.project,
            zone=spec.zone,
            machine_type=_machine(spec),
        )
    ]


def pool_steps(
    spec: ClusterSpec, after: tuple[str, ...], existing: Mapping[str, Any]
) -> list[Step]:
    """The heads' pool, unless it exists already (then it is kept as it is)."""
    if not gke_opts.of(spec).pathways or pw.POOL in existing:
        return []
    url = gke.cluster_url(spec.project, spec.region, spec.name) + "/nodePools"
    base = url.split("/clusters")[0]
    return [
        OperationCall(
            id=POOL_ID,
            summary=f"create node pool {pw.POOL} ({_machine(spec)}, "
            f"{pw.MIN_NODES}-{pw.MAX_NODES} nodes) for Pathways heads",
            api="container.projects.locations.clusters.nodePools.create",
            method="POST",
            url=url,
            poll=f"GET {base}/operations/${{{POOL_ID}.operation}}",
            body=pool_body(spec),
            after=after,
            lane=gke.POOL_LANE,
        )
    ]


def run_check(compute: ComputeGateway, step: MachineCheck, ctx: StepContext) -> Mapping[str, Any]:
    """The live handler of MachineCheck."""
    what = f"read machine type {step.machine_type}"
    data = compute.get_json(step.url, what, step.project, step.zone)
    if data is None:
        raise UserError(
            f"machine type {step.machine_type} is not offered in {step.zone}; nothing was created",
            hint=f"list those that can hold a head: gcloud compute machine-types list --filter "
            f'"zone={step.zone} AND guestCpus>={pw.MIN_GUEST_CPUS} AND '
            f'memoryMb>={pw.MIN_MEMORY_MB}"',
        )
    shape = pw.Shape(int(data.get("guestCpus", 0)), int(data.get("memoryMb", 0)))
    if not pw.fits(shape):
        raise UserError(
            f"machine type {step.machine_type} ({shape.guest_cpus} vCPUs, {shape.memory_mb} MB) "
            f"is too small for a Pathways head, which needs {pw.need()}; nothing was created",
            hint=f"pass --pathways-cpu-machine-type {pw.DEFAULT_MACHINE}",
        )
    ctx.report(f"{step.machine_type}: {shape.guest_cpus} vCPUs, {shape.memory_mb} MB")
    return {"guestCpus": str(shape.guest_cpus), "memoryMb": str(shape.memory_mb)}
