"""`cluster create --ml-diagnostics`: the nodes' default service account gets the roles XPK
grants, on the project, read-modify-write against `responses` (a concurrent change is read
again; nothing is written when every role has it); the requests fit cloudresourcemanager.v3."""

from __future__ import annotations

import json
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest
import responses

from tests.support.discovery import check_request
from xcli.errors import CloudError
from xcli.gateways.backoff import Timing
from xcli.gateways.google.project_iam import ProjectIamGateway
from xcli.gateways.google.rest import RestGateway
from xcli.plan.contract import NullReporter, StepContext
from xcli.plan.ml_diagnostics import ROLES, grant_step

STEP = grant_step("my-proj")
URL = "https://cloudresourcemanager.googleapis.com/v3/projects/my-proj"
MEMBER = "serviceAccount:123-compute@developer.gserviceaccount.com"
APIS = {"": "get", ":getIamPolicy": "getIamPolicy", ":setIamPolicy": "setIamPolicy"}


def gateway() -> ProjectIamGateway:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    timing = Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5)
    return ProjectIamGateway(RestGateway(session, timing=timing))


def ctx() -> StepContext:
    return StepContext(STEP, NullReporter(), threading.Event(), {})


def sent() -> list[Any]:
    out = []
    for call in responses.calls:
        req = call.request
        verb = urlsplit(req.url).path.rsplit("my-proj", 1)[-1]
        body = json.loads(req.body) if req.body else None
        check_request(
            f"cloudresourcemanager.projects.{APIS[verb]}",
            req.method,
            req.url,
            body,
            doc="cloudresourcemanager.v3",
        )
        out.append(body)
    return out


@responses.activate
def test_each_role_gets_the_member_and_a_changed_policy_is_read_again() -> None:
    responses.get(URL, json={"name": "projects/123", "projectId": "my-proj"})
    owner = {"role": "roles/owner", "members": ["user:o"]}
    responses.post(f"{URL}:getIamPolicy", json={"bindings": [owner], "etag": "e1"})
    responses.post(f"{URL}:getIamPolicy", json={"bindings": [owner], "etag": "e2"})
    responses.post(f"{URL}:setIamPolicy", status=409, json={"error": {"code": 409, "message": "x"}})
    responses.post(f"{URL}:setIamPolicy", json={})
    assert gateway().grant(STEP, ctx()) == {"project_number": "123", "granted": "true"}
    bodies = sent()
    last = bodies[-1]["policy"]
    assert last["etag"] == "e2" and last["version"] == 3
    assert last["bindings"] == [owner, *({"role": r, "members": [MEMBER]} for r in ROLES)]
    assert bodies[1] == {"options": {"requestedPolicyVersion": 3}}


@responses.activate
def test_nothing_is_written_when_every_role_has_the_member() -> None:
    responses.get(URL, json={"name": "projects/123"})
    bindings = [{"role": r, "members": [MEMBER]} for r in ROLES]
    responses.post(f"{URL}:getIamPolicy", json={"bindings": bindings, "etag": "e"})
    assert gateway().grant(STEP, ctx())["granted"] == "false"
    assert len(sent()) == 2


@responses.activate
def test_a_refusal_names_the_grant_to_ask_for() -> None:
    responses.get(URL, json={"name": "projects/123"})
    responses.post(f"{URL}:getIamPolicy", json={"bindings": [], "etag": "e"})
    responses.post(
        f"{URL}:setIamPolicy", status=403, json={"error": {"code": 403, "message": "denied"}}
    )
    with pytest.raises(CloudError, match="denied") as caught:
        gateway().grant(STEP, ctx())
    assert "roles/logging.logWriter" in (caught.value.hint or "")
