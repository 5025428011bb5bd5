"""Cloud TPU API errors as one-line CloudErrors with a hint.

google.api_core picks the exception class from the HTTP status only (google/api_core/exceptions.py
in https://github.com/googleapis/python-api-core, `from_http_status`): quota is
429 (TooManyRequests), IAM is 403, a taken name is 409, a bad spec is 400. The server's message
says which quota, which zones or which runtime version, so the hint is built from it.
"""

from __future__ import annotations

import re
from typing import Any

from xcli.errors import CloudError

_QUOTA = re.compile(r"[Qq]uota (?:limit |metric )?'?([A-Za-z0-9_./-]+?)'? ")
_ZONE = re.compile(r"\b([a-z]+-[a-z]+[0-9]+-(?:[a-z]|ai[0-9]+[a-z]?))\b")  # AI zones too
QUOTA_PAGE = "https://console.cloud.google.com/iam-admin/quotas"


def _status(exc: Any) -> str:
    try:
        return str(exc.response.json()["error"]["status"])
    except Exception:
        return ""


def _server_message(exc: Any) -> str:
    """The server's own words, without api_core's 'POST https://...: ' prefix."""
    message = str(getattr(exc, "message", "") or exc)
    return re.sub(r"^[A-Z]+ https?://\S+: ", "", message).strip()


def quota_error(message: str, zone: str) -> CloudError:
    match = _QUOTA.search(message + " ")
    metric = match.group(1) if match else ""
    region = zone.rsplit("-", 1)[0]
    if "PerZone" in metric or "per zone" in message.lower():
        scope = f"zone {zone}"
    elif "PerRegion" in metric or "region" in message.lower():
        scope = f"region {region}"
    else:
        scope = f"project (zone {zone})"
    what = f"quota {metric} " if metric else "TPU quota "
    return CloudError(
        f"{what}is exhausted in {scope}: {message}",
        hint=f"request more {metric or 'TPU'} quota for {scope} at {QUOTA_PAGE}, "
        "use another zone, or delete failed or suspended queued resources that hold quota",
        status="RESOURCE_EXHAUSTED",
    )


def _bad_request(message: str, zone: str) -> CloudError:
    low = message.lower()
    if "runtime" in low and "version" in low:
        return CloudError(
            f"invalid runtime version: {message}",
            hint="pick one with --runtime-version; see https://cloud.google.com/tpu/docs/runtimes",
            status="INVALID_ARGUMENT",
        )
    if "accelerator" in low and ("zone" in low or "location" in low or "available" in low):
        others = sorted({z for z in _ZONE.findall(message) if z != zone})
        where = (
            f"zones that offer it: {', '.join(others)}"
            if others
            else ("see https://cloud.google.com/tpu/docs/regions-zones for the zones that offer it")
        )
        return CloudError(
            f"accelerator type not offered in {zone}: {message}",
            hint=f"choose another --zone; {where}",
            status="INVALID_ARGUMENT",
        )
    return CloudError(
        f"the Cloud TPU API rejected the request: {message}",
        hint="check the flags named in the message",
        status="INVALID_ARGUMENT",
    )


def translate(exc: Any, zone: str) -> CloudError:
    """A google.api_core exception -> CloudError (status = the API status name)."""
    code = getattr(exc, "code", None)
    message = _server_message(exc)
    status = _status(exc)
    if code == 429 and "rate" not in message.lower():
        return quota_error(message, zone)
    if code == 429:
        return CloudError(
            f"too many requests: {message}",
            hint="wait a minute and run the same command again",
            status="RESOURCE_EXHAUSTED",
            retryable=True,
        )
    if code == 403:
        if "quota" in message.lower():
            return quota_error(message, zone)
        return CloudError(
            f"permission denied: {message}",
            hint="ask for roles/tpu.admin on the project, and check that the Cloud TPU API is "
            "enabled and your credentials are the ones you expect",
            status="PERMISSION_DENIED",
        )
    if code == 401:
        return CloudError(
            f"not authenticated: {message}",
            hint="log in with application default credentials, or set "
            "GOOGLE_APPLICATION_CREDENTIALS",
            status="UNAUTHENTICATED",
        )
    if code == 400:
        return _bad_request(message, zone)
    if code == 404:
        return CloudError(message, hint="check --project and --zone", status="NOT_FOUND")
    if code == 409:
        return CloudError(
            message,
            hint="another change is in progress or the name is taken",
            status=status or "ALREADY_EXISTS",
        )
    retryable = code in (500, 502, 503, 504)
    return CloudError(
        f"Cloud TPU API error {code}: {message}",
        hint="run the same command again; what succeeded is kept",
        status=status or "UNKNOWN",
        retryable=retryable,
    )
