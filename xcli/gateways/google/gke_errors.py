"""Google API failures as one-line CloudErrors with a hint (what to do next).

Over REST, google.api_core picks the exception class from the HTTP status alone (403 for both
permission and GKE quota, 400 for both bad requests and "operation in progress", 429 for the
concurrent-operations limit), so the server's message decides the meaning. Stockouts are not
HTTP errors at all: they arrive inside a finished operation ([GCE_STOCKOUT]).
"""

from __future__ import annotations

import re
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.ssh import reach

# Read commands (list, describe) have no --dry-run, so the hint names it only for changes.
NO_CREDENTIALS_HINT = (
    "run: gcloud auth application-default login (to preview a change without credentials: "
    "its --dry-run)"
)

_BUSY = re.compile(
    r"operation .*(is currently|in progress)|please wait and try again|incompatible operation"
    r"|concurrent operations",
    re.IGNORECASE,
)
_STOCKOUT = re.compile(
    r"GCE_STOCKOUT|ZONE_RESOURCE_POOL_EXHAUSTED|does not have enough resources|no more capacity",
    re.IGNORECASE,
)
_QUOTA_NAME = re.compile(
    r"""resource[ :]+["']([\w./-]+)|quota (?:limit )?["']([\w./-]+)["']"""
    r"""|metric[ :]+["']?([\w./-]+)""",
    re.IGNORECASE,
)
_PERMISSION = re.compile(r"""['"]?([a-z]+\.[a-zA-Z]+\.[a-zA-Z]+)['"]? permission""")
_BAD_SHAPE = re.compile(
    r"(machine type|accelerator|tpu).*(not available|does not exist|not supported|invalid"
    r"|not found|unsupported)",
    re.IGNORECASE,
)

API_PAGES = {
    "container": "https://console.cloud.google.com/apis/library/container.googleapis.com",
    "compute": "https://console.cloud.google.com/apis/library/compute.googleapis.com",
}


def server_message(exc: BaseException) -> str:
    """The server's own message, without the 'POST https://...: ' prefix api_core adds."""
    cause = getattr(exc, "cause", None)
    if type(exc).__name__ == "RetryError" and isinstance(cause, BaseException):
        return server_message(cause)
    response = getattr(exc, "response", None)
    try:
        data: Any = response.json() if response is not None else None
        message = data["error"]["message"]
        if isinstance(message, str) and message:
            return message
    except Exception:  # not JSON, or not the Google error shape
        pass
    text = str(getattr(exc, "message", "") or exc)
    return re.sub(r"^[A-Z]+ https?://\S+: ", "", text)


def http_code(exc: BaseException) -> int | None:
    cause = getattr(exc, "cause", None)  # google.api_core RetryError: its last attempt's error
    if type(exc).__name__ == "RetryError" and isinstance(cause, BaseException):
        return http_code(cause)
    code = getattr(exc, "code", None)
    if isinstance(code, int):
        return code
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def is_busy(exc: BaseException) -> bool:
    """Worth retrying after a pause: 429, 'operation in progress' (400), 5xx, dropped links."""
    if reach.is_unreachable(exc):
        return True
    code = http_code(exc)
    if code in (429, 500, 502, 503, 504):
        return True
    return code == 400 and bool(_BUSY.search(server_message(exc)))


def understood(exc: BaseException) -> bool:
    """An HTTP answer, a host not reached, a token not got, or an answer that is not the API's
    JSON: api_error can say what it was. Anything else is a bug and is let through."""
    return http_code(exc) is not None or reach.as_cloud_error(exc) is not None or not_json(exc)


_NOT_JSON = {"google.protobuf.json_format.ParseError", "json.decoder.JSONDecodeError"}


def not_json(exc: BaseException) -> bool:
    """The API answered (200 OK, often) with a body that is not its JSON: an HTML page from
    a proxy or captive portal in the way (the REST transport's `json_format.Parse` fails)."""
    chain = [exc, exc.__cause__, exc.__context__]
    return any(
        e is not None and {f"{c.__module__}.{c.__name__}" for c in type(e).__mro__} & _NOT_JSON
        for e in chain
    )


def api_error(exc: BaseException, *, what: str, project: str, region: str, api: str) -> CloudError:
    """A refused request as a CloudError; `what` names the action ("create node pool x-np-0")."""
    code = http_code(exc)
    if code is None and not_json(exc):
        return CloudError(
            f"{what}: {api}.googleapis.com answered with something that is not the API's JSON "
            "(a web page: a proxy or a captive portal may be in the way)",
            hint="check the network and HTTPS_PROXY (open the API's URL in a browser to see "
            "what answers), then run the same command again",
            status="NOT_JSON",
        )
    if code is None:
        down = reach.as_cloud_error(exc, f"{api}.googleapis.com")
        if down is not None:
            return CloudError(
                f"{what}: {down.message}", down.hint, status=down.status, retryable=down.retryable
            )
    msg = server_message(exc)
    low = msg.lower()
    if code == 403 and "quota" in low:
        return quota_error(msg, what=what, region=region)
    if code == 403 and (
        "service_disabled" in low or "has not been used" in low or "disabled" in low
    ):
        return CloudError(
            f"{what}: the {api} API is not enabled in project {project}",
            hint=f"enable it: {API_PAGES.get(api, '')}?project={project}, wait a minute, retry",
            status="PERMISSION_DENIED",
        )
    if code == 403:
        found = _PERMISSION.search(msg)
        perm = found.group(1) if found else f"{api}.* permissions"
        return CloudError(
            f"{what}: permission denied: needs {perm} in project {project}",
            hint=f"ask for a role that grants {perm} (e.g. roles/{api}.admin), and check that "
            f"application-default credentials belong to the account you expect",
            status="PERMISSION_DENIED",
        )
    if code == 401:
        return CloudError(
            f"{what}: not authenticated ({msg})",
            hint="run: gcloud auth application-default login",
            status="UNAUTHENTICATED",
        )
    if code == 400 and _BAD_SHAPE.search(msg):
        return CloudError(
            f"{what}: {msg}",
            hint="this accelerator may not be offered in this zone: check the GKE TPU/GPU "
            "availability tables and pass another --zone",
            status="INVALID_ARGUMENT",
        )
    return CloudError(f"{what} failed: {msg}", status=str(code or ""), retryable=is_busy(exc))


def quota_error(msg: str, *, what: str, region: str) -> CloudError:
    found = _QUOTA_NAME.search(msg)
    names = [g for g in found.groups() if g] if found else []
    quota = names[0] if names else "the quota named in the message"
    return CloudError(
        f"{what}: quota exceeded for {quota} in {region}",
        hint=f"request more {quota} quota for {region} (IAM & Admin > Quotas), or use "
        "--reservation, --flex-start, or another region",
        status="RESOURCE_EXHAUSTED",
    )


def operation_error(msg: str, *, what: str, zone: str, region: str) -> CloudError:
    """An operation that finished with an error (stockouts arrive this way)."""
    if _STOCKOUT.search(msg):
        return CloudError(
            f"{what}: no capacity in {zone} (GCE_STOCKOUT)",
            hint="try --spot, --flex-start, a reservation (--reservation NAME) or another "
            "--zone; running the same command again retries only what failed",
            status="RESOURCE_EXHAUSTED",
            retryable=True,
        )
    if "quota" in msg.lower():
        return quota_error(msg, what=what, region=region)
    return CloudError(f"{what} failed: {msg}", status="FAILED")


def conflict_error(what: str, diff: str) -> CloudError:
    return CloudError(
        f"{what}: it already exists with another configuration ({diff})",
        hint="choose another name, or pass --force to replace it (asks first unless --yes)",
        status="ALREADY_EXISTS",
    )
