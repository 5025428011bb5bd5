"""How xcli's key reaches queued-resource VMs, run for real: LiveExecutor + handlers + the real
tpu_v2 client and AuthorizedSession against `responses`; only sleep and the clock are fake."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import responses

from tests.providers.queued_resource.test_provider import (
    BASE,
    BOOT,
    COMPUTE,
    GUEST,
    OPS,
    PARENT,
    REF,
    FakeTime,
    Recorder,
    _project,
    _states,
    node,
    provider,
    run,
)
from tests.support.qr_specs import SCENARIOS
from xcli.errors import CloudError, UserError
from xcli.plan.cluster import ClusterRef, WaitLogin
from xcli.plan.contract import StepContext
from xcli.plan.model import Step
from xcli.plan.tpu_steps import TOKENINFO
from xcli.providers.queued_resource import access as tpu_access

LOGIN_REF = ClusterRef("login", "my-proj", "us-east5-b", "queued-resource")
OSLOGIN = "https://oslogin.googleapis.com/v1/users/alice@example.com:importSshPublicKey"
PROFILE = {
    "loginProfile": {
        "name": "alice@example.com",
        "posixAccounts": [{"primary": True, "username": "alice_example_com", "uid": "1001"}],
    }
}


def _login_node() -> dict[str, object]:
    body = node({"enable-oslogin": "TRUE"}, workers=2)
    body["name"] = f"{PARENT}/nodes/login"
    return body


@responses.activate
def test_os_login_create_imports_the_key_first_and_never_touches_ssh_keys(
    isolated_home: Path,
) -> None:
    fake = FakeTime()
    responses.post(TOKENINFO, json={"email": "alice@example.com"})
    responses.post(OSLOGIN, json=PROFILE)
    responses.post(f"{BASE}/queuedResources", json={"name": f"{PARENT}/operations/op-1"})
    qr = {
        "name": f"{PARENT}/queuedResources/login",
        "tpu": {"nodeSpec": [{"parent": PARENT, "nodeId": "login", "node": {}}]},
        "state": {"state": "ACTIVE"},
    }
    responses.get(f"{BASE}/queuedResources/login", json=qr)
    responses.get(f"{BASE}/nodes/login", json=_login_node())
    guest = {"guestAttributes": [GUEST["guestAttributes"][0]] * 2}
    responses.post(f"{BASE}/nodes/login:getGuestAttributes", json=guest)

    plan = provider(fake).plan_create(SCENARIOS["v5litepod-16-os-login"])
    results = run(plan, fake)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "ok"), [
        r.error for r in results.values()
    ]
    calls = [(c.request.method, c.request.url.split("?")[0]) for c in responses.calls]
    assert calls.index(("POST", OSLOGIN)) < calls.index(("POST", f"{BASE}/queuedResources"))
    assert "PATCH" not in {m for m, _ in calls}
    assert ("GET", COMPUTE) not in calls
    imported = next(c.request for c in responses.calls if c.request.url.startswith(OSLOGIN))
    public = (isolated_home / ".ssh" / "xcli_ed25519.pub").read_text().strip()
    assert json.loads(imported.body) == {"key": public}
    assert parse_qs(urlsplit(imported.url).query) == {"projectId": ["my-proj"]}
    assert results["os-login-key"].outputs == {"username": "alice_example_com"}
    # xcli ssh logs in as the OS Login user and retries connections for a while right after
    workers = provider(fake).workers(LOGIN_REF)
    assert [(w.label, w.user) for w in workers] == [
        ("s0/w0", "alice_example_com"),
        ("s0/w1", "alice_example_com"),
    ]
    access = provider(fake).ssh_access(LOGIN_REF)
    assert access.user == "alice_example_com"


@responses.activate
def test_project_with_os_login_stops_before_anything_is_created() -> None:
    fake = FakeTime()
    _project(enable_oslogin="TRUE")
    results = run(provider(fake).plan_create(BOOT), fake)
    error = results["os-login-check"].error
    assert isinstance(error, UserError)
    assert "project my-proj turns OS Login on" in error.message
    assert "--os-login" in error.hint
    assert results["create"].status == "skipped"
    assert [c.request.method for c in responses.calls] == ["GET"]  # only the project was read


@responses.activate
def test_unreadable_project_is_reported_and_treated_as_os_login_off() -> None:
    fake, reporter = FakeTime(), Recorder()
    denied = {"error": {"code": 403, "status": "PERMISSION_DENIED", "message": "no"}}
    responses.get(COMPUTE, status=403, json=denied)
    step = provider(fake).plan_create(BOOT).by_id()
    check = step["os-login-check"]
    ctx = StepContext(check, reporter, threading.Event(), {})
    assert provider(fake).handlers(REF)["api_call"](check, ctx) == {"enabled": False}
    assert (
        "cannot read the metadata of project my-proj (PERMISSION_DENIED)" in (reporter.messages[0])
    )


@responses.activate
def test_node_with_os_login_is_not_given_a_metadata_key(isolated_home: Path) -> None:
    fake = FakeTime()
    _project()
    _states("ACTIVE")
    responses.get(f"{BASE}/nodes/boot", json=node({"enable-oslogin": "true"}))
    results = run(provider(fake).plan_wait(REF, 600, WaitLogin(ssh_user="alice")), fake)
    error = results["ssh-access"].error
    assert isinstance(error, UserError) and "boot uses OS Login" in error.message
    assert "xcli cluster wait --os-login" in error.hint
    assert "PATCH" not in {c.request.method for c in responses.calls}


@responses.activate
def test_failed_metadata_operation_is_an_error() -> None:
    fake = FakeTime()
    responses.get(f"{BASE}/nodes/boot", json=node({}))
    responses.patch(f"{BASE}/nodes/boot", json={"name": f"{PARENT}/operations/p"})
    failed = {"name": f"{PARENT}/operations/p", "done": True}
    failed["error"] = {"code": 9, "message": "node is not READY"}  # type: ignore[assignment]
    responses.get(f"{OPS}/p", json=failed)
    handlers = provider(fake).handlers(REF)["tpu_ssh_access"].__self__  # type: ignore[attr-defined]
    ctx = StepContext(Step(id="x", summary=""), Recorder(), threading.Event(), {})
    try:
        handlers.add_key(f"{PARENT}/nodes/boot", "alice:ssh-ed25519 K xcli", ctx)
    except CloudError as exc:
        assert "adding the SSH key failed: node is not READY" in exc.message
    else:
        raise AssertionError("a failed operation must fail the step")


def test_ssh_retries_longer_only_shortly_after_setup(isolated_home: Path) -> None:
    tpu_access.remember_access("my-proj", "us-east5-b", "boot", "alice", "~/.ssh/k")
    p = provider(FakeTime())
    p.now = lambda: datetime.now(timezone.utc) + timedelta(seconds=5)
    assert p.ssh_access(REF).retry_for == 60.0
    p.now = lambda: datetime.now(timezone.utc) + timedelta(minutes=11)
    assert p.ssh_access(REF).retry_for is None
