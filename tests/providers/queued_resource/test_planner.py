"""Queued-resource plans: goldens (text and JSON), every request checked against the discovery
documents, and the refusals that must happen before any request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.support.discovery import check_request
from tests.support.qr_specs import SCENARIOS, spec
from xcli.errors import UserError
from xcli.plan.cluster import WaitLogin
from xcli.plan.model import symbolic
from xcli.plan.render import plan_json, plan_text
from xcli.plan.steps import ApiCall
from xcli.plan.tpu_steps import TpuSshAccess
from xcli.providers.queued_resource.planner import plan_create, plan_delete, plan_wait
from xcli.spec import Capacity

GOLDENS = REPO / "tests" / "goldens" / "queued_resource"


def _doc(url: str) -> str | None:
    """Cloud TPU requests are checked against the document of the URL's API version; the
    others (compute.projects.get, OS Login) against the one check_request finds by method id
    (compute.v1, oslogin.v1)."""
    if not url.startswith("https://tpu.googleapis.com/"):
        return None
    return "tpu.v2alpha1" if "/v2alpha1/" in url else "tpu.v2"


def requests_of(plan: Any) -> list[tuple[str, str, str, Any]]:
    """(api, method, url, body) of every request a plan prints, refs shown symbolically."""
    out = []
    for step in plan.steps:
        if isinstance(step, ApiCall):
            body = symbolic(step.body) if step.body is not None else None
            out.append((step.api, step.method, str(step.url), body))
        elif isinstance(step, TpuSshAccess):
            for r in step.details()["requests"]:
                if "url" in r:  # operations.get names the PATCH's answer: gateway-tested
                    out.append((r["api"], r["method"], r["url"], r.get("body")))
    return out


def _golden(path: Path, text: str, update: bool) -> None:
    if update or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed; --update-goldens"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_dry_run(name: str, update_goldens: bool) -> None:
    plan = plan_create(SCENARIOS[name])
    _golden(GOLDENS / f"{name}.txt", plan_text(plan), update_goldens)
    _golden(GOLDENS / f"{name}.json", plan_json(plan), update_goldens)
    assert plan_text(plan_create(SCENARIOS[name])) == plan_text(plan)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_request_fits_the_discovery_document(name: str) -> None:
    plans = [plan_create(SCENARIOS[name]), plan_delete("my-proj", "us-east5-b", "x")]
    for plan in plans:
        found = requests_of(plan)
        assert any(r[0].startswith("tpu.") for r in found)
        assert {r[0].split(".")[0] for r in found} <= {"tpu", "compute", "oslogin"}
        for api, method, url, body in found:
            check_request(api, method, url, body, doc=_doc(url))


def test_the_login_requests_are_among_those_checked() -> None:
    """The loop above covers Compute Engine and OS Login too, in the scenarios that use them."""
    apis = {r[0] for name in SCENARIOS for r in requests_of(plan_create(SCENARIOS[name]))}
    assert {"compute.projects.get", "oslogin.users.importSshPublicKey"} <= apis


def test_wait_plan_requests_fit_and_use_node_refs() -> None:
    plan = plan_wait("my-proj", "us-east5-b", "q", WaitLogin(ssh_user="alice"), 600)
    access = plan.by_id()["ssh-access"]
    assert access.details()["nodes"] == "${wait-active.nodes}"
    for api, method, url, body in requests_of(plan):
        check_request(api, method, url.replace("{node}", "n"), body, doc=_doc(url))


def test_shapes() -> None:
    single = plan_create(SCENARIOS["v4-8-on-demand-startup"]).by_id()["create"]
    node_spec = single.body["tpu"]["nodeSpec"][0]  # type: ignore[index]
    assert node_spec["nodeId"] == "boot" and "multisliceParams" not in node_spec
    assert node_spec["node"]["metadata"] == {"startup-script": "#!/bin/bash\necho ready\n"}
    assert not {"spot", "guaranteed", "reservationName"} & set(single.body)  # type: ignore[arg-type]

    flex = plan_create(SCENARIOS["v6e-256-x4-flex-start-6h"]).by_id()["create"]
    assert "/v2alpha1/" in str(flex.url)
    body = flex.body
    assert body["provisioningModel"] == "FLEX_START"  # type: ignore[index]
    assert body["runDuration"] == {"maxRunDuration": "21600s"}  # type: ignore[index]
    assert body["tpu"]["nodeSpec"][0]["multiNodeParams"] == {  # type: ignore[index]
        "nodeCount": 4,
        "nodeIdPrefix": "flex",
    }
    assert plan_create(SCENARIOS["v6e-256-x4-flex-start-6h"]).by_id()["ssh-access"].nodes == (
        "flex-0",
        "flex-1",
        "flex-2",
        "flex-3",
    )

    spot = plan_create(spec("s", "v6e-256", Capacity("spot"), slices=2)).by_id()["create"]
    assert spot.body["spot"] == {}  # type: ignore[index]
    multi = spot.body["tpu"]["nodeSpec"][0]["multisliceParams"]  # type: ignore[index]
    assert multi == {"nodeCount": 2, "nodeIdPrefix": "s"}

    resv = plan_create(SCENARIOS["v5p-128-reservation"]).by_id()["create"]
    assert resv.body["reservationName"] == (  # type: ignore[index]
        "projects/my-proj/locations/us-east5-b/reservations/my-res"
    )
    anyres = plan_create(spec("a", "v5p-128", Capacity("reservation", reservation="-")))
    assert anyres.by_id()["create"].body["reservationName"].endswith("/reservations/-")  # type: ignore[index]

    guaranteed = plan_create(SCENARIOS["v6e-8-guaranteed"]).by_id()["create"].body
    assert guaranteed["guaranteed"] == {"minDuration": "7200s"}  # type: ignore[index]
    assert guaranteed["queueingPolicy"] == {  # type: ignore[index]
        "validInterval": {"startTime": "2026-12-01T08:00:00Z", "endTime": "2026-12-01T20:00:00Z"}
    }


def test_async_stops_after_the_request() -> None:
    plan = plan_create(spec("q", "v5litepod-16", Capacity("spot"), async_=True))
    assert [s.id for s in plan.steps] == ["ssh-key", "os-login-check", "create"]
    assert any("xcli cluster wait" in n for n in plan.notes)


@pytest.mark.parametrize(
    ("tpu", "capacity", "options", "message"),
    [
        ("tpu7x-8", Capacity("guaranteed"), {}, "does not offer tpu7x"),
        ("h100-80gb-8", Capacity("on-demand"), {}, "GPU"),
        ("v6e-8", Capacity("flex-start"), {}, "needs --max-run-duration"),
        ("v6e-8", Capacity("spot"), {"labels": ("Bad=x",)}, "label"),
        ("v6e-8", Capacity("spot"), {"metadata": ("ssh-keys=x",)}, "managed by xcli"),
        ("v6e-8", Capacity("spot"), {"metadata": ("enable-oslogin=yes",)}, "neither TRUE"),
        (
            "v6e-8",
            Capacity("spot"),
            {"os_login": True, "metadata": ("enable-oslogin=FALSE",)},
            "contradicts",
        ),
        ("v6e-8", Capacity("spot"), {"os_login": True}, "--ssh-user cannot be combined"),
        ("v6e-8", Capacity("spot"), {"valid_after_time": "tomorrow"}, "not a time"),
        (
            "v6e-8",
            Capacity("spot"),
            {"valid_after_duration": "1h", "valid_until_duration": "2h"},
            "cannot be combined",
        ),
    ],
)
def test_refusals(tpu: str, capacity: Capacity, options: dict[str, object], message: str) -> None:
    with pytest.raises(UserError) as err:
        plan_create(spec("q", tpu, capacity, **options))
    assert message in err.value.message
    assert err.value.hint


def test_tpu7x_points_to_gke() -> None:
    with pytest.raises(UserError) as err:
        plan_create(spec("q", "tpu7x-8", Capacity("guaranteed")))
    assert "--provider gke" in err.value.hint


def test_golden_json_is_the_stable_document() -> None:
    doc = json.loads((GOLDENS / "v6e-8-guaranteed.json").read_text())
    kinds = [s["kind"] for s in doc["plan"]]
    assert kinds == ["local", "api_call", "api_call", "wait", "tpu_ssh_access"]


def test_os_login_imports_the_key_before_anything_is_created() -> None:
    plan = plan_create(SCENARIOS["v5litepod-16-os-login"])
    steps = plan.by_id()
    assert [s.id for s in plan.steps] == [
        "ssh-key",
        "caller",
        "os-login-key",
        "create",
        "wait-active",
        "ssh-access",
    ]
    assert set(steps["create"].after) == {"ssh-key", "caller", "os-login-key"}
    access = steps["ssh-access"].details()
    assert access["user"] == "${os-login-key.username}"  # known only at run time: a Ref
    assert [r["method"] for r in access["requests"]] == ["GET", "POST"]  # no metadata PATCH
    assert '"ssh-keys"' not in plan_json(plan)
    # the node's own enable-oslogin=TRUE means OS Login too, and is sent as node metadata
    implied = plan_create(
        spec("q", "v6e-8", Capacity("spot"), ssh_user=None, metadata=("enable-oslogin=TRUE",))
    )
    assert "os-login-key" in implied.by_id()
    node = implied.by_id()["create"].body["tpu"]["nodeSpec"][0]["node"]  # type: ignore[index]
    assert node["metadata"] == {"enable-oslogin": "TRUE"}
    # a node that turns it off wins over the project: no project check, metadata keys
    off = plan_create(spec("q", "v6e-8", Capacity("spot"), metadata=("enable-oslogin=FALSE",)))
    assert {"os-login-check", "caller", "os-login-key"}.isdisjoint(off.by_id())
    assert off.by_id()["ssh-access"].details()["requests"][1]["method"] == "PATCH"


def test_login_requests() -> None:
    """The exact Compute Engine and OS Login requests (their shapes are checked against the
    compute.v1 and oslogin.v1 discovery documents above, and here once more): compute.projects.get
    is GET compute/v1/projects/{project} with no body; users.importSshPublicKey is
    POST v1/{+parent}:importSshPublicKey?projectId=P whose body is an SshPublicKey (key;
    expirationTimeUsec optional; fingerprint and name are output only)."""
    check = plan_create(SCENARIOS["v5litepod-16-spot"]).by_id()["os-login-check"]
    assert isinstance(check, ApiCall)
    assert (check.api, check.method, check.url, check.body) == (
        "compute.projects.get",
        "GET",
        "https://compute.googleapis.com/compute/v1/projects/my-proj",
        None,
    )
    key = plan_create(SCENARIOS["v5litepod-16-os-login"]).by_id()["os-login-key"]
    assert isinstance(key, ApiCall)
    assert (key.api, key.method) == ("oslogin.users.importSshPublicKey", "POST")
    assert str(key.url) == (
        "https://oslogin.googleapis.com/v1/users/${caller.email}:importSshPublicKey"
        "?projectId=my-proj"
    )
    assert symbolic(key.body) == {"key": "${ssh-key.public_key}"}
    for call in (check, key):
        body = symbolic(call.body) if call.body is not None else None
        check_request(call.api, call.method, str(call.url), body)
    wait = plan_wait("my-proj", "us-east5-b", "q", WaitLogin(os_login=True), 600)
    assert [s.id for s in wait.steps] == [
        "ssh-key",
        "caller",
        "os-login-key",
        "wait-active",
        "ssh-access",
    ]
