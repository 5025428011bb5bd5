"""`xcli cluster inspect` (XPK's `inspector`): a debug bundle of a GKE cluster, one archive."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, emit, options


@click.command("inspect")
@click.option(
    "--cluster", "name", required=True, help="Cluster name.", shell_complete=complete.clusters
)
@click.option("--workload", metavar="W", help="Also W's JobSet, Kueue Workload and pods.")
@click.option("--namespace", default="default", show_default=True, help="W's namespace.")
@click.option(
    "--archive",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the bundle [default: ./xcli-inspect-CLUSTER.tar.gz].",
)
@click.option(
    "--log-lines",
    type=click.IntRange(1, 100_000),
    default=100,
    show_default=True,
    help="Last log lines of each controller pod.",
)
@options(location=True, dry_run=True, out=False, yes=False)
def inspect(
    name: str,
    workload: str | None,
    namespace: str,
    archive: Path | None,
    log_lines: int,
    common: Common,
) -> None:
    """Collect a debug bundle: nodes per pool (ready or not), the JobSet and Kueue
    controllers (state and last log lines), queues, workloads by state and events, and with
    --workload its JobSet, Kueue Workload and pods; redacted, in one .tar.gz, with a summary.

    \b
    Examples:
      xcli cluster inspect --cluster demo
      xcli cluster inspect --cluster demo --workload train-1 --dry-run
    """
    from xcli.app.cluster_inspect import InspectRequest
    from xcli.app.cluster_inspect import inspect as run_inspect
    from xcli.cli.wiring import deps

    request = InspectRequest(name, workload, namespace, archive, log_lines, common)
    outputs = run_inspect(request, deps(common))
    if outputs is None:  # the dry-run printed the reads
        return
    _render(outputs, common)


def _render(outputs: dict[str, Any], common: Common) -> None:
    summary = outputs["summary"]
    if common.output != "text":
        emit(common.output, {"archive": outputs["archive"], **summary})
        return
    click.echo(f"wrote {outputs['archive']} ({outputs['files']} files, {outputs['bytes']} bytes)")
    for pool, counts in summary["nodes"].items():
        click.echo(f"  pool {pool}: " + ", ".join(f"{n} {state}" for state, n in counts.items()))
    click.echo("  controllers: " + ", ".join(f"{c} {s}" for c, s in summary["controllers"].items()))
    states = ", ".join(f"{n} {s}" for s, n in summary["workloads"].items()) or "none"
    click.echo(f"  workloads: {states}; warning events: {summary['warnings']}")
    one = summary.get("workload")
    if one:
        click.echo(f"  workload {one['name']}: {one['state']}, Kueue {one.get('kueue', '-')}, "
                   f"{one.get('pods', 0)} pods")  # fmt: skip
        for line in one.get("why", []):
            click.echo(f"    {line}")
