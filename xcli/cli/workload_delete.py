"""`xcli workload delete W | --state S [--older-than D]`."""

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
    type=click.Choice(["succeeded", "failed"]),
    help="Delete every xcli workload in this state (instead of naming one).",
)
@click.option("--older-than", metavar="D", help="With --state: only those older than D (e.g. 7d).")
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
    namespace: str,
) -> int:
    """Delete a workload (its Jobs and pods first), or every finished one in a state.

    Asks for confirmation unless --yes. --dry-run prints the delete steps of a named
    workload; selecting by --state needs to read the cluster, so preview that with
    `xcli workload list --state S`.

    \b
    Examples:
      xcli workload delete train-1 --cluster demo
      xcli workload delete --cluster demo --state succeeded --older-than 7d --yes
      xcli workload delete train-1 --cluster demo --dry-run --output json
    """
    from xcli.app import workload as use
    from xcli.cli.wiring import deps
    from xcli.spec import parse_duration

    name = workload_name(name, workload_flag, required=False)
    if (name is None) == (state is None):
        raise UserError(
            "name one WORKLOAD, or select workloads with --state",
            hint=f"`xcli workload delete NAME --cluster {cluster}` deletes one; "
            "`--state succeeded` instead of NAME deletes every succeeded one",
        )
    if older_than is not None and state is None:
        raise UserError(
            "--older-than goes with --state", hint="add --state succeeded or --state failed"
        )
    seconds = parse_duration(older_than, "--older-than") if older_than else None
    if name is not None:
        check_workload_name(name)
    what = f"workload {name}" if name is not None else f"the {state} workloads"
    require_answerable(common, f"deleting {what} on cluster {cluster}")  # before any read
    if state is not None and common.dry_run:
        raise UserError(
            "a dry-run reads nothing from the cluster, so it cannot select workloads by --state",
            hint=f"`xcli workload list --cluster {cluster} --state {state}` shows which match",
        )
    ages = (older_than, seconds) if older_than is not None and seconds is not None else None
    where = target(common, cluster, provider, namespace)
    use.delete(use.DeleteRequest(where, name, state, ages, common.dry_run), deps(common))
    return 0
