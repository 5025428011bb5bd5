"""`xcli workload connect NAME`: forward the Pathways proxy of a headless workload to this
machine (xcli/app/workload_connect.py; docs/pathways.md, "Interactive use")."""

from __future__ import annotations

import click

from xcli.cli.common import Common, change_options
from xcli.cli.workload_ns import namespace_option
from xcli.cli.workload_read import (
    check_names,
    cluster_option,
    provider_option,
    target,
    workload_argument,
    workload_name,
)


@click.command("connect")
@workload_argument
@cluster_option
@provider_option
@click.option(
    "--local-port",
    type=click.IntRange(0, 65535),
    default=29000,
    show_default=True,
    help="Port on 127.0.0.1 to listen on (0: any free port).",
)
@click.option(
    "--timeout",
    metavar="D",
    default="10m",
    show_default=True,
    help="How long to wait for the proxy to serve (e.g. 90s, 10m).",
)
@namespace_option
@change_options
def connect(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    local_port: int,
    timeout: str,
    namespace: str,
) -> int:
    """Forward a local port to the Pathways proxy of a workload's head pod, through the
    Kubernetes API (no kubectl), and print the JAX_BACKEND_TARGET to use. Ctrl-C ends it.

    \b
    Examples:
      xcli workload connect nb-1 --cluster pw
      xcli workload connect nb-1 --cluster pw --local-port 0 --dry-run
    """
    import threading

    from xcli.app import workload_connect as use
    from xcli.cli.wiring import deps
    from xcli.spec import parse_duration

    chosen = str(workload_name(name, workload_flag))
    check_names(cluster, chosen)
    seconds = parse_duration(timeout, "--timeout")
    where = target(common, cluster, provider, namespace)
    req = use.ConnectRequest(where, chosen, local_port, float(seconds))
    if common.dry_run:  # the live run's checks first (issue 37: dry-run equal to live)
        use.check(req, deps(common))
        for line in use.preview(req):
            click.echo(line)
        return 0

    def ready(backend: str) -> None:
        click.echo(f"forwarding {backend.removeprefix('grpc://')} to workload {chosen}'s proxy")
        click.echo(f"JAX_PLATFORMS=proxy JAX_BACKEND_TARGET={backend}")
        click.echo("Ctrl-C ends the forward.", err=True)

    use.connect(req, deps(common), ready, threading.Event())
    return 0
