"""Flags of `xcli cluster create` that only the local provider takes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--base-port",
        type=click.IntRange(1024, 65535),
        default=None,
        metavar="PORT",
        help="Local clusters: fixed ports from PORT up (SSH, then multislice and JAX "
        "coordinator ports); default: free ports chosen at start.",
    ),
]
