"""Flags of `xcli cluster create` for a private GKE cluster (docs/private-clusters.md).

Each value is checked here on its own (a CIDR that does not parse is refused before anything
else happens, dry-run or not); how the flags combine is checked by the GKE provider
(xcli/providers/gke/private.py), which knows what each combination means.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import click

from xcli.errors import UserError
from xcli.providers.gke.cidr import parse_cidrs


def _cidrs(ctx: click.Context, param: click.Parameter, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    flag = "--" + str(param.name).replace("_", "-")
    return tuple(str(n) for n in parse_cidrs(str(value), flag))


# a subnetwork name (compute.v1 Subnetwork.name: RFC 1035, 1-63 characters), or its path
_SUBNET = re.compile(
    r"^(?:projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/regions/[a-z]+-[a-z]+[0-9]+/subnetworks/)?"
    r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$"
)


def _subnetwork(ctx: click.Context, param: click.Parameter, value: Any) -> str | None:
    if value is None:
        return None
    if not _SUBNET.match(str(value)):
        raise UserError(
            f"--private-endpoint-subnetwork {value!r} is not a subnetwork name or path",
            hint="write NAME (a subnetwork in the cluster's region) or "
            "projects/P/regions/R/subnetworks/NAME",
        )
    return str(value)


OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--private",
        is_flag=True,
        help="Private nodes: internal IPs only, egress through Cloud NAT (gke).",
    ),
    click.option(
        "--private-endpoint",
        is_flag=True,
        help="No public IP endpoint for the control plane; xcli uses its DNS endpoint (gke).",
    ),
    click.option(
        "--authorized-networks",
        metavar="CIDR[,CIDR]",
        callback=_cidrs,
        help="Only these networks may reach the control plane's IP endpoint (gke, --private).",
    ),
    click.option(
        "--private-endpoint-subnetwork",
        metavar="SUBNET",
        callback=_subnetwork,
        help="The subnetwork of the control plane's private endpoint (a name in the cluster's "
        "region, or projects/P/regions/R/subnetworks/S); implies --private-endpoint (gke, "
        "--private).",
    ),
    click.option(
        "--master-ipv4-cidr",
        metavar="CIDR",
        callback=_cidrs,
        help="A /28 for the control plane's network, when the VPC needs one (gke, --private).",
    ),
]
