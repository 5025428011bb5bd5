"""`xcli workload stragglers` and `xcli workload report`: which worker makes the others wait,
and the page of it (the use cases of xcli/app/stragglers.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from xcli.cli.common import Common, read_options
from xcli.cli.workload_ns import namespace_option
from xcli.cli.workload_read import (
    check_names,
    cluster_option,
    provider_option,
    target,
    workload_argument,
    workload_name,
)
from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.stragglers import StragglersRequest


def _window_option(func: Any) -> Any:
    return click.option(
        "--window",
        type=int,
        default=50,
        show_default=True,
        metavar="N",
        help="Steps per window: a worker's lateness is its median over each window.",
    )(func)


def _since_option(func: Any) -> Any:
    return click.option(
        "--since",
        metavar="D",
        help="Only the marks of the last D (e.g. 30m, 2h); default: the whole run.",
    )(func)


def _request(
    common: Common, name: str | None, flag: str | None, cluster: str, provider: str,
    namespace: str, window: int, since: str | None,
) -> StragglersRequest:  # fmt: skip
    from xcli.app.stragglers import StragglersRequest, check_window
    from xcli.spec import parse_duration

    chosen = str(workload_name(name, flag))
    check_names(cluster, chosen)
    check_window(window)
    seconds = parse_duration(since, "--since") if since is not None else None
    if seconds is not None and seconds <= 0:
        raise UserError(f"--since {since!r} is no time at all", hint="e.g. --since 30m")
    where = target(common, cluster, provider, namespace)
    return StragglersRequest(where, chosen, window, seconds)


@click.command("stragglers")
@workload_argument
@cluster_option
@provider_option
@_window_option
@_since_option
@namespace_option
@read_options
def stragglers(
    common: Common, name: str | None, workload_flag: str | None, cluster: str, provider: str,
    window: int, since: str | None, namespace: str,
) -> int:  # fmt: skip
    """Name the workers that arrive late at each step's first collective.

    \b
    Every worker marks each step with xcli.goodput.arrive(step) just before the step's first
    collective; a worker's lateness is its mark minus the step's earliest. A worker is flagged
    in a window when its median lateness is above both 3 x MAD across workers and 10% of the
    step time; chronic when flagged in most of the last 5 windows; a one-off when a single step
    stalled by more than a step time. Time lost: per step, slowest minus median arrival.
    See docs/stragglers.md.

    \b
    Examples:
      xcli workload stragglers train-1 --cluster demo
      xcli workload stragglers train-1 --cluster demo --window 100 --since 2h
      xcli workload stragglers train-1 --cluster demo -o json | jq '.stragglers[].worker'
    """
    from xcli.app import stragglers as use
    from xcli.cli.common import emit
    from xcli.cli.wiring import deps

    req = _request(common, name, workload_flag, cluster, provider, namespace, window, since)
    verdict = use.stragglers(req, deps(common))
    if common.output != "text":
        emit(common.output, verdict.to_dict())
        return 0
    for line in use.verdict_text(verdict, cluster, provider):
        click.echo(line)
    return 0


@click.command("report")
@workload_argument
@cluster_option
@provider_option
@click.option(
    "--output-file",
    "output_name",
    required=True,
    metavar="FILE",
    help="Where to write the HTML page (one self-contained file).",
)
@_window_option
@_since_option
@namespace_option
@read_options
def report(
    common: Common, name: str | None, workload_flag: str | None, cluster: str, provider: str,
    output_name: str, window: int, since: str | None, namespace: str,
) -> int:  # fmt: skip
    """Write one HTML page of a workload: timeline, step time and MFU, lateness heatmap.

    \b
    Self-contained (inline SVG, nothing fetched), the same bytes for the same data. The
    heatmap has a row per worker and a column per window, coloured by lateness, the
    stragglers marked; above 256 workers, rows are grouped by slice and host range.

    \b
    Examples:
      xcli workload report train-1 --cluster demo --output-file report.html
      xcli workload report train-1 --cluster demo --provider local --output-file r.html
    """
    from xcli.app import stragglers as use
    from xcli.cli.common import emit
    from xcli.cli.wiring import deps

    if not output_name.strip():
        raise UserError("--output-file is empty", hint="e.g. --output-file report.html")
    output_file = Path(output_name)
    if output_file.is_dir():
        raise UserError(
            f"--output-file {output_file} is a folder", hint="name a file, e.g. report.html"
        )
    if not output_file.parent.is_dir():
        raise UserError(
            f"--output-file {output_file}: folder {output_file.parent} does not exist",
            hint="name a file in a folder that exists",
        )
    req = _request(common, name, workload_flag, cluster, provider, namespace, window, since)
    page = use.report(req, deps(common))
    try:
        output_file.write_bytes(page.html)
    except OSError as exc:
        raise UserError(
            f"cannot write --output-file {output_file}: {exc.strerror}",
            hint="name a file in a folder you can write to",
        ) from None
    summary = {"output_file": str(output_file), "bytes": len(page.html),
               "stragglers": [s.worker for s in page.verdict.stragglers]}  # fmt: skip
    if common.output != "text":
        emit(common.output, summary)
    else:
        click.echo(f"wrote {output_file} ({len(page.html):,} bytes)")
    return 0
