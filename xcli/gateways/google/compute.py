"""Compute Engine over REST with google-auth: resource policies (tpu7x and A4X workload
policies), the GPU clusters' networks, subnets and firewall rules, Cloud Routers (NAT for
private clusters) and reservation reads (the reservation pre-flight).

google-cloud-compute is a large dependency for a few calls, so this sends the REST requests
through google-auth's AuthorizedSession (a requests.Session) and polls the region operation
(GET, as the dry-run prints it) through xcli.gateways.backoff, so Ctrl-C ends the wait at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.backoff import RetryPolicy, Timing, growing, poll, retry_busy, timed_out
from xcli.gateways.google import gke_errors as errs
from xcli.gateways.google.session import authorized_session
from xcli.plan.compute import COMPUTE, operation_scope
from xcli.plan.contract import StepContext
from xcli.plan.steps import ApiCall


class ComputeGateway:
    def __init__(
        self,
        session: Any = None,
        *,
        credentials: Any = None,
        endpoint: str | None = None,
        timing: Timing | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._session = session
        self._credentials = credentials
        self._endpoint = endpoint
        self.timing = timing or Timing()
        self.retry = retry or RetryPolicy()

    @property
    def session(self) -> Any:
        if self._session is None:
            self._session = authorized_session(self._credentials)
        return self._session

    def _url(self, url: str) -> str:
        return url.replace(COMPUTE, self._endpoint, 1) if self._endpoint else url

    def _send(self, method: str, url: str, ctx: StepContext, **kw: Any) -> Any:
        def once() -> Any:
            from google.api_core import exceptions

            resp = self.session.request(method, self._url(url), timeout=120, **kw)
            if resp.status_code >= 400:
                raise exceptions.from_http_response(resp)  # type: ignore[no-untyped-call]
            return resp.json() if resp.content else {}

        return retry_busy(once, errs.is_busy, self.timing, self.retry, ctx.cancelled, ctx.report)

    def run(self, step: ApiCall, ctx: StepContext) -> Mapping[str, Any]:
        parts = str(step.url).split("/")
        project = parts[parts.index("projects") + 1]
        region = parts[parts.index("regions") + 1] if "regions" in parts else "global"
        body = dict(step.body) if step.body is not None else None
        try:
            op = self._send(step.method, str(step.url), ctx, json=body)
        except Exception as exc:
            code = errs.http_code(exc)
            if code == 409 and "ALREADY_EXISTS" in step.accept and body:
                return self._adopt(str(step.url), body, step.summary, ctx)
            if code == 404 and "NOT_FOUND" in step.accept:
                ctx.report("already gone")
                return {"result": "already gone"}
            if code == 400 and is_in_use(exc):
                raise in_use_error(step.summary, errs.server_message(exc)) from None
            if not errs.understood(exc):
                raise
            where = {"what": step.summary, "project": project, "region": region}
            raise errs.api_error(exc, api="compute", **where) from None
        # wait on the operation under the step's own base URL (selfLink may name another host)
        self._wait(op, operation_scope(str(step.url)), step.summary, ctx, region)
        return {"operation": op.get("name", ""), "result": "done"}

    def _adopt(
        self, url: str, body: dict[str, Any], what: str, ctx: StepContext
    ) -> Mapping[str, Any]:
        have = self._send("GET", f"{url}/{body['name']}", ctx)
        diff = adopt_diff(body, have)
        if diff:
            raise errs.conflict_error(what, diff)
        ctx.report("already exists with this configuration; adopting it")
        return {"result": "adopted"}

    def _wait(
        self, op: Mapping[str, Any], base: str, what: str, ctx: StepContext, region: str
    ) -> None:
        """Poll the region operation (GET, as the dry-run prints it) until DONE. Not
        operations.wait: that call holds the connection for up to two minutes, and Ctrl-C
        would have to wait for it."""
        url = f"{base}/operations/{op['name']}"

        def check() -> Mapping[str, Any] | None:
            current: Mapping[str, Any] = self._send("GET", url, ctx)
            if current.get("status") == "DONE":
                return current
            ctx.report(f"operation {str(current.get('status', '')).lower()}")
            return None

        if op.get("status") != "DONE":
            op = poll(
                check,
                delays=growing(1.0, 1.5, 10.0),
                timeout=1800,
                timing=self.timing,
                cancelled=ctx.cancelled,
                on_timeout=lambda _s: timed_out(what, 1800),
                first_wait=True,
            )
        errors = op.get("error", {}).get("errors") or []
        if errors:
            message = "; ".join(str(e.get("message", e.get("code"))) for e in errors)
            raise errs.operation_error(message, what=what, zone="its zone", region=region)

    def policies(self, project: str, region: str, prefix: str) -> tuple[str, ...]:
        """Names of the region's resource policies that start with `prefix`."""
        from xcli.plan.compute import policy_url

        params = {"filter": f'name eq "{prefix}.*"'}
        items = self.list_items(
            policy_url(project, region), "list workload policies", project, region, params
        )
        return tuple(sorted(i["name"] for i in items if i["name"].startswith(prefix)))

    def list_items(
        self,
        url: str,
        what: str,
        project: str,
        region: str,
        params: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Every item of a compute list call (all pages)."""
        query = dict(params or {})
        items: list[dict[str, Any]] = []
        while True:
            data = self.get_json(url, what, project, region, query)
            if data is None:
                return items
            items += data.get("items", [])
            if not data.get("nextPageToken"):
                return items
            query["pageToken"] = data["nextPageToken"]

    def get_json(
        self,
        url: str,
        what: str,
        project: str,
        region: str,
        params: Mapping[str, str] | None = None,
    ) -> dict[str, Any] | None:
        """One GET; None when the resource does not exist (404)."""
        try:
            resp = self.session.get(self._url(url), params=dict(params or {}), timeout=60)
        except Exception as failed:
            if not errs.understood(failed):
                raise
            raise errs.api_error(
                failed, what=what, project=project, region=region, api="compute"
            ) from None
        if resp.status_code == 404:
            return None
        if resp.status_code >= 400:
            from google.api_core import exceptions

            exc = exceptions.from_http_response(resp)  # type: ignore[no-untyped-call]
            raise errs.api_error(exc, what=what, project=project, region=region, api="compute")
        data: dict[str, Any] = resp.json()
        return data

    def items(
        self, url: str, prefix: str, what: str, project: str, region: str
    ) -> list[dict[str, Any]]:
        """Every resource of a Compute Engine list call whose name starts with `prefix`."""
        params = {"filter": f'name eq "{prefix}.*"'}
        found = self.list_items(url, what, project, region, params)
        return [i for i in found if str(i.get("name")).startswith(prefix)]


# Fields that must match for an existing network resource to be adopted by a re-run. URLs are
# compared by their end: the request names a resource "projects/P/...", the server answers with
# its full self link.
_ADOPT_FIELDS = ("description", "mtu", "networkProfile", "network", "ipCidrRange", "sourceRanges")


def adopt_diff(want: Mapping[str, Any], got: Mapping[str, Any]) -> str:
    """Why an existing resource is not the one `want` would create ("" when it is)."""
    if "workloadPolicy" in want:
        have = got.get("workloadPolicy") or {}
        wanted = want.get("workloadPolicy") or {}
        if any(have.get(k) != v for k, v in wanted.items()):  # the server may add defaults
            return f"workloadPolicy {have}"
        return ""
    diffs = []
    for key in _ADOPT_FIELDS:
        if key not in want:
            continue
        value, have = want[key], got.get(key)
        same = (
            str(have or "").endswith(value)
            if isinstance(value, str) and "/" in value
            else (have == value)
        )
        if not same:
            diffs.append(f"{key} {have!r}, not {value!r}")
    return "; ".join(diffs)


def is_in_use(exc: BaseException) -> bool:
    """Compute Engine's 400 resourceInUseByAnotherResource (in error.errors[].reason)."""
    response = getattr(exc, "response", None)
    try:
        errors = response.json()["error"].get("errors") or [] if response is not None else []
    except Exception:  # not JSON, or not the Google error shape
        errors = []
    reasons = {e.get("reason") for e in errors if isinstance(e, dict)}
    return "resourceInUseByAnotherResource" in reasons


def in_use_error(what: str, message: str) -> CloudError:
    """A delete refused because something still uses the resource; the server's message names
    what (e.g. "... is already being used by 'projects/p/global/firewalls/x'")."""
    return CloudError(
        f"{what}: still in use: {message}",
        hint="delete what uses it first (the message names it), then run xcli cluster delete "
        "again; resources xcli made are deleted on that re-run",
        status="FAILED_PRECONDITION",
    )
