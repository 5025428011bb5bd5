"""Frozen, validated inputs. The CLI builds these from flags; the core never sees a flag.

Validation here runs before anything is planned, so bad input never causes a partial action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from xcli.catalog import Accelerator
from xcli.errors import UserError

_DURATION = re.compile(r"(\d+)([smhd])", re.ASCII)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str, what: str = "duration") -> int:
    """'90s', '30m', '6h', '7d', '1h30m' -> seconds."""
    value = text.strip().lower()
    if value.isascii() and value.isdigit():
        raise UserError(
            f"{what} {text!r} has no unit", hint="write it with a unit: 90s, 30m, 6h, 7d or 1h30m"
        )
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        raise UserError(
            f"{what} {text!r} is not a duration", hint="write it as 90s, 30m, 6h, 7d or 1h30m"
        )
    return sum(int(n) * _UNITS[u] for n, u in parts)


def format_duration(seconds: int) -> str:
    """3600 -> '1h', 5400 -> '1h30m'."""
    out = ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            out += f"{count}{unit}"
    return out or "0s"


def check_duration(text: str, what: str, low: int, high: int) -> int:
    seconds = parse_duration(text, what)
    if not low <= seconds <= high:
        raise UserError(
            f"{what} {text} is out of range",
            hint=f"use a value from {format_duration(low)} to {format_duration(high)}",
        )
    return seconds


_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


_DNS_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_K8S_NAMES = {
    # https://kubernetes.io/docs/concepts/overview/working-with-objects/names/
    "label": (re.compile(_DNS_LABEL), 63, "a DNS-1123 label: lowercase letters, digits and "
              "hyphens, at most 63, starting and ending with a letter or digit"),
    "subdomain": (re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*"), 253, "a DNS-1123 subdomain: "
                  "lowercase letters, digits, '-' and '.', at most 253, starting and ending "
                  "with a letter or digit"),
}  # fmt: skip


def is_k8s_name(value: str, form: str = "label") -> bool:
    pattern, longest, _rule = _K8S_NAMES[form]
    return pattern.fullmatch(value) is not None and len(value) <= longest


def k8s_name(value: str, what: str, form: str = "label") -> str:
    """The one check of a Kubernetes object name (`form`: "label" for namespaces and container
    names, "subdomain" for Secrets and most objects), as Kubernetes' names page defines them."""
    if is_k8s_name(value, form):
        return value
    _pattern, longest, rule = _K8S_NAMES[form]
    suggestion = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:longest].rstrip("-")
    raise UserError(
        f"{what} {value[:80]!r} is not a Kubernetes name ({rule})",
        hint=f"e.g. {what} {suggestion or 'team-a'}",
    )


def check_name(value: str, what: str, max_len: int) -> str:
    """Lowercase letters, digits and hyphens; starts with a letter, ends with a letter or digit."""
    if not value:
        raise UserError(f"{what} name is empty", hint=f"give a {what} name such as demo-1")
    rules = [
        (
            value[0].isascii() and value[0].islower() and value[0].isalpha(),
            "must start with a lowercase letter",
        ),
        (
            all(c.isascii() and (c.islower() or c.isdigit() or c == "-") for c in value),
            "may contain only lowercase letters, digits and hyphens",
        ),
        (not value.endswith("-"), "must end with a letter or a digit"),
        (len(value) <= max_len, f"is {len(value)} characters long; the limit is {max_len}"),
    ]
    for ok, rule in rules:
        if not ok:
            suggestion = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:max_len]
            suggestion = suggestion.rstrip("-")
            hint = f"try {suggestion!r}" if suggestion and _NAME.match(suggestion) else ""
            raise UserError(f"{what} name {value!r} {rule}", hint=hint or f"{what} names: a-z0-9-")
    return value


CapacityKind = Literal["on-demand", "spot", "reservation", "flex-start", "guaranteed"]


@dataclass(frozen=True)
class Capacity:
    """How the capacity is paid for and obtained."""

    kind: CapacityKind
    # name or path (see check_reservation), or several as A,B: slices fill them in that order
    reservation: str | None = None
    max_run_duration: int | None = None  # seconds, flex-start only
    min_duration: int | None = None  # seconds, guaranteed only (queued resources)

    @property
    def reservations(self) -> tuple[str, ...]:
        """The reservations in the order slices fill them ("-": any reservation)."""
        return tuple(self.reservation.split(",")) if self.reservation else ()


@dataclass(frozen=True)
class ProviderOptions:
    """What a provider's own flags asked for. Each provider subclasses it in its own folder
    (providers/<name>/options.py: GkeOptions, QrOptions, LocalOptions), built once from the
    request by that provider's options builder (Registry.options); only that provider reads
    its fields. This base, with no fields, is every provider's defaults (a spec built by hand)."""


@dataclass(frozen=True)
class TerraformMode:
    """`cluster create --terraform DIR [--apply] [--state-bucket B]`: write a deployment folder."""

    folder: str
    apply: bool = False
    state_bucket: str | None = None


@dataclass(frozen=True)
class ClusterSpec:
    """What `xcli cluster create` was asked to build."""

    name: str
    project: str
    zone: str
    provider: str
    accelerator: Accelerator
    capacity: Capacity
    num_slices: int = 1
    num_nodes: int = 1  # GPU VMs
    options: ProviderOptions = field(default_factory=ProviderOptions)  # the provider's own, typed
    force: bool = False  # --force: replace what differs (node pools; files of a Terraform folder)
    terraform: TerraformMode | None = None
    # The provider's flags as the command line gave them (click's names, defaults included):
    # only written into a Terraform folder's record and checked against what Terraform mode can
    # write. Nothing reads a setting from it: the provider's options builder has typed them.
    given: tuple[tuple[str, object], ...] = ()

    @property
    def region(self) -> str:
        return self.zone.rsplit("-", 1)[0]

    @property
    def total_chips(self) -> int:
        if self.accelerator.kind == "gpu":
            return self.accelerator.chips * self.num_nodes
        return self.accelerator.chips * self.num_slices


def terraform_from_flags(
    folder: str | None, apply: bool, state_bucket: str | None
) -> TerraformMode | None:
    """--terraform DIR [--apply] [--state-bucket B]; --apply/--state-bucket alone are refused."""
    if folder:
        return TerraformMode(folder, apply, state_bucket or None)
    for flag, given in (("--apply", apply), ("--state-bucket", bool(state_bucket))):
        if given:
            raise UserError(f"{flag} applies only with --terraform DIR", hint="add --terraform DIR")
    return None


def capacity_from_flags(
    *,
    on_demand: bool,
    spot: bool,
    reservation: str | None,
    flex_start: bool,
    guaranteed: bool = False,
    max_run_duration: str | None = None,
    min_duration: str | None = None,
    project: str | None = None,
) -> Capacity:
    """Exactly one capacity choice, with the durations that go with it; checked before any call."""
    chosen = [
        name
        for name, given in (
            ("--on-demand", on_demand),
            ("--spot", spot),
            ("--reservation", reservation is not None),
            ("--flex-start", flex_start),
            ("--guaranteed", guaranteed),
        )
        if given
    ]
    choices = "--on-demand, --spot, --reservation NAME, --flex-start --max-run-duration D"
    if not chosen:
        raise UserError("choose how to get capacity", hint=f"pass exactly one of {choices}")
    if len(chosen) > 1:
        raise UserError(
            f"{' and '.join(chosen)} cannot be combined",
            hint=f"pass exactly one of {choices}",
        )
    if max_run_duration is not None and not flex_start:
        raise UserError(
            "--max-run-duration applies only to --flex-start",
            hint="add --flex-start, or drop --max-run-duration",
        )
    if min_duration is not None and not guaranteed:
        raise UserError(
            "--min-duration applies only to --guaranteed", hint="add --guaranteed, or drop it"
        )
    if reservation is not None:
        return Capacity("reservation", reservation=check_reservation(reservation, project))
    if flex_start:
        seconds = None
        if max_run_duration is not None:
            seconds = check_duration(max_run_duration, "--max-run-duration", 3600, 7 * 86400)
        return Capacity("flex-start", max_run_duration=seconds)
    if guaranteed:
        seconds = None
        if min_duration is not None:
            seconds = check_duration(min_duration, "--min-duration", 3600, 365 * 86400)
        return Capacity("guaranteed", min_duration=seconds)
    return Capacity("spot" if spot else "on-demand")


_ID = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"  # a block or sub-block: 63 characters at most
_RESERVATION = re.compile(
    # a reservation name: 1-63 characters, [a-z]([-a-z0-9]*[a-z0-9])? (compute.v1.json,
    # Reservation.name in the pinned google-api-python-client's discovery document)
    rf"^(?:projects/[a-z][a-z0-9-]{{4,28}}[a-z0-9]/reservations/)?[a-z](?:[-a-z0-9]{{0,61}}[a-z0-9])?"
    rf"(?:/reservationBlocks/{_ID}(?:/reservationSubBlocks/{_ID})?)?$"
)
RESERVATION_FORMS = (
    "NAME, projects/P/reservations/R, with /reservationBlocks/B[/reservationSubBlocks/S] "
    "after either; several as A,B"
)


def check_reservation(value: str, project: str | None = None) -> str:
    """One reservation, or several as A,B (slices fill them in that order). Each is NAME or
    projects/P/reservations/R (a shared one), optionally with /reservationBlocks/B and
    /reservationSubBlocks/S: the values GKE's reservationAffinity takes (gcloud and XPK form)."""
    if value == "-":
        return value
    parts = value.split(",")
    for part in parts:
        if not _RESERVATION.match(part):
            raise UserError(
                f"reservation {part!r} is not a reservation name or path",
                hint=f"write {RESERVATION_FORMS}",
            )
    mine = f"projects/{project}/reservations/" if project else ""
    same = [p.removeprefix(mine) if mine else p for p in parts]  # R and projects/P/reservations/R
    if len(set(same)) != len(same):
        raise UserError(
            f"--reservation {value!r} names a reservation twice", hint="list each one once"
        )
    return value
