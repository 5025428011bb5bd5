"""Flags of `xcli cluster create` for Terraform mode (shared by gke and queued-resource)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--terraform",
        "terraform",
        metavar="DIR",
        type=click.Path(file_okay=False),
        help="Write a Terraform deployment folder to DIR instead of calling the APIs "
        "(review it, keep it in git); --apply runs it. Queued resources: --on-demand only, "
        "one per slice (the provider has no spot, reservation or multislice); see "
        "docs/terraform.md.",
    ),
    click.option(
        "--state-bucket",
        metavar="BUCKET",
        help="With --terraform: keep the Terraform state in this Cloud Storage bucket "
        "(prefix xcli/<project>/<zone>/<cluster>).",
    ),
    click.option(
        "--apply",
        is_flag=True,
        default=False,
        help="With --terraform: run terraform (or tofu) init, plan and apply, asking before "
        "apply unless --yes.",
    ),
]
