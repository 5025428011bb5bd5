"""Google storage APIs over plain REST with google-auth: storage.v1, file.v1, lustre.v1,
parallelstore.v1 and Resource Manager v3 (the project number).

Like gateways/google/compute.py: each of these is a handful of calls, so the requests go through
google-auth's AuthorizedSession (a requests.Session) exactly as the step prints them (method,
URL, JSON body); a long-running operation (file, lustre, parallelstore) is polled with GET on
`https://<host>/v1/<operation name>` through xcli.gateways.backoff, so Ctrl-C ends the wait.
Lustre has no discovery document; its REST surface is the one google-cloud-lustre's REST
transport uses (https://cloud.google.com/managed-lustre/docs/reference/rest).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from xcli.errors import CloudError
from xcli.gateways.backoff import (
    PollPolicy,
    RetryPolicy,
    Timing,
    poll,
    retry_call,
    timed_out,
)
from xcli.gateways.google import gke_errors as errs
from xcli.gateways.google.session import authorized_session
from xcli.plan.contract import StepContext
from xcli.plan.operations import OperationCall
from xcli.plan.steps import ApiCall
from xcli.plan.storage_steps import ApiRead, BucketIam, pick


class RestError(Exception):
    """A refused request: its HTTP status and Google's message."""

    def __init__(self, code: int, message: str, status: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def _error_of(resp: Any) -> RestError:
    try:
        err = resp.json().get("error", {})
    except ValueError:
        err = {}
    message = err.get("message") or resp.text[:300] or f"HTTP {resp.status_code}"
    return RestError(resp.status_code, str(message), str(err.get("status", "")))


def _busy(exc: BaseException) -> bool:
    if isinstance(exc, RestError):
        return exc.code in (429, 500, 502, 503, 504)
    return errs.is_busy(exc)


class RestGateway:
    """Runs api_call (non-GKE), api_read and bucket_iam steps."""

    def __init__(
        self,
        session: Any = None,
        *,
        credentials: Any = None,
        timing: Timing | None = None,
        retry: RetryPolicy | None = None,
        poll_policy: PollPolicy | None = None,
    ) -> None:
        self._session = session
        self._credentials = credentials
        self.timing = timing or Timing()
        self.retry = retry or RetryPolicy()
        self.poll = poll_policy or PollPolicy()

    @property
    def session(self) -> Any:
        if self._session is None:
            self._session = authorized_session(self._credentials)
        return self._session

    def send(self, method: str, url: str, ctx: StepContext, body: Any = None) -> Any:
        def once() -> Any:
            kw = {"json": body} if body is not None else {}
            resp = self.session.request(method, url, timeout=120, **kw)
            if resp.status_code >= 400:
                raise _error_of(resp)
            return resp.json() if resp.content else {}

        return retry_call(
            once, _busy, self.timing, self.retry, ctx.cancelled, ctx.report, what="busy"
        )

    def _failed(self, step: ApiCall, exc: RestError) -> CloudError:
        host = urlsplit(str(step.url)).netloc
        hint = "check the name, the project and your permissions, then run the command again"
        if exc.code == 403:
            hint = f"ask for a role that allows {step.api} (and check {host} is enabled)"
        if exc.code == 409 and step.api == "storage.buckets.delete":
            hint = (
                "the bucket still holds objects: empty it first (gcloud storage rm -r), then retry"
            )
        return CloudError(f"{step.summary}: {exc.message} (HTTP {exc.code})", hint=hint)

    # --- handlers ----------------------------------------------------------------------------

    def run(self, step: ApiCall, ctx: StepContext) -> Mapping[str, Any]:
        body = dict(step.body) if step.body is not None else None
        try:
            answer = self.send(step.method, str(step.url), ctx, body)
        except RestError as exc:
            if exc.code == 404 and "NOT_FOUND" in step.accept:
                ctx.report("already gone")
                return {"result": "already gone"}
            if exc.code == 409 and "ALREADY_EXISTS" in step.accept:
                ctx.report("already exists; keeping it")
                return {"result": "exists"}
            raise self._failed(step, exc) from None
        if isinstance(step, OperationCall) and not answer.get("done", True):
            self._wait(step, str(answer["name"]), ctx)
        return {"result": "done"}

    def _wait(self, step: OperationCall, name: str, ctx: StepContext) -> None:
        parts = urlsplit(str(step.url))
        url = f"{parts.scheme}://{parts.netloc}/v1/{name}"
        self.wait_operation(url, step.api, step.summary, step.timeout_seconds, ctx)

    def wait_operation(
        self,
        url: str,
        api: str,
        summary: str,
        timeout: float,
        ctx: StepContext,
        progress: str = "running",
    ) -> Mapping[str, Any]:
        """Poll a long-running operation at `url` until done (reporting `progress` meanwhile);
        its error, if it has one, raised as the step's; the finished operation returned."""

        def check() -> Any:
            op = self.send("GET", url, ctx)
            if not op.get("done"):
                ctx.report(progress)
                return None
            return op

        op: Mapping[str, Any] = poll(
            check,
            delays=self.poll.delays(api),
            timeout=timeout,
            timing=self.timing,
            cancelled=ctx.cancelled,
            on_timeout=lambda _s: timed_out(summary, timeout),
            first_wait=True,
        )
        return self.operation_result(op, summary)

    @staticmethod
    def operation_result(op: Mapping[str, Any], summary: str) -> Mapping[str, Any]:
        """A finished operation, or its error raised as the step's."""
        if op.get("error"):
            message = op["error"].get("message") or str(op["error"])
            raise CloudError(f"{summary}: {message}", hint="see the message above")
        return op

    def read(self, step: ApiRead, ctx: StepContext) -> Mapping[str, Any]:
        try:
            answer = self.send(step.method, str(step.url), ctx)
        except RestError as exc:
            raise self._failed(step, exc) from None
        outputs = {name: pick(answer, path) for name, path in step.outputs.items()}
        missing = sorted(name for name, value in outputs.items() if value in (None, ""))
        if missing:
            raise CloudError(
                f"{step.summary}: the answer has no {', '.join(missing)}",
                hint="the resource may still be being created; retry in a few minutes",
            )
        return {k: str(v) for k, v in outputs.items()}

    def iam(self, step: BucketIam, ctx: StepContext) -> Mapping[str, Any]:
        url, member = step.iam_url(), str(step.member)
        for _attempt in range(5):
            policy = self.send("GET", f"{url}?optionsRequestedPolicyVersion=3", ctx)
            bindings, changed = change_member(
                policy.get("bindings", []), step.role, member, step.action
            )
            if not changed:
                ctx.report("nothing to change")
                return {"result": "unchanged"}
            body = {"bindings": bindings, "etag": policy.get("etag", ""), "version": 3}
            try:
                self.send("PUT", url, ctx, body)
            except RestError as exc:
                if exc.code == 412:  # someone changed the policy since we read it: read again
                    continue
                raise CloudError(
                    f"{step.summary}: {exc.message} (HTTP {exc.code})",
                    hint="you need storage.buckets.setIamPolicy on the bucket "
                    "(e.g. roles/storage.admin)",
                ) from None
            return {"result": "changed"}
        raise CloudError(
            f"{step.summary}: the bucket's policy kept changing while xcli wrote it",
            hint="run the command again",
        )


def change_member(
    bindings: list[dict[str, Any]], role: str, member: str, action: str
) -> tuple[list[dict[str, Any]], bool]:
    """The bindings with `member` added to (or removed from) the unconditional `role` binding."""
    out = [dict(b) for b in bindings]
    target = next((b for b in out if b.get("role") == role and "condition" not in b), None)
    members = list(target.get("members", [])) if target else []
    if action == "add":
        if member in members:
            return out, False
        if target is None:
            out.append({"role": role, "members": [member]})
        else:
            target["members"] = [*members, member]
        return out, True
    if member not in members or target is None:
        return out, False
    rest = [m for m in members if m != member]
    if rest:
        target["members"] = rest
    else:
        out.remove(target)
    return out, True
