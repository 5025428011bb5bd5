"""Typed errors. The core raises them; only xcli/cli renders them and chooses the exit code.

Every error carries a one-line message and a hint: what the user can do next.
"""

from __future__ import annotations

from typing import Any


class XcliError(Exception):
    """Base class of every error xcli reports to a user (exit code 1 unless a subclass says)."""

    exit_code = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UserError(XcliError):
    """Bad input: a flag, a name, a file. Raised before anything is sent anywhere."""


class ConfigError(UserError):
    """A setting (project, zone, ...) is missing or malformed."""


class NotFoundError(UserError):
    """A named thing (accelerator, cluster, workload) does not exist."""


class CloudError(XcliError):
    """A cloud API refused or failed a request (permission, quota, stockout, conflict)."""

    def __init__(self, message: str, hint: str = "", *, status: str = "", retryable: bool = False):
        super().__init__(message, hint)
        self.status = status
        self.retryable = retryable


class NoCredentials(CloudError):
    """No Google credentials were found (google-auth's DefaultCredentialsError): the CLI says
    first when the cluster named is one this machine does not know (cli/errors.py)."""


class PlanFailed(XcliError):
    """A live run finished with failed steps; the summary has already been rendered."""


class Interrupted(XcliError):
    """The user pressed Ctrl-C. `partial` holds what had run by then (a RunResult), if anything."""

    exit_code = 130

    def __init__(self, message: str, hint: str = "", *, partial: Any = None) -> None:
        super().__init__(message, hint)
        self.partial = partial


class InternalError(XcliError):
    """A bug in xcli itself."""

    exit_code = 3
