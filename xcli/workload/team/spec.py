"""`xcli team create` flags, checked: the team's name and its quotas per accelerator. Pure."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from xcli.errors import UserError

# A team is a namespace: a DNS-1123 label. Its ClusterQueue is `xcli-team-<team>`, so the
# name keeps room for the prefix within 63 characters.
TEAM_NAME_MAX = 50
RESERVED = ("default", "kube-system", "kube-public", "kube-node-lease", "kueue-system")


@dataclass(frozen=True)
class Quota:
    """Chips of one accelerator type (a family such as v6e, or one shape such as v6e-256)."""

    type: str  # as typed, lowercased: v6e, v6e-256, h100-80gb
    family: str  # the catalogue family: v6e, h100-80gb
    shape: str  # "" for a whole family, else the canonical shape name (v6e-256)
    resource: str  # google.com/tpu or nvidia.com/gpu
    chips: int
    borrowing_limit: int | None = None  # None: may borrow without limit from the cohort
    lending_limit: int | None = None  # None: lends all its unused quota


@dataclass(frozen=True)
class TeamSpec:
    cluster: str
    team: str
    quotas: tuple[Quota, ...]
    weight: str = "1"  # fairSharing.weight (a Kubernetes quantity)

    @property
    def namespace(self) -> str:
        return self.team


def check_team(team: str) -> str:
    from xcli.spec import check_name

    check_name(team, "team", TEAM_NAME_MAX)
    if team in RESERVED or team.startswith("kube-"):
        raise UserError(
            f"team name {team!r} is a namespace Kubernetes or Kueue already uses",
            hint="pick the team's own name, e.g. --team research",
        )
    return team


def resolve_type(text: str, flag: str) -> tuple[str, str, str]:
    """(family, shape or "", resource) of an accelerator type or family; did-you-mean if not."""
    from xcli.catalog import families, family_names, lookup

    name = text.strip().lower()
    tpu_prefixes = {rules.prefix: family for family, rules in families().items()}
    if name in family_names() or name in tpu_prefixes:
        family = tpu_prefixes.get(name, name)
        resource = "google.com/tpu" if family in families() else "nvidia.com/gpu"
        return family, "", resource
    try:
        acc = lookup(name)
    except UserError:
        names = list(dict.fromkeys([*family_names(), *tpu_prefixes]))
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.4)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise UserError(
            f"{flag}: unknown accelerator type {text!r}",
            hint=hint + "a family (v6e, v5p, h100-80gb) or a shape (v6e-256); "
            "`xcli catalog list` shows them",
        ) from None
    return acc.family, acc.name, acc.resource_name


# Far above any cluster (a v5p pod is 8,960 chips; GKE allows 65,000 nodes); keeps every quota
# an exact integer well inside Kubernetes' int64 quantities.
MAX_CHIPS = 1_000_000


def _pairs(text: str, flag: str) -> list[tuple[str, int]]:
    pairs: list[tuple[str, int]] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, sep, count = part.partition("=")
        count = count.strip()
        if not sep or not kind.strip() or not (count.isascii() and count.isdigit()):
            raise UserError(
                f"{flag}: {part!r} is not TYPE=CHIPS", hint=f"e.g. {flag} v6e=64,h100-80gb=16"
            )
        if int(count) > MAX_CHIPS:
            raise UserError(
                f"{flag}: {part[:40]!r} is over {MAX_CHIPS:,} chips",
                hint="give the chips the team may use, at most " + f"{MAX_CHIPS:,}",
            )
        pairs.append((kind.strip().lower(), int(count)))
    if not pairs:
        raise UserError(f"{flag} is empty", hint=f"e.g. {flag} v6e=64")
    return pairs


def parse_quotas(quota: str, borrowing: str | None, lending: str | None) -> tuple[Quota, ...]:
    """--quota TYPE=CHIPS[,...] with --borrowing-limit / --lending-limit in the same form."""
    found: dict[str, Quota] = {}
    for kind, chips in _pairs(quota, "--quota"):
        family, shape, resource = resolve_type(kind, "--quota")
        if chips < 1:
            raise UserError(f"--quota {kind}={chips}: a quota is at least 1 chip", hint="e.g. 64")
        if kind in found:
            raise UserError(f"--quota names {kind} twice", hint="give each type once")
        found[kind] = Quota(kind, family, shape, resource, chips)
    for flag, text in (("--borrowing-limit", borrowing), ("--lending-limit", lending)):
        for kind, chips in _pairs(text, flag) if text is not None else []:
            if kind not in found:
                raise UserError(
                    f"{flag} {kind}={chips}: {kind} has no --quota",
                    hint=f"limits apply to the quota's types: {', '.join(found)}",
                )
            old = found[kind]
            if flag == "--lending-limit" and chips > old.chips:
                raise UserError(
                    f"--lending-limit {kind}={chips} is more than its quota of {old.chips}",
                    hint=f"a team lends at most its own quota: {kind}={old.chips} or less",
                )
            field = "borrowing_limit" if flag == "--borrowing-limit" else "lending_limit"
            found[kind] = Quota(**{**old.__dict__, field: chips})
    return tuple(found.values())


def check_weight(weight: str) -> str:
    import re

    if not re.fullmatch(r"(\d+(\.\d*)?|\.\d+)", weight, re.ASCII) or float(weight) > 1_000_000:
        raise UserError(
            f"--weight {weight!r} is not a fair-sharing weight",
            hint="a non-negative number such as 1, 2 or 0.5 (0: the team only gets what is left)",
        )
    return weight
