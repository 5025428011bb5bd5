"""The GKE API (google-cloud-container, REST transport): run plan steps, read what exists.

The client is built on first use, so a dry-run never builds one and needs no credentials. A step's
body (REST JSON, enums by name) is parsed into the request message with json_format.ParseDict:
the live request is made from the very Step object the dry-run prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

from xcli.errors import NoCredentials
from xcli.gateways.backoff import (
    READ_POLICY,
    PollPolicy,
    RetryPolicy,
    Timing,
    current_cancel,
    poll,
    retry_busy,
    timed_out,
)
from xcli.gateways.google import gke_errors as errs
from xcli.plan.contract import StepContext
from xcli.plan.operations import OperationCall
from xcli.plan.steps import ApiCall, Wait

# discovery method id -> (request message, client method, the URL-bound field)
METHODS = {
    "container.projects.locations.clusters.create": ("CreateClusterRequest", "create_cluster"),
    "container.projects.locations.clusters.delete": ("DeleteClusterRequest", "delete_cluster"),
    # xcli storage attach: turn a CSI driver add-on on
    "container.projects.locations.clusters.update": ("UpdateClusterRequest", "update_cluster"),
    "container.projects.locations.clusters.nodePools.create": (
        "CreateNodePoolRequest",
        "create_node_pool",
    ),
    "container.projects.locations.clusters.nodePools.delete": (
        "DeleteNodePoolRequest",
        "delete_node_pool",
    ),
}


def resource_path(url: str) -> str:
    """https://container.googleapis.com/v1/projects/p/... -> projects/p/..."""
    return url.split("/v1/", 1)[1]


# Every client call passes retry=None (google-api-core's default retry, 20 s on 503 for reads,
# would otherwise run underneath xcli's own, backoff.py) and an explicit timeout (seconds).
NO_RETRY: dict[str, Any] = {"retry": None, "timeout": 60.0}


def _seconds(start: str, end: str) -> float:
    try:
        fix = [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (start, end)]
        return (fix[1] - fix[0]).total_seconds()
    except ValueError:
        return 0.0


class ContainerGateway:
    """Runs container.* api_call and wait steps; reads clusters for observe/list/describe."""

    def __init__(
        self,
        client: Any = None,
        *,
        credentials: Any = None,
        endpoint: str | None = None,
        timing: Timing | None = None,
        poll: PollPolicy | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._gapic = client
        self._credentials = credentials
        self._endpoint = endpoint
        self.timing = timing or Timing()
        self.poll = poll or PollPolicy()
        self.retry = retry or RetryPolicy()

    @property
    def client(self) -> Any:
        if self._gapic is None:
            from google.auth.exceptions import DefaultCredentialsError
            from google.cloud import container_v1

            options = {"api_endpoint": self._endpoint} if self._endpoint else None
            try:
                self._gapic = container_v1.ClusterManagerClient(
                    transport="rest", credentials=self._credentials, client_options=options
                )
            except DefaultCredentialsError:
                raise NoCredentials(
                    "no Google credentials found",
                    hint=errs.NO_CREDENTIALS_HINT,
                ) from None
        return self._gapic

    # --- steps -------------------------------------------------------------------------------

    def request(self, step: ApiCall) -> Any:
        """The request message for a step: its body parsed, its URL's resource bound."""
        from google.cloud import container_v1
        from google.protobuf import json_format

        cls_name, _ = METHODS[step.api]
        cls = getattr(container_v1, cls_name)
        pb = json_format.ParseDict(dict(step.body or {}), cls.pb(cls()))
        path = resource_path(str(step.url))
        if step.method == "POST":
            pb.parent = path.rsplit("/", 1)[0]
        else:
            pb.name = path
        return cls.wrap(pb)

    def run(self, step: ApiCall, ctx: StepContext) -> Mapping[str, Any]:
        _, method_name = METHODS[step.api]
        request = self.request(step)
        method = getattr(self.client, method_name)
        region = resource_path(str(step.url)).split("/")[3]
        where = {"what": step.summary, "project": _project(step), "region": region}
        try:
            op = retry_busy(
                lambda: method(request=request, **NO_RETRY),
                errs.is_busy,
                self.timing,
                self.retry,
                ctx.cancelled,
                ctx.report,
            )
        except Exception as exc:
            code = errs.http_code(exc)
            if code == 404 and "NOT_FOUND" in step.accept:
                ctx.report("already gone")
                return {"result": "already gone"}
            if code == 409 and step.method == "POST":
                return self._adopt(step, request, ctx)
            if not errs.understood(exc):
                raise
            raise errs.api_error(exc, api="container", **where) from None
        if not isinstance(step, OperationCall):
            return {"operation": op.name}
        self.wait_operation(op, step, ctx, region)
        return {"operation": op.name, "result": "done"}

    def wait_operation(self, op: Any, step: OperationCall, ctx: StepContext, region: str) -> None:
        name = f"projects/{_project(step)}/locations/{region}/operations/{op.name}"
        kind = op.operation_type.name
        start = self.timing.clock()

        def check() -> Any:
            current = self._poll(name, step.summary, region, ctx)
            if current.status.name == "DONE":
                return current
            ctx.report(f"{kind.lower().replace('_', ' ')}: {current.status.name.lower()}")
            return None

        op = poll(
            check,
            delays=self.poll.delays(kind),
            timeout=step.timeout_seconds,
            timing=self.timing,
            cancelled=ctx.cancelled,
            on_timeout=lambda _s: timed_out(step.summary, step.timeout_seconds),
            first_wait=True,
        )
        spent = _seconds(op.start_time, op.end_time) or self.timing.clock() - start
        self.poll.record(kind, spent)
        if op.error.code or op.error.message:  # statusMessage alone is informational
            message = op.error.message or op.status_message or f"error code {op.error.code}"
            zone = _zone(step)
            raise errs.operation_error(message, what=step.summary, zone=zone, region=region)

    def _poll(self, name: str, what: str, region: str, ctx: StepContext) -> Any:
        """operations.get, riding out throttling and server errors like the requests do."""
        try:
            return retry_busy(
                lambda: self.client.get_operation(name=name, **NO_RETRY),
                errs.is_busy,
                self.timing,
                self.retry,
                ctx.cancelled,
                ctx.report,
            )
        except Exception as exc:
            if not errs.understood(exc):
                raise
            project = name.split("/")[1]
            raise errs.api_error(
                exc,
                what=f"{what} (reading its operation)",
                project=project,
                region=region,
                api="container",
            ) from None

    def _adopt(self, step: ApiCall, request: Any, ctx: StepContext) -> Mapping[str, Any]:
        """409 on create: keep the existing resource when it matches what the step asks for."""
        if "nodePools" in step.api:
            pool = request.node_pool
            name = f"{request.parent}/nodePools/{pool.name}"
            get = partial(self.client.get_node_pool, name=name, **NO_RETRY)
            diff = _pool_diff(pool, get())
        else:
            cluster = request.cluster
            name = f"{request.parent}/clusters/{cluster.name}"
            get = partial(self.client.get_cluster, name=name, **NO_RETRY)
            have = get()
            missing = set(cluster.locations) - set(have.locations)
            diff = f"node locations {', '.join(have.locations)}" if missing else ""
        if diff:
            raise errs.conflict_error(step.summary, diff)
        ctx.report("already exists with this configuration; adopting it")
        self._until_running(get, step.summary, ctx, 3600)
        return {"result": "adopted"}

    def wait(self, step: Wait, ctx: StepContext) -> Mapping[str, Any]:
        name = resource_path(str(step.url))
        read = self.client.get_node_pool if "nodePools" in step.api else self.client.get_cluster
        get = partial(read, name=name, **NO_RETRY)
        self._until_running(get, step.summary, ctx, step.timeout_seconds)
        return {"result": "running"}

    def _until_running(
        self, get: Callable[[], Any], what: str, ctx: StepContext, timeout: float
    ) -> None:
        def check() -> bool | None:
            item = retry_busy(get, errs.is_busy, self.timing, self.retry, ctx.cancelled, ctx.report)
            status = item.status.name
            if status in ("RUNNING", "RUNNING_WITH_ERROR", "DEGRADED"):
                return True
            if status in ("ERROR", "STOPPING"):
                raise errs.operation_error(
                    item.status_message or status, what=what, zone="its zone", region="its region"
                )
            ctx.report(status.lower())
            return None

        poll(
            check,
            delays=self.poll.delays("WAIT_RUNNING"),
            timeout=timeout,
            timing=self.timing,
            cancelled=ctx.cancelled,
            on_timeout=lambda _s: timed_out(what, timeout),
        )

    # --- reads -------------------------------------------------------------------------------

    def _read(self, call: Callable[[], Any], what: str, project: str, region: str) -> Any:
        """One read for a person waiting: busy answers and unreachable hosts are retried
        briefly (READ_POLICY), then reported as one CloudError."""
        try:
            return retry_busy(
                call, errs.is_busy, self.timing, READ_POLICY, current_cancel(), lambda _m: None
            )
        except Exception as exc:
            if errs.http_code(exc) == 404:
                return None
            if not errs.understood(exc):
                raise
            raise errs.api_error(
                exc, what=what, project=project, region=region, api="container"
            ) from None

    def get_cluster(self, project: str, region: str, name: str) -> Any | None:
        """The cluster message, or None when there is none."""
        path = f"projects/{project}/locations/{region}/clusters/{name}"
        return self._read(
            lambda: self.client.get_cluster(name=path, **NO_RETRY),
            f"read cluster {name}",
            project,
            region,
        )

    def list_clusters(self, project: str, location: str) -> list[Any]:
        parent = f"projects/{project}/locations/{location}"
        found = self._read(
            lambda: list(self.client.list_clusters(parent=parent, **NO_RETRY).clusters),
            "list clusters",
            project,
            location,
        )
        return list(found or [])


def _project(step: ApiCall) -> str:
    return resource_path(str(step.url)).split("/")[1]


def _zone(step: ApiCall) -> str:
    body = dict(step.body or {})
    item = body.get("nodePool") or body.get("cluster") or {}
    locations = item.get("locations") or ["its zone"]
    return str(locations[0])


def _pool_diff(want: Any, have: Any) -> str:
    diffs = []
    if want.config.machine_type != have.config.machine_type:
        diffs.append(f"machine type {have.config.machine_type}")
    if want.initial_node_count != have.initial_node_count:
        diffs.append(f"{have.initial_node_count} nodes")
    if want.placement_policy.tpu_topology != have.placement_policy.tpu_topology:
        diffs.append(f"topology {have.placement_policy.tpu_topology or 'none'}")
    return ", ".join(diffs)
