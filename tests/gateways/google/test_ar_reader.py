"""The `ar_reader` step against `responses`: the project number read, the repository's IAM
policy read-modify-write, every request checked against the cloudresourcemanager.v3 and
artifactregistry.v1 discovery documents of the pinned google-api-python-client (issue 32 item 4)."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import responses

from tests.support.discovery import check_request
from xcli.errors import CloudError
from xcli.gateways.backoff import Timing
from xcli.gateways.google.artifact_registry import ArtifactRegistry
from xcli.image.steps import ArReaderGrant
from xcli.plan.contract import NullReporter, StepContext

REPO = (
    "https://artifactregistry.googleapis.com/v1/projects/img/locations/us-east5/repositories/xcli"
)
CRM = "https://cloudresourcemanager.googleapis.com/v3/projects/my-proj"
STEP = ArReaderGrant(
    id="image-reader",
    summary="s",
    project="img",
    location="us-east5",
    repository="xcli",
    node_project="my-proj",
)
MEMBER = "serviceAccount:123456-compute@developer.gserviceaccount.com"
READER = "roles/artifactregistry.reader"


def gateway() -> ArtifactRegistry:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    return ArtifactRegistry(session, timing=Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5))


def run() -> Any:
    handler = gateway().handlers()["ar_reader"]
    return handler(STEP, StepContext(STEP, NullReporter(), threading.Event(), {}))


def checked() -> None:
    for call in responses.calls:
        req, url = call.request, str(call.request.url)
        if url.startswith(CRM):
            check_request(
                "cloudresourcemanager.projects.get", req.method, url, doc="cloudresourcemanager.v3"
            )
            continue
        verb = "getIamPolicy" if ":getIamPolicy" in url else "setIamPolicy"
        body: Any = json.loads(req.body) if req.body else None
        api = f"artifactregistry.projects.locations.repositories.{verb}"
        check_request(api, req.method, url, body, doc="artifactregistry.v1")


@responses.activate
def test_the_member_is_added_to_the_reader_role_with_the_etag_read() -> None:
    responses.get(CRM, json={"name": "projects/123456", "projectId": "my-proj"})
    other = {"role": "roles/artifactregistry.writer", "members": ["user:a@example.com"]}
    responses.get(f"{REPO}:getIamPolicy", json={"version": 1, "etag": "BwX=", "bindings": [other]})
    responses.post(f"{REPO}:setIamPolicy", json={"etag": "BwY="})
    assert run() == {"project_number": "123456", "granted": True}
    sent = json.loads(responses.calls[2].request.body or b"{}")
    assert sent == {
        "policy": {
            "version": 1,
            "etag": "BwX=",
            "bindings": [other, {"role": READER, "members": [MEMBER]}],
        }
    }
    assert "options.requestedPolicyVersion=3" in str(responses.calls[1].request.url)
    checked()


@responses.activate
def test_nothing_is_written_when_the_nodes_already_pull() -> None:
    responses.get(CRM, json={"name": "projects/123456"})
    binding = {"role": "roles/artifactregistry.writer", "members": [MEMBER]}
    responses.get(f"{REPO}:getIamPolicy", json={"etag": "BwX=", "bindings": [binding]})
    assert run() == {"project_number": "123456", "granted": False}
    assert len(responses.calls) == 2
    checked()


@responses.activate
def test_a_concurrent_change_is_read_again() -> None:
    responses.get(CRM, json={"name": "projects/123456"})
    responses.get(f"{REPO}:getIamPolicy", json={"etag": "a"})
    responses.post(f"{REPO}:setIamPolicy", status=409, json={"error": {"status": "ABORTED"}})
    responses.get(f"{REPO}:getIamPolicy", json={"etag": "b", "bindings": []})
    responses.post(f"{REPO}:setIamPolicy", json={"etag": "c"})
    assert run()["granted"] is True
    assert json.loads(responses.calls[4].request.body or b"{}")["policy"]["etag"] == "b"
    checked()


@responses.activate
def test_a_repository_xcli_may_not_change_says_what_to_ask_for() -> None:
    responses.get(CRM, json={"name": "projects/123456"})
    responses.get(f"{REPO}:getIamPolicy", json={"etag": "a"})
    responses.post(
        f"{REPO}:setIamPolicy", status=403, json={"error": {"message": "Permission denied"}}
    )
    with pytest.raises(CloudError) as err:
        run()
    assert "HTTP 403: Permission denied" in err.value.message
    assert "ImagePullBackOff" in err.value.message
    assert err.value.hint == (
        "ask an owner of the repository to run: gcloud artifacts repositories "
        "add-iam-policy-binding xcli --location us-east5 --project img "
        f"--member {MEMBER} --role {READER}"
    )
