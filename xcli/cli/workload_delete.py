"""`xcli workload delete W | [--state S] [--older-than D] [--name-contains X]`."""

from __future__ import annotations

import click

from xcli.cli.common import Common, common_options, require_answerable
from xcli.cli.workload_ns import namespace_option
from xcli.cli.workload_read import (
    check_workload_name,
    cluster_option,
    provider_option,
    target,
    workload_argument,
    workload_name,
)
from xcli.errors import UserError


@click.command("delete")
@workload_argument
@cluster_option
@provider_option
@click.option(
    "--state",
    type=click.Choice(["queued", "running", "succeeded", "failed", "finished"]),
    help="Without a NAME: only the workloads in this state (finished: succeeded or failed).",
)
@click.option(
    "--older-than", metavar="D", help="Without a NAME: only those older than D (e.g. 7d)."
)
@click.option(
    "--name-contains",
    metavar="TEXT",
    default=None,
    help="Without a NAME: only the workloads whose name holds TEXT (XPK's --filter-by-job).",
)
@namespace_option
@common_options
def delete(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    state: str | None,
    older_than: str | None,
    name_contains: str | None,
    namespace: str,
) -> int:
    """Delete a workload (its Jobs and pods first), or, without a NAME, every xcli workload of
    the cluster's namespace that --state, --older-than and --name-contains keep (all of them
    when none is given, as XPK's `workload delete` without --workload does).

    Asks for confirmation unless --yes, naming the workloads it read. --dry-run prints the
    delete steps of a named workload; without a NAME it reads nothing, so it prints what a live
    run lists, which it keeps, and the delete it sends for each.

    \b
    Examples:
      xcli workload delete train-1 --cluster demo
      xcli workload delete --cluster demo --state succeeded --older-than 7d --yes
      xcli workload delete --cluster demo --name-contains sweep- --state queued --dry-run
      xcli workload delete train-1 --cluster demo --dry-run --output json
    """
    from xcli.app import workload as use
    from xcli.cli.wiring import deps
    from xcli.spec import parse_duration

    name = workload_name(name, workload_flag, required=False)
    selects = {"--state": state, "--older-than": older_than, "--name-contains": name_contains}
    given = [flag for flag, value in selects.items() if value is not None]
    if name is not None and given:
        raise UserError(
            f"{given[0]} selects workloads, so it goes without a NAME",
            hint=f"`xcli workload delete {name} --cluster {cluster}` deletes that one; "
            f"drop {name} to delete every one {given[0]} keeps",
        )
    seconds = parse_duration(older_than, "--older-than") if older_than else None
    if name is not None:
        check_workload_name(name)
    what = f"workload {name}" if name is not None else f"the {state or 'selected'} workloads"
    require_answerable(common, f"deleting {what} on cluster {cluster}")  # before any read
    ages = (older_than, seconds) if older_than is not None and seconds is not None else None
    where = target(common, cluster, provider, namespace)
    request = use.DeleteRequest(where, name, state, ages, common.dry_run, name_contains or "")
    use.delete(request, deps(common))
    return 0
