"""`xcli cluster adapt`: install what xcli needs on a GKE cluster made some other way.

A live run reads the cluster (clusters.get), detects its accelerator node pools and plans the
in-cluster setup for them (xcli/app/cluster_ops.py, xcli/providers/gke/adapt.py); it never
touches node pools. A dry-run reads nothing and needs no credentials, so it plans for the shape
the flags name.
"""

from __future__ import annotations

import click

from xcli import formats
from xcli.cli import complete
from xcli.cli.common import Common, common_options


@click.command("adapt")
@click.option(
    "--cluster", "name", required=True, help="The GKE cluster.", shell_complete=complete.clusters
)
@click.option(
    "--tpu-type",
    metavar="T",
    help="The TPU shape of its pools (a dry-run needs it; a live run checks it).",
    shell_complete=complete.accelerators,
)
@click.option("--device-type", metavar="T", help="The GPU (or TPU) shape of its pools.")
@click.option("--num-slices", type=click.IntRange(1, 1024), help="TPU pools of that shape.")
@click.option("--num-nodes", type=click.IntRange(1, 4096), help="GPU nodes.")
@click.option("--spot", is_flag=True, help="With --dry-run: its pools are Spot.")
@click.option("--reservation", metavar="NAME|PATH", help="With --dry-run: its pools' reservation.")
@click.option("--flex-start", is_flag=True, help="With --dry-run: its pools are flex-start.")
@click.option(
    "--pathways",
    is_flag=True,
    help="Add what Pathways workloads need: the head pool cpu-np (if missing) and its Kueue "
    "flavor (TPU only; docs/pathways.md).",
)
@click.option(
    "--pathways-cpu-machine-type",
    metavar="TYPE",
    callback=formats.flag_callback(
        lambda v: formats.machine_type(v, "--pathways-cpu-machine-type")
    ),
    help="Machine type of the Pathways head pool (default n2-standard-64; at least 49 vCPUs "
    "and 238592 MB).",
)
@common_options
def adapt(
    common: Common,
    name: str,
    tpu_type: str | None,
    device_type: str | None,
    num_slices: int | None,
    num_nodes: int | None,
    spot: bool,
    reservation: str | None,
    flex_start: bool,
    pathways: bool,
    pathways_cpu_machine_type: str | None,
) -> None:
    """Bring an existing GKE cluster under xcli: JobSet, Kueue, its flavor and queues,
    priorities and the metadata ConfigMap, for the accelerator pools it already has.

    \b
    Node pools are never created, changed or deleted. JobSet and Kueue already installed are
    kept when they are xcli's versions, upgraded when older (asking first when the upgrade
    crosses a breaking API change: --yes answers), and never downgraded.

    \b
    Examples:
      xcli cluster adapt --cluster shared-a3
      xcli cluster adapt --cluster tk-v6e --tpu-type v6e-256 --num-slices 2 --spot --dry-run
    """
    from xcli.app import cluster_ops as use_case
    from xcli.cli.wiring import deps

    request = use_case.AdaptRequest(
        name,
        tpu_type,
        device_type,
        num_slices,
        num_nodes,
        spot,
        reservation,
        flex_start,
        common,
        pathways,
        pathways_cpu_machine_type,
    )
    use_case.adapt(request, deps(common))
