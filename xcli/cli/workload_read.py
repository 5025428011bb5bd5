"""`xcli workload list | status | logs | wait | goodput`: read a cluster's workloads, whatever
their kind (the use cases of xcli/app/workload.py; xcli/cli/workload_view.py renders).

These commands only read, so they take no --dry-run (docs/dry-run.md says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, read_options
from xcli.cli.goodput_source import goodput_from_source, source_chosen, source_options
from xcli.cli.providers import choice
from xcli.cli.workload_ns import namespace_option
from xcli.errors import UserError
from xcli.workload.kinds import all_states

if TYPE_CHECKING:
    from xcli.app.workload import Target

# every kind's states; `list` refuses those the cluster's kind of workload never reaches
STATE_CHOICE = click.Choice(all_states())


def cluster_option(func: Any) -> Any:
    # eager: parsed before --provider, whose default depends on it
    return click.option(
        "--cluster",
        required=True,
        is_eager=True,
        help="The workload's cluster.",
        shell_complete=complete.clusters,
    )(func)


def provider_option(func: Any) -> Any:
    return click.option(
        "--provider",
        type=choice(),
        callback=_found_provider,
        help="queued-resource or local: workloads run from this machine on a VM-style cluster. "
        "Default: the provider that created the cluster on this machine, else gke.",
    )(func)


def _found_provider(ctx: click.Context, _param: click.Parameter, value: str | None) -> str:
    """--provider, else the one recorded for --cluster (parsed first: it is eager)."""
    from xcli.cli.providers import registry
    from xcli.cluster_index import provider_for

    cluster, default = ctx.params.get("cluster"), registry().default()
    if value is not None or not cluster:
        return value or default
    return provider_for(cluster, None, default)


def workload_argument(func: Any) -> Any:
    """The workload, named as xcli does (positional) or as XPK does (--workload NAME)."""
    func = click.option(
        "--workload",
        "workload_flag",
        metavar="NAME",
        help="The workload, as XPK names it (same as the WORKLOAD argument).",
    )(func)
    return click.argument("name", metavar="[WORKLOAD]", required=False)(func)


def workload_name(name: str | None, flag: str | None, *, required: bool = True) -> str | None:
    """One name from the argument and --workload: either, or both when they agree."""
    if name is not None and flag is not None and name != flag:
        raise UserError(
            f"two workloads named: {name} (argument) and {flag} (--workload)",
            hint="name the workload once, as the argument or with --workload",
        )
    chosen = name if name is not None else flag
    if chosen is None and required:
        # A missing argument is a command line that does not parse (exit 2), as click says it
        raise click.UsageError("Missing argument 'WORKLOAD' (or --workload NAME).")
    return chosen


def check_names(cluster: str, name: str | None) -> None:
    from xcli.spec import check_name

    check_name(cluster, "cluster", 40)
    if name is not None:
        check_workload_name(name)


def target(common: Common, cluster: str, provider: str, namespace: str) -> Target:
    from xcli.app.workload import Target

    return Target(cluster, provider, common, namespace)


def check_workload_name(name: str) -> str:
    """A workload name, checked before anything is read (a DNS label, as JobSet needs)."""
    from xcli.spec import check_name

    return check_name(name, "workload", 63)


@click.command("list")
@cluster_option
@provider_option
@click.option(
    "--state",
    type=STATE_CHOICE,
    help="Only workloads in this state. gke: queued, running, succeeded, failed; "
    "queued-resource and local: starting, running, succeeded, failed, stopped, lost.",
)
@click.option(
    "--name-contains",
    default="",
    metavar="S",
    help="Only workloads whose name contains S (XPK's --filter-by-job).",
)
@namespace_option
@read_options
def list_workloads(
    common: Common,
    cluster: str,
    provider: str,
    state: str | None,
    name_contains: str,
    namespace: str,
) -> int:
    """List workloads, newest first: state, priority, slices, chips, restarts, age, duration.

    \b
    The KUEUE column says where a workload is in Kueue's admission (pending with the reason,
    quota-reserved, admitted, evicted, finished).

    \b
    Examples:
      xcli workload list --cluster demo
      xcli workload list --cluster demo --state failed --output json
      xcli workload list --cluster demo --namespace team-a
    """
    from xcli.app import workload as use
    from xcli.cli import workload_view as view
    from xcli.cli.wiring import deps

    check_names(cluster, None)
    where = target(common, cluster, provider, namespace)
    found = use.list_workloads(where, state, deps(common), name_contains)
    return view.listing(common.output, found)


@click.command("status")
@workload_argument
@cluster_option
@provider_option
@namespace_option
@read_options
def status(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    namespace: str,
) -> int:
    """Why a workload is not running yet, or how it ended.

    \b
    Shows Kueue's admission (pending and why: quota, flavor, admission checks; or admitted,
    on which ClusterQueue and flavors), the scheduling events of pending pods, every worker's
    phase (slice by slice), and for a finished workload the exit code and reason of the
    worker that failed first.

    \b
    Examples:
      xcli workload status train-1 --cluster demo
      xcli workload status train-1 --cluster demo --output json
    """
    from xcli.app import workload as use
    from xcli.cli import workload_view as view
    from xcli.cli.wiring import deps

    name = str(workload_name(name, workload_flag))
    check_names(cluster, name)
    where = target(common, cluster, provider, namespace)
    return view.report(common.output, use.status(where, name, deps(common)))


@click.command("logs")
@workload_argument
@cluster_option
@provider_option
@click.option("--worker", default="all", show_default=True, help="Worker index in its slice.")
@click.option("--slice", "slice_", default="all", show_default=True, help="Slice index.")
@click.option("--follow", "-f", is_flag=True, help="Keep printing until the workers end.")
@click.option("--since", metavar="D", help="Only lines newer than D (90s, 10m, 2h).")
@click.option(
    "--show-marks",
    is_flag=True,
    help="Also print the XCLI_GOODPUT progress lines (xcli.goodput), hidden by default.",
)
@click.option(
    "--timestamps",
    is_flag=True,
    help="Begin each line with its time (UTC, RFC 3339): on GKE the kubelet's, from the pod "
    "log API; on queued-resource and local clusters the time xcli read the line from the "
    "worker.",
)
@click.option(
    "--merge",
    is_flag=True,
    help="The lines of all chosen workers in one stream, ordered by their times, instead of "
    "worker by worker (with --follow: as they arrive).",
)
@namespace_option
@read_options
def logs(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    worker: str,
    slice_: str,
    follow: bool,
    since: str | None,
    show_marks: bool,
    timestamps: bool,
    merge: bool,
    namespace: str,
) -> int:
    """Print the workers' logs, each line prefixed like `xcli ssh`: [w3], or [s1/w3] when the
    workload has several slices. Lines of different workers never mix within a line.

    \b
    Examples:
      xcli workload logs train-1 --cluster demo --worker 0
      xcli workload logs train-1 --cluster demo --slice 1 --follow
      xcli workload logs train-1 --cluster demo --since 10m --output json   # JSON lines
      xcli workload logs train-1 --cluster demo --show-marks   # with the XCLI_GOODPUT lines
      xcli workload logs train-1 --cluster demo --merge --timestamps   # all workers, by time
    """
    from xcli.app import workload as use
    from xcli.cli import workload_view as view
    from xcli.cli.wiring import deps

    name = str(workload_name(name, workload_flag))
    check_names(cluster, name)
    where = target(common, cluster, provider, namespace)
    wanted = (timestamps, merge)
    lines = use.logs(where, name, (worker, slice_), follow, since, deps(common), show_marks, wanted)
    return view.log_lines(common.output, lines, timestamps)


WAIT_BOUND = "7d"  # as long as flex-start capacity is kept at most (--max-run-duration)


@click.command("wait")
@workload_argument
@cluster_option
@provider_option
@click.option(
    "--timeout",
    metavar="D",
    default=WAIT_BOUND,
    show_default=True,
    help="Give up after D (e.g. 30m, 6h; a bare number is seconds, as XPK's; at most 365d). "
    "Every wait has a bound, so a CI job never hangs: pass a longer one for a longer run.",
)
@namespace_option
@read_options
def wait(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    timeout: str,
    namespace: str,
) -> int:
    """Wait until a workload finishes, for scripts and CI.

    \b
    Exit codes: 0 it succeeded, 1 it failed (or does not exist), 124 --timeout passed first
    (as timeout(1) does). State changes are printed on stderr.

    \b
    Examples:
      xcli workload wait train-1 --cluster demo --timeout 6h && echo trained
    """
    from xcli.app import workload as use
    from xcli.cli import workload_view as view
    from xcli.cli.wiring import deps
    from xcli.spec import check_duration

    name = str(workload_name(name, workload_flag))
    if timeout and timeout.strip().isdigit():  # XPK's --timeout counts seconds
        timeout = f"{timeout.strip()}s"
    seconds = check_duration(timeout, "--timeout", 1, 365 * 86400)
    check_names(cluster, name)
    where = target(common, cluster, provider, namespace)
    return view.outcome(common.output, use.wait(where, name, timeout, seconds, deps(common)))


@click.command("goodput")
@workload_argument
@cluster_option
@provider_option
@namespace_option
@source_options
@read_options
def goodput(
    common: Common,
    name: str | None,
    workload_flag: str | None,
    cluster: str,
    provider: str,
    namespace: str,
    **source: Any,
) -> int:
    """How much of a workload's time made progress: scheduling, runtime and program goodput.

    \b
    Scheduling goodput: time with every worker running / time since submission. Runtime
    goodput: productive step time / time with every worker running; badput by cause
    (queued, provisioning, startup, lost since checkpoint, resume, reschedule, other), and
    every interruption (when, why, which worker, step reached, checkpoint resumed from).
    Program goodput (MFU) needs the program's FLOPs per step. The program prints progress
    marks with xcli.goodput (step(n), checkpoint(n), flops_per_step(x)); see docs/goodput.md.
    --source cloud-logging reads the ml-goodput-measurement library's records instead.

    \b
    Examples:
      xcli workload goodput train-1 --cluster demo
      xcli workload goodput train-1 --cluster demo --provider local --output json
      xcli workload goodput train-1 --cluster demo --source cloud-logging --dry-run
    """
    from xcli.app import workload as use
    from xcli.cli import workload_view as view
    from xcli.cli.wiring import deps

    name = str(workload_name(name, workload_flag))
    check_names(cluster, name)
    if source_chosen(common, namespace, name, source):
        return goodput_from_source(common, name, source)
    where = target(common, cluster, provider, namespace)
    return view.report(common.output, use.goodput(where, name, deps(common)))
