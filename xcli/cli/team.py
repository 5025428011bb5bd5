"""`xcli team create | list | delete`: teams sharing a GKE cluster through Kueue.

A team is a namespace with a LocalQueue, and a ClusterQueue in the cluster's cohort holding its
quota of chips (xcli/workload/team/). Workloads join it with `xcli workload ... --namespace`.
"""

from __future__ import annotations

from typing import Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, change_options, common_options, read_options


@click.group()
def team() -> None:
    """Teams on a GKE cluster: a namespace, a queue and a quota of chips each.

    \b
    Each team gets a namespace, a LocalQueue in it and a Kueue ClusterQueue in the cluster's
    cohort. Its quota is taken from the cluster's own queue (which `default` uses); what a
    queue leaves unused, the others may borrow, and an owner takes it back by preemption.
    Run workloads in a team with `xcli workload create --namespace TEAM ...`.
    """


def _cluster_option(func: Any) -> Any:
    return click.option(
        "--cluster", required=True, help="The GKE cluster.", shell_complete=complete.clusters
    )(func)


@team.command("create")
@_cluster_option
@click.option("--team", "name", required=True, help="Team name: also its namespace.")
@click.option(
    "--quota",
    required=True,
    metavar="TYPE=CHIPS[,...]",
    help="Chips the team is guaranteed, per accelerator type of the cluster: a family (v6e, "
    "h100-80gb) or a shape (v6e-256).",
)
@click.option(
    "--borrowing-limit",
    metavar="TYPE=CHIPS[,...]",
    help="At most this many chips above its quota, borrowed from the cohort (default: no limit).",
)
@click.option(
    "--lending-limit",
    metavar="TYPE=CHIPS[,...]",
    help="At most this many of its unused chips lent to others (default: all of them).",
)
@click.option(
    "--weight",
    default="1",
    show_default=True,
    help="Fair-sharing weight for chips nobody has reserved (Kueue fairSharing.weight).",
)
@change_options
def create(
    common: Common,
    cluster: str,
    name: str,
    quota: str,
    borrowing_limit: str | None,
    lending_limit: str | None,
    weight: str,
) -> int:
    """Create a team (or change its quota: running it again applies the new one).

    \b
    Examples:
      xcli team create --cluster demo --team research --quota v6e=64
      xcli team create --cluster demo --team prod --quota v6e=128 \\
          --borrowing-limit v6e=64 --lending-limit v6e=32 --weight 2
      xcli team create --cluster demo --team research --quota v6e=64 --dry-run -o json
    """
    from xcli.app import team as use_case
    from xcli.cli.wiring import deps

    request = use_case.CreateRequest(
        cluster, name, quota, borrowing_limit, lending_limit, weight, common
    )
    use_case.create(request, deps(common))
    return 0


@team.command("list")
@_cluster_option
@read_options
def list_teams(common: Common, cluster: str) -> int:
    """Each team's quota, chips in use, chips borrowed, and pending and admitted workloads.

    \b
    The cluster's own queue (namespace default) is the first row; QUOTA is what Kueue
    guarantees, USED what admitted workloads hold (BORROWED of it above the quota).

    \b
    Examples:
      xcli team list --cluster demo
      xcli team list --cluster demo --output json
    """
    from xcli.app import team as use_case
    from xcli.cli.common import emit
    from xcli.cli.table import print_table
    from xcli.cli.wiring import deps
    from xcli.workload.team.live import HEADERS, cells

    rows = use_case.list_teams(use_case.ListRequest(cluster, common), deps(common))
    if common.output != "text":
        emit(common.output, rows)
    elif not rows:
        click.echo(f"no queues on cluster {cluster}: it was not set up by xcli", err=True)
    else:
        print_table(HEADERS, [cells(r) for r in rows])
    return 0


@team.command("delete")
@_cluster_option
@click.option("--team", "name", required=True, help="The team to delete.")
@click.option("--force", is_flag=True, help="Delete it even while its workloads run (stops them).")
@common_options
def delete(common: Common, cluster: str, name: str, force: bool) -> int:
    """Delete a team: its namespace (and everything in it), its queues; its chips go back.

    Refuses while workloads of the team are admitted, unless --force. Asks first, unless --yes.

    \b
    Examples:
      xcli team delete --cluster demo --team research
      xcli team delete --cluster demo --team research --force --yes
      xcli team delete --cluster demo --team research --dry-run
    """
    from xcli.app import team as use_case
    from xcli.cli.wiring import deps

    use_case.delete(use_case.DeleteRequest(cluster, name, force, common), deps(common))
    return 0
