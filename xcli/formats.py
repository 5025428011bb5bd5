"""Formats of free-text values that reach request URLs and bodies, checked before any call.

Each rule follows the API's documented format (the discovery documents of the pinned
google-api-python-client, googleapiclient/discovery_cache/documents/):
- network and subnetwork names: compute.v1.json, schemas Network.name and Subnetwork.name
  ("1-63 characters long and match the regular expression `[a-z]([-a-z0-9]*[a-z0-9])?`");
  container.v1.json Cluster.network/subnetwork and tpu.v2.json NetworkConfig.network/subnetwork
  take that name. The full resource path (projects/P/global/networks/N,
  projects/P/regions/R/subnetworks/S) is also accepted, as for a Shared VPC.
- machine types: compute.v1.json MachineType.name, pattern `[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?`.
- GKE versions: container.v1.json Cluster.initialClusterVersion lists the accepted forms
  ("latest", "1.X", "1.X.Y", "1.X.Y-gke.N", "-").
- locations (zones and regions): the `{location}` path segment of file.v1 / lustre.v1
  (`projects/{project}/locations/{location}`); a zone or region name such as us-east5-b.
- service accounts: tpu.v2.json ServiceAccount.email ("Email address of the service
  account"); iam.v1.json ServiceAccount.email. Scopes: ServiceAccount.scope, OAuth 2.0 scope
  URIs (https://www.googleapis.com/auth/NAME).
- TPU runtime versions: tpu.v2.json Node.runtimeVersion only says "The runtime version running
  in the Node"; no source settles its characters, so this module takes those of every published
  version (tpu-ubuntu2204-base, v2-alpha-tpuv6e, tpu-vm-tf-2.16.1-pjrt): a-z, 0-9, '.', '_', '-'.
"""

from __future__ import annotations

import math
import re
from typing import Any

from xcli.errors import UserError

_RFC1035 = r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"
_PROJECT = r"[a-z][-a-z0-9]{4,28}[a-z0-9]"
_REGION = r"[a-z]+-[a-z]+[0-9]+"
_NETWORK = re.compile(rf"(?:projects/{_PROJECT}/global/networks/)?{_RFC1035}")
_SUBNETWORK = re.compile(rf"(?:projects/{_PROJECT}/regions/{_REGION}/subnetworks/)?{_RFC1035}")
_MACHINE = re.compile(_RFC1035)
_GKE_VERSION = re.compile(r"latest|-|1\.\d{1,3}(?:\.\d{1,3}(?:-gke\.\d{1,9})?)?")
_LOCATION = re.compile(rf"{_REGION}(?:-[a-z])?")
_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_EMAIL = re.compile(rf"[a-z0-9][-a-z0-9._]{{0,63}}@{_LABEL}(?:\.{_LABEL})+")
_SCOPE = re.compile(r"https://www\.googleapis\.com/auth/[a-z][a-z0-9._-]{0,99}")
_RUNTIME = re.compile(r"[a-z0-9][a-z0-9._-]{0,127}")


def _check(pattern: re.Pattern[str], value: str, flag: str, example: str) -> str:
    if not pattern.fullmatch(value) or ".." in value:
        raise UserError(
            f"{flag} {value[:80]!r} is not a valid value", hint=f"e.g. {flag} {example}"
        )
    return value


def network(value: str) -> str:
    return _check(_NETWORK, value, "--network", "default (or projects/P/global/networks/N)")


def subnetwork(value: str) -> str:
    return _check(_SUBNETWORK, value, "--subnetwork", "my-subnet")


def machine_type(value: str, flag: str = "--cpu-machine-type") -> str:
    return _check(_MACHINE, value, flag, "e2-standard-8")


def gke_version(value: str) -> str:
    return _check(_GKE_VERSION, value, "--gke-version", "1.34 or 1.34.1-gke.1829001 or latest")


def location(value: str, flag: str = "--location") -> str:
    return _check(_LOCATION, value, flag, "us-central1 or us-central1-a")


def service_account(value: str) -> str:
    return _check(_EMAIL, value, "--service-account", "NAME@PROJECT.iam.gserviceaccount.com")


def scope(value: str) -> str:
    return _check(_SCOPE, value, "--scopes", "https://www.googleapis.com/auth/cloud-platform")


def runtime_version(value: str) -> str:
    return _check(_RUNTIME, value, "--runtime-version", "tpu-ubuntu2204-base")


def flag_callback(check: Any) -> Any:
    """A click callback running `check` on a flag's value (each item of a repeatable flag;
    comma-separated items too); an unset flag passes as given."""

    def callback(ctx: Any, param: Any, value: Any) -> Any:
        if value is None or value == "":
            return value
        if isinstance(value, tuple):
            for item in value:
                for part in str(item).split(","):
                    check(part.strip())
            return value
        check(str(value))
        return value

    callback.pure_check = True  # type: ignore[attr-defined]  # cli/line_checks.py runs it early
    return callback


def finite(value: float | None, flag: str) -> float | None:
    """A float flag's value: a number, not nan or inf (click's FloatRange lets both through)."""
    if value is not None and not math.isfinite(value):
        raise UserError(f"{flag} {value} is not a number", hint=f"give {flag} a finite number")
    return value


def ascii_numbers(args: list[str]) -> None:
    """Refuse a number written with other digits than 0-9: Python's int() and float(), which
    click's number types call, take Arabic-Indic or full-width digits as numbers (so do
    str.isdigit and re's \\d).
    A token, or the value of --flag=VALUE, made only of digits, signs and a point counts as a
    number; free text (a command, an env value) is left alone, and so is all after '--'."""
    for arg in args:
        if arg == "--":
            return
        value = arg.partition("=")[2] if arg.startswith("--") else arg
        text = value.strip()
        if text and not text.isascii() and all(c.isdigit() or c in "+-._" for c in text):
            raise UserError(
                f"{arg[:40]!r} is written with digits other than 0-9",
                hint="write numbers with the digits 0-9",
            )
