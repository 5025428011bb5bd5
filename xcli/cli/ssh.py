"""`xcli ssh` and `xcli scp`: run a command on, or copy files to, every worker of a VM cluster."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, change_options, emit
from xcli.cli.providers import choice

if TYPE_CHECKING:
    from xcli.app.ssh import FanoutOutcome, Transport

VM_PROVIDERS = choice(ssh=True)
EXIT_STATUS = """\b
Exit status: 0 when every worker succeeded; 255 when a worker could not be reached (refused,
timed out connecting, authentication or host key refused); otherwise the largest exit code a
worker's command returned (124 for one stopped by --timeout); 130 after Ctrl-C."""


def _batch(value: str) -> int:
    if value == "all":
        return 0  # every selected worker at once
    if not value.isdigit() or int(value) < 1:
        raise click.BadParameter("a positive number, or all", param_hint="--batch-size")
    return int(value)


def transport_options(func: Any) -> Any:
    options = [
        click.option(
            "--cluster",
            "name",
            required=True,
            help="Cluster name.",
            shell_complete=complete.clusters,
        ),
        click.option(
            "--provider",
            type=VM_PROVIDERS,
            help="Default: the provider that created the cluster on this machine, "
            "else queued-resource.",
        ),
        click.option(
            "--worker",
            default="0",
            show_default=True,
            help="Workers: all, N, or a list such as 0-3,7 (the same on every slice).",
        ),
        click.option("--slice", "slice_", default="all", show_default=True, help="all or N."),
        click.option(
            "--batch-size",
            default="64",
            show_default=True,
            help="At most this many workers at once (a sliding window), or all.",
        ),
        click.option(
            "--connect-timeout",
            type=click.IntRange(1, 600),
            default=10,
            show_default=True,
            help="Seconds to wait for each worker's SSH server to answer.",
        ),
        click.option("--timeout", metavar="D", help="Stop the whole run after D (e.g. 10m)."),
        click.option(
            "--retry-for",
            metavar="D",
            help="Retry connection failures (never a command's failure) for up to D after each "
            "worker's first attempt; default: the connect timeout.",
        ),
        click.option("--internal-ip", is_flag=True, help="Connect to the workers' internal IPs."),
        click.option(
            "--ssh-flag", multiple=True, metavar="FLAG", help="Extra ssh option (repeatable)."
        ),
        click.option(
            "--engine",
            type=click.Choice(["auto", "openssh", "asyncssh"]),
            default="auto",
            show_default=True,
            help="openssh: ssh processes, your ~/.ssh/config and agent, reused connections; "
            "asyncssh: in-process, least CPU and memory for the largest slices; "
            "auto: asyncssh unless your OpenSSH configuration asks for something only openssh "
            "does (a note then says what).",
        ),
        click.option(
            "--strict-host-key-checking",
            "host_keys",
            type=click.Choice(["yes", "accept-new"]),
            default=None,
            help="yes: only keys already pinned in xcli's known_hosts; accept-new: also pin a "
            "worker's key on first contact (and say so). A changed key is always refused. "
            "Default: yes where the provider pins its workers' keys (local), else accept-new.",
        ),
        click.option(
            "--ssh-key-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Private key to offer (default: the provider's, else your ssh config/agent).",
        ),
        click.option("--reuse/--no-reuse", default=True, help="Keep connections open (openssh)."),
        click.option(
            "--output-dir",
            type=click.Path(file_okay=False, path_type=Path),
            help="Write one log per worker here (default: a folder under the xcli state dir).",
        ),
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            help="Say every note, e.g. which SSH engine runs and why (otherwise said once).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _transport(common: Common, flags: dict[str, Any]) -> Transport:
    from xcli.app.ssh import Transport

    size = _batch(flags.pop("batch_size"))
    ssh_flags = flags.pop("ssh_flag")
    return Transport(**flags, batch_size=size, ssh_flags=ssh_flags, where=common)


@click.command("ssh", epilog=EXIT_STATUS)
@transport_options
@click.option("--command", "command_", metavar="CMD", help="Run CMD (one string) on each worker.")
@change_options
def ssh(command_: str | None, common: Common, **flags: Any) -> int:
    """Run a command on workers, or open a shell on one.

    \b
    Examples:
      xcli ssh --cluster demo --worker=all --command 'python3 train.py'
      xcli ssh --cluster demo --worker=0-3,7 --slice 1 --command hostname
      xcli ssh --provider local --cluster demo --worker=all --command 'echo $TPU_WORKER_ID'
      xcli ssh --cluster demo --worker=2          (an interactive shell on worker 2)
      xcli ssh --cluster demo --worker=all --command 'ls /dev/vfio' --dry-run

    Output streams as it arrives, each line prefixed by its worker ([w3], or [s1/w3] when the
    cluster has several slices); stderr stays on stderr. A summary follows on stderr.
    """
    from xcli.app import ssh as use_case
    from xcli.cli.wiring import deps

    verbose = flags.pop("verbose")
    request = use_case.SshRequest(_transport(common, flags), command_)
    return _render(use_case.ssh(request, deps(common, verbose=verbose)), common)


@click.command("scp", epilog=EXIT_STATUS)
@transport_options
@click.option("--recursive", "--recurse", "-r", "recurse", is_flag=True, help="Copy folders.")
@click.argument("paths", nargs=-1, required=True)
@change_options
def scp(paths: tuple[str, ...], recurse: bool, common: Common, **flags: Any) -> int:
    """Copy files to every selected worker, or from them. A path on the workers starts with ':'.

    From several workers, DEST is a folder: each worker's copy lands in DEST/sS-wW/ (slice,
    worker), so files of one name never collide; the summary names the workers that failed.

    \b
    Examples:
      xcli scp --cluster demo --worker=all train.py data.json :~/job/
      xcli scp --cluster demo --worker=all -r ./configs :~/configs
      xcli scp --cluster demo --worker=3 --slice 0 :~/job/out.log ./out-w3.log
      xcli scp --cluster demo --worker=all -r :~/profiles ./profiles   (-> ./profiles/s0-w3/...)
    """
    from xcli.app import ssh as use_case
    from xcli.cli.wiring import deps

    verbose = flags.pop("verbose")
    request = use_case.ScpRequest(_transport(common, flags), paths, recurse)
    return _render(use_case.scp(request, deps(common, verbose=verbose)), common)


def _render(outcome: FanoutOutcome, common: Common) -> int:
    """The summary after the run (worker output was streamed during it); Ctrl-C ends in 130."""
    from xcli.errors import Interrupted

    result = outcome.fanout
    if result is None:  # a dry-run: the plan was printed
        return outcome.exit_code
    print_summary(result, common)
    if result.interrupted:
        raise Interrupted(
            "interrupted; the summary above shows where each worker got to",
            hint="the remote commands of the workers still running were stopped",
        )
    return outcome.exit_code


def print_summary(result: Any, common: Common) -> None:
    if common.output != "text":
        emit(common.output, result.to_json())
        return
    for line in result.summary_lines():
        click.echo(line, err=True)
    sys.stderr.flush()
