"""`xcli team create | list | delete`: teams sharing a GKE cluster through Kueue.

A team is a namespace with a LocalQueue, and a ClusterQueue in the cluster's cohort holding its
quota of chips (xcli/workload/team/). Workloads join it with `xcli workload ... --namespace`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, change_options, common_options, read_options, require_answerable
from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.plan.cluster import ClusterRef
    from xcli.workload.jobset.live import Live


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


def _where(common: Common, cluster: str) -> tuple[ClusterRef, Live]:
    """The cluster (GKE only: teams are Kueue queues) and how to reach it."""
    from xcli.cli.deps import current
    from xcli.cli.providers import registry
    from xcli.cluster_index import provider_for
    from xcli.plan.cluster import ClusterRef
    from xcli.spec import check_name
    from xcli.workload.jobset.live import Live

    check_name(cluster, "cluster", 40)
    provider = provider_for(cluster, None, "gke")
    if registry().capabilities(provider).vm_workloads:
        raise UserError(
            f"cluster {cluster} is a {provider} cluster: teams are Kueue queues on GKE clusters",
            hint="create a GKE cluster (xcli cluster create --provider gke ...) to share it",
        )
    gateways = current().workload_gateways
    live = (gateways.live if gateways is not None else None) or Live()
    return ClusterRef(cluster, common.project, common.zone, "gke"), live


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
    from xcli.cli.common import run_plan
    from xcli.workload.jobset.plan import gke_cluster_path
    from xcli.workload.team.live import handlers
    from xcli.workload.team.plan import plan_team_create
    from xcli.workload.team.spec import TeamSpec, check_team, check_weight, parse_quotas

    spec = TeamSpec(
        cluster=cluster,
        team=check_team(name),
        quotas=parse_quotas(quota, borrowing_limit, lending_limit),
        weight=check_weight(weight),
    )
    ref, live = _where(common, cluster)
    plan = plan_team_create(spec, gke_cluster_path(ref.project, ref.zone, cluster))
    return run_plan(common, plan, lambda: handlers(live, ref))


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
    from xcli.cli.common import emit
    from xcli.cli.table import print_table
    from xcli.workload.team.live import HEADERS, cells, team_rows

    ref, live = _where(common, cluster)
    rows = team_rows(live.api(ref))
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
    from xcli.cli.common import confirm, run_plan
    from xcli.workload.jobset.plan import gke_cluster_path
    from xcli.workload.team.live import handlers
    from xcli.workload.team.plan import plan_team_delete
    from xcli.workload.team.spec import TeamSpec, check_team

    spec = TeamSpec(cluster=cluster, team=check_team(name), quotas=())
    require_answerable(common, f"deleting team {name} on cluster {cluster}")
    ref, live = _where(common, cluster)
    confirm(common, f"Delete team {name} (namespace {name} and its workloads) on {cluster}?")
    plan = plan_team_delete(spec, gke_cluster_path(ref.project, ref.zone, cluster), force)
    return run_plan(common, plan, lambda: handlers(live, ref))
