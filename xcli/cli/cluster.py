"""`xcli cluster create|delete|list|describe`: the same verbs for every provider."""

from __future__ import annotations

from typing import Any

import click

from xcli import cluster_index
from xcli.app.where import CLUSTER_NAME_LIMIT
from xcli.cli import complete
from xcli.cli.common import (
    Common,
    change_options,
    common_options,
    confirm,
    emit,
    read_options,
    require_answerable,
    run_plan,
)
from xcli.cli.options import provider_options, split_options
from xcli.cli.providers import choice, location, ref_for, registry
from xcli.providers import DEFAULT

PROVIDER_CHOICE = choice()
FOUND_PROVIDER = "Default: the provider that created the cluster on this machine, else gke."


def _providers_help() -> str:
    """The providers and their help lines, from the registry (no provider module imported)."""
    import textwrap

    lines = ["Create, list, describe and delete clusters.", "", "\b", "Providers (--provider):"]
    for name in DEFAULT:
        text = textwrap.wrap(DEFAULT.help(name), 64)
        lines.append(f"  {name:<17}{text[0]}")
        lines += [" " * 19 + more for more in text[1:]]
    return "\n".join(lines)


@click.group(help=_providers_help())
def cluster() -> None:
    """Create, list, describe and delete clusters (the help text is built by _providers_help)."""


def capacity_options(func: Any) -> Any:
    options = [
        click.option("--on-demand", is_flag=True, help="On-demand capacity."),
        click.option("--spot", is_flag=True, help="Spot VMs (may be preempted)."),
        click.option(
            "--reservation",
            metavar="NAME|PATH",
            help="A reservation: NAME, projects/P/reservations/R[/reservationBlocks/B].",
        ),
        click.option(
            "--flex-start",
            "--flex",
            "flex_start",
            is_flag=True,
            help="Flex-start (Dynamic Workload Scheduler): queued until capacity frees "
            "(--flex: XPK's name for it).",
        ),
        click.option(
            "--max-run-duration",
            metavar="D",
            help="With --flex-start: how long the capacity is kept, 1h..7d.",
        ),
        click.option(
            "--guaranteed",
            is_flag=True,
            help="Queued resources: guaranteed (non-preemptible) capacity.",
        ),
        click.option(
            "--min-duration",
            metavar="D",
            help="With --guaranteed: the shortest time the capacity must be held.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@cluster.command("create")
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option("--provider", type=PROVIDER_CHOICE, default="gke", show_default=True)
@click.option(
    "--tpu-type",
    metavar="T",
    help="TPU slice shape, e.g. v6e-256 or v5p-4x4x4.",
    shell_complete=complete.accelerators,
)
@click.option(
    "--device-type",
    metavar="T",
    help="TPU or GPU shape, e.g. h100-80gb-8.",
    shell_complete=complete.accelerators,
)
@click.option(
    "--num-slices", type=click.IntRange(1, 1024), help="TPU slices (multislice) [default: 1]."
)
@click.option("--num-nodes", type=click.IntRange(1, 4096), help="GPU VMs [default: 1].")
@capacity_options
@provider_options
@common_options
def create(
    name: str,
    provider: str,
    tpu_type: str | None,
    device_type: str | None,
    num_slices: int | None,
    num_nodes: int | None,
    on_demand: bool,
    spot: bool,
    reservation: str | None,
    flex_start: bool,
    max_run_duration: str | None,
    guaranteed: bool,
    min_duration: str | None,
    common: Common,
    **options: Any,
) -> None:
    """Create a cluster, or complete one that is partly there.

    \b
    Examples:
      xcli cluster create --cluster demo --tpu-type v6e-256 --num-slices 2 --spot
      xcli cluster create --cluster g --device-type h100-80gb-8 --num-nodes 2 --on-demand
      xcli cluster create --cluster q --provider queued-resource --tpu-type v5litepod-16 --spot
    """
    from xcli.catalog import lookup
    from xcli.errors import UserError
    from xcli.spec import ClusterSpec, capacity_from_flags, check_name

    check_name(name, "cluster", CLUSTER_NAME_LIMIT)
    extra = split_options(provider, options)  # provider-only flags; others' flags are refused
    caps = registry().capabilities(provider)
    # --force replaces what differs: what a reconciling provider does itself, or Terraform does
    if extra.get("force") and not extra.get("terraform") and not caps.observer:
        raise UserError(
            f"--force applies to --provider {provider} only with --terraform DIR",
            hint="drop --force",
        )
    if bool(tpu_type) == bool(device_type):
        raise UserError(
            "pass exactly one of --tpu-type and --device-type",
            hint="e.g. --tpu-type v6e-256 or --device-type h100-80gb-8",
        )
    accel = lookup(tpu_type or device_type or "")
    check_counts(accel, tpu_type, num_slices, num_nodes)
    if extra.get("ssh_key"):  # only a provider that takes --ssh-key (VMs) has the value
        from xcli.providers.queued_resource.access import check_user_key

        check_user_key(str(extra["ssh_key"]))
    capacity = capacity_from_flags(
        on_demand=on_demand or (not caps.cloud and not (spot or reservation or flex_start)),
        spot=spot,
        reservation=reservation,
        flex_start=flex_start,
        max_run_duration=max_run_duration,
        guaranteed=guaranteed,
        min_duration=min_duration,
    )
    project, zone = location(provider, common)
    spec = ClusterSpec(
        name=name,
        project=project,
        zone=zone,
        provider=provider,
        accelerator=accel,
        capacity=capacity,
        num_slices=num_slices or 1,
        num_nodes=num_nodes or 1,
        options=extra,
    )
    from xcli.cli import terraform_mode

    if terraform_mode.requested(spec):  # provider-independent: writes a Terraform folder
        terraform_mode.create(spec, common)
        return
    backend = registry().get(provider)
    ref = ref_for(name, provider, common)
    if extra.get("force"):  # it will ask before replacing pools: refuse now if nobody can answer
        require_answerable(common, "--force (it may replace node pools)")
    observer = registry().observer(provider, backend)
    if observer is not None and not common.dry_run:
        plan = observer.plan_create(spec, observed=observer.observe(ref, "create"))
    else:  # the dry-run plans against nothing and needs no credentials; its plan says so
        plan = backend.plan_create(spec)
    checker = registry().live_checker(provider, backend)  # what only a live run can check
    if checker is not None and not common.dry_run:
        checker.check_create(spec)
    _confirm_removals(common, plan)
    if not common.dry_run:  # before running: a cluster that is partly there is found too
        cluster_index.record(name, provider)
    run_plan(common, plan, lambda: backend.handlers(ref))


def check_counts(
    accel: Any, tpu_type: str | None, num_slices: int | None, num_nodes: int | None
) -> None:
    """Refuse flags that do not apply to the accelerator, rather than ignore them."""
    from xcli.errors import UserError

    if tpu_type and accel.kind != "tpu":
        raise UserError(
            f"{tpu_type} is a GPU, and --tpu-type takes TPU shapes",
            hint=f"pass it with --device-type {tpu_type}",
        )
    if accel.kind == "tpu" and num_nodes is not None:
        raise UserError(
            f"--num-nodes counts GPU VMs; {accel.name} is a TPU slice",
            hint="drop --num-nodes: a slice's VMs follow from its shape; use --num-slices "
            "for more slices",
        )
    if accel.kind == "gpu" and num_slices is not None:
        raise UserError(
            f"--num-slices counts TPU slices; {accel.name} is a GPU",
            hint="use --num-nodes for more GPU VMs",
        )


def _confirm_removals(common: Common, plan: Any) -> None:
    from xcli.plan.operations import destructive_steps

    doomed = destructive_steps(plan)
    if doomed:
        confirm(common, "This will " + "; ".join(doomed) + ". Continue?")


@cluster.command("delete")
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option("--provider", type=PROVIDER_CHOICE, help=FOUND_PROVIDER)
@click.option(
    "--terraform",
    "terraform_dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="For a cluster made with --terraform DIR: terraform destroy in that folder.",
)
@common_options
def delete(name: str, provider: str | None, terraform_dir: str | None, common: Common) -> None:
    """Delete a cluster and everything xcli created for it.

    \b
    Example:
      xcli cluster delete --cluster demo --yes
    """
    if terraform_dir is not None:
        from xcli.cli import terraform_mode

        terraform_mode.delete(name, terraform_dir, common)
        return
    provider = cluster_index.provider_for(name, provider, "gke")
    backend = registry().get(provider)
    ref = ref_for(name, provider, common)
    # Ask first: nothing is read (no credentials, no API call) for an answer that may be no.
    confirm(common, f"Delete cluster {name} ({provider}) and everything xcli created for it?")
    observer = registry().observer(provider, backend)
    if observer is not None and not common.dry_run:
        plan = observer.plan_delete(ref, observed=observer.observe(ref, "delete"))
    else:
        plan = backend.plan_delete(ref)
    vm_workloads = registry().capabilities(provider).vm_workloads
    if vm_workloads and not common.dry_run:
        _stop_workloads(name, provider)
    run_plan(common, plan, lambda: backend.handlers(ref))
    if not common.dry_run:
        cluster_index.forget(name, provider)
    if vm_workloads and not common.dry_run:
        from xcli.vm_runs import end_with_cluster

        end_with_cluster(name, provider)


def _stop_workloads(name: str, provider: str) -> None:
    """VM workloads still running on the cluster are stopped first, while their workers can
    still be reached, so their records end as `stopped` rather than as a failure."""
    from xcli.gateways.workload_driver import stop
    from xcli.vm_runs import running_on

    for folder in running_on(name, provider):
        click.echo(f"stopping workload {folder.name} (its cluster is being deleted)", err=True)
        stop(folder)


@cluster.command("list")
@click.option("--provider", type=PROVIDER_CHOICE, default="gke", show_default=True)
@read_options
def list_(provider: str, common: Common) -> None:
    """List clusters with accelerator, slices, capacity type and status."""
    from dataclasses import asdict

    from xcli.cli.table import print_table

    zone = common.zone_flag  # the region is a filter here, not a requirement
    rows = registry().get(provider).list_clusters(location(provider, common)[0], zone)
    if common.output != "text":
        emit(common.output, [asdict(r) for r in rows])
        return
    extra = sorted({k for r in rows for k in r.extra})  # provider columns, e.g. age
    print_table(
        ["NAME", "LOCATION", "ACCELERATOR", "SLICES", "CAPACITY", "STATUS"]
        + [k.upper().replace("_", " ") for k in extra],
        [
            [r.name, r.location, r.accelerator, str(r.slices), r.capacity, r.status]
            + [str(r.extra.get(k, "")) for k in extra]
            for r in rows
        ],
    )


@cluster.command("describe")
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option("--provider", type=PROVIDER_CHOICE, help=FOUND_PROVIDER)
@read_options
def describe(name: str, provider: str | None, common: Common) -> None:
    """Show a cluster's slices, nodes and state."""
    provider = cluster_index.provider_for(name, provider, "gke")
    info = registry().get(provider).describe(ref_for(name, provider, common))
    if common.output != "text":
        emit(common.output, info)
        return
    import yaml

    click.echo(yaml.safe_dump(dict(info), sort_keys=False).rstrip())


@cluster.command("wait")
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option(
    "--provider", type=PROVIDER_CHOICE, help=FOUND_PROVIDER.replace("gke", "queued-resource")
)
@click.option("--timeout", metavar="D", help="Give up waiting after D (default 24h).")
@click.option("--ssh-key", metavar="FILE", help="Private SSH key to authorize on the VMs.")
@click.option("--ssh-user", metavar="USER", help="Login user for that key.")
@click.option("--os-login", is_flag=True, help="Import the key with OS Login, not metadata.")
@change_options
def wait(
    name: str,
    provider: str | None,
    timeout: str | None,
    ssh_key: str | None,
    ssh_user: str | None,
    common: Common,
    os_login: bool = False,
) -> None:
    """Wait until a cluster is ready (e.g. after `create --async`), then set up SSH access.

    \b
    Example:
      xcli cluster wait --cluster q --timeout 12h
    """
    from xcli.errors import UserError
    from xcli.spec import parse_duration

    provider = cluster_index.provider_for(name, provider, "queued-resource")
    backend = registry().waiter(provider, registry().get(provider))
    if backend is None:
        raise UserError(f"--provider {provider} has nothing to wait for", hint="create waits")
    seconds = parse_duration(timeout, "--timeout") if timeout else 24 * 3600
    if ssh_key:
        from xcli.providers.queued_resource.access import check_user_key

        check_user_key(ssh_key)
    ref = ref_for(name, provider, common)
    raw: dict[str, object] = {"ssh_key": ssh_key, "ssh_user": ssh_user, "os_login": os_login}
    plan = backend.plan_wait(ref, seconds, raw)
    run_plan(common, plan, lambda: backend.handlers(ref))
