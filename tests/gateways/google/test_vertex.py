"""The Vertex AI Tensorboard step (cluster create --vertex-tensorboard) against `responses`:
one of the display name is kept (the first, as XPK), none is created and its operation polled to
the end, a refusal is one CloudError; every request fits aiplatform.v1's discovery document."""

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
from xcli.gateways.google.rest import RestGateway
from xcli.gateways.google.vertex import VertexGateway
from xcli.plan.contract import NullReporter, StepContext
from xcli.plan.vertex import CREATE, LIST, POLL, tensorboard_step

STEP = tensorboard_step("my-proj", "us-west1", "tb-testing", "demo")
BASE = "https://us-west1-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-west1"
BOARD = "projects/my-proj/locations/us-west1/tensorboards/123"
OP = f"{BOARD}/operations/9"


def gateway() -> VertexGateway:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    timing = Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5)
    return VertexGateway(RestGateway(session, timing=timing))


def ctx() -> StepContext:
    return StepContext(STEP, NullReporter(), threading.Event(), {})


def _checked(calls: Any) -> list[str]:
    """Each request sent, checked against aiplatform.v1, as "METHOD path"."""
    apis = {"GET": LIST, "POST": CREATE}
    out = []
    for call in calls:
        req = call.request
        path = urlsplit(req.url).path
        api = POLL if "/operations/" in path else apis[req.method]
        body = json.loads(req.body) if req.body else None
        check_request(api, req.method, req.url, body)
        out.append(f"{req.method} {path.rsplit('/', 1)[-1]}")
    return out


@responses.activate
def test_none_of_the_name_is_created_and_its_operation_polled_to_the_end() -> None:
    responses.get(
        f"{BASE}/tensorboards",
        json={
            "tensorboards": [{"name": f"{BOARD}0", "displayName": "other"}],
            "nextPageToken": "t",
        },
    )
    responses.get(f"{BASE}/tensorboards", json={"tensorboards": []})
    responses.post(f"{BASE}/tensorboards", json={"name": OP, "done": False})
    url = f"https://us-west1-aiplatform.googleapis.com/v1/{OP}"
    responses.get(url, json={"name": OP, "done": False})
    responses.get(url, json={"name": OP, "done": True, "response": {"name": BOARD}})
    assert gateway().ensure(STEP, ctx()) == {"tensorboard": BOARD, "id": "123"}
    sent = _checked(responses.calls)
    assert sent == ["GET tensorboards", "GET tensorboards", "POST tensorboards", "GET 9", "GET 9"]
    assert "pageToken=t" in responses.calls[1].request.url  # the second page was read
    assert json.loads(responses.calls[2].request.body) == STEP.body()  # as the dry-run prints


@responses.activate
def test_the_first_of_the_display_name_is_kept_and_nothing_is_created() -> None:
    boards = [
        {"name": BOARD, "displayName": "tb-testing"},
        {"name": f"{BOARD}4", "displayName": "tb-testing"},
    ]
    responses.get(f"{BASE}/tensorboards", json={"tensorboards": boards})
    assert gateway().ensure(STEP, ctx()) == {"tensorboard": BOARD, "id": "123"}
    assert _checked(responses.calls) == ["GET tensorboards"]


@responses.activate
def test_a_refusal_or_a_failed_operation_is_one_cloud_error() -> None:
    responses.get(f"{BASE}/tensorboards", json={})
    responses.post(
        f"{BASE}/tensorboards",
        status=403,
        json={"error": {"code": 403, "message": "Vertex AI API has not been used"}},
    )
    with pytest.raises(CloudError, match="Vertex AI API has not been used") as caught:
        gateway().ensure(STEP, ctx())
    assert "aiplatform.googleapis.com" in (caught.value.hint or "")
    responses.replace(
        "POST", f"{BASE}/tensorboards", json={"name": OP, "done": True, "error": {"message": "no"}}
    )
    with pytest.raises(CloudError, match="tb-testing in us-west1: no"):
        gateway().ensure(STEP, ctx())
