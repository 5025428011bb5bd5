"""`workload create --recover` on queued resources, against the recorded Cloud TPU API: a slice
the service suspended (preempted) is deleted and created again with the request `cluster
create` sent, waited for, and its new host keys are pinned. LiveExecutor + the provider's
handlers + the real tpu_v2 client over REST against `responses`; every request body is checked
against the tpu.v2 discovery document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import responses

from tests.providers.queued_resource.test_provider import (
    BASE,
    BOOT,
    COMPUTE,
    GUEST,
    PARENT,
    REF,
    FakeTime,
    Recorder,
    _operation,
    _project,
    node,
    provider,
    run,
)
from tests.support.discovery import check_request
from xcli.plan.render import plan_json
from xcli.plan.steps import ApiCall
from xcli.providers.queued_resource import planner as qr_plan

QR = f"{BASE}/queuedResources/boot"


def _dry_run_body() -> dict[str, Any]:
    """What `cluster create --dry-run` shows for the create (the same step object it prints)."""
    (create,) = [s for s in qr_plan.plan_create(BOOT).steps if s.id == "create"]
    assert isinstance(create, ApiCall)
    return json.loads(json.dumps(create.body))  # type: ignore[no-any-return]


def _as_read(state: str, initiator: str = "SERVICE") -> dict[str, Any]:
    """The queued resource as `get` returns it: the body sent, plus output-only fields."""
    return {
        **_dry_run_body(),
        "name": f"{PARENT}/queuedResources/boot",
        "createTime": "2026-11-22T10:00:00Z",
        "state": {"state": state, "stateInitiator": initiator},
    }


@responses.activate
def test_only_a_suspension_by_the_service_counts_as_lost() -> None:
    fake, now = FakeTime(), {"state": ("ACTIVE", "SERVICE")}
    responses.add_callback(
        responses.GET, QR, callback=lambda _r: (200, {}, json.dumps(_as_read(*now["state"])))
    )
    for state, initiator, lost in (
        ("SUSPENDED", "SERVICE", True),
        ("SUSPENDING", "SERVICE", True),
        ("SUSPENDED", "USER", False),  # the user's own suspension is left alone
        ("ACTIVE", "SERVICE", False),
        ("FAILED", "SERVICE", False),  # its cause needs reading first
    ):
        now["state"] = (state, initiator)
        assert (provider(fake).capacity_lost(REF) is not None) is lost, (state, initiator)


def register_recovery() -> list[dict[str, Any]]:
    """The recorded API from the suspension on: delete, 404, create (its bodies are kept in
    the list returned), WAITING_FOR_RESOURCES -> PROVISIONING -> ACTIVE, then SSH access."""
    sent: list[dict[str, Any]] = []

    def delete_answer(_request: Any) -> tuple[int, dict[str, str], str]:
        responses.replace(responses.GET, QR, status=404, json={"error": {"code": 404}})
        return 200, {}, json.dumps({"name": f"{PARENT}/operations/del-1"})

    responses.add_callback(responses.DELETE, QR, callback=delete_answer)

    def create_answer(request: Any) -> tuple[int, dict[str, str], str]:
        sent.append(json.loads(request.body))
        responses.replace(responses.GET, QR, json=_as_read("WAITING_FOR_RESOURCES"))
        responses.add(responses.GET, QR, json=_as_read("PROVISIONING"))
        responses.add(responses.GET, QR, json=_as_read("ACTIVE"))
        return 200, {}, json.dumps({"name": f"{PARENT}/operations/create-1"})

    responses.add_callback(responses.POST, f"{BASE}/queuedResources", callback=create_answer)
    responses.get(f"{BASE}/nodes/boot", json=node({}))
    responses.patch(f"{BASE}/nodes/boot", json={"name": f"{PARENT}/operations/p"})
    _operation("p")
    responses.post(f"{BASE}/nodes/boot:getGuestAttributes", json=GUEST)
    _project()

    return sent


@responses.activate
def test_a_suspended_slice_is_recreated_with_the_dry_runs_request(isolated_home: Path) -> None:
    fake, reporter = FakeTime(), Recorder()
    known = isolated_home / "state" / "known_hosts"
    known.parent.mkdir(parents=True, exist_ok=True)
    old = "10.0.0.9,34.0.0.9 ssh-ed25519 AAAAC3OLD xcli:my-proj/us-east5-b/boot/boot/w0\n"
    known.write_text(old)
    responses.get(QR, json=_as_read("SUSPENDED"))
    lost = provider(fake).capacity_lost(REF)
    assert lost is not None
    plan = provider(fake).plan_recover(REF, lost)
    # the dry-run of the recovery shows the very request `cluster create` showed
    (create,) = [s for s in plan.steps if s.id == "create"]
    assert isinstance(create, ApiCall) and create.body == _dry_run_body()
    assert lost.reason == "queued resource boot SUSPENDED by the Cloud TPU service (preempted)"
    assert create.url == f"{BASE}/queuedResources?queuedResourceId=boot"
    check_request(create.api, create.method, str(create.url), create.body)
    printed = {s["id"]: s for s in json.loads(plan_json(plan))["plan"]}
    created = {s["id"]: s for s in json.loads(plan_json(qr_plan.plan_create(BOOT)))["plan"]}
    assert printed["create"]["request"] == created["create"]["request"]  # both dry-runs
    assert printed["delete"]["request"]["url"] == QR  # no ?force=true

    sent = register_recovery()

    results = run(plan, fake, reporter)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "ok"), [
        r.error for r in results.values()
    ]
    assert sent == [_dry_run_body()]  # same id, same body
    calls = [(c.request.method, c.request.url.split("?")[0]) for c in responses.calls]
    delete = next(c.request for c in responses.calls if c.request.method == "DELETE")
    assert "force" not in delete.url  # a SUSPENDED queued resource needs no force
    assert calls.index(("DELETE", QR)) < calls.index(("POST", f"{BASE}/queuedResources"))
    assert ("GET", COMPUTE) in calls
    states = [m for m in reporter.messages if m.startswith("wait-active")]
    assert states[-1].startswith("wait-active: boot: ACTIVE")
    # the old host key is gone, the new VM's is pinned
    assert known.read_text() == (
        "10.0.0.2,34.0.0.2 ssh-ed25519 AAAAC3NzaHOST xcli:my-proj/us-east5-b/boot/boot/w0\n"
    )
