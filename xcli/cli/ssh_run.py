"""Flags of `xcli ssh`/`xcli scp` -> a frozen request -> a plan -> printed or run."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from xcli.cli.common import Common, run_plan
from xcli.errors import Interrupted, UserError
from xcli.plan.fanout import Action, Download, SshSettings, Target, Upload

if TYPE_CHECKING:
    from xcli.plan.cluster import ClusterRef, Worker
    from xcli.providers.base import VmAccess


@dataclass(frozen=True)
class Request:
    cluster: str
    targets: tuple[Target, ...]
    settings: SshSettings
    engine: Any
    batch_size: int
    timeout: float | None
    retry_for: float | None
    output_dir: Path | None


def resolve(
    common: Common,
    *,
    name: str,
    provider: str | None,
    worker: str,
    slice_: str,
    batch_size: str,
    connect_timeout: int,
    timeout: str | None,
    retry_for: str | None,
    internal_ip: bool,
    ssh_flag: tuple[str, ...],
    engine: str,
    host_keys: Any,
    ssh_key_file: Path | None,
    reuse: bool,
    output_dir: Path | None,
) -> Request:
    """Validate every flag, then ask the provider for its workers and how to reach them."""
    from xcli import paths
    from xcli.cli.providers import ref_for, registry
    from xcli.cli.ssh import _batch
    from xcli.gateways.ssh_openssh import control_dir
    from xcli.plan.fanout import select, targets_for
    from xcli.spec import parse_duration

    size = _batch(batch_size)
    run_for = parse_duration(timeout, "--timeout") if timeout is not None else None
    if run_for == 0:
        raise UserError(
            f"--timeout {timeout} would stop every command before it starts",
            hint="give a positive duration such as 30s or 10m, or leave --timeout out",
        )
    retry: float | None = parse_duration(retry_for, "--retry-for") if retry_for else None
    if ssh_key_file is not None:  # a regular file (never a FIFO or a folder), checked first
        from xcli.user_files import KIB, read_bytes

        read_bytes(ssh_key_file, "--ssh-key-file", 64 * KIB, "an SSH private key is a few KiB")
    if output_dir is not None:
        from xcli.user_files import check_writable_folder

        check_writable_folder(output_dir, "--output-dir")
    from xcli.cluster_index import provider_for

    reachable = registry().names(ssh=True)
    provider = provider_for(name, provider, reachable[0], reachable)
    backend = registry().vm_access(provider, registry().get(provider))
    if backend is None:
        raise UserError(
            f"the {provider} provider has no SSH-reachable workers",
            hint=f"xcli ssh works with {' and '.join(reachable)} clusters",
        )
    ref = ref_for(name, provider, common)  # checks the name; a local cluster needs no project
    everyone = _workers(backend, ref, common)
    chosen = select(everyone, worker, slice_)
    access = backend.ssh_access(ref)
    if retry is None and access is not None and access.retry_for is not None:
        retry = access.retry_for
    settings = SshSettings(
        known_hosts=(access.known_hosts if access else None) or paths.state_dir() / "known_hosts",
        identity=ssh_key_file or (access.key_file if access else None),
        host_keys=host_keys,
        connect_timeout=connect_timeout,
        control_dir=control_dir() if reuse and engine != "asyncssh" else None,
        ssh_flags=ssh_flag,
    )
    several = len({w.slice for w in everyone}) > 1
    user = access.user if access else None
    targets = targets_for(chosen, internal_ip, several_slices=several, user=user)
    size = size or len(targets)  # --batch-size all
    return Request(name, targets, settings, engine, size, run_for, retry, output_dir)


def _workers(backend: VmAccess, ref: ClusterRef, common: Common) -> list[Worker]:
    """The provider's workers; without credentials, say why even --dry-run needs them."""
    from xcli.errors import CloudError

    try:
        return backend.workers(ref)
    except CloudError as exc:
        if exc.status != "UNAUTHENTICATED":
            raise
        raise CloudError(
            f"xcli ssh needs Google credentials, even with --dry-run: the workers' addresses "
            f"of {ref.name} come from the Cloud TPU API ({exc.message})",
            hint="log in with application default credentials (or set "
            "GOOGLE_APPLICATION_CREDENTIALS); to see plans without credentials, use "
            "`xcli cluster create ... --dry-run`",
            status=exc.status,
        ) from None


def interactive(common: Common, req: Request) -> int:
    from xcli.gateways import process
    from xcli.plan.fanout import plan_interactive
    from xcli.plan.steps import SshFanout

    if len(req.targets) != 1:
        raise UserError(
            f"--worker selects {len(req.targets)} workers but gives no --command",
            hint="pick one worker for a shell (--worker=0), or pass --command",
        )
    plan = plan_interactive(req.cluster, req.targets[0], req.settings)
    if common.dry_run:
        return run_plan(common, plan, dict)
    step = plan.steps[0]
    assert isinstance(step, SshFanout)
    if req.settings.control_dir is not None:
        from xcli.gateways.ssh_openssh import ensure_control_dir

        ensure_control_dir(req.settings.control_dir)
    process.replace(step.workers[0].argv)
    return 0


def copy_action(paths: tuple[str, ...], recurse: bool, workers: int) -> Action:
    """`LOCAL... :REMOTE` uploads; `:REMOTE LOCAL` downloads (from one worker only)."""
    remote = [p for p in paths if p.startswith(":")]
    if len(paths) < 2 or len(remote) != 1 or remote[0] not in (paths[0], paths[-1]):
        raise UserError(
            "give local files and one :REMOTE path, e.g. train.py :~/job/ (or :REMOTE LOCAL)",
            hint="a path on the workers starts with ':'",
        )
    if paths[-1] == remote[0]:
        missing = [p for p in paths[:-1] if not Path(p).exists()]
        if missing:
            raise UserError(f"{missing[0]} does not exist", hint="check the local path")
        folders = [p for p in paths[:-1] if Path(p).is_dir()]
        if folders and not recurse:
            raise UserError(
                f"{folders[0]} is a folder", hint="pass -r (--recursive) to copy folders"
            )
        return Upload(paths[:-1], paths[-1][1:] or ".", recurse)
    if len(paths) != 2:
        raise UserError("copy from a worker takes :REMOTE LOCAL", hint="one source, one target")
    if workers != 1:
        raise UserError(
            f"copying from workers needs one worker, not {workers}",
            hint="pass --worker=N, and --slice S when the cluster has several slices",
        )
    return Download(paths[0][1:], paths[1], recurse)


def _engine(req: Request) -> tuple[Any, SshSettings, str | None]:
    """--engine auto: asyncssh unless the user's OpenSSH setup asks for something only
    OpenSSH does (then a note says what); see gateways/ssh_choice.py."""
    if req.engine != "auto":
        return req.engine, req.settings, None
    from xcli.gateways.ssh_choice import choose

    choice = choose(req.targets, req.settings)
    if choice.engine == "openssh":
        return "openssh", req.settings, choice.note
    settings = dataclasses.replace(req.settings, control_dir=None, send_env=choice.send_env)
    return "asyncssh", settings, choice.note


def broadcast(common: Common, req: Request, action: Action) -> int:
    from xcli.cli.ssh import print_summary
    from xcli.gateways.broadcast import run_broadcast
    from xcli.gateways.output import OutputSink, default_log_dir
    from xcli.plan.fanout import Broadcast, plan_broadcast

    engine, settings, note = _engine(req)
    plan = plan_broadcast(
        req.cluster,
        req.targets,
        action,
        settings,
        engine=engine,
        batch_size=req.batch_size,
        timeout=req.timeout,
        retry_for=req.retry_for,
    )
    if note is not None:
        plan = dataclasses.replace(plan, notes=(*plan.notes, note))
    if common.dry_run:
        return run_plan(common, plan, dict)
    if note is not None:
        click.echo(f"note: {note}", err=True)
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    # With --output json, stdout carries only the JSON summary; worker output goes to stderr.
    out = sys.stderr.buffer if common.output != "text" else sys.stdout.buffer
    sink = OutputSink(out, sys.stderr.buffer, req.output_dir or default_log_dir())
    result = run_broadcast(step, sink)
    print_summary(result, common)
    if result.interrupted:
        raise Interrupted(
            "interrupted; the summary above shows where each worker got to",
            hint="the remote commands of the workers still running were stopped",
        )
    return result.exit_code
