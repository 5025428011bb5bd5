"""`xcli cluster adapt`: install what xcli needs on a GKE cluster made some other way.

A live run reads the cluster (clusters.get), detects its accelerator node pools and plans the
in-cluster setup for them (xcli/providers/gke/adapt.py); it never touches node pools. A dry-run
reads nothing and needs no credentials, so it plans for the shape the flags name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from xcli.cli import complete
from xcli.cli.common import Common, common_options
from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.providers.gke.adapt import Detected


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
    from xcli.cli.common import confirm, run_plan
    from xcli.cli.deps import current
    from xcli.cli.providers import ref_for, registry
    from xcli.providers.gke.adapt import observe, plan_adapt, read_handler, spec_for
    from xcli.spec import check_name
    from xcli.workload.jobset.live import Live
    from xcli.workload.jobset.plan import gke_cluster_path

    check_name(name, "cluster", 40)
    given = _given(tpu_type, device_type, num_slices, num_nodes, spot, reservation, flex_start)
    ref = ref_for(name, "gke", common)
    pools: tuple[str, ...] = ()
    if common.dry_run:
        if given is None:
            raise UserError(
                "a dry-run reads nothing from the cluster, so it cannot detect its node pools",
                hint="name their shape: --tpu-type v6e-256 --num-slices 2 [--spot], or "
                "--device-type h100-80gb-8 --num-nodes 4",
            )
        detected = given
    else:
        detected = observe(registry().get("gke"), ref.project, ref.region, name)
        pools = detected.pools
        if given is not None and (given.accelerator, given.slices, given.nodes) != (
            detected.accelerator,
            detected.slices,
            detected.nodes,
        ):
            raise UserError(
                f"cluster {name} has {_shape(detected)} (pools {', '.join(pools)}), not "
                f"{_shape(given)}",
                hint="drop --tpu-type/--device-type and the counts: a live run detects them",
            )
    options = {"pathways": pathways, "pathways_cpu_machine_type": pathways_cpu_machine_type}
    spec = spec_for(detected, name, ref.project, ref.zone, options)
    path = gke_cluster_path(ref.project, ref.zone, name)
    plan = plan_adapt(spec, path, pools, detected.all_pools)
    gateways = current().workload_gateways
    live = (gateways.live if gateways is not None else None) or Live()

    def ask(question: str) -> bool:
        confirm(common, question)  # --yes answers; without a terminal it says to pass --yes
        return True

    def handlers() -> dict[str, object]:
        # the setup steps run through the GKE provider's handlers, as in `cluster create`;
        # the read step reads the controllers through the workload gateways' connection
        adapt_read = read_handler(lambda _cluster: live.api(ref), ask)
        return {**registry().get("gke").handlers(ref), "gke_adapt_read": adapt_read}

    run_plan(common, plan, handlers)
    if not common.dry_run:
        from xcli import cluster_index

        cluster_index.record(name, "gke")


def _shape(found: Detected) -> str:
    count = found.slices if found.accelerator.kind == "tpu" else found.nodes
    return f"{found.accelerator.name} x{count}"


def _given(
    tpu_type: str | None,
    device_type: str | None,
    num_slices: int | None,
    num_nodes: int | None,
    spot: bool,
    reservation: str | None,
    flex_start: bool,
) -> Detected | None:
    """The shape the flags name (checked before anything is read), or None."""
    from xcli.app.cluster import check_counts
    from xcli.catalog import lookup
    from xcli.providers.gke.adapt import Detected
    from xcli.spec import capacity_from_flags

    if not (tpu_type or device_type):
        if num_slices or num_nodes or spot or reservation or flex_start:
            raise UserError(
                "the counts and capacity describe the shape: name it too",
                hint="add --tpu-type or --device-type",
            )
        return None
    if tpu_type and device_type:
        raise UserError("pass one of --tpu-type and --device-type", hint="e.g. --tpu-type v6e-256")
    accel = lookup(tpu_type or device_type or "")
    check_counts(accel, tpu_type, num_slices, num_nodes)
    capacity = capacity_from_flags(
        on_demand=not (spot or reservation or flex_start),
        spot=spot,
        reservation=reservation,
        flex_start=flex_start,
    )
    return Detected(accel, num_slices or 1, num_nodes or 1, capacity, ())
