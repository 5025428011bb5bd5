"""`xcli workload profile` and `xcli workload stacks`: look at every host of a running
workload at once (xcli/app/workload_profile.py, xcli/app/workload_stacks.py; docs/profile.md)."""

from __future__ import annotations

import click

from xcli.cli.common import Common, emit, options
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

look_options = options(location=True, dry_run=True, out=False, yes=False)


def _port(value: int) -> int:
    if not 0 < value < 65536:
        raise UserError(f"--port {value} is not a TCP port", hint="give 1-65535 (default 9999)")
    return value


@click.command("profile")
@workload_argument
@cluster_option
@provider_option
@click.option("--duration", default="2s", show_default=True, metavar="D",
              help="How long to trace (e.g. 500ms, 2s, 10s).")  # fmt: skip
@click.option("--hosts", default="all", show_default=True, metavar="SEL",
              help="all, hosts such as s0/w3,s1/w0, or stragglers (the straggler verdict's "
              "hosts plus two healthy ones).")  # fmt: skip
@click.option("--port", type=int, default=9999, show_default=True,
              help="The programs' profiler port (jax.profiler.start_server); the local "
              "emulator's workers each use their own XCLI_PROFILER_PORT.")  # fmt: skip
@click.option("--log-dir", metavar="DIR", help="Where the session folder goes: a folder, or "
              "gs://BUCKET/PATH (required on GKE). Default: profiles/WORKLOAD.")  # fmt: skip
@click.option("--session", metavar="ID", help="Session name (default: the time now).")
@namespace_option
@look_options
def profile(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    duration: str,
    hosts: str,
    port: int,
    log_dir: str | None,
    session: str | None,
    namespace: str,
) -> int:
    """Capture an XProf trace of every host of a running workload at once, into one session.

    The program serves the profiler: jax.profiler.start_server(port), or
    jax.profiler.start_server(xcli.goodput.profiler_port()), the port xcli gives each worker.

    \b
    Examples:
      xcli workload profile train-1 --cluster demo
      xcli workload profile train-1 --cluster demo --hosts s0/w3,s1/w0 --duration 5s
      xcli workload profile train-1 --cluster demo --hosts stragglers
      xcli workload profile train-1 --cluster gke-1 --log-dir gs://my-bucket/profiles
      xcli workload profile train-1 --cluster demo --dry-run
    """
    from xcli.app import workload_profile as use
    from xcli.cli.wiring import deps
    from xcli.plan.profile import parse_hosts

    chosen = str(workload_name(name, workload_flag))
    check_names(cluster, chosen)
    request = use.ProfileRequest(
        target(common, cluster, provider, namespace),
        chosen,
        parse_hosts(hosts),
        _duration_ms(duration),
        _port(port),
        _log_dir(log_dir),
        _session(session),
    )
    result = use.profile(request, deps(common))
    if result is None:
        return 0
    if common.output != "text":
        emit(common.output, result.to_json())
        return result.exit_code
    if result.chosen is not None:
        click.echo(result.chosen["note"], err=True)
    for label, path in result.files.items():
        click.echo(f"{label}  {path}")
    for label, why in result.missing.items():
        click.echo(f"{label}  NOT CAPTURED: {why}", err=True)
    got, total = len(result.files), len(result.files) + len(result.missing)
    click.echo(f"{got} of {total} hosts captured into {result.session_dir} "
               f"in {result.seconds:.1f}s", err=True)  # fmt: skip
    click.echo(f"open it: {result.open_command}", err=True)
    return result.exit_code


def _duration_ms(text: str) -> int:
    from xcli.spec import parse_duration

    value = text.strip().lower()
    ms = int(value[:-2]) if value.endswith("ms") and value[:-2].isdigit() else None
    if ms is None:
        ms = int(parse_duration(value, "--duration") * 1000)
    if not 100 <= ms <= 600_000:
        raise UserError(
            f"--duration {text} is out of range", hint="trace between 100ms and 10m (default 2s)"
        )
    return ms


def _log_dir(text: str | None) -> str | None:
    if text is None:
        return None
    value = text.strip()
    if not value or (value.startswith("gs://") and not value[5:].strip("/")):
        raise UserError(f"--log-dir {text!r} names no folder", hint="a folder or gs://BUCKET/PATH")
    return value


def _session(text: str | None) -> str | None:
    import re

    if text is None:
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", text):
        raise UserError(
            f"--session {text!r} is not a session name",
            hint="letters, digits, '_', '.', '-' (it names a folder)",
        )
    return text


@click.command("stacks")
@workload_argument
@cluster_option
@provider_option
@namespace_option
@look_options
def stacks(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    namespace: str,
) -> int:
    """Dump the Python stack of the workload on every host at once (py-spy), and group the
    hosts whose stacks are identical: where is every host stuck?

    py-spy is taken from the workers' PATH, else installed with pip --user; -o json has every
    host's stack as printed.

    \b
    Examples:
      xcli workload stacks train-1 --cluster demo
      xcli workload stacks train-1 --cluster demo -o json
      xcli workload stacks train-1 --cluster demo --dry-run
    """
    from xcli.app import workload_stacks as use
    from xcli.cli.wiring import deps

    chosen = str(workload_name(name, workload_flag))
    check_names(cluster, chosen)
    request = use.StacksRequest(target(common, cluster, provider, namespace), chosen)
    report = use.stacks(request, deps(common))
    if report is None:
        return 0
    if common.output != "text":
        emit(common.output, report.to_json())
    else:
        for line in report.lines():
            click.echo(line)
        for group in report.groups:  # each group's stack once, with its first host
            others = f" and {len(group.hosts) - 1} more" if len(group.hosts) > 1 else ""
            click.echo(f"\n{group.hosts[0]}{others}:")
            click.echo(group.stack)
    return 1 if report.failed else 0
