"""Run the GKE provider for real (real google clients over REST) against FakeGke via responses."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import responses

from tests.support.fake_compute import FakeNet
from tests.support.fake_gke import FakeGke, as_json
from xcli.execute.live import LiveExecutor
from xcli.execute.result import RunResult
from xcli.gateways.backoff import PollPolicy, RetryPolicy, Timing
from xcli.gateways.google.compute import ComputeGateway
from xcli.gateways.google.container import ContainerGateway
from xcli.plan.cluster import ClusterRef
from xcli.plan.contract import Reporter, StepResult
from xcli.plan.model import Plan, Step
from xcli.providers.gke.provider import GkeProvider
from xcli.spec import ClusterSpec

HOSTS = re.compile(r"https://(container|compute)\.googleapis\.com/.*")


@dataclass
class Recorder:
    """A Reporter that keeps every progress line; optionally raises Ctrl-C after a step."""

    lines: list[str] = field(default_factory=list)
    interrupt_after: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def started(self, step: Step) -> None:
        pass

    def progress(self, step: Step, message: str) -> None:
        with self._lock:
            self.lines.append(f"{step.id}: {message}")

    def finished(self, result: StepResult) -> None:
        if result.step.id == self.interrupt_after:
            raise KeyboardInterrupt


@dataclass
class Env:
    fake: FakeGke
    provider: GkeProvider
    sleeps: list[float]

    def plan(self, spec: ClusterSpec) -> Plan:
        ref = ref_of(spec)
        return self.provider.plan_create(spec, self.provider.observe(ref))

    def run(self, plan: Plan, ref: ClusterRef, reporter: Reporter | None = None) -> RunResult:
        return LiveExecutor(self.provider.handlers(ref), reporter or Recorder()).run(plan)


def ref_of(spec: ClusterSpec) -> ClusterRef:
    return ClusterRef(spec.name, spec.project, spec.zone, "gke")


def make_provider(
    sleeps: list[float], endpoint: str | None = None, *, virtual_clock: bool = False
) -> GkeProvider:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession
    from google.cloud import container_v1

    options = {"api_endpoint": endpoint} if endpoint else None
    client = container_v1.ClusterManagerClient(
        credentials=AnonymousCredentials(), transport="rest", client_options=options
    )
    timing = Timing(sleep=lambda s, _ev: sleeps.append(s), rand=lambda: 0.5)
    if virtual_clock:  # time passes only by the sleeps, so budgets are measured as they pass
        timing.clock = lambda: sum(sleeps)
    return GkeProvider(
        ContainerGateway(client, timing=timing, poll=PollPolicy(), retry=RetryPolicy()),
        ComputeGateway(AuthorizedSession(AnonymousCredentials()), timing=timing),
    )


@contextmanager
def live(fake: FakeGke | None = None) -> Iterator[Env]:
    fake = fake or FakeNet()  # FakeGke with routers and reservations

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        import json

        drop = fake.take_drop(request.method, request.path_url)
        if drop == "reset":
            import requests

            reset = ConnectionResetError(104, "Connection reset by peer")
            raise requests.ConnectionError(f"('Connection aborted.', {reset!r})")
        if drop == "html":
            page = "<html><body>Proxy authentication portal</body></html>"
            return 200, {"content-type": "text/html"}, page
        status, data = fake.handle(request.method, request.path_url, as_json(request.body))
        return status, {"content-type": "application/json"}, json.dumps(data)

    sleeps: list[float] = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        for method in ("GET", "POST", "PUT", "DELETE"):  # PUT: clusters.update (NAP's limits)
            rsps.add_callback(method, HOSTS, callback=answer)
        yield Env(fake, make_provider(sleeps), sleeps)
