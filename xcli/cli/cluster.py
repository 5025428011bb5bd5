"""`xcli cluster create|delete|list|describe`: the same verbs for every provider."""

from __future__ import annotations

from typing import Any

import click

from xcli.cli.common import Common, common_options, confirm, emit_json, run_plan
from xcli.cli.options import provider_options, split_options

PROVIDER_CHOICE = click.Choice(["gke", "queued-resource", "local"])
# GKE's own limit is 40; providers may check tighter limits of their own (derived names)
CLUSTER_NAME_LIMIT = 40


@click.group()
def cluster() -> None:
    """Create, list, describe and delete clusters.

    \b
    Providers (--provider):
      gke              a GKE cluster with one TPU node pool per slice (or a GPU pool),
                       JobSet and Kueue installed (default)
      queued-resource  Cloud TPU queued resources, TPU VMs without Kubernetes
      local            an emulated slice on this machine, no cloud account needed
    """


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
            is_flag=True,
            help="Flex-start (Dynamic Workload Scheduler): queued until capacity frees.",
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
@click.option("--cluster", "name", required=True, help="Cluster name.")
@click.option("--provider", type=PROVIDER_CHOICE, default="gke", show_default=True)
@click.option("--tpu-type", metavar="T", help="TPU slice shape, e.g. v6e-256 or v5p-4x4x4.")
@click.option("--device-type", metavar="T", help="TPU or GPU shape, e.g. h100-80gb-8.")
@click.option("--num-slices", type=click.IntRange(1, 1024), default=1, show_default=True)
@click.option(
    "--num-nodes", type=click.IntRange(1, 4096), default=1, show_default=True, help="GPU VMs."
)
@capacity_options
@provider_options
@common_options
def create(
    name: str,
    provider: str,
    tpu_type: str | None,
    device_type: str | None,
    num_slices: int,
    num_nodes: int,
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
    from xcli.providers import get_provider
    from xcli.spec import ClusterSpec, capacity_from_flags, check_name

    check_name(name, "cluster", CLUSTER_NAME_LIMIT)
    extra = split_options(provider, options)  # provider-only flags; others' flags are refused
    if bool(tpu_type) == bool(device_type):
        raise UserError(
            "pass exactly one of --tpu-type and --device-type",
            hint="e.g. --tpu-type v6e-256 or --device-type h100-80gb-8",
        )
    accel = lookup(tpu_type or device_type or "")
    capacity = capacity_from_flags(
        on_demand=on_demand or (_cloudless(provider) and not (spot or reservation or flex_start)),
        spot=spot,
        reservation=reservation,
        flex_start=flex_start,
        max_run_duration=max_run_duration,
        guaranteed=guaranteed,
        min_duration=min_duration,
    )
    project, zone = _location(provider, common)
    spec = ClusterSpec(
        name=name,
        project=project,
        zone=zone,
        provider=provider,
        accelerator=accel,
        capacity=capacity,
        num_slices=num_slices,
        num_nodes=num_nodes,
        options=extra,
    )
    from xcli.cli import terraform_mode

    if terraform_mode.requested(spec):  # provider-independent: writes a Terraform folder
        terraform_mode.create(spec, common)
        return
    backend = get_provider(provider)
    ref = _ref(name, provider, common)
    plan = backend.plan_create(spec, **_observed(backend, ref, common, "create"))
    check = getattr(backend, "check_create", None)  # what only a live run can check
    if check is not None and not common.dry_run:
        check(spec)
    _confirm_removals(common, plan)
    run_plan(common, plan, lambda: backend.handlers(ref))


def _observed(backend: Any, ref: Any, common: Common, purpose: str) -> dict[str, Any]:
    """A live run plans against what exists (read by the provider's gateways); the dry-run
    plans against nothing, needs no credentials, and its plan says so."""
    observe = getattr(backend, "observe", None)
    if common.dry_run or observe is None:
        return {}
    return {"observed": observe(ref, purpose)}


def _confirm_removals(common: Common, plan: Any) -> None:
    from xcli.plan.operations import destructive_steps

    doomed = destructive_steps(plan)
    if doomed:
        confirm(common, "This will " + "; ".join(doomed) + ". Continue?")


def _ref(name: str, provider: str, common: Common) -> Any:
    from xcli.providers.base import ClusterRef
    from xcli.spec import check_name

    check_name(name, "cluster", CLUSTER_NAME_LIMIT)
    project, zone = _location(provider, common)
    return ClusterRef(name=name, project=project, zone=zone, provider=provider)


def _cloudless(provider: str) -> bool:
    """A provider without a cloud (local) needs no project, zone or capacity choice."""
    return provider == "local"


def _location(provider: str, common: Common) -> tuple[str, str]:
    if _cloudless(provider):
        return common.project_flag or "", common.zone_flag or ""
    return common.project, common.zone


@cluster.command("delete")
@click.option("--cluster", "name", required=True, help="Cluster name.")
@click.option("--provider", type=PROVIDER_CHOICE, default="gke", show_default=True)
@click.option(
    "--terraform",
    "terraform_dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="For a cluster made with --terraform DIR: terraform destroy in that folder.",
)
@common_options
def delete(name: str, provider: str, terraform_dir: str | None, common: Common) -> None:
    """Delete a cluster and everything xcli created for it.

    \b
    Example:
      xcli cluster delete --cluster demo --yes
    """
    from xcli.providers import get_provider

    if terraform_dir is not None:
        from xcli.cli import terraform_mode

        terraform_mode.delete(name, terraform_dir, common)
        return
    backend = get_provider(provider)
    ref = _ref(name, provider, common)
    plan = backend.plan_delete(ref, **_observed(backend, ref, common, "delete"))
    confirm(common, f"Delete cluster {name} ({provider}) and everything xcli created for it?")
    if provider != "gke" and not common.dry_run:
        _stop_workloads(name, provider)
    run_plan(common, plan, lambda: backend.handlers(ref))
    if provider != "gke" and not common.dry_run:
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
@common_options
def list_(provider: str, common: Common) -> None:
    """List clusters with accelerator, slices, capacity type and status."""
    from dataclasses import asdict

    from xcli.cli.table import print_table
    from xcli.providers import get_provider

    zone = common.zone_flag  # the region is a filter here, not a requirement
    rows = get_provider(provider).list_clusters(_location(provider, common)[0], zone)
    if common.output == "json":
        emit_json([asdict(r) for r in rows])
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
@click.option("--cluster", "name", required=True, help="Cluster name.")
@click.option("--provider", type=PROVIDER_CHOICE, default="gke", show_default=True)
@common_options
def describe(name: str, provider: str, common: Common) -> None:
    """Show a cluster's slices, nodes and state."""
    from xcli.providers import get_provider

    info = get_provider(provider).describe(_ref(name, provider, common))
    if common.output == "json":
        emit_json(info)
        return
    import yaml

    click.echo(yaml.safe_dump(dict(info), sort_keys=False).rstrip())


@cluster.command("wait")
@click.option("--cluster", "name", required=True, help="Cluster name.")
@click.option("--provider", type=PROVIDER_CHOICE, default="queued-resource", show_default=True)
@click.option("--timeout", metavar="D", help="Give up waiting after D (default 24h).")
@click.option("--ssh-key", metavar="FILE", help="Private SSH key to authorize on the VMs.")
@click.option("--ssh-user", metavar="USER", help="Login user for that key.")
@click.option("--os-login", is_flag=True, help="Import the key with OS Login, not metadata.")
@common_options
def wait(
    name: str,
    provider: str,
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
    from xcli.providers import get_provider
    from xcli.spec import parse_duration

    backend: Any = get_provider(provider)
    if not hasattr(backend, "plan_wait"):
        raise UserError(f"--provider {provider} has nothing to wait for", hint="create waits")
    seconds = parse_duration(timeout, "--timeout") if timeout else 24 * 3600
    ref = _ref(name, provider, common)
    raw = {"ssh_key": ssh_key, "ssh_user": ssh_user, "os_login": os_login}
    plan = backend.plan_wait(ref, seconds, raw)
    run_plan(common, plan, lambda: backend.handlers(ref))
