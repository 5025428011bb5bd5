"""`xcli doctor`'s judgements: one read's answer (a StepResult) in, one check line out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xcli.app.doctor import Check, quota_metrics

if TYPE_CHECKING:
    from xcli.catalog.model import Accelerator
    from xcli.plan.contract import StepResult

CONSOLE = "https://console.cloud.google.com"
LOGIN = (
    "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a "
    "service account key file (docs/auth.md)"
)


def _not_read(result: StepResult | None) -> str | None:
    """Why a read has no answer (failed or skipped), or None when it has one."""
    if result is None or result.status in ("ok", "planned"):
        return None
    if result.status == "failed" and result.error is not None:
        return str(getattr(result.error, "message", result.error))
    return result.reason or result.status


def _refused(result: StepResult) -> str | None:
    """Google's refusal of a check_read (its message and HTTP status), or None."""
    out = result.outputs
    if int(out.get("status", 200)) < 400:
        return None
    return f"{out.get('message', '')} (HTTP {out['status']})"


def credentials(result: StepResult) -> Check:
    why = _not_read(result)
    if why is not None:
        return Check("credentials", False, why, LOGIN)
    out = result.outputs
    whose = out.get("email") or "identity unknown (the token names no email)"
    return Check("credentials", True, f"{out['kind']} from {out['source']}: {whose}")


def apis(result: StepResult, wanted: Sequence[str], project: str) -> list[Check]:
    why = _not_read(result) or _refused(result)
    if why is not None:
        fix = (
            "grant yourself roles/serviceusage.serviceUsageViewer, or enable "
            f"serviceusage.googleapis.com in {project} (docs/auth.md)"
        )
        return [
            Check(f"api {api}", None if _not_read(result) else False, why, fix) for api in wanted
        ]
    states = {}
    for service in result.outputs.get("answer", {}).get("services", []):
        name = service.get("config", {}).get("name") or str(service.get("name", ""))
        states[name.rsplit("/", 1)[-1]] = str(service.get("state", "STATE_UNSPECIFIED"))
    checks = []
    for api in wanted:
        state = states.get(api, "not listed")
        fix = f"gcloud services enable {api} --project {project}"
        checks.append(Check(f"api {api}", state == "ENABLED", state.lower(), fix))
    return checks


def quota(
    result: StepResult | None, accel: Accelerator, compute_quota: bool, project: str, zone: str
) -> Check:
    region = zone.rsplit("-", 1)[0]
    need = accel.chips
    metrics = quota_metrics(accel)
    if not compute_quota:
        return Check(
            "quota",
            None,
            "Cloud TPU quota is not a Compute Engine regional quota; see "
            f"{CONSOLE}/iam-admin/quotas?project={project}",
        )
    if not metrics:
        return Check(
            "quota", None, f"no Compute Engine quota metric known for {accel.gke_accelerator}"
        )
    assert result is not None  # planned whenever a metric is known
    why = _not_read(result) or _refused(result)
    fix = f"request more at {CONSOLE}/iam-admin/quotas?project={project}"
    if why is not None:
        return Check("quota", None if _not_read(result) else False, why, fix)
    found = {q.get("metric"): q for q in result.outputs.get("answer", {}).get("quotas", [])}
    parts, enough = [], False
    for capacity, metric in metrics.items():
        q: dict[str, Any] | None = found.get(metric)
        if q is None:
            parts.append(f"{metric} not listed")
            continue
        free = float(q.get("limit", 0)) - float(q.get("usage", 0))
        enough = enough or free >= need
        parts.append(f"{capacity} {metric} {free:g} free of {float(q.get('limit', 0)):g}")
    detail = f"{region}: " + "; ".join(parts) + f" (one {accel.name} needs {need})"
    return Check("quota", enough, detail, fix)


def zone_check(result: StepResult | None, accel: Accelerator, zone: str) -> Check:
    from xcli.catalog.zones import covered, offered_zones

    offered = offered_zones(accel.family)
    if result is None:  # TPUs: the catalogue's public page is the source
        if not offered:
            return Check("zone", None, f"no zone list for {accel.family}")
        ok = zone in offered
        if not ok and not covered(zone):  # the stored pages end before this area (issue 36)
            known = ", ".join(offered)
            return Check("zone", None, f"{zone}: not in the stored pages; {known} offer it")
        detail = f"{zone} {'offers' if ok else 'does not offer'} {accel.family}"
        return Check("zone", ok, detail, f"use one of {', '.join(offered)}")
    why = _not_read(result)
    if why is not None:
        return Check("zone", None, why)
    gpu = accel.kind == "gpu"
    name = accel.gke_accelerator if gpu else str(accel.tpu_accelerator_type)
    status = int(result.outputs.get("status", 200))
    if status == 404:
        lister = (
            f"gcloud compute accelerator-types list --filter=name={name}"
            if gpu
            else "gcloud compute tpus accelerator-types list --zone Z"
        )
        also = f" (the catalogue lists {', '.join(offered)})" if offered else ""
        return Check("zone", False, f"{zone} does not offer {name}", f"pick a zone: {lister}{also}")
    refused = _refused(result)
    if refused is not None:
        return Check("zone", False, refused, "check the zone and the project")
    return Check("zone", True, f"{zone} offers {name}")
