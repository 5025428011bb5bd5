"""The queued-resource provider run for real: LiveExecutor + handlers + the real tpu_v2 client
against `responses`. Only sleep and the clock are fake, so nothing waits for real."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import responses
from google.oauth2.credentials import Credentials

from tests.support.qr_specs import SCENARIOS
from xcli.errors import CloudError, Interrupted
from xcli.execute.live import LiveExecutor
from xcli.gateways.tpu.api import TpuGateway
from xcli.plan.cluster import ClusterRef, WaitLogin
from xcli.plan.contract import NullReporter, StepResult
from xcli.plan.model import Step
from xcli.providers.queued_resource import access as tpu_access
from xcli.providers.queued_resource.provider import QueuedResourceProvider

BASE = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b"
ALPHA = "https://tpu.googleapis.com/v2alpha1/projects/my-proj/locations/us-east5-b"
PARENT = "projects/my-proj/locations/us-east5-b"
REF = ClusterRef("boot", "my-proj", "us-east5-b", "queued-resource")
# The v4 scenario at the fakes' location: the planner and handlers take any zone (whether the
# zone offers v4 is checked before planning, in app/cluster.py; the golden uses us-central2-b).
BOOT = replace(SCENARIOS["v4-8-on-demand-startup"], zone="us-east5-b")


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float, cancelled: threading.Event) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Recorder(NullReporter):
    def __init__(self) -> None:
        self.messages: list[str] = []

    def progress(self, step: Step, message: str) -> None:
        self.messages.append(f"{step.id}: {message}")


def provider(fake: FakeTime) -> QueuedResourceProvider:
    return QueuedResourceProvider(
        lambda zone: TpuGateway(zone, credentials=Credentials(token="t")),
        sleep=fake.sleep,
        clock=fake.clock,
        now=lambda: datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc),
    )


def qr(state: str, name: str = "boot", **extra: Any) -> dict[str, Any]:
    return {
        "name": f"{PARENT}/queuedResources/{name}",
        "tpu": {
            "nodeSpec": [{"parent": PARENT, "nodeId": name, "node": {"acceleratorType": "v4-8"}}]
        },
        "state": {"state": state, **extra},
    }


def node(metadata: dict[str, str], workers: int = 1) -> dict[str, Any]:
    return {
        "name": f"{PARENT}/nodes/boot",
        "state": "READY",
        "health": "HEALTHY",
        "metadata": metadata,
        "networkEndpoints": [
            {"ipAddress": f"10.0.0.{i + 2}", "accessConfig": {"externalIp": f"34.0.0.{i + 2}"}}
            for i in range(workers)
        ],
    }


GUEST = {
    "guestAttributes": [
        {
            "queryValue": {
                "items": [
                    {"namespace": "hostkeys", "key": "ssh-ed25519", "value": "AAAAC3NzaHOST"},
                    {"namespace": "", "key": "hostname", "value": "t1v-n-abc-w-0"},
                ]
            }
        }
    ]
}


def run(plan: Any, fake: FakeTime, reporter: Recorder | None = None) -> dict[str, StepResult]:
    executor = LiveExecutor(provider(fake).handlers(REF), reporter or Recorder())
    return executor.run(plan).results


COMPUTE = "https://compute.googleapis.com/compute/v1/projects/my-proj"
OPS = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b/operations"


def _project(**metadata: str) -> None:
    """compute.projects.get: the project's common instance metadata."""
    items = [{"key": k.replace("_", "-"), "value": v} for k, v in metadata.items()]
    responses.get(COMPUTE, json={"name": "my-proj", "commonInstanceMetadata": {"items": items}})


def _operation(name: str, *, polls: int = 1) -> None:
    """The metadata update operation: running `polls - 1` times, then done."""
    for _ in range(polls - 1):
        responses.get(f"{OPS}/{name}", json={"name": f"{PARENT}/operations/{name}"})
    responses.get(f"{OPS}/{name}", json={"name": f"{PARENT}/operations/{name}", "done": True})


def _states(*states: str) -> None:
    for state in states:
        body = qr(state)
        if state == "FAILED":
            body["state"]["failedData"] = {"error": {"code": 8, "message": "no capacity in zone"}}
        responses.get(f"{BASE}/queuedResources/boot", json=body)


@responses.activate
def test_create_waits_through_states_then_sets_up_ssh(isolated_home: Path) -> None:
    fake, reporter = FakeTime(), Recorder()
    responses.post(f"{BASE}/queuedResources", json={"name": f"{PARENT}/operations/op-1"})
    _states("WAITING_FOR_RESOURCES", "WAITING_FOR_RESOURCES", "PROVISIONING", "ACTIVE")
    other = "bob:ssh-rsa AAAAB3OTHER bob"
    responses.get(f"{BASE}/nodes/boot", json=node({"ssh-keys": other, "team": "ml"}))
    responses.patch(f"{BASE}/nodes/boot", json={"name": f"{PARENT}/operations/p"})
    _operation("p", polls=2)
    responses.post(f"{BASE}/nodes/boot:getGuestAttributes", json=GUEST)
    _project(team="ml")

    results = run(provider(fake).plan_create(BOOT), fake, reporter)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "ok"), [
        r.error for r in results.values()
    ]
    states = [m for m in reporter.messages if m.startswith("wait-active")]
    assert states == [
        "wait-active: boot: WAITING_FOR_RESOURCES after 0s",
        "wait-active: boot: PROVISIONING after 12s",
        "wait-active: boot: ACTIVE after 23s",
    ]
    assert fake.sleeps[:3] == [5.0, 7.5, 11.25]  # backoff
    # the key was created, and merged into the node's ssh-keys without dropping bob's
    key = (isolated_home / ".ssh" / "xcli_ed25519.pub").read_text().strip()
    assert key.startswith("ssh-ed25519 ")
    assert (isolated_home / ".ssh" / "xcli_ed25519").stat().st_mode & 0o777 == 0o600
    patch = next(c.request for c in responses.calls if c.request.method == "PATCH")
    sent = json.loads(patch.body)["metadata"]
    assert sent["team"] == "ml"
    assert sent["ssh-keys"].splitlines() == [other, f"alice:{key}"]
    # the project was checked for OS Login before the create, and the metadata update was
    # waited for (polled until done) before the host keys were read
    urls = [(c.request.method, c.request.url.split("?")[0]) for c in responses.calls]
    assert urls.index(("GET", COMPUTE)) < urls.index(("POST", f"{BASE}/queuedResources"))
    polls = [i for i, u in enumerate(urls) if u == ("GET", f"{OPS}/p")]
    assert len(polls) == 2
    assert urls.index(("PATCH", f"{BASE}/nodes/boot")) < polls[0]
    assert polls[-1] < urls.index(("POST", f"{BASE}/nodes/boot:getGuestAttributes"))
    # host keys pinned for both IPs, tagged with the owning queued resource
    known = (isolated_home / "state" / "known_hosts").read_text()
    assert (
        known
        == "10.0.0.2,34.0.0.2 ssh-ed25519 AAAAC3NzaHOST xcli:my-proj/us-east5-b/boot/boot/w0\n"
    )


@responses.activate
def test_waiting_then_failed_shows_the_reason() -> None:
    fake = FakeTime()
    _project()
    _states("WAITING_FOR_RESOURCES", "FAILED")
    plan = provider(fake).plan_wait(REF, 3600, WaitLogin(ssh_user="alice"))
    results = run(plan, fake)
    error = results["wait-active"].error
    assert isinstance(error, CloudError)
    assert "FAILED: no capacity in zone" in error.message
    assert "hold quota" in error.hint
    assert results["ssh-access"].status == "skipped"


@responses.activate
def test_active_then_suspended_is_explained() -> None:
    from xcli.plan.contract import StepContext

    fake = FakeTime()
    _states("ACTIVE")
    step = provider(fake).plan_wait(REF, 3600, WaitLogin(ssh_user="alice")).by_id()["wait-active"]
    wait = provider(fake).handlers(REF)["wait"]
    ctx = StepContext(step, Recorder(), threading.Event(), {})
    assert wait(step, ctx) == {"state": "ACTIVE", "nodes": ["boot"]}
    # the flex-start run time runs out: the same queued resource is now SUSPENDED
    responses.replace(responses.GET, f"{BASE}/queuedResources/boot", json=qr("SUSPENDED"))
    with pytest.raises(CloudError) as err:
        wait(step, ctx)
    assert "SUSPENDED" in err.value.message and "flex-start run time" in err.value.message
    assert "delete it" in err.value.hint


@responses.activate
def test_wait_times_out_and_says_it_stays_queued() -> None:
    fake = FakeTime()
    _project()
    _states("WAITING_FOR_RESOURCES")
    results = run(provider(fake).plan_wait(REF, 60, WaitLogin(ssh_user="alice")), fake)
    error = results["wait-active"].error
    assert isinstance(error, CloudError) and "still WAITING_FOR_RESOURCES" in error.message
    assert "stays queued" in error.hint


@responses.activate
def test_ctrl_c_while_waiting_leaves_it_queued() -> None:
    fake = FakeTime()
    _states("WAITING_FOR_RESOURCES")
    handlers = provider(fake).handlers(REF)
    plan = provider(fake).plan_wait(REF, 3600, WaitLogin(ssh_user="alice"))
    cancelled = threading.Event()

    def sleep_then_interrupt(seconds: float, event: threading.Event) -> None:
        cancelled.set()

    p = provider(fake)
    p.sleep = sleep_then_interrupt
    from xcli.plan.contract import StepContext

    ctx = StepContext(plan.by_id()["wait-active"], Recorder(), cancelled, {})
    with pytest.raises(Interrupted) as err:
        p.handlers(REF)["wait"](plan.by_id()["wait-active"], ctx)
    assert "stays queued (WAITING_FOR_RESOURCES)" in err.value.message
    assert "xcli cluster wait" in err.value.hint
    assert handlers  # the provider's handlers cover every step kind of its plans
    assert {s.kind for s in plan.steps} <= set(handlers)


@responses.activate
def test_ssh_key_merge_retries_409_and_keeps_existing_keys() -> None:
    fake = FakeTime()
    responses.get(f"{BASE}/nodes/boot", json=node({"ssh-keys": "bob:ssh-rsa AAAAB3 bob"}))
    responses.patch(
        f"{BASE}/nodes/boot",
        status=409,
        json={"error": {"code": 409, "status": "ABORTED", "message": "busy"}},
    )
    responses.patch(f"{BASE}/nodes/boot", json={"name": f"{PARENT}/operations/p"})
    _operation("p")
    handlers: Any = provider(fake).handlers(REF)["tpu_ssh_access"].__self__  # QrHandlers
    from xcli.plan.contract import StepContext

    ctx = StepContext(Step(id="x", summary=""), Recorder(), threading.Event(), {})
    added = handlers.add_key(f"{PARENT}/nodes/boot", "alice:ssh-ed25519 AAAAC3KEY xcli", ctx)
    assert added is True
    patches = [c.request for c in responses.calls if c.request.method == "PATCH"]
    assert len(patches) == 2 and fake.sleeps == [2.0]
    for request in patches:
        keys = json.loads(request.body)["metadata"]["ssh-keys"].splitlines()
        assert keys == ["bob:ssh-rsa AAAAB3 bob", "alice:ssh-ed25519 AAAAC3KEY xcli"]


def test_merge_is_idempotent_and_never_drops() -> None:
    meta = {"ssh-keys": "bob:ssh-rsa AAAAB3 bob\nalice:ssh-ed25519 OLD a", "x": "1"}
    merged = tpu_access.merge_ssh_keys(meta, "alice:ssh-ed25519 NEW a")
    assert merged is not None
    assert merged["ssh-keys"].splitlines() == [
        "bob:ssh-rsa AAAAB3 bob",
        "alice:ssh-ed25519 OLD a",
        "alice:ssh-ed25519 NEW a",
    ]
    assert merged["x"] == "1"
    assert tpu_access.merge_ssh_keys(merged, "alice:ssh-ed25519 NEW other-comment") is None


@responses.activate
def test_create_conflict_same_shape_is_reused_different_shape_refused() -> None:
    fake = FakeTime()
    conflict = {"error": {"code": 409, "status": "ALREADY_EXISTS", "message": "exists"}}
    responses.post(f"{BASE}/queuedResources", status=409, json=conflict)
    same = qr("ACTIVE")
    same["tpu"]["nodeSpec"][0]["node"]["acceleratorType"] = "v4-8"
    responses.get(f"{BASE}/queuedResources/boot", json=same)
    plan = provider(fake).plan_create(BOOT)
    handlers = provider(fake).handlers(REF)
    from xcli.plan.contract import StepContext

    step = plan.by_id()["create"]
    ctx = StepContext(step, Recorder(), threading.Event(), {})
    assert handlers["api_call"](step, ctx) == {"operation": "", "created": False}

    responses.replace(responses.GET, f"{BASE}/queuedResources/boot", json={**same, "spot": {}})
    with pytest.raises(CloudError) as err:
        handlers["api_call"](step, ctx)
    assert "already exists with a different shape: capacity spot (asked: on-demand)" in (
        err.value.message
    )


@responses.activate
def test_delete_is_idempotent_and_forgets_host_keys(isolated_home: Path) -> None:
    fake = FakeTime()
    known = isolated_home / "state" / "known_hosts"
    known.parent.mkdir(parents=True)
    known.write_text(
        "10.0.0.2 ssh-ed25519 K xcli:my-proj/us-east5-b/boot/boot/w0\n"
        "10.9.9.9 ssh-ed25519 K xcli:my-proj/us-east5-b/other/other/w0\n"
    )
    responses.delete(
        f"{BASE}/queuedResources/boot",
        status=404,
        json={"error": {"code": 404, "status": "NOT_FOUND", "message": "no"}},
    )
    responses.get(
        f"{BASE}/queuedResources/boot",
        status=404,
        json={"error": {"code": 404, "status": "NOT_FOUND", "message": "no"}},
    )
    results = run(provider(fake).plan_delete(REF), fake)
    assert [r.status for r in results.values()] == ["ok", "ok", "ok"]
    assert results["delete"].outputs == {"already_gone": True}
    assert known.read_text() == "10.9.9.9 ssh-ed25519 K xcli:my-proj/us-east5-b/other/other/w0\n"


@responses.activate
def test_delete_waits_until_gone() -> None:
    fake = FakeTime()
    responses.delete(f"{BASE}/queuedResources/boot", json={"name": f"{PARENT}/operations/d"})
    responses.get(f"{BASE}/queuedResources/boot", json=qr("DELETING"))
    responses.get(
        f"{BASE}/queuedResources/boot",
        status=404,
        json={"error": {"code": 404, "status": "NOT_FOUND", "message": "no"}},
    )
    results = run(provider(fake).plan_delete(REF), fake)
    assert results["wait-deleted"].outputs == {"state": "DELETED"}
    assert "force=True" in responses.calls[0].request.url or "force=true" in (
        responses.calls[0].request.url
    )


@responses.activate
def test_list_flags_quota_holders_and_flex_time() -> None:
    fake = FakeTime()
    failed = qr("FAILED", "old")
    failed["spot"] = {}
    failed["createTime"] = "2026-11-22T10:30:00Z"
    flex = qr("ACTIVE", "flex")
    responses.get(f"{BASE}/queuedResources", json={"queuedResources": [flex, failed]})
    responses.get(
        f"{ALPHA}/queuedResources/flex",
        json={
            "provisioningModel": "FLEX_START",
            "runDuration": {"terminationTime": "2026-11-22T15:30:00Z"},
        },
    )
    rows = provider(fake).list_clusters("my-proj", "us-east5-b")
    by_name = {r.name: r for r in rows}
    assert by_name["old"].status == "FAILED (holds quota: delete it)"
    assert by_name["old"].capacity == "spot" and by_name["old"].extra["age"] == "1h30m"
    assert by_name["flex"].capacity == "flex-start"
    assert by_name["flex"].extra["flex_remaining"] == "3h30m"


@responses.activate
def test_describe_and_workers(isolated_home: Path) -> None:
    fake = FakeTime()
    public = tpu_access.ensure_key(isolated_home / ".ssh" / "xcli_ed25519", create=True)
    responses.get(f"{BASE}/queuedResources/boot", json=qr("ACTIVE"))
    responses.get(f"{BASE}/nodes/boot", json=node({"ssh-keys": f"alice:{public}"}, workers=2))
    guest = {"guestAttributes": [GUEST["guestAttributes"][0]] * 2}
    responses.post(f"{BASE}/nodes/boot:getGuestAttributes", json=guest)
    info = provider(fake).describe(REF)
    assert info["state"] == "ACTIVE" and info["accelerator"] == "v4-8"
    worker = info["slices"][0]["workers"][1]
    assert worker == {
        "index": 1,
        "hostname": "t1v-n-abc-w-0",
        "internal_ip": "10.0.0.3",
        "external_ip": "34.0.0.3",
    }
    assert info["slices"][0]["health"] == "HEALTHY"
    workers = provider(fake).workers(REF)
    assert [(w.label, w.host, w.user) for w in workers] == [
        ("s0/w0", "34.0.0.2", "alice"),
        ("s0/w1", "34.0.0.3", "alice"),
    ]
    assert {w.accelerator for w in workers} == {"v4-8"}  # workload create needs no describe()


@responses.activate
def test_wait_plan_sets_up_every_slice_it_finds(isolated_home: Path) -> None:
    fake = FakeTime()
    key = isolated_home / "my_key"
    tpu_access.ensure_key(key, create=True)
    multi = qr("ACTIVE")
    multi["tpu"]["nodeSpec"][0].pop("nodeId")
    multi["tpu"]["nodeSpec"][0]["multisliceParams"] = {"nodeCount": 2, "nodeIdPrefix": "boot"}
    responses.get(f"{BASE}/queuedResources/boot", json=multi)
    for i in range(2):
        body = node({}, workers=1)
        body["networkEndpoints"][0]["ipAddress"] = f"10.1.{i}.2"
        responses.get(f"{BASE}/nodes/boot-{i}", json=body)
        responses.patch(f"{BASE}/nodes/boot-{i}", json={"name": f"{PARENT}/operations/p{i}"})
        _operation(f"p{i}")
        responses.post(f"{BASE}/nodes/boot-{i}:getGuestAttributes", json=GUEST)
    _project(enable_oslogin="FALSE")
    plan = provider(fake).plan_wait(REF, 3600, WaitLogin(ssh_key=str(key), ssh_user="carol"))
    results = run(plan, fake)
    assert results["ssh-access"].status == "ok", results["ssh-access"].error
    assert results["wait-active"].outputs["nodes"] == ["boot-0", "boot-1"]
    lines = (isolated_home / "state" / "known_hosts").read_text().splitlines()
    assert sorted(line.split()[0] for line in lines) == ["10.1.0.2,34.0.0.2", "10.1.1.2,34.0.0.2"]
    # workers() finds the user through the key this cluster was set up with
    patched = {
        c.request.url.split("/nodes/")[1].split("?")[0]: json.loads(c.request.body)["metadata"]
        for c in responses.calls
        if c.request.method == "PATCH"
    }
    assert set(patched) == {"boot-0", "boot-1"}
    for i in range(2):
        body = node(patched[f"boot-{i}"], workers=1)
        responses.replace(responses.GET, f"{BASE}/nodes/boot-{i}", json=body)
    workers = provider(fake).workers(REF)
    assert [(w.label, w.user) for w in workers] == [("s0/w0", "carol"), ("s1/w0", "carol")]
