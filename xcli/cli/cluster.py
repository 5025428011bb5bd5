"""`xcli cluster create|delete|list|describe`: the same verbs for every provider."""

from __future__ import annotations

from typing import Any

import click

# check_counts: cli/workload_flags.py checks a dry-run's --tpu-type with it
from xcli.app.cluster import check_counts as check_counts
from xcli.app.where import CLUSTER_NAME_LIMIT
from xcli.cli import complete
from xcli.cli.common import (
    Common,
    change_options,
    common_options,
    emit,
    read_options,
)
from xcli.cli.help_groups import GroupedCommand
from xcli.cli.options import provider_options, split_options
from xcli.cli.providers import choice
from xcli.providers import DEFAULT

PROVIDER_CHOICE = choice()
FOUND = "Default: the provider that created the cluster on this machine, else {}."
FOUND_PROVIDER = FOUND.format(DEFAULT.default())


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
            help="A reservation: NAME or projects/P/reservations/R, optionally "
            "/reservationBlocks/B[/reservationSubBlocks/S]; several as A,B (slices fill them "
            "in order). Read and checked before anything is created.",
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


def _create_groups() -> list[tuple[str, list[str]]]:
    """`cluster create --help` headings: the shape, capacity, each provider's flags, ..."""
    from xcli.cli.options import names

    return [
        ("Cluster", ["name", "provider", "tpu_type", "device_type", "num_slices", "num_nodes"]),
        (
            "Capacity",
            [
                "on_demand",
                "spot",
                "reservation",
                "flex_start",
                "max_run_duration",
                "guaranteed",
                "min_duration",
            ],
        ),
        ("GKE (--provider gke): version, machines, image levers", names("gke")),
        ("Networking", names("network") + names("private")),
        ("Queued resources (--provider queued-resource): TPU VMs", names("queued-resource")),
        ("Local emulator (--provider local)", names("local")),
        ("Terraform (gke, queued-resource)", names("terraform")),
        ("Re-running on an existing cluster", names("force")),
        (
            "Where, output, dry-run",
            ["project_flag", "zone_flag", "output", "dry_run", "out", "yes", "help"],
        ),
    ]


@cluster.command("create", cls=GroupedCommand, groups=_create_groups)
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option("--provider", type=PROVIDER_CHOICE, help=FOUND_PROVIDER)
@click.option(
    "--tpu-type",
    metavar="T",
    help="TPU slice shape, e.g. v6e-256 or v5p-4x4x4.",
    shell_complete=complete.accelerators,
)
@click.option(
    "--device-type",
    metavar="T",
    help="TPU, GPU or CPU shape, e.g. h100-80gb-8, n2-standard-32-256 (XPK's CPU shapes).",
    shell_complete=complete.accelerators,
)
@click.option(
    "--num-slices",
    type=click.IntRange(0, 1024),
    help="TPU slices (multislice), or node pools of a CPU shape; 0: no accelerator pool yet "
    "(gke) [default: 1].",
)
@click.option("--num-nodes", type=click.IntRange(1, 4096), help="GPU VMs [default: 1].")
@capacity_options
@provider_options
@common_options
def create(
    name: str,
    provider: str | None,
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
      xcli cluster create --cluster p --tpu-type v6e-16 --spot --private \\
          --authorized-networks 10.1.0.0/16
      xcli cluster create --cluster r --tpu-type v5p-128 --num-slices 2 --reservation a,b
      xcli cluster create --cluster n --tpu-type v6e-256 --num-slices 2 --spot \\
          --enable-autoprovisioning    # GKE makes pools of any v6e shape at submit time
      xcli cluster create --cluster s --tpu-type tpu7x-4x4x4 --reservation ironwood \\
          --super-slicing --num-cubes 8
      xcli cluster create --cluster rc --tpu-type v5litepod-8 --num-slices 4 --on-demand \\
          --ray-version 2.39.0    # XPK's create-ray: Ray Operator add-on + a RayCluster
    """
    from xcli.app import cluster as use_case
    from xcli.cli.wiring import deps
    from xcli.spec import check_name

    check_name(name, "cluster", CLUSTER_NAME_LIMIT)
    choice = use_case.which_provider(name, provider)  # the recorded one, else gke
    provider = choice.provider
    # the request's switches, and the provider's own flags; others' flags are refused
    switches, flags = split_options(provider, options)
    request = use_case.CreateRequest(
        name=name,
        provider=provider,
        tpu_type=tpu_type,
        device_type=device_type,
        num_slices=num_slices,
        num_nodes=num_nodes,
        on_demand=on_demand,
        spot=spot,
        reservation=reservation,
        flex_start=flex_start,
        max_run_duration=max_run_duration,
        guaranteed=guaranteed,
        min_duration=min_duration,
        where=common,
        dry_run=common.dry_run,
        yes=common.yes,
        provider_note=choice.note(name),
        flags=flags,
        **switches,
    )
    for note in use_case.create(request, deps(common)).notes:
        click.echo(note, err=common.output != "text")  # keep stdout one JSON doc


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
    from xcli.app import cluster as use_case
    from xcli.cli.wiring import deps

    request = use_case.DeleteRequest(name, provider, terraform_dir, common, common.dry_run)
    use_case.delete(request, deps(common))


@cluster.command("list")
@click.option(
    "--provider",
    type=PROVIDER_CHOICE,
    help=f"Only this provider's clusters (default: {DEFAULT.default()}'s and this machine's; "
    "without credentials, this machine's with a note).",
)
@read_options
def list_(provider: str | None, common: Common) -> None:
    """List clusters with accelerator, slices, capacity type and status."""
    from dataclasses import asdict

    from xcli.app import cluster as use_case
    from xcli.cli.table import print_table
    from xcli.cli.wiring import deps

    if provider is None:
        rows, notes = use_case.list_everywhere(common, deps(common))
        for note in notes:
            click.echo(f"note: {note}", err=True)
    else:
        rows = list(use_case.list_clusters(use_case.ListRequest(provider, common), deps(common)))
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
    from xcli.app import cluster as use_case
    from xcli.cli.wiring import deps

    info = use_case.describe(use_case.DescribeRequest(name, provider, common), deps(common))
    if common.output != "text":
        emit(common.output, info)
        return
    import yaml

    click.echo(yaml.safe_dump(dict(info), sort_keys=False).rstrip())


@cluster.command("wait")
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option("--provider", type=PROVIDER_CHOICE, help=FOUND.format(DEFAULT.default(wait=True)))
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
    from xcli.app import cluster as use_case
    from xcli.cli.wiring import deps

    request = use_case.WaitRequest(name, provider, timeout, ssh_key, ssh_user, os_login, common)
    use_case.wait(request, deps(common))


def _add_commands() -> None:
    """Commands in their own modules: `cluster adapt` (issue 18), `cluster test-network`
    (issue 15), `cluster preload-image` (issue 16), `cluster inspect` (issue 27)."""
    from xcli.cli.cluster_adapt import adapt
    from xcli.cli.cluster_inspect import inspect
    from xcli.cli.cluster_network import test_network
    from xcli.cli.cluster_preload import preload_image

    cluster.add_command(adapt)
    cluster.add_command(inspect)
    cluster.add_command(test_network)
    cluster.add_command(preload_image)


_add_commands()
