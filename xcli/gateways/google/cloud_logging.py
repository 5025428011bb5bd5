"""Cloud Logging's logging.v2 `entries:list`, over google-auth's AuthorizedSession.

`POST https://logging.googleapis.com/v2/entries:list` with a `ListLogEntriesRequest` body
(https://cloud.google.com/logging/docs/reference/v2/rest/v2/entries/list); the answer holds
`entries` and, while more match, `nextPageToken`, sent back as `pageToken` for the next page.
The REST method applies no default time window (the client libraries add one of 24 hours
when a filter names no timestamp; this gateway sends the filter it is given).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.google.session import authorized_session

MAX_PAGES = 1000  # a runaway token loop ends here rather than never


class LoggingGateway:
    """Reads log entries. `session`: a requests.Session-like object (tests pass a plain
    requests.Session against recorded answers); None: an AuthorizedSession on the
    application-default credentials, made on first use."""

    def __init__(self, session: Any = None, *, credentials: Any = None) -> None:
        self._session = session
        self._credentials = credentials

    @property
    def session(self) -> Any:
        if self._session is None:
            self._session = authorized_session(
                self._credentials, ("https://www.googleapis.com/auth/logging.read",)
            )
        return self._session

    def list_entries(self, url: str, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every entry the request matches, following nextPageToken."""
        entries: list[dict[str, Any]] = []
        token = ""
        for _page in range(MAX_PAGES):
            request = dict(body, pageToken=token) if token else dict(body)
            resp = self.session.request("POST", url, json=request, timeout=120)
            if resp.status_code >= 400:
                raise _failed(resp, body)
            answer = resp.json() if resp.content else {}
            entries.extend(answer.get("entries") or [])
            token = str(answer.get("nextPageToken") or "")
            if not token:
                return entries
        raise CloudError(
            f"Cloud Logging kept answering with more pages after {MAX_PAGES}",
            hint="narrow the request (--log-name, --job-name) and run the command again",
        )


def _failed(resp: Any, body: Mapping[str, Any]) -> CloudError:
    try:
        message = str(resp.json().get("error", {}).get("message") or "")
    except ValueError:
        message = ""
    message = message or resp.text[:300] or "no message"
    names = ", ".join(body.get("resourceNames") or [])
    what = f"reading Cloud Logging entries of {names}: {message} (HTTP {resp.status_code})"
    if resp.status_code == 403:
        hint = (
            "ask for a role with logging.logEntries.list on the project (e.g. "
            "roles/logging.viewer), and check logging.googleapis.com is enabled"
        )
    elif resp.status_code == 404:
        hint = "check --project: Cloud Logging does not know that project"
    elif resp.status_code == 400:
        hint = "check --log-name and --job-name (quotes and backslashes are not allowed)"
    else:
        hint = "run the command again; if it keeps failing, see the message above"
    return CloudError(what, hint=hint)
