"""`xcli ssh` and `xcli scp`: resolve the cluster's workers and access, plan the fan-out, and
run the plan through the executor like every other command (the dry-run is the other executor).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.plan.fanout import Action, Download, HostKeys, SshSettings, Target, Upload

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.plan.cluster import ClusterRef, SshAccess, Worker
    from xcli.plan.contract import StepContext
    from xcli.plan.fanout_result import FanoutResult
    from xcli.plan.model import Plan
    from xcli.providers.base import VmAccess


@dataclass(frozen=True)
class Transport:
    """The flags `ssh` and `scp` share, parsed but not yet checked against the cluster."""

    name: str
    provider: str | None
    worker: str
    slice_: str
    batch_size: int  # 0: every selected worker at once
    connect_timeout: int
    timeout: str | None
    retry_for: str | None
    internal_ip: bool
    ssh_flags: tuple[str, ...]
    engine: str
    host_keys: Any
    ssh_key_file: Path | None
    reuse: bool
    output_dir: Path | None
    where: Location


@dataclass(frozen=True)
class SshRequest:
    transport: Transport
    command: str | None  # None: an interactive shell on one worker


@dataclass(frozen=True)
class ScpRequest:
    transport: Transport
    paths: tuple[str, ...]
    recurse: bool


@dataclass(frozen=True)
class Resolved:
    cluster: str
    targets: tuple[Target, ...]
    settings: SshSettings
    engine: Any
    batch_size: int
    timeout: float | None
    retry_for: float | None
    output_dir: Path | None


@dataclass(frozen=True)
class FanoutOutcome:
    """What the CLI renders: None after a dry-run (the plan was printed), else the fan-out's
    result (per-worker outcomes, interrupted or not); the exit code either way."""

    exit_code: int
    fanout: FanoutResult | None = None


def ssh(req: SshRequest, deps: Deps) -> FanoutOutcome:
    from xcli.plan.fanout import Exec

    resolved = resolve(req.transport, deps)
    if req.command is None:
        return _interactive(resolved, deps)
    return _broadcast(resolved, Exec(req.command), deps)


def scp(req: ScpRequest, deps: Deps) -> FanoutOutcome:
    resolved = resolve(req.transport, deps)
    action = copy_action(req.paths, req.recurse, len(resolved.targets))
    if isinstance(action, Download) and len(resolved.targets) > 1:
        return _broadcast(resolved, per_worker_downloads(action, resolved.targets), deps)
    return _broadcast(resolved, action, deps)


def resolve(flags: Transport, deps: Deps) -> Resolved:
    """Check every flag, then ask the provider for its workers and how to reach them."""
    from xcli import paths
    from xcli.app.where import ref_for
    from xcli.cluster_index import provider_for
    from xcli.plan.fanout import select, targets_for
    from xcli.spec import parse_duration

    timeout = flags.timeout
    run_for = parse_duration(timeout, "--timeout") if timeout is not None else None
    if run_for == 0:
        raise UserError(
            f"--timeout {timeout} would stop every command before it starts",
            hint="give a positive duration such as 30s or 10m, or leave --timeout out",
        )
    retry: float | None = None
    if flags.retry_for:
        retry = parse_duration(flags.retry_for, "--retry-for")
    key = flags.ssh_key_file
    if key is not None:  # a regular file (never a FIFO or a folder), checked first
        from xcli.user_files import KIB, read_bytes

        read_bytes(key, "--ssh-key-file", 64 * KIB, "an SSH private key is a few KiB")
    if flags.output_dir is not None:
        from xcli.user_files import check_writable_folder

        check_writable_folder(flags.output_dir, "--output-dir")
    registry = deps.registry
    reachable = registry.names(ssh=True)
    provider = provider_for(flags.name, flags.provider, reachable[0], reachable)
    backend = registry.vm_access(provider, registry.get(provider))
    if backend is None:
        raise UserError(
            f"the {provider} provider has no SSH-reachable workers",
            hint=f"xcli ssh works with {' and '.join(reachable)} clusters",
        )
    ref = ref_for(registry, flags.name, provider, flags.where)  # a local cluster needs no project
    everyone = _workers(backend, ref)
    deps.record.repin_moved(backend, ref, everyone)  # live runs: keys follow moved workers
    chosen = select(everyone, flags.worker, flags.slice_)
    access = backend.ssh_access(ref)
    if retry is None and access is not None and access.retry_for is not None:
        retry = access.retry_for
    settings = SshSettings(
        known_hosts=(access.known_hosts if access else None) or paths.state_dir() / "known_hosts",
        identity=flags.ssh_key_file or (access.key_file if access else None),
        host_keys=flags.host_keys or _host_keys(access),
        connect_timeout=flags.connect_timeout,
        control_dir=deps.control_dir() if flags.reuse and flags.engine != "asyncssh" else None,
        ssh_flags=flags.ssh_flags,
    )
    several = len({w.slice for w in everyone}) > 1
    user = access.user if access else None
    targets = targets_for(chosen, flags.internal_ip, several_slices=several, user=user)
    size = flags.batch_size or len(targets)  # --batch-size all
    return Resolved(
        flags.name,
        tuple(targets),
        settings,
        flags.engine,
        size,
        run_for,
        retry,
        flags.output_dir,
    )


def _workers(backend: VmAccess, ref: ClusterRef) -> list[Worker]:
    """The provider's workers; without credentials, say why even --dry-run needs them."""
    from xcli.errors import CloudError, NoCredentials

    try:
        return backend.workers(ref)
    except CloudError as exc:
        if exc.status != "UNAUTHENTICATED" and not isinstance(exc, NoCredentials):
            raise
        raise NoCredentials(
            f"xcli ssh needs Google credentials, even with --dry-run: the workers' addresses "
            f"of {ref.name} come from the Cloud TPU API ({exc.message})",
            hint="log in with application default credentials (or set "
            "GOOGLE_APPLICATION_CREDENTIALS); to see plans without credentials, use "
            "`xcli cluster create ... --dry-run`",
            status=exc.status,
        ) from None


def copy_action(paths: tuple[str, ...], recurse: bool, workers: int) -> Action:
    """`LOCAL... :REMOTE` uploads; `:REMOTE LOCAL` downloads (from several workers: LOCAL is a
    folder with one subfolder per worker, `per_worker_downloads`)."""
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
    if not paths[0][1:]:
        raise UserError("the path on the workers is empty", hint="write :PATH, e.g. :~/job/out.log")
    if workers > 1 and Path(paths[1]).exists() and not Path(paths[1]).is_dir():
        raise UserError(
            f"copying from {workers} workers needs a folder, and {paths[1]} is a file",
            hint="name a folder: each worker's copy lands in FOLDER/s0-w3/ (slice, worker)",
        )
    return Download(paths[0][1:], paths[1], recurse)


def worker_folder(label: str) -> str:
    """The folder a worker's files land in: `s0-w3` (the slice is always named, so copies from
    a one-slice cluster and from a two-slice one look alike)."""
    return label.replace("/", "-") if "/" in label else f"s0-{label}"


def per_worker_downloads(action: Download, targets: tuple[Target, ...]) -> tuple[Download, ...]:
    """`scp --worker=all :PATH DEST`: one download per worker into DEST/sS-wW/ (the engines
    create a destination that ends in '/'), so two workers' files of one name never collide."""
    base = action.dest.rstrip("/") or "/"
    return tuple(
        Download(action.source, f"{base}/{worker_folder(t.label)}/", action.recursive)
        for t in targets
    )


def _engine(req: Resolved, deps: Deps) -> tuple[Any, SshSettings, str | None, str | None]:
    """--engine auto: asyncssh unless the user's OpenSSH setup asks for something only
    OpenSSH does (then a note says what); see gateways/ssh/choice.py. The last value is the
    jump host that setup routes through (auto reads it; --ssh-flag ones the plan finds)."""
    if req.engine != "auto":
        return req.engine, req.settings, None, None
    choice = deps.choose_engine(req.targets, req.settings)
    through = choice.through
    if choice.engine == "openssh":
        return "openssh", req.settings, choice.note, through
    settings = dataclasses.replace(req.settings, control_dir=None, send_env=choice.send_env)
    return "asyncssh", settings, choice.note, through


def _interactive(req: Resolved, deps: Deps) -> FanoutOutcome:
    """A shell on one worker, as a one-step plan whose live handler replaces this process with
    the ssh client (it never returns then: the session owns the terminal)."""
    from xcli.plan.fanout import plan_interactive
    from xcli.plan.steps import SshFanout

    if len(req.targets) != 1:
        # on several slices, --worker=N names worker N of every slice: --slice picks one
        slices = {t.label.partition("/")[0] for t in req.targets if "/" in t.label}
        one = "--worker=0 --slice 0" if len(slices) > 1 else "--worker=0"
        raise UserError(
            f"--worker selects {len(req.targets)} workers but gives no --command",
            hint=f"pick one worker for a shell ({one}), or pass --command",
        )
    plan = plan_interactive(req.cluster, req.targets[0], req.settings)

    def shell(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        assert isinstance(step, SshFanout)
        deps.shell(step.workers[0].argv, req.settings.control_dir)
        return {}

    _run(plan, {"ssh": shell}, deps)
    return FanoutOutcome(0)


def _broadcast(req: Resolved, action: Action | Sequence[Action], deps: Deps) -> FanoutOutcome:
    from xcli.plan.fanout import Broadcast, plan_broadcast

    engine, settings, note, through = _engine(req, deps)
    plan = plan_broadcast(
        req.cluster,
        req.targets,
        action,
        settings,
        engine=engine,
        batch_size=req.batch_size,
        timeout=req.timeout,
        retry_for=req.retry_for,
        through=through,
    )
    if note is not None:
        plan = dataclasses.replace(plan, notes=(*plan.notes, note))

    def fan_out(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        """The live handler of the Broadcast step: worker output streams through the sink
        while it runs; the fan-out's result is the step's output."""
        assert isinstance(step, Broadcast)
        result = deps.broadcast(step, deps.sink(req.output_dir), ctx.cancelled)
        return {"result": result, "exit_code": result.exit_code}

    found = _run(plan, {"ssh": fan_out}, deps)
    if found is None:
        return FanoutOutcome(0)
    result: FanoutResult = found["result"]
    return FanoutOutcome(result.exit_code, result)


def _run(plan: Plan, handlers: Mapping[str, Any], deps: Deps) -> Mapping[str, Any] | None:
    """Run the one-step plan; the step's outputs, or None after a dry-run. A Ctrl-C during the
    fan-out ends the step with an interrupted result, which is returned like any other."""
    from xcli.errors import Interrupted

    try:
        run = deps.run_quiet(plan, lambda: handlers)
    except Interrupted as exc:
        done = exc.partial.results.get("ssh") if exc.partial is not None else None
        if done is None or done.status != "ok":
            raise
        return dict(done.outputs)
    if run is None:
        return None
    step = run.results["ssh"]
    if step.error is not None:  # the step's own error, as a direct call would have raised it
        raise step.error
    return dict(step.outputs)


def _host_keys(access: SshAccess | None) -> HostKeys:
    """Without --strict-host-key-checking: `yes` where the provider pins every worker's key
    (an unknown key is then never right), else `accept-new` (pin on first contact)."""
    return "yes" if access is not None and access.pinned else "accept-new"
