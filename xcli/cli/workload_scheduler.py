"""`--scheduler` on `xcli workload create`: XPK's three values (xcli/workload/scheduling.py)."""

from __future__ import annotations

from typing import Any

import click

# Literal copies of xcli.workload.scheduling.SCHEDULERS: `xcli workload --help` imports click
# only (tests/cli check the two lists agree).
SCHEDULERS = ("default-scheduler", "gke.io/high-throughput-scheduler", "gke.io/topology-aware-auto")


def scheduler_option(func: Any) -> Any:
    return click.option(
        "--scheduler",
        type=click.Choice(SCHEDULERS),
        default="default-scheduler",
        show_default=True,
        help="gke: the pods' scheduler. gke.io/high-throughput-scheduler: GKE's scheduler for "
        "many pods; gke.io/topology-aware-auto (GPUs): GKE places all pods compactly first. "
        "Kueue topology-aware scheduling applies without it where the cluster has a Topology.",
    )(func)
