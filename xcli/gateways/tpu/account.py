"""Who the caller is and how it logs in to TPU VMs: project metadata, OS Login, the e-mail.

Three small REST calls that have no client in this project's dependencies, sent through the
TPU gateway's google-auth AuthorizedSession (same credentials, same error translation):
- compute.projects.get (Compute Engine v1): the project's commonInstanceMetadata, to see whether
  the project turns OS Login on (`enable-oslogin`), in which case VMs ignore ssh-keys metadata;
- OS Login v1 users.importSshPublicKey: POST .../users/{email}:importSshPublicKey?projectId=P with
  an SshPublicKey body ({"key": "ssh-ed25519 AAAA... comment"}); the answer's
  loginProfile.posixAccounts[] names the POSIX user to log in as (the primary one);
- the caller's e-mail: service-account credentials carry it (`service_account_email`); user
  credentials may hold an id token with an `email` claim; otherwise Google's tokeninfo endpoint
  answers for the access token (Google's OAuth 2.0 tokeninfo endpoint, TOKENINFO in
  xcli/plan/tpu_steps.py).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.tpu.api import TpuGateway
from xcli.plan.tpu_steps import TOKENINFO


class TpuAccount:
    def __init__(self, tpu: TpuGateway) -> None:
        self.tpu = tpu

    def _send(self, what: str, method: str, url: str, body: Any = None) -> dict[str, Any]:
        """One request; an HTTP error becomes a CloudError whose status is the API's."""
        with self.tpu._errors():  # a host not reached: one CloudError (reach.py)
            response = self.tpu.session.request(method, url, json=body, timeout=self.tpu.timeout)
        data: dict[str, Any] = response.json() if response.content else {}
        if response.status_code >= 400:
            error = data.get("error", {}) if isinstance(data.get("error"), dict) else {}
            status = str(error.get("status") or response.status_code)
            hint = "check the account's roles on the project and that the API is enabled"
            if status in ("PERMISSION_DENIED", "403") and "oslogin" in url:
                hint = (
                    "OS Login needs roles/compute.osLogin (or osAdminLogin) on the project and "
                    "the OS Login API enabled"
                )
            raise CloudError(
                f"{what} failed: {error.get('message') or response.reason}",
                hint=hint,
                status=status,
            )
        return data

    def project_metadata(self, url: str) -> dict[str, str]:
        """GET compute/v1/projects/P -> its commonInstanceMetadata items as a dict."""
        project = self._send("reading the project's metadata", "GET", url)
        items = project.get("commonInstanceMetadata", {}).get("items", [])
        return {str(i.get("key")): str(i.get("value", "")) for i in items if i.get("key")}

    def import_ssh_key(self, url: str, body: Mapping[str, Any]) -> str:
        """POST users/{email}:importSshPublicKey; the primary POSIX user name of the profile."""
        answer = self._send("importing the SSH key with OS Login", "POST", url, dict(body))
        accounts = answer.get("loginProfile", {}).get("posixAccounts", [])
        chosen = next((a for a in accounts if a.get("primary")), accounts[0] if accounts else {})
        username = str(chosen.get("username", ""))
        if not username:
            raise CloudError(
                "the OS Login API imported the key but returned no POSIX user name",
                hint="check your OS Login profile (roles/compute.osLogin on the project)",
                status="FAILED_PRECONDITION",
            )
        return username

    def caller_email(self) -> str:
        creds = self.tpu.credentials
        email = _email_of(creds)
        if email:
            return email
        import google.auth.transport.requests

        with self.tpu._errors():
            if not creds.valid:
                creds.refresh(google.auth.transport.requests.Request())
        email = _email_of(creds)  # compute-engine credentials learn it on refresh
        if email:
            return email
        with self.tpu._errors():
            response = self.tpu.session.post(
                TOKENINFO, data={"access_token": creds.token}, timeout=self.tpu.timeout
            )
        info = response.json() if response.content else {}
        if response.status_code >= 400 or not info.get("email"):
            raise CloudError(
                "cannot tell which account xcli runs as (needed for OS Login)",
                hint="log in again with application default credentials that include the "
                "userinfo.email scope, or use a service account",
                status="UNAUTHENTICATED",
            )
        return str(info["email"])


def _email_of(creds: Any) -> str | None:
    account = getattr(creds, "service_account_email", None)
    if isinstance(account, str) and "@" in account:
        return account
    token = getattr(creds, "id_token", None)
    if isinstance(token, str) and token.count(".") == 2:
        payload = token.split(".")[1]
        try:
            claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except ValueError:
            return None
        email = claims.get("email") if isinstance(claims, dict) else None
        return str(email) if email else None
    return None
