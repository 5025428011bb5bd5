"""Typed errors. The core raises them; only xcli/cli renders them and chooses the exit code.

Every error carries a one-line message and a hint: what the user can do next.
"""

from __future__ import annotations

from collections.abc import Callable
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


class InputErrors(UserError):
    """Every problem one command line has, each a (message, hint), reported together (issue 36:
    one run shows them all instead of one per run)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(problems[0][0], problems[0][1])
        self.problems = tuple(problems)


def collect(*checks: Callable[[], object]) -> None:
    """Run checks that do not depend on each other, each one, and raise every UserError they
    raise together (one InputErrors; a single one as it was raised)."""
    problems: list[tuple[str, str]] = []
    first: UserError | None = None
    for check in checks:
        try:
            check()
        except UserError as exc:
            first = first or exc
            more = exc.problems if isinstance(exc, InputErrors) else ((exc.message, exc.hint),)
            problems.extend(more)
    if first is not None:
        raise first if len(problems) == 1 else InputErrors(problems)


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
