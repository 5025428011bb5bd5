"""Step kinds of `xcli doctor`: reads only.

JSON form (every step also has id, kind, summary, after):
- credentials_read: "how" (where google-auth looks, in order) and "whose" (how the identity is
  found: the service account's email, or Google's tokeninfo for a user's token)
- check_read: the api_call fields (api, request {method, url}); its live handler never fails the
  plan: a refused read is an answer (the HTTP status and Google's message) the checks judge
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.model import Step
from xcli.plan.steps import ApiCall

# google.auth.default()'s order (google-auth `google/auth/_default.py`, `default`)
ADC_ORDER = (
    "GOOGLE_APPLICATION_CREDENTIALS (a key or credential file)",
    "gcloud's application-default file (gcloud auth application-default login)",
    "the metadata server (a Compute Engine, GKE or Cloud TPU VM's service account)",
)
TOKENINFO = "https://oauth2.googleapis.com/tokeninfo"


@dataclass(frozen=True, kw_only=True)
class CredentialsRead(Step):
    """Find the application-default credentials and whose they are."""

    kind: ClassVar[str] = "credentials_read"

    def details(self) -> dict[str, Any]:
        return {
            "how": "google.auth.default(): " + "; then ".join(ADC_ORDER),
            "whose": f"a service account's email, else GET {TOKENINFO}?access_token=${{token}}",
        }


@dataclass(frozen=True, kw_only=True)
class CheckRead(ApiCall):
    """A GET whose answer, refused or not, is judged by a check (never fails the run)."""

    kind: ClassVar[str] = "check_read"
