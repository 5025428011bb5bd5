"""`workload create --pathways` and its flags (xcli/workload/pathways/; docs/pathways.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from xcli.errors import UserError
from xcli.workload.request import PathwaysOptions

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--pathways",
        is_flag=True,
        help="Run with Pathways: one JAX program (the head, on the cluster's CPU pool) drives "
        "every slice; the cluster needs `cluster create --pathways` (docs/pathways.md).",
    ),
    click.option(
        "--headless",
        is_flag=True,
        help="--pathways without a program: start the Pathways side only, then connect to it "
        "from a notebook (JAX_BACKEND_TARGET); no --command.",
    ),
    click.option(
        "--pathways-version",
        metavar="TAG",
        help="Tag of the Pathways server and proxy images (default jax-0.9.0); match the JAX "
        "of your image. Never `latest` unless you say so.",
    ),
    click.option(
        "--pathways-gcs-location",
        metavar="gs://B/P",
        help="Scratch location of the Pathways servers, in a bucket of your project (required "
        "with --pathways).",
    ),
    click.option(
        "--elastic-slices",
        type=click.IntRange(0, 1024),
        default=0,
        help="With --pathways: training goes on with up to N slices missing (your program "
        "handles the failure, e.g. with pathwaysutils.elastic).",
    ),
    click.option(
        "--max-slice-restarts",
        type=click.IntRange(1, 1000),
        default=None,
        help="With --elastic-slices: restarts of each slice's hosts before the workload fails "
        "[default: 1].",
    ),
]

_ONLY_WITH = ("headless", "pathways_version", "pathways_gcs_location")


def options_from(flags: dict[str, Any]) -> PathwaysOptions | None:
    """The Pathways options, or None without --pathways (its flags then refused)."""
    if not flags.pop("pathways", False):
        given = [f for f in _ONLY_WITH if flags.get(f)]
        given += [
            f for f, d in (("elastic_slices", 0), ("max_slice_restarts", None)) if flags[f] != d
        ]
        if given:
            name = "--" + given[0].replace("_", "-")
            raise UserError(
                f"{name} applies only with --pathways", hint=f"add --pathways, or drop {name}"
            )
        for f in (*_ONLY_WITH, "elastic_slices", "max_slice_restarts"):
            flags.pop(f, None)
        return None
    restarts = flags.pop("max_slice_restarts")
    if restarts is not None and not flags["elastic_slices"]:  # it would be dropped silently
        raise UserError(
            "--max-slice-restarts applies only with --elastic-slices",
            hint="add --elastic-slices N, or drop --max-slice-restarts",
        )
    found = PathwaysOptions(
        gcs_location=flags.pop("pathways_gcs_location"),
        version=flags.pop("pathways_version"),
        headless=flags.pop("headless"),
        elastic_slices=flags.pop("elastic_slices"),
        max_slice_restarts=1 if restarts is None else restarts,
    )
    if found.headless and flags.get("command"):
        raise UserError(
            "--headless starts only the Pathways side; it takes no --command",
            hint="drop --command and connect to it from a notebook, or drop --headless",
        )
    return found
