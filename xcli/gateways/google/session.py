"""The one way xcli's REST gateways (Compute Engine, the storage APIs, Cloud Logging) reach
Google: application-default credentials, refused as one error with a hint, and google-auth's
AuthorizedSession (a requests.Session) over them. Imported lazily, on a gateway's first call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xcli.errors import NoCredentials
from xcli.gateways.google import gke_errors as errs

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"


def authorized_session(credentials: Any = None, scopes: Sequence[str] = (CLOUD_PLATFORM,)) -> Any:
    """An AuthorizedSession on `credentials`, or on the application-default ones."""
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError
    from google.auth.transport.requests import AuthorizedSession

    if credentials is None:
        try:
            credentials, _ = google.auth.default(scopes=list(scopes))
        except DefaultCredentialsError:
            raise NoCredentials(
                "no Google credentials found", hint=errs.NO_CREDENTIALS_HINT
            ) from None
    return AuthorizedSession(credentials)  # type: ignore[no-untyped-call]
