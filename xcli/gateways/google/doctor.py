"""The live side of `xcli doctor`'s reads: which credentials google-auth finds and whose they are,
and GETs whose refusals are answers, not failures.

Every request goes through google-auth's AuthorizedSession (gateways/google/session.py), so tests
run the real google-auth against `responses`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError, NoCredentials
from xcli.gateways.google import gke_errors as errs
from xcli.plan.contract import StepContext
from xcli.plan.doctor_steps import TOKENINFO, CheckRead, CredentialsRead

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"

# google-auth's credential classes -> what a person calls them
KINDS = {
    "google.oauth2.credentials.Credentials": "user account",
    "google.oauth2.service_account.Credentials": "service account key",
    "google.auth.compute_engine.credentials.Credentials": "VM service account",
    "google.auth.impersonated_credentials.Credentials": "impersonated service account",
    "google.auth.external_account.Credentials": "workload identity federation",
    "google.auth.identity_pool.Credentials": "workload identity federation",
}


def _kind(credentials: Any) -> str:
    for cls in type(credentials).__mro__:
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name in KINDS:
            return KINDS[name]
    return type(credentials).__name__


class DoctorGateway:
    def __init__(self, session: Any = None) -> None:
        self._session = session

    @property
    def session(self) -> Any:
        if self._session is None:
            from xcli.gateways.google.session import authorized_session

            self._session = authorized_session()
        return self._session

    def credentials(self, step: CredentialsRead, ctx: StepContext) -> Mapping[str, Any]:
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError, RefreshError
        from google.auth.transport.requests import AuthorizedSession, Request

        try:
            creds, project = google.auth.default(scopes=[CLOUD_PLATFORM])
        except DefaultCredentialsError:
            raise NoCredentials(
                "no Google credentials found", hint=errs.NO_CREDENTIALS_HINT
            ) from None
        kind = _kind(creds)
        if os.environ.get("GOOGLE_APPLICATION_CREDENTIALS"):
            source = "GOOGLE_APPLICATION_CREDENTIALS"
        elif kind == "VM service account":
            source = "the metadata server"
        else:
            source = "gcloud's application-default credentials file"
        try:
            creds.refresh(Request())  # type: ignore[no-untyped-call]
        except RefreshError as exc:
            raise CloudError(
                f"the {kind} credentials from {source} were refused: {exc}",
                hint="log in again: gcloud auth application-default login",
            ) from None
        self._session = AuthorizedSession(creds)  # type: ignore[no-untyped-call]
        email = getattr(creds, "service_account_email", None)
        if not email or email == "default":
            resp = self._session.get(TOKENINFO, params={"access_token": creds.token}, timeout=30)
            email = resp.json().get("email") if resp.status_code == 200 else None
        return {"kind": kind, "source": source, "email": email, "project": project}

    def read(self, step: CheckRead, ctx: StepContext) -> Mapping[str, Any]:
        resp = self.session.request(step.method, str(step.url), timeout=60)
        try:
            answer = resp.json() if resp.content else {}
        except ValueError:
            answer = {}
        out: dict[str, Any] = {"status": resp.status_code}
        if resp.status_code >= 400:
            error = answer.get("error", {}) if isinstance(answer, dict) else {}
            out["message"] = str(error.get("message") or resp.text[:300])
        else:
            out["answer"] = answer
        return out


def handlers(gateway: DoctorGateway | None = None) -> dict[str, Any]:
    g = gateway or DoctorGateway()
    return {"credentials_read": g.credentials, "check_read": g.read}
