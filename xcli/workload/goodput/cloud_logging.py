"""`xcli workload goodput NAME --source cloud-logging`: goodput from the ml-goodput-measurement
library's records in Cloud Logging, whatever ran the program.

One read: logging.v2 `entries:list` with the filter MGM's own calculator uses
(`logName="projects/P/logs/L" AND severity=INFO AND jsonPayload.job_name="J"`, its
`_CloudLogger._get_filter_msg`), oldest first, every page. mgm.py turns the payloads into a
Timeline and compute.py applies the same formulas as to the other sources, so the JSON shape is
the same. `--dry-run` prints that request as a plan of one step; the live read sends exactly
that step's method, URL and body (plus `pageToken` on the pages after the first).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from xcli.errors import CloudError, UserError
from xcli.plan.model import Plan
from xcli.plan.steps import ApiCall
from xcli.workload.goodput.compute import compute
from xcli.workload.goodput.mgm import mgm_timeline

if TYPE_CHECKING:
    from xcli.gateways.google.cloud_logging import LoggingGateway
    from xcli.workload.protocol import Report

URL = "https://logging.googleapis.com/v2/entries:list"
PAGE_SIZE = 1000  # the most entries:list returns per page


def log_filter(project: str, log_name: str, job_name: str) -> str:
    """MGM's filter; a log ID is URL-encoded inside logName ("/" as %2F, as LogEntry says)."""
    from urllib.parse import quote

    return (
        f'logName="projects/{project}/logs/{quote(log_name, safe="")}" AND severity=INFO '
        f'AND jsonPayload.job_name="{job_name}"'
    )


def check_log_names(log_name: str, job_name: str) -> None:
    """A log ID (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry: up to
    512 characters, letters, digits and `/_-.`) and a job name that fits in the filter's
    quotes."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9/_.\-]{1,512}", log_name):
        raise UserError(
            f"--log-name {log_name!r} is not a Cloud Logging log ID (1 to 512 letters, digits "
            "and / _ - .)",
            hint="e.g. --log-name goodput_train-1 (what MaxText names goodput_<run_name>)",
        )
    if not job_name or any(c in job_name for c in '"\\') or not job_name.isprintable():
        raise UserError(
            f"--job-name {job_name!r}: give the job_name the program's GoodputRecorder used",
            hint="non-empty, without quotes or backslashes; default: the workload's name",
        )


def entries_step(project: str, log_name: str, job_name: str) -> ApiCall:
    return ApiCall(
        id="read-goodput-records",
        summary=f"read the ml-goodput-measurement records of {job_name} from log {log_name}",
        api="logging.entries.list",
        method="POST",
        url=URL,
        body={
            "resourceNames": [f"projects/{project}"],
            "filter": log_filter(project, log_name, job_name),
            "orderBy": "timestamp asc",
            "pageSize": PAGE_SIZE,
        },
    )


def read_plan(project: str, log_name: str, job_name: str) -> Plan:
    return Plan(
        title=f"goodput of {job_name} from Cloud Logging (read only)",
        steps=(entries_step(project, log_name, job_name),),
    )


def report(
    gateway: LoggingGateway, step: ApiCall, job_name: str, now: float | None = None
) -> dict[str, Any]:
    """The goodput report (docs/goodput.md's JSON shape) of the entries `step` reads."""
    assert step.body is not None
    entries = gateway.list_entries(str(step.url), step.body)
    payloads = [e["jsonPayload"] for e in entries if isinstance(e.get("jsonPayload"), dict)]
    tl = mgm_timeline(payloads, time.time() if now is None else now)
    if tl is None:
        raise CloudError(
            f"no ml-goodput-measurement records of job {job_name} in "
            f"{step.body['filter'].split(' AND ')[0].removeprefix('logName=')}",
            hint="check --project, --log-name and --job-name; the program records only with "
            "GoodputRecorder(..., logging_enabled=True) on process 0 (docs/goodput.md)",
        )
    return replace(compute(tl), scheduling_goodput=None).to_dict()


def goodput_from_logging(
    gateway: LoggingGateway | None, project: str, name: str, log_name: str, job_name: str
) -> Report:
    """The live read of read_plan's step (gateway None: the real Cloud Logging client)."""
    from xcli.workload.goodput.render import text
    from xcli.workload.protocol import Report

    if gateway is None:
        from xcli.gateways.google.cloud_logging import LoggingGateway

        gateway = LoggingGateway()
    data = report(gateway, entries_step(project, log_name, job_name), job_name)
    return Report(data, tuple(text(data, name, mfu_hint=MGM_MFU_HINT)))


# the library records no FLOPs, so the marks' hint (xcli.goodput.flops_per_step) would not help
MGM_MFU_HINT = (
    "program goodput (MFU): unknown; the ml-goodput-measurement records carry no FLOPs per "
    "step (--source marks reads xcli.goodput.flops_per_step(x))"
)
