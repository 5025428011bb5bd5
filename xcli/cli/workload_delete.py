"""`xcli workload delete W | --state S [--older-than D]`."""

from __future__ import annotations

import click

from xcli.cli.common import Common, common_options, confirm, require_answerable, run_plan
from xcli.cli.workload_read import (
    check_workload_name,
    cluster_option,
    cluster_ref,
    provider_option,
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
@common_options
def delete(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    state: str | None,
    older_than: str | None,
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
    from xcli.spec import parse_duration
    from xcli.workload.jobset import live as workload_live
    from xcli.workload.jobset.delete import plan_workload_delete
    from xcli.workload.jobset.plan import gke_cluster_path

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
    if provider != "gke":
        from xcli.cli.workload_vm_read import vm_delete, vm_select

        if common.dry_run:
            raise UserError(
                f"--dry-run of a {provider} workload delete is not supported",
                hint="`xcli workload status NAME --provider ...` shows what would be stopped",
            )
        return vm_delete(common, cluster, [name] if name else vm_select(cluster, state, seconds))
    ref = cluster_ref(common, cluster)
    if name is not None:
        names, state_now = [name], ""
        if not common.dry_run:
            from xcli.workload.jobset.view import jobset_state

            # refuses an unknown name, listing the real ones
            state_now = f" ({jobset_state(workload_live.get_jobset(ref, name))})"
        question = f"Delete workload {name}{state_now} on cluster {cluster}?"
    else:
        names, _ = workload_live.select_deletions(ref, state, seconds)
        age = f" older than {older_than}" if older_than else ""
        if not names:
            click.echo(f"no {state} workloads{age} on cluster {cluster}", err=True)
            return 0
        click.echo(f"{state} workloads{age}: {', '.join(names)}", err=True)
        question = f"Delete these {len(names)} workload(s) on cluster {cluster}?"
    confirm(common, question)
    path = gke_cluster_path(common.project, common.zone, cluster)
    plan = plan_workload_delete(names, path, cluster)
    return run_plan(common, plan, lambda: workload_live.handlers(ref))
