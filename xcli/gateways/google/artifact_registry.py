"""Artifact Registry (artifactregistry.v1) over REST with google-auth: the live handler of the
`ar_repository` step, and the Google credentials a registry push sends.

Requests as the discovery document of artifactregistry.v1 defines them (in the pinned
google-api-python-client, `googleapiclient/discovery_cache/documents/artifactregistry.v1.json`):
`GET v1/{name}` (projects.locations.repositories.get), `POST v1/{parent}/repositories?
repositoryId=ID` with a Repository body (.create, a long-running Operation polled with
`GET v1/{name}` until `done`). Registry credentials: user `oauth2accesstoken`, password an
OAuth2 access token for the cloud-platform scope, the method Artifact Registry documents for
*.pkg.dev and the gcr.io hosts (cloud.google.com/artifact-registry/docs/docker/authentication,
"Access token"); the token is refreshed before each push as it lives about an hour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.backoff import PollPolicy, Timing, poll, timed_out
from xcli.gateways.google.session import CLOUD_PLATFORM, authorized_session
from xcli.image.google_hosts import is_google_registry
from xcli.image.steps import AR_API, ArReaderGrant, ArRepository
from xcli.plan.contract import Handler, StepContext


def _message(resp: Any) -> str:
    try:
        return str(resp.json().get("error", {}).get("message", "")) or resp.text[:200]
    except ValueError:
        return resp.text[:200] or f"HTTP {resp.status_code}"


class ArtifactRegistry:
    def __init__(
        self, session: Any = None, *, timing: Timing | None = None, credentials: Any = None
    ) -> None:
        self._session = session
        self._credentials = credentials
        self.timing = timing or Timing()
        self.poll = PollPolicy()

    @property
    def session(self) -> Any:
        if self._session is None:
            self._session = authorized_session(self._credentials)
        return self._session

    def handlers(self) -> dict[str, Handler]:
        return {"ar_repository": self.ensure, "ar_reader": self.grant_reader}

    def grant_reader(self, step: ArReaderGrant, ctx: StepContext) -> Mapping[str, Any]:
        from xcli.gateways.google.ar_reader import grant_reader

        return grant_reader(self.session, step, ctx)

    def ensure(self, step: ArRepository, ctx: StepContext) -> Mapping[str, Any]:
        name = f"{step.parent}/repositories/{step.repository}"
        resp = self.session.get(f"{AR_API}/{name}")
        if resp.status_code == 200:
            return {"created": False, "name": name}
        if resp.status_code != 404:
            raise self._error(resp, f"reading Artifact Registry repository {name}")
        ctx.report(f"repository {name} does not exist: creating it (format DOCKER)")
        resp = self.session.post(
            f"{AR_API}/{step.parent}/repositories",
            params={"repositoryId": step.repository},
            json=step.body(),
        )
        if resp.status_code == 409:  # created meanwhile by another run
            return {"created": False, "name": name}
        if resp.status_code != 200:
            raise self._error(resp, f"creating Artifact Registry repository {name}")
        operation = resp.json()
        if not operation.get("done"):
            url = f"{AR_API}/{operation['name']}"

            def check() -> dict[str, Any] | None:
                answer: dict[str, Any] = self.session.get(url).json()
                return answer if answer.get("done") else None

            operation = poll(
                check,
                delays=self.poll.delays("ar_repository"),
                timeout=300.0,
                timing=self.timing,
                cancelled=ctx.cancelled,
                on_timeout=lambda s: timed_out(f"creating repository {name}", s),
                first_wait=True,
            )
        if operation.get("error"):
            raise CloudError(
                f"creating repository {name} failed: {operation['error'].get('message', '')}",
                hint="check that the Artifact Registry API is enabled in the project",
            )
        return {"created": True, "name": name}

    @staticmethod
    def _error(resp: Any, doing: str) -> CloudError:
        hint = {
            403: "enable the Artifact Registry API and check roles/artifactregistry.admin "
            "(or pass --image-repository to an existing repository)",
            401: "sign in with `gcloud auth application-default login`",
        }.get(resp.status_code, "try again later")
        return CloudError(f"{doing}: HTTP {resp.status_code}: {_message(resp)}", hint=hint)


def google_credentials(host: str) -> tuple[str, str] | None:
    """Basic credentials for a Google registry host (a fresh access token); None elsewhere."""
    if not is_google_registry(host):
        return None
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError
    from google.auth.transport.requests import Request

    try:
        creds, _ = google.auth.default(scopes=[CLOUD_PLATFORM])
        creds.refresh(Request())  # type: ignore[no-untyped-call]
    except DefaultCredentialsError:
        raise CloudError(
            f"no Google credentials to reach {host}",
            hint="sign in with `gcloud auth application-default login`",
        ) from None
    return ("oauth2accesstoken", str(creds.token))
