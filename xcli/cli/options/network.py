"""`--network` / `--subnetwork`: the VPC of the cluster's VMs, for every provider that has one
(GKE clusters and queued resources; the local emulator runs on loopback)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from xcli import formats

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--network",
        metavar="NET",
        callback=formats.flag_callback(formats.network),
        help="VPC network of the cluster's VMs (default: default).",
    ),
    click.option(
        "--subnetwork",
        metavar="SUBNET",
        callback=formats.flag_callback(formats.subnetwork),
        help="Subnetwork of the cluster's VMs.",
    ),
]
