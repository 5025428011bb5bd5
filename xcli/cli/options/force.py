"""`--force` of `xcli cluster create`, shared by gke and queued-resource (see its help)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--force",
        is_flag=True,
        default=False,
        help="gke: replace node pools of another shape (asks first unless --yes). "
        "With --terraform DIR: write even though DIR holds files xcli did not write.",
    ),
]
