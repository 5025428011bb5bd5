"""`xcli doctor`: can this machine, with these credentials, create what the user asks for?

Reads only. The reads are a plan (credentials, the APIs' states through Service Usage, the
region's quota for the accelerator, the zone's accelerator types), so `--dry-run` prints them
like any plan; a live run judges each answer as one check, one line, with its fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Handlers, Location
    from xcli.catalog.model import Accelerator
    from xcli.execute.result import RunResult
    from xcli.plan.model import Plan

SERVICE_USAGE = "https://serviceusage.googleapis.com/v1"
COMPUTE = "https://compute.googleapis.com/compute/v1"
TPU = "https://tpu.googleapis.com/v2"
# The APIs each provider's requests go to (the hosts of its gateways' calls; docs/auth.md
# cites Google's page for each). Compute Engine: reservations, resource policies, networks.
APIS: dict[str, tuple[str, ...]] = {
    "gke": ("container.googleapis.com", "compute.googleapis.com"),
    "queued-resource": ("tpu.googleapis.com", "compute.googleapis.com"),
}


@dataclass(frozen=True)
class DoctorRequest:
    provider: str
    tpu_type: str | None
    device_type: str | None
    where: Location


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool | None  # None: not checked (nothing to check, or an earlier check failed)
    detail: str
    fix: str = ""


def plan(req: DoctorRequest, deps: Deps) -> tuple[Plan, Accelerator | None, str, str]:
    """The reads, and what they are about (accelerator, project, zone); checks flags first."""
    from xcli.app.where import location
    from xcli.catalog import lookup
    from xcli.plan.doctor_steps import CheckRead, CredentialsRead
    from xcli.plan.model import Plan

    if req.tpu_type and req.device_type:
        raise UserError("pass one of --tpu-type and --device-type", hint="e.g. --tpu-type v6e-8")
    name = req.tpu_type or req.device_type
    accel = lookup(name) if name else None
    if not deps.registry.capabilities(req.provider).cloud:
        raise UserError(
            f"--provider {req.provider} needs no credentials, APIs or quota",
            hint="run doctor with --provider gke or --provider queued-resource",
        )
    _check_shape(req, accel, deps)
    project, zone = location(deps.registry, req.provider, req.where)
    region = zone.rsplit("-", 1)[0]
    creds = CredentialsRead(id="credentials", summary="find credentials and whose they are")
    steps: list[Any] = [creds]
    names = "&".join(f"names=projects/{project}/services/{api}" for api in APIS[req.provider])
    steps.append(
        CheckRead(
            id="apis",
            summary=f"read whether {', '.join(APIS[req.provider])} are enabled",
            after=("credentials",),
            api="serviceusage.services.batchGet",
            method="GET",
            url=f"{SERVICE_USAGE}/projects/{project}/services:batchGet?{names}",
        )
    )
    caps = deps.registry.capabilities(req.provider)
    if accel is not None and caps.kubernetes and quota_metrics(accel):  # node pools: VMs
        steps.append(
            CheckRead(
                id="quota",
                summary=f"read {region}'s quotas",
                after=("credentials",),
                api="compute.regions.get",
                method="GET",
                url=f"{COMPUTE}/projects/{project}/regions/{region}",
            )
        )
    notes: list[str] = []
    if accel is not None:
        zone_read = _zone_read(accel, caps.tpu_api, project, zone)
        steps += [zone_read] if zone_read is not None else []
        if zone_read is None:  # what the live run judges without a read: say so (issue 37)
            notes.append(f"whether {zone} offers {accel.name}: xcli's zone table, no read")
    title = f"check credentials, APIs{', quota and zone' if accel else ''} for {req.provider}"
    return Plan(title, tuple(steps), tuple(notes)), accel, project, zone


def _check_shape(req: DoctorRequest, accel: Accelerator | None, deps: Deps) -> None:
    """A GPU named as --tpu-type, or asked of a provider that runs no GPU: refused, as
    `cluster create` refuses them."""
    if accel is None or accel.kind != "gpu":
        return
    if req.tpu_type:
        raise UserError(
            f"--tpu-type {req.tpu_type} is a GPU shape",
            hint=f"pass it as --device-type {req.tpu_type}",
        )
    if not deps.registry.capabilities(req.provider).kubernetes:
        raise UserError(
            f"--provider {req.provider} runs TPUs only, not the GPU {accel.name}",
            hint="check a GPU shape with --provider gke",
        )


def _zone_read(accel: Accelerator, tpu_api: bool, project: str, zone: str) -> Any:
    """The read that says whether `zone` offers `accel`: Compute Engine's accelerator types for
    a GPU, the Cloud TPU API's for a queued resource; None for a TPU on GKE (the catalogue's
    zone list answers, xcli/catalog/zones.json)."""
    from xcli.plan.doctor_steps import CheckRead

    if accel.kind == "gpu":
        api, name = "compute.acceleratorTypes.get", accel.gke_accelerator
        url = f"{COMPUTE}/projects/{project}/zones/{zone}/acceleratorTypes/{name}"
    elif tpu_api and accel.tpu_accelerator_type:
        api, name = "tpu.projects.locations.acceleratorTypes.get", accel.tpu_accelerator_type
        url = f"{TPU}/projects/{project}/locations/{zone}/acceleratorTypes/{name}"
    else:
        return None
    return CheckRead(
        id="zone",
        summary=f"read whether {zone} offers {name}",
        after=("credentials",),
        api=api,
        method="GET",
        url=url,
    )


def run(req: DoctorRequest, deps: Deps, handlers: Handlers) -> list[Check] | None:
    """The checks (None for --dry-run: the reads were printed)."""
    reads, accel, project, zone = plan(req, deps)
    result = deps.run_quiet(reads, handlers)
    if result is None:
        return None
    compute_quota = deps.registry.capabilities(req.provider).kubernetes
    return judge(result, req.provider, accel, project, zone, compute_quota)


def judge(
    result: RunResult,
    provider: str,
    accel: Accelerator | None,
    project: str,
    zone: str,
    compute_quota: bool,
) -> list[Check]:
    """`compute_quota`: the provider's capacity is Compute Engine VMs (GKE node pools), whose
    regional quota the `quota` read answers."""
    from xcli.app.doctor_checks import apis, credentials, quota, zone_check

    found = result.results
    checks = [credentials(found["credentials"])]
    checks += apis(found["apis"], APIS[provider], project)
    if accel is not None:
        checks.append(quota(found.get("quota"), accel, compute_quota, project, zone))
        checks.append(zone_check(found.get("zone"), accel, zone))
    return checks


@cache
def _quotas() -> dict[str, Any]:
    text = resources.files("xcli.catalog").joinpath("quotas.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def quota_metrics(accel: Accelerator) -> Mapping[str, str]:
    """Compute Engine quota metric per capacity ("on-demand", "spot"); {} where none is known."""
    metrics: Mapping[str, str] = _quotas()["metrics"].get(accel.gke_accelerator, {})
    return metrics


def render_text(checks: Sequence[Check]) -> list[str]:
    lines = []
    for check in checks:
        mark = "ok  " if check.ok else ("--  " if check.ok is None else "FAIL")
        lines.append(f"{mark} {check.name}: {check.detail}")
        if check.fix and not check.ok:
            lines.append(f"     fix: {check.fix}")
    return lines
