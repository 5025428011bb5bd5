"""`xcli cluster test-network`: prove a GPU cluster's GPUDirect network with NCCL."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, emit, options
from xcli.formats import finite

if TYPE_CHECKING:
    pass

_options = options(location=True, dry_run=True, out=False, yes=False)


@click.command("test-network")
@click.option("--cluster", required=True, help="The GPU cluster.", shell_complete=complete.clusters)
@click.option(
    "--nodes",
    type=click.IntRange(2, 4096),
    default=2,
    show_default=True,
    help="GPU nodes to test across (the published figures are for 2).",
)
@click.option(
    "--test",
    type=click.Choice(["all_gather_perf", "all_reduce_perf"]),
    default="all_gather_perf",
    show_default=True,
    help="The nccl-tests benchmark.",
)
@click.option(
    "--min-fraction",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    callback=lambda _c, p, v: finite(v, "--min-fraction"),
    default=0.5,
    show_default=True,
    help="Fail (exit 1) when the bus bandwidth at the largest size is below this fraction of "
    "the published figure: a network that fell back to TCP is far below it.",
)
@click.option(
    "--expect-busbw",
    type=click.FloatRange(0.0, min_open=True),
    callback=lambda _c, p, v: finite(v, "--expect-busbw"),
    metavar="GBPS",
    help="Judge against this bus bandwidth (GB/s) instead of the published figure (none is "
    "published for A4 and A4X).",
)
@click.option("--timeout", metavar="D", default="1h", show_default=True, help="Give up after D.")
@click.option("--keep", is_flag=True, help="Keep the test's JobSet (xcli-network-test) after.")
@click.option(
    "--device-type",
    metavar="T",
    help="With --dry-run: the cluster's GPU shape (instead of reading the cluster).",
    shell_complete=complete.accelerators,
)
@click.option(
    "--cluster-metadata",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="With --dry-run: the cluster's metadata (its ConfigMap data) instead of reading it.",
)
@_options
def test_network(common: Common, **flags: Any) -> int:
    """Run NCCL's bus-bandwidth test across GPU nodes and compare it with the published figure.

    Submits the family's nccl-tests benchmark as a JobSet (the pods have the cluster's
    GPUDirect pod spec, as every workload does), waits, reads worker 0's log and prints the bus
    bandwidth at the largest message size beside the figure Google published for the machine.
    Exits 1 below --min-fraction of it. Deletes its JobSet afterwards unless --keep.

    \b
    Examples:
      xcli cluster test-network --cluster gpus
      xcli cluster test-network --cluster gpus --nodes 4 --test all_reduce_perf
      xcli cluster test-network --cluster gpus --device-type h100-mega-80gb-8 --dry-run
    """
    from xcli.app import network_test as use
    from xcli.cli.wiring import deps, quiet_runner
    from xcli.cli.workload_flags import facts_for
    from xcli.spec import check_duration, check_name
    from xcli.workload.request import NetworkTestRequest

    test = NetworkTestRequest(
        cluster=check_name(flags["cluster"], "cluster", 40),
        nodes=flags["nodes"],
        test=flags["test"],
        min_fraction=flags["min_fraction"],
        expect_busbw=flags["expect_busbw"],
        keep=flags["keep"],
        timeout=check_duration(flags["timeout"], "--timeout", 60, 7 * 24 * 3600),
        device_type=flags["device_type"],
    )
    facts = facts_for(common, flags["cluster_metadata"])
    request = use.TestNetworkRequest(test, common)
    wired = deps(common, facts)
    planned = use.plan(request, wired)
    if common.dry_run:  # the JobSet it would submit
        wired.run_plan(planned.plan, planned.handlers)
        return 0
    judged = use.run(request, planned, wired, quiet_runner(common))
    if common.output != "text":
        emit(common.output, judged.report)
    else:
        for line in judged.lines:
            click.echo(line)
    if judged.problem is not None:
        raise judged.problem
    return 0
