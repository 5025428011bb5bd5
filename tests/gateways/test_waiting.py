"""One wait/retry mechanism (xcli/gateways/backoff.py): cancellable, with budgets that do not
stack. Real Google clients over `responses`; only the clock and the sleep are fake, except in
the tests that prove the real sleep answers Ctrl-C."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest
import requests
import responses
from google.auth.credentials import AnonymousCredentials
from google.oauth2.credentials import Credentials

from xcli.errors import CloudError, Interrupted, UserError
from xcli.execute.live import LiveExecutor
from xcli.gateways import backoff
from xcli.gateways.backoff import (
    READ_POLICY,
    TRANSPORT_BUDGET,
    RetryPolicy,
    Timing,
    event_sleep,
    poll,
    retry_call,
)
from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.tpu.api import TpuGateway
from xcli.plan.contract import NullReporter, StepContext
from xcli.plan.model import Plan, Step
from xcli.plan.steps import LocalAction
from xcli.providers.queued_resource.handlers import QrHandlers

GKE = "https://container.googleapis.com/v1/projects/my-proj/locations/us-east5"
TPU = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b"
UNAVAILABLE = {"error": {"code": 503, "status": "UNAVAILABLE", "message": "try later"}}


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float, cancelled: threading.Event) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def timing(self) -> Timing:
        return Timing(sleep=self.sleep, clock=self.clock, rand=lambda: 0.5)


def _ctx(cancelled: threading.Event | None = None) -> StepContext:
    return StepContext(
        Step(id="x", summary="x"), NullReporter(), cancelled or threading.Event(), {}
    )


# -- the real sleep answers Ctrl-C ----------------------------------------------------------


def test_the_sleep_of_a_step_ends_within_a_second_of_ctrl_c() -> None:
    cancelled = threading.Event()
    threading.Timer(0.2, cancelled.set).start()  # what LiveExecutor does on KeyboardInterrupt
    start = time.monotonic()
    with pytest.raises(Interrupted):
        event_sleep(60.0, cancelled)
    assert time.monotonic() - start < 1.0


def test_the_sleep_in_the_main_thread_ends_within_a_second_of_sigint() -> None:
    assert threading.current_thread() is threading.main_thread()
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        event_sleep(60.0, threading.Event())
    assert time.monotonic() - start < 1.0


def test_a_fake_sleep_that_does_not_raise_still_ends_the_wait_on_ctrl_c() -> None:
    cancelled, checks = threading.Event(), []

    def sleep(seconds: float, event: threading.Event) -> None:
        event.set()  # Ctrl-C arrived while "sleeping"

    def check() -> None:
        checks.append(1)

    timing = Timing(sleep=sleep, clock=lambda: 0.0)
    with pytest.raises(Interrupted):
        poll(
            check,
            delays=iter([1.0] * 10),
            timeout=100,
            timing=timing,
            cancelled=cancelled,
            on_timeout=lambda s: CloudError("late"),
        )
    assert checks == [1]


# -- budgets --------------------------------------------------------------------------------


def test_a_host_that_cannot_be_reached_is_retried_only_for_the_transport_budget() -> None:
    fake, calls = FakeTime(), []

    def down() -> None:
        calls.append(fake.now)
        raise requests.exceptions.ConnectionError("Failed to resolve 'container.googleapis.com'")

    policy = RetryPolicy()  # the 30-minute budget of a create
    with pytest.raises(requests.exceptions.ConnectionError):
        retry_call(down, lambda e: True, fake.timing(), policy, threading.Event(), lambda m: None)
    assert fake.now <= TRANSPORT_BUDGET and calls == [0.0, 2.0, 6.0]


def test_a_busy_answer_is_retried_for_the_whole_budget() -> None:
    fake, calls = FakeTime(), []

    class Busy(Exception):
        code = 429

    def busy() -> None:
        calls.append(fake.now)
        raise Busy

    policy = RetryPolicy(initial=2.0, multiplier=2.0, maximum=60.0, deadline=300.0)
    lines: list[str] = []
    with pytest.raises(Busy):
        retry_call(busy, lambda e: True, fake.timing(), policy, threading.Event(), lines.append)
    assert fake.now <= 300 and fake.sleeps == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]
    assert lines[0] == "busy (HTTP 429); retrying in 2s (1)"


def _reads_allowed() -> int:
    """How many requests READ_POLICY allows a read that keeps failing (fake time)."""
    fake, calls = FakeTime(), []

    def fail() -> None:
        calls.append(1)
        raise CloudError("503", retryable=True)

    with pytest.raises(CloudError):
        retry_call(fail, lambda e: True, fake.timing(), READ_POLICY, threading.Event(), print)
    return len(calls)


@responses.activate
def test_gke_reads_get_xcli_budget_not_gapic_retry_on_top() -> None:
    from google.cloud import container_v1

    responses.get(f"{GKE}/clusters/demo", status=503, json=UNAVAILABLE)
    fake = FakeTime()
    client = container_v1.ClusterManagerClient(credentials=AnonymousCredentials(), transport="rest")
    gateway = ContainerGateway(client, timing=fake.timing())
    with pytest.raises(CloudError, match="read cluster demo failed: try later"):
        gateway.get_cluster("my-proj", "us-east5", "demo")
    # GAPIC's default retry for clusters.get (503, 20 s) would have sent more, between real
    # sleeps, for each of xcli's attempts.
    assert len(responses.calls) == _reads_allowed() == 4
    assert fake.sleeps == [1.0, 2.0, 4.0]


@responses.activate
def test_tpu_reads_get_xcli_budget_not_gapic_retry_on_top() -> None:
    responses.get(f"{TPU}/queuedResources/boot", status=503, json=UNAVAILABLE)
    fake = FakeTime()
    gateway = TpuGateway("us-east5-b", credentials=Credentials(token="t"), timing=fake.timing())
    with pytest.raises(CloudError, match="503"):
        gateway.get_queued_resource("projects/my-proj/locations/us-east5-b/queuedResources/boot")
    assert len(responses.calls) == _reads_allowed() == 4


# -- every wait answers Ctrl-C: a sleep hook raises KeyboardInterrupt in the step's thread ----


def _interrupting(seconds: float, *_: Any) -> None:
    raise KeyboardInterrupt


def _run_interrupted(handler: Any) -> Interrupted:
    """Run one step whose handler waits, through the real executor; return its Interrupted."""
    step = LocalAction(id="wait", summary="a wait", action="noop")
    with pytest.raises(Interrupted) as err:
        LiveExecutor({"local": handler}).run(Plan("t", (step,)))
    return err.value


@responses.activate
def test_queued_resource_state_wait_is_interrupted() -> None:
    node = f"{TPU}/queuedResources/boot"
    body = {"name": node, "state": {"state": "WAITING_FOR_RESOURCES"}}
    responses.get(node, json=body)
    gw = TpuGateway("us-east5-b", credentials=Credentials(token="t"))
    qr = QrHandlers(gw, sleep=_interrupting, clock=lambda: 0.0)
    name = "projects/my-proj/locations/us-east5-b/queuedResources/boot"
    err = _run_interrupted(lambda step, ctx: qr._poll(name, 3600, ctx, until_gone=False))
    assert err.message == "interrupted"
    assert "xcli cluster wait --provider queued-resource --cluster boot" in err.hint


@responses.activate
def test_host_key_wait_ctrl_c_is_interrupted_not_a_user_error() -> None:
    name = "projects/my-proj/locations/us-east5-b/nodes/boot"
    responses.get(f"{TPU}/nodes/boot", json={"name": name, "networkEndpoints": [{}]})
    responses.post(f"{TPU}/nodes/boot:getGuestAttributes", json={"guestAttributes": []})
    gw = TpuGateway("us-east5-b", credentials=Credentials(token="t"))
    cancelled = threading.Event()

    def ctrl_c(seconds: float, event: threading.Event) -> None:
        event.set()

    qr = QrHandlers(gw, sleep=ctrl_c, clock=lambda: 0.0)
    with pytest.raises(Interrupted) as err:
        qr.host_keys(name, _ctx(cancelled))
    assert not isinstance(err.value, UserError)
    assert "pin their host keys" in err.value.hint
    err2 = _run_interrupted(
        lambda step, ctx: QrHandlers(gw, sleep=_interrupting).host_keys(name, ctx)
    )
    assert "xcli cluster wait" in err2.hint


@responses.activate
def test_ssh_key_operation_wait_is_interrupted() -> None:
    ops = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b/operations/o"
    responses.get(ops, json={"name": "o"})
    gw = TpuGateway("us-east5-b", credentials=Credentials(token="t"))
    qr = QrHandlers(gw, sleep=_interrupting, clock=lambda: 0.0)
    name = "projects/my-proj/locations/us-east5-b/operations/o"
    err = _run_interrupted(lambda step, ctx: qr.wait_operation("boot", name, ctx))
    assert "finish setting up SSH" in err.hint


@responses.activate
def test_gke_operation_and_readiness_waits_are_interrupted() -> None:
    from google.cloud import container_v1

    responses.get(f"{GKE}/clusters/demo", json={"name": "demo", "status": "PROVISIONING"})
    client = container_v1.ClusterManagerClient(credentials=AnonymousCredentials(), transport="rest")
    gateway = ContainerGateway(client, timing=Timing(sleep=_interrupting, clock=lambda: 0.0))
    get = lambda: client.get_cluster(name="projects/my-proj/locations/us-east5/clusters/demo")  # noqa: E731
    err = _run_interrupted(lambda step, ctx: gateway._until_running(get, "demo", ctx, 600))
    assert err.message == "interrupted" and "run the same command again" in err.hint


def test_every_wait_sleeps_through_the_one_sleep() -> None:
    """The defaults of every waiting component are backoff.event_sleep (grep-able rule)."""
    import inspect

    from xcli.gateways.kube.handlers import KubeHandlers
    from xcli.providers import terraform_live
    from xcli.workload.jobset import live as workload_live

    assert inspect.signature(QrHandlers).parameters["sleep"].default is backoff.event_sleep
    assert inspect.signature(KubeHandlers).parameters["sleep"].default is backoff.event_sleep
    assert terraform_live.Connections().sleep is backoff.event_sleep
    assert terraform_live.Connections().tpu_sleep is backoff.event_sleep
    assert workload_live.Live(connect=lambda ref: None).sleep is backoff.event_sleep  # type: ignore[arg-type,return-value]
    assert Timing().sleep is backoff.event_sleep


# -- Kubernetes waits: apply retries, delete-until-gone, readiness ----------------------------


def _kube(fake: Any) -> Any:
    from xcli.gateways.kube.api import KubeApi
    from xcli.gateways.kube.handlers import KubeHandlers

    def ctrl_c(seconds: float, cancelled: threading.Event) -> None:
        cancelled.set()  # what LiveExecutor does when Ctrl-C reaches the main thread

    api = KubeApi("203.0.113.9", None, lambda: "t", transport=fake.transport())
    return KubeHandlers(lambda _c: api, sleep=ctrl_c, clock=lambda: 0.0), api


def _run_kube(kube: Any, step: Any) -> Interrupted:
    first = LocalAction(id="cluster", summary="the cluster", action="noop")
    table: dict[str, Any] = {**kube.handlers(), "local": lambda step, ctx: {}}
    with pytest.raises(Interrupted) as err:
        LiveExecutor(table).run(Plan("t", (first, step)))
    return err.value


def test_kubernetes_waits_are_interrupted() -> None:
    from tests.gateways.kube.test_kube_handlers import (
        PROBE_PATH,
        apply_step,
        delete_step,
        wait_step,
    )
    from tests.support.fakekube import FakeKube, webhook_down
    from xcli.plan.gke import incluster

    fake = FakeKube()  # nothing is ready: the wait sleeps, and Ctrl-C comes
    kube, _ = _kube(fake)
    assert _run_kube(kube, wait_step()).message == "interrupted"

    fake = FakeKube()  # the webhook is not serving: apply retries, and Ctrl-C comes
    fake.script("PATCH", PROBE_PATH, webhook_down(), webhook_down())
    kube, _ = _kube(fake)
    assert _run_kube(kube, apply_step(incluster.webhook_probes()[0])).message == "interrupted"

    fake = FakeKube()  # the object stays after DELETE: the wait for it to go sleeps
    _kube(fake)[1].apply(incluster.webhook_probes()[0])
    stored, original = fake.objects[PROBE_PATH], fake.handle

    def never_gone(request: Any) -> Any:
        response = original(request)
        fake.objects[PROBE_PATH] = stored
        return response

    fake.handle = never_gone  # type: ignore[method-assign]
    kube, _ = _kube(fake)  # its transport answers through never_gone
    assert _run_kube(kube, delete_step()).message == "interrupted"


@responses.activate
def test_gke_operation_poll_is_interrupted() -> None:
    from google.cloud import container_v1

    from xcli.plan.operations import OperationCall

    url = f"{GKE}/clusters/demo/nodePools"
    responses.post(url, json={"name": "op-1", "operationType": "CREATE_NODE_POOL"})
    client = container_v1.ClusterManagerClient(credentials=AnonymousCredentials(), transport="rest")
    gateway = ContainerGateway(client, timing=Timing(sleep=_interrupting, clock=lambda: 0.0))
    step = OperationCall(
        id="np",
        summary="create node pool np",
        api="container.projects.locations.clusters.nodePools.create",
        method="POST",
        url=url,
        body={"nodePool": {"name": "np", "initialNodeCount": 1}},
        poll=f"GET {GKE}/operations/${{np.operation}}",
    )
    err = _run_interrupted(lambda _s, ctx: gateway.run(step, ctx))
    assert err.message == "interrupted"
    assert len(responses.calls) == 1  # sent once, then Ctrl-C during the first wait


# -- a token endpoint that cannot be reached --------------------------------------------------


def test_token_refresh_through_a_dead_proxy_is_one_cloud_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """google-auth's own request (a token refresh) through a proxy on a closed loopback port."""
    import socket

    import google.auth.transport.requests
    from google.oauth2 import credentials as user_credentials

    from xcli.gateways.ssh import reach

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for var in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(var, f"http://127.0.0.1:{port}")
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")
    creds = user_credentials.Credentials(
        token=None,
        refresh_token="r",
        client_id="c",
        client_secret="s",
        token_uri="https://oauth2.googleapis.com/token",
    )
    with pytest.raises(Exception) as raised:
        creds.refresh(google.auth.transport.requests.Request())
    error = reach.as_cloud_error(raised.value)
    assert error is not None and error.status == "UNAVAILABLE"
    assert error.message == (
        f"cannot reach oauth2.googleapis.com through the proxy http://127.0.0.1:{port} "
        "(HTTPS_PROXY): the proxy refused the connection"
    )
    assert "HTTPS_PROXY" in error.hint


@responses.activate
def test_a_read_retried_inside_a_step_ends_on_ctrl_c() -> None:
    """A gateway read is not handed the step's context; it still sleeps on the run's cancel
    event (plan.contract.cancel_scope), so Ctrl-C does not wait out its retries."""
    responses.get(f"{TPU}/queuedResources/boot", status=503, json=UNAVAILABLE)
    seen: list[threading.Event] = []

    def ctrl_c(seconds: float, cancelled: threading.Event) -> None:
        seen.append(cancelled)
        cancelled.set()

    gateway = TpuGateway(
        "us-east5-b", credentials=Credentials(token="t"), timing=Timing(sleep=ctrl_c)
    )
    name = "projects/my-proj/locations/us-east5-b/queuedResources/boot"
    err = _run_interrupted(lambda _s, ctx: gateway.get_queued_resource(name))
    assert err.message == "interrupted"
    assert len(responses.calls) == 1 and len(seen) == 1


def test_an_api_core_retry_error_is_reported_as_its_last_attempt() -> None:
    """Not raised any more (retry=None everywhere), but mapped in case a call retries."""
    from google.api_core import exceptions

    from xcli.gateways.google import gke_errors

    last = exceptions.ServiceUnavailable("try later")
    wrapped = exceptions.RetryError("Timeout of 20.0s exceeded", last)
    assert gke_errors.understood(wrapped) and gke_errors.http_code(wrapped) == 503
    error = gke_errors.api_error(
        wrapped, what="list clusters", project="p", region="r", api="container"
    )
    assert error.message == "list clusters failed: try later" and error.retryable
    dropped = exceptions.RetryError("Timeout", requests.exceptions.ConnectionError("refused"))
    error = gke_errors.api_error(
        dropped, what="list clusters", project="p", region="r", api="container"
    )
    assert error.message.startswith("list clusters: cannot reach container.googleapis.com")
