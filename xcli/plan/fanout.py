"""Pure planning of `xcli ssh` and `xcli scp`: which workers, and the exact command for each.

The result is one `Broadcast` step (kind "ssh", an SshFanout with the settings the engines need).
For every worker it holds the OpenSSH argv the default engine runs as it is, so the dry-run
prints exactly what the live run executes. The remote command is always ONE argv element:
nothing here, nor in the engines, ever goes through a local shell.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from xcli.errors import UserError
from xcli.plan.model import Plan
from xcli.plan.remote import remote_command
from xcli.plan.steps import SshFanout, WorkerCommand

Engine = Literal["openssh", "asyncssh"]
HostKeys = Literal["yes", "accept-new"]
KEEPALIVE_INTERVAL = 10
KEEPALIVE_COUNT = 3
# Handshakes in flight at once through one jump host: the first number of sshd's default
# MaxStartups (10:30:100), from which it starts dropping new unauthenticated connections
# (openssh-portable servconf.c max_startups_begin; xcli.gateways.ssh.gate says more).
JUMP_HANDSHAKES = 10


class Worker(Protocol):
    """The shape of plan.cluster.Worker this module needs."""

    @property
    def slice(self) -> int: ...
    @property
    def index(self) -> int: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def user(self) -> str | None: ...
    @property
    def internal_ip(self) -> str | None: ...
    @property
    def external_ip(self) -> str | None: ...
    @property
    def label(self) -> str: ...


def parse_selection(text: str, count: int, what: str = "worker") -> tuple[int, ...]:
    """'all' | 'N' | 'N-M,K' -> sorted indexes in range(count); one-line errors otherwise."""
    value = text.strip().lower()
    if value == "all":
        return tuple(range(count))
    picked: set[int] = set()
    for item in value.split(","):
        low, sep, high = item.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise UserError(
                f"--{what} {text!r} is not a {what} selection",
                hint="write all, a number, or a list of numbers and ranges such as 0-3,7",
            )
        first, last = int(low), int(high) if sep else int(low)
        if first > last:
            raise UserError(
                f"--{what} range {item.strip()} goes backwards", hint=f"write it as {last}-{first}"
            )
        if last >= count:
            raise UserError(
                f"--{what} {last} is out of range",
                hint=f"this cluster has {what}s 0-{count - 1}" if count else f"it has no {what}s",
            )
        picked.update(range(first, last + 1))
    return tuple(sorted(picked))


def select(workers: Sequence[Worker], worker: str, slice_: str) -> list[Worker]:
    """The workers picked by --worker and --slice, in (slice, index) order."""
    if not workers:
        raise UserError(
            "the cluster has no workers yet", hint="check it with xcli cluster describe"
        )
    slices = sorted({w.slice for w in workers})
    per_slice = max(w.index for w in workers) + 1
    wanted_slices = {slices[i] for i in parse_selection(slice_, len(slices), "slice")}
    wanted = set(parse_selection(worker, per_slice, "worker"))
    return sorted(
        (w for w in workers if w.slice in wanted_slices and w.index in wanted),
        key=lambda w: (w.slice, w.index),
    )


def label(worker: Worker, several_slices: bool) -> str:
    return worker.label if several_slices else f"w{worker.index}"


@dataclass(frozen=True)
class Target:
    """One worker as the engines see it: its label, where to connect, as whom."""

    label: str
    host: str
    port: int = 22
    user: str | None = None


@dataclass(frozen=True)
class SshSettings:
    """How to connect: keys, host-key policy, timeouts, reuse. Identical for both engines."""

    known_hosts: Path
    identity: Path | None = None
    host_keys: HostKeys = "accept-new"
    connect_timeout: int = 10
    # Connection reuse (OpenSSH ControlMaster): sockets live here; None turns reuse off.
    control_dir: Path | None = None
    control_persist: int = 300
    ssh_flags: tuple[str, ...] = ()
    # NAME=VALUE sent with each command by the asyncssh engine (what OpenSSH's SendEnv and
    # SetEnv would send; set when `--engine auto` picks asyncssh, see gateways/ssh/choice.py)
    send_env: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exec:
    """Run `command` (one string, handed to the remote login shell as it is)."""

    command: str


@dataclass(frozen=True)
class Upload:
    sources: tuple[str, ...]
    dest: str
    recursive: bool = False


@dataclass(frozen=True)
class Download:
    source: str
    dest: str
    recursive: bool = False


Action = Exec | Upload | Download


@dataclass(frozen=True, kw_only=True)
class Broadcast(SshFanout):
    """An SshFanout plus what the engines need to carry it out (same kind, same JSON)."""

    kind: ClassVar[str] = "ssh"

    engine: Engine = "openssh"
    action: Action = field(default=Exec(""), metadata={"print": False})
    # One action per target when they differ (a workload's per-worker scripts); else empty.
    actions: tuple[Action, ...] = field(default=(), metadata={"print": False})
    targets: tuple[Target, ...] = field(default=(), metadata={"print": False})
    settings: SshSettings | None = field(default=None, metadata={"print": False})
    timeout: float | None = None
    retry_for: float = 10.0
    # Through a jump host (its name, or "IAP"): at most `handshakes` handshakes at once.
    through: str | None = None
    handshakes: int | None = None

    def action_for(self, index: int) -> Action:
        return self.actions[index] if self.actions else self.action

    def details(self) -> dict[str, Any]:
        out = {"engine": self.engine, **super().details()}
        if self.timeout is not None:
            out["timeout_seconds"] = self.timeout
        out["retry_for_seconds"] = self.retry_for
        if self.through is not None:
            out["through"] = self.through
            out["handshakes_at_once"] = self.handshakes
        return out


def jump_host(ssh_flags: Sequence[str]) -> str | None:
    """What the user's ssh flags route every connection through: "jump host H" (`-J H`,
    `-oProxyJump=H`, `-o ProxyJump H`), "IAP" (gcloud's IAP tunnel as a ProxyCommand),
    "your ProxyCommand" (any other), or None."""
    flags = list(ssh_flags)
    for i, flag in enumerate(flags):
        nxt = flags[i + 1] if i + 1 < len(flags) else ""
        if flag.startswith("-J"):
            key, value = "proxyjump", (nxt if flag == "-J" else flag[2:])
        elif flag.startswith("-o"):
            found = re.match(r"\s*(\w+)\s*[=\s]\s*(.*)", nxt if flag == "-o" else flag[2:])
            if found is None:
                continue
            key, value = found.group(1).lower(), found.group(2).strip()
        else:
            continue
        if not value or value.lower() == "none":
            continue
        if key == "proxyjump":
            return "jump host " + value.split(",")[0]
        if key == "proxycommand":
            return "IAP" if "start-iap-tunnel" in value else "your ProxyCommand"
    return None


def jump_note(through: str, handshakes: int) -> str:
    """The one line a plan through a jump host carries (dry-run and live)."""
    return (
        f"through {through}: at most {handshakes} SSH handshakes at once (its sshd drops "
        f"more under the default MaxStartups 10:30:100); xcli backs off if it refuses"
    )


def address(worker: Worker, internal_ip: bool) -> str:
    """The IP to connect to: --internal-ip picks the VPC address, else the external one if any."""
    if internal_ip:
        if not worker.internal_ip:
            raise UserError(
                f"worker {worker.label} has no internal IP", hint="run without --internal-ip"
            )
        return worker.internal_ip
    return worker.external_ip or worker.host


def control_path(settings: SshSettings, target: Target) -> Path | None:
    """The socket of the reusable connection (ControlMaster) to `target`, or None without reuse.
    xcli names it itself rather than with OpenSSH's %C, so the openssh engine can find an open
    connection without starting ssh: a hash of the login, the address and the user's extra ssh
    flags (which shape the connection too). 40 hex characters, as long as %C."""
    if settings.control_dir is None:
        return None
    key = "\0".join((target.user or "", target.host, str(target.port), *settings.ssh_flags))
    return settings.control_dir / hashlib.sha256(key.encode()).hexdigest()[:40]


def common_options(settings: SshSettings, target: Target) -> list[str]:
    """The -o options every ssh/scp to `target` gets. Command-line options beat every ssh_config
    block (OpenSSH keeps the first value it sees), so a `Host *` there cannot switch them off;
    the user's own --ssh-flag values come first and so can."""
    opts = [*settings.ssh_flags]
    for key, value in (
        ("BatchMode", "yes"),
        ("ConnectTimeout", str(settings.connect_timeout)),
        ("ServerAliveInterval", str(KEEPALIVE_INTERVAL)),
        ("ServerAliveCountMax", str(KEEPALIVE_COUNT)),
        ("StrictHostKeyChecking", settings.host_keys),
        ("UserKnownHostsFile", str(settings.known_hosts)),
        ("UpdateHostKeys", "no"),
        ("HashKnownHosts", "no"),
        ("CheckHostIP", "no"),
    ):
        opts += ["-o", f"{key}={value}"]
    if (socket := control_path(settings, target)) is not None:
        opts += ["-o", "ControlMaster=auto", "-o", f"ControlPath={socket}"]
        opts += ["-o", f"ControlPersist={settings.control_persist}"]
    if settings.identity is not None:
        opts += ["-i", str(settings.identity), "-o", "IdentitiesOnly=yes"]
    return opts


def _remote(target: Target, path: str) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    return f"{target.user + '@' if target.user else ''}{host}:{path}"


def openssh_argv(target: Target, action: Action, settings: SshSettings) -> tuple[str, ...]:
    """The exact ssh or scp argv for one worker."""
    if isinstance(action, Exec):
        argv = ["ssh", "-T", *common_options(settings, target), "-p", str(target.port)]
        if target.user:
            argv += ["-l", target.user]
        # ssh cannot report a remote signal death (it exits 255): the shell stays to report 128+N.
        return (*argv, "--", target.host, remote_command(action.command, keep_shell=True))
    argv = ["scp", "-q", *common_options(settings, target), "-P", str(target.port)]
    if action.recursive:
        argv.append("-r")
    if isinstance(action, Upload):
        return (*argv, "--", *action.sources, _remote(target, action.dest))
    return (*argv, "--", _remote(target, action.source), action.dest)


def interactive_argv(target: Target, settings: SshSettings) -> tuple[str, ...]:
    """ssh with a terminal, for `xcli ssh --worker=N` without --command."""
    argv = ["ssh", "-t", *common_options(settings, target), "-p", str(target.port)]
    if target.user:
        argv += ["-l", target.user]
    return (*argv, "--", target.host)


def targets_for(
    workers: Sequence[Worker],
    internal_ip: bool = False,
    *,
    several_slices: bool | None = None,
    user: str | None = None,
) -> tuple[Target, ...]:
    """Targets for the chosen workers. Labels carry the slice when the cluster has several
    (pass several_slices, since a selection may hold one slice of many); `user` is the login
    for workers that do not name their own."""
    several = len({w.slice for w in workers}) > 1 if several_slices is None else several_slices
    return tuple(
        Target(label(w, several), address(w, internal_ip), w.port, w.user or user) for w in workers
    )


def plan_interactive(cluster: str, target: Target, settings: SshSettings) -> Plan:
    """A terminal session on one worker (the CLI replaces itself with this ssh)."""
    step = SshFanout(
        id="ssh",
        summary=f"open a shell on {target.label} of {cluster}",
        workers=(WorkerCommand(target.label, target.host, interactive_argv(target, settings)),),
        batch_size=1,
        connect_timeout=settings.connect_timeout,
    )
    return Plan(title=f"ssh {cluster}", steps=(step,), max_parallel=1)


def plan_broadcast(
    cluster: str,
    targets: Sequence[Target],
    action: Action | Sequence[Action],
    settings: SshSettings,
    *,
    engine: Engine = "openssh",
    batch_size: int = 64,
    timeout: float | None = None,
    retry_for: float | None = None,
    through: str | None = None,
) -> Plan:
    """One Broadcast step over `targets`; a pure function of its arguments. `action` is the
    same for every target, or a sequence with one action per target. `through` names a jump
    host found in the user's ssh config (the --ssh-flag ones are found here)."""
    if isinstance(action, (Exec, Upload, Download)):
        per_target: tuple[Action, ...] = ()
        actions = tuple(action for _ in targets)
    else:
        per_target = actions = tuple(action)
        if len(actions) != len(targets):
            raise ValueError(f"{len(actions)} actions for {len(targets)} targets")
    first = actions[0] if actions else Exec("")
    if batch_size < 1:
        raise UserError("--batch-size must be at least 1", hint="the default is 64")
    if any(isinstance(a, Exec) and not a.command.strip() for a in actions):
        raise UserError("--command is empty", hint="give the command to run on every worker")
    what = {Exec: "run", Upload: "copy to", Download: "copy from"}[type(first)]
    through = through or jump_host(settings.ssh_flags)
    handshakes = min(batch_size, JUMP_HANDSHAKES) if through else None
    step = Broadcast(
        id="ssh",
        summary=f"{what} {len(targets)} worker(s) of {cluster}",
        workers=tuple(
            WorkerCommand(t.label, t.host, openssh_argv(t, a, settings))
            for t, a in zip(targets, actions, strict=True)
        ),
        batch_size=batch_size,
        connect_timeout=settings.connect_timeout,
        engine=engine,
        action=first,
        actions=per_target,
        targets=tuple(targets),
        settings=settings,
        timeout=timeout,
        retry_for=settings.connect_timeout if retry_for is None else retry_for,
        through=through,
        handshakes=handshakes,
    )
    notes = (jump_note(through, handshakes),) if through and handshakes else ()
    return Plan(title=f"ssh {cluster}", steps=(step,), notes=notes, max_parallel=1)
