"""The queued-resource provider's own options, checked before anything is planned.

The CLI hands them over as plain values (click's names, files already read); this module, the
only one that reads them by name, turns them into one frozen QrOptions (Registry.options, once
per request) or raises a UserError naming the flag.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from xcli.errors import UserError
from xcli.spec import ClusterSpec, ProviderOptions, parse_duration

DEFAULT_KEY = "~/.ssh/xcli_ed25519"
_LABEL = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
_LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}$")
_TAG = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
_METADATA_KEY = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_USER = re.compile(r"^[a-z_][a-z0-9_.-]{0,31}$")
_RESERVED_METADATA = ("ssh-keys",)


@dataclass(frozen=True)
class QrOptions(ProviderOptions):
    runtime_version: str | None = None
    network: str | None = None
    subnetwork: str | None = None
    internal_ips: bool = False
    service_account: str | None = None
    scopes: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    tags: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    valid_until: int | None = None  # seconds in the queue before the request expires
    valid_after: int | None = None  # seconds before the request may be served
    valid_after_time: str | None = None  # RFC 3339, UTC
    ssh_key: str = DEFAULT_KEY
    ssh_user: str = "xcli"
    wait: bool = True
    os_login: bool = False  # import the key with the OS Login API instead of ssh-keys metadata

    @property
    def node_os_login(self) -> str | None:
        """The node's own enable-oslogin metadata (it overrides the project's), upper-cased."""
        value = dict(self.metadata).get("enable-oslogin")
        return value.upper() if value is not None else None


def _pairs(values: Iterable[str], flag: str) -> list[tuple[str, str]]:
    out = []
    for item in values:
        for part in item.split(","):
            key, sep, value = part.partition("=")
            if not sep or not key:
                raise UserError(f"{flag} {part!r} is not KEY=VALUE", hint=f"e.g. {flag} team=ml")
            out.append((key.strip(), value.strip()))
    return out


def _labels(values: Iterable[str]) -> tuple[tuple[str, str], ...]:
    labels = _pairs(values, "--labels")
    for key, value in labels:
        if not _LABEL.match(key) or not _LABEL_VALUE.match(value):
            raise UserError(
                f"label {key}={value} is not a valid Google Cloud label",
                hint="keys start with a lowercase letter; keys and values use a-z 0-9 _ - "
                "(63 characters at most)",
            )
    return tuple(labels)


def _tags(values: Iterable[str]) -> tuple[str, ...]:
    tags = tuple(t.strip() for v in values for t in v.split(",") if t.strip())
    for tag in tags:
        if not _TAG.match(tag):
            raise UserError(
                f"network tag {tag!r} is not valid",
                hint="tags use lowercase letters, digits and hyphens, 63 characters at most",
            )
    return tags


def _metadata(
    values: Iterable[str], files: Iterable[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    items = _pairs(values, "--metadata") + list(files)
    seen: set[str] = set()
    for key, _ in items:
        if not _METADATA_KEY.match(key):
            raise UserError(f"metadata key {key!r} is not valid", hint="use a-z A-Z 0-9 _ -")
        if key in seen:
            raise UserError(f"metadata key {key!r} is given twice", hint="give each key once")
        if key in _RESERVED_METADATA:
            raise UserError(
                "ssh-keys metadata is managed by xcli",
                hint="pass your key with --ssh-key FILE instead",
            )
        if key == "enable-oslogin" and dict(items)[key].upper() not in ("TRUE", "FALSE"):
            raise UserError(
                f"enable-oslogin={dict(items)[key]} is neither TRUE nor FALSE",
                hint="--metadata enable-oslogin=TRUE (or FALSE)",
            )
        seen.add(key)
    return tuple(items)


def _rfc3339(text: str) -> str:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UserError(
            f"--valid-after-time {text!r} is not a time",
            hint="write it in RFC 3339, e.g. 2026-12-01T08:00:00Z",
        ) from None
    if when.tzinfo is None:
        raise UserError(
            f"--valid-after-time {text!r} has no time zone", hint="end it with Z or +HH:MM"
        )
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _duration(value: object, flag: str) -> int | None:
    if value in (None, ""):
        return None
    seconds = parse_duration(str(value), flag)
    if seconds <= 0:
        raise UserError(f"{flag} must be longer than 0s", hint="e.g. 6h")
    return seconds


def qr_options(raw: Mapping[str, object]) -> QrOptions:
    """Check the provider's option values (as the CLI gives them) and freeze them."""
    valid_after = _duration(raw.get("valid_after_duration"), "--valid-after-duration")
    after_time = raw.get("valid_after_time")
    if valid_after is not None and after_time:
        raise UserError(
            "--valid-after-duration and --valid-after-time cannot be combined",
            hint="give the earliest start once",
        )
    valid_until = _duration(raw.get("valid_until_duration"), "--valid-until-duration")
    if valid_after is not None and valid_until is not None:
        raise UserError(
            "--valid-after-duration cannot be combined with --valid-until-duration",
            hint="the API takes one queueing window; use --valid-after-time T with "
            "--valid-until-duration D (a window from T to T+D)",
        )
    user = str(raw.get("ssh_user") or local_user())
    if not _USER.match(user):
        raise UserError(f"SSH user {user!r} is not a valid Linux user name", hint="e.g. alice")
    scopes = tuple(s.strip() for v in _seq(raw.get("scopes")) for s in v.split(",") if s.strip())
    files = _files(raw.get("metadata_from_file"))
    metadata = _metadata(_seq(raw.get("metadata")), files)
    os_login = _os_login(bool(raw.get("os_login")), dict(metadata).get("enable-oslogin"))
    if os_login and raw.get("ssh_user"):
        raise UserError(
            "--ssh-user cannot be combined with OS Login",
            hint="with OS Login the login user is your OS Login POSIX user name; drop --ssh-user",
        )
    return QrOptions(
        runtime_version=_str(raw.get("runtime_version")),
        network=_str(raw.get("network")),
        subnetwork=_str(raw.get("subnetwork")),
        internal_ips=bool(raw.get("internal_ips")),
        service_account=_str(raw.get("service_account")),
        scopes=scopes,
        labels=_labels(_seq(raw.get("labels"))),
        tags=_tags(_seq(raw.get("tags"))),
        metadata=metadata,
        valid_until=valid_until,
        valid_after=valid_after,
        valid_after_time=_rfc3339(str(after_time)) if after_time else None,
        ssh_key=_str(raw.get("ssh_key")) or DEFAULT_KEY,
        ssh_user=user,
        wait=not raw.get("async_"),
        os_login=os_login,
    )


def create_options(raw: Mapping[str, object]) -> QrOptions:
    """`cluster create`'s options (Registry.options): a key named with --ssh-key must be an
    SSH private key file of this machine (UserKeys), checked before anything else of them."""
    if raw.get("ssh_key"):
        from xcli.providers.queued_resource.access import check_user_key

        check_user_key(str(raw["ssh_key"]))
    return qr_options(raw)


def of(spec: ClusterSpec) -> QrOptions:
    """The spec's QrOptions; a spec built without options gets the defaults."""
    found = spec.options
    if isinstance(found, QrOptions):
        return found
    if type(found) is ProviderOptions:
        return qr_options({})
    raise TypeError(f"a queued-resource spec carries {type(found).__name__}, not QrOptions")


def wait_options(ssh_key: str | None, ssh_user: str | None, os_login: bool) -> QrOptions:
    """`cluster wait`'s login flags (--ssh-key, --ssh-user, --os-login), checked as create's."""
    return qr_options({"ssh_key": ssh_key, "ssh_user": ssh_user, "os_login": os_login})


def _os_login(flag: bool, node_value: str | None) -> bool:
    """--os-login, or the node's enable-oslogin=TRUE; a node's FALSE contradicts --os-login."""
    if node_value is not None and node_value.upper() == "FALSE":
        if flag:
            raise UserError(
                "--os-login contradicts --metadata enable-oslogin=FALSE",
                hint="drop one of them",
            )
        return False
    return flag or node_value is not None


def local_user() -> str:
    """This machine's user name when it is a usable login name, else xcli (as gcloud does)."""
    name = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    return name if _USER.match(name) and name != "root" else "xcli"


def _str(value: object) -> str | None:
    return str(value) if value not in (None, "") else None


def _seq(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _files(value: object) -> list[tuple[str, str]]:
    if not isinstance(value, (list, tuple)):
        return []
    return [(str(k), str(v)) for k, v in value]
