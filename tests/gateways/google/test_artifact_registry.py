"""Artifact Registry repository get and create against `responses`, every request checked
against the artifactregistry.v1 discovery document of the pinned google-api-python-client."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import responses

from tests.support.discovery import check_request
from xcli.errors import CloudError
from xcli.gateways.backoff import Timing
from xcli.gateways.google.artifact_registry import ArtifactRegistry, google_credentials
from xcli.image.steps import ArRepository
from xcli.plan.contract import NullReporter, StepContext

BASE = "https://artifactregistry.googleapis.com/v1/projects/p/locations/us-central1"
STEP = ArRepository(
    id="repository", summary="s", project="p", location="us-central1", repository="xcli"
)


def gateway() -> ArtifactRegistry:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    return ArtifactRegistry(session, timing=Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5))


def ctx() -> StepContext:
    return StepContext(STEP, NullReporter(), threading.Event(), {})


def checked() -> None:
    api = {
        ("GET", "repositories/"): "artifactregistry.projects.locations.repositories.get",
        ("POST", "repositories?"): "artifactregistry.projects.locations.repositories.create",
        ("GET", "operations/"): "artifactregistry.projects.locations.operations.get",
    }
    for call in responses.calls:
        req = call.request
        method_id = next(v for (m, part), v in api.items() if m == req.method and part in req.url)
        body: Any = json.loads(req.body) if req.body else None
        check_request(method_id, req.method, str(req.url), body, doc="artifactregistry.v1")


@responses.activate
def test_an_existing_repository_is_only_read() -> None:
    responses.get(f"{BASE}/repositories/xcli", json={"name": "x", "format": "DOCKER"})
    assert gateway().ensure(STEP, ctx())["created"] is False
    assert len(responses.calls) == 1
    checked()


@responses.activate
def test_a_missing_repository_is_created_and_waited_for() -> None:
    responses.get(f"{BASE}/repositories/xcli", status=404, json={"error": {"code": 404}})
    op = "projects/p/locations/us-central1/operations/op1"
    responses.post(f"{BASE}/repositories", json={"name": op})
    responses.get(
        f"https://artifactregistry.googleapis.com/v1/{op}", json={"name": op, "done": True}
    )
    said: list[str] = []

    class Said(NullReporter):
        def progress(self, step: Any, message: str) -> None:
            said.append(message)

    out = gateway().ensure(STEP, StepContext(STEP, Said(), threading.Event(), {}))
    assert out == {"created": True, "name": f"{BASE.split('/v1/')[1]}/repositories/xcli"}
    assert said and "does not exist: creating it" in said[0]
    create = responses.calls[1].request
    assert "repositoryId=xcli" in str(create.url)
    assert json.loads(create.body or b"{}") == STEP.body()
    checked()


@responses.activate
def test_refusals_are_one_line_with_a_hint() -> None:
    responses.get(
        f"{BASE}/repositories/xcli",
        status=403,
        json={"error": {"code": 403, "message": "Artifact Registry API has not been used"}},
    )
    with pytest.raises(CloudError) as info:
        gateway().ensure(STEP, ctx())
    assert "HTTP 403: Artifact Registry API has not been used" in info.value.message
    assert "enable the Artifact Registry API" in info.value.hint


def test_google_credentials_only_for_google_hosts() -> None:
    assert google_credentials("127.0.0.1:5000") is None
    assert google_credentials("registry-1.docker.io") is None


GOOGLE = ("gcr.io", "us.gcr.io", "EU.GCR.IO", "us-docker.pkg.dev", "europe-west4-docker.pkg.dev")
NEAR_MISSES = (
    "mygcr.io",
    "notgcr.io",
    "usgcr.io",
    "gcr.io.evil.com",
    "evil.com/gcr.io",
    "a.b.gcr.io",
    "gcr.io:8443",
    "docker.pkg.dev",
    "us-docker.pkg.dev.evil.com",
    "evil-docker.pkg.devx",
    "us.docker.pkg.dev.attacker-docker.pkg.dev.x",
    "mypkg.dev",
    "",
)


@pytest.fixture
def user_adc(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Application-default credentials of a signed-in user, refreshed against `responses`."""
    adc = tmp_path / "adc.json"
    adc.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id",
                "client_secret": "secret",
                "refresh_token": "refresh",
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    with responses.RequestsMock() as rsps:
        rsps.post(
            "https://oauth2.googleapis.com/token",
            json={"access_token": "ya29.user-token", "expires_in": 3600},
        )
        yield rsps


@pytest.mark.parametrize("host", GOOGLE)
def test_google_registry_hosts_get_the_users_token(user_adc: Any, host: str) -> None:
    assert google_credentials(host) == ("oauth2accesstoken", "ya29.user-token")


@pytest.mark.parametrize("host", NEAR_MISSES)
def test_near_miss_registry_hosts_get_no_token(user_adc: Any, host: str) -> None:
    """A bare suffix test gave `mygcr.io`, `notgcr.io` and `usgcr.io` the user's token."""
    user_adc.assert_all_requests_are_fired = False
    assert google_credentials(host) is None
    assert not user_adc.calls  # not even a token refresh
