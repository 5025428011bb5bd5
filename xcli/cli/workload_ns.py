"""`--namespace NS` on every `xcli workload` command (XPK 1.16's flag of the same name).

GKE: the JobSet goes in NS, and Kueue admits it through the LocalQueue of NS: `default`'s is
the cluster's own, a team's namespace holds the team's (`xcli team create`). VM-style clusters
(queued resources, local) run the command as processes on the VMs, where no namespace exists:
a namespace other than `default` is refused there rather than silently ignored, so that a
script written for a team never runs outside the team's quota without saying so
(xcli/app/workload.py checks the value and the kind).
"""

from __future__ import annotations

from typing import Any

import click

DEFAULT = "default"


def namespace_option(func: Any) -> Any:
    return click.option(
        "--namespace",
        default=DEFAULT,
        show_default=True,
        metavar="NS",
        help="gke: the workload's namespace; a team's namespace (xcli team create) queues it "
        "in that team's quota. VM-style clusters have none: only default.",
    )(func)
