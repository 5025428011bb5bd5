"""Processes of the local provider: the detached supervisor, worker commands, and cleanup.

Every process an emulated cluster starts carries XCLI_LOCAL_INSTANCE=<random token> and
XCLI_LOCAL_DIR=<the cluster's folder> in its environment and lives in a process group the
supervisor records under procs/. Cleanup uses all three: the recorded groups (any POSIX
system) and, where /proc exists, every process of this user whose environment carries the token
or the folder (this also finds commands that left their group, e.g. `setsid nohup ... &`, and
works when state.json, which holds the token, is damaged or gone). A PID is only signalled
while it still carries the marker (or, with no /proc, while its recorded group still exists),
so a reused PID is never hit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from xcli.gateways.process import alive as alive  # re-exported: handlers.py uses it from here
from xcli.gateways.process import valid_pid
from xcli.providers.local.layout import DIR_VAR, INSTANCE_VAR
from xcli.state_files import open_private

PROC = Path("/proc")


def spawn_detached(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], log: Path
) -> subprocess.Popen[bytes]:
    """Start a daemon: its own session, no terminal, stdin closed, output appended to `log`.

    It outlives the caller; the caller may poll() it while waiting for it to come up.
    """
    with open_private(log) as out:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            # everything the daemon and its workers write lives under XCLI_HOME: owner-only
            umask=0o077,
            start_new_session=True,
            close_fds=True,
        )


async def start_command(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    tty: int | None = None,
) -> asyncio.subprocess.Process:
    """Start a worker's command as sshd does: a new session (so its process group can be
    signalled as one); with `tty` (a pty's slave side) as its stdio and controlling terminal."""
    if tty is None:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    return await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=tty,
        stdout=tty,
        stderr=tty,
        start_new_session=True,
        preexec_fn=_take_terminal,
    )


def _take_terminal() -> None:
    """In the child, after setsid: make stdin (the pty) the controlling terminal."""
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def carries(pid: int, instance: str) -> bool | None:
    """Whether `pid`'s environment has our instance token; None where that cannot be known."""
    if not PROC.is_dir():
        return None
    try:
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return f"{INSTANCE_VAR}={instance}".encode() in environ.split(b"\0")


def tagged(instance: str) -> list[int]:
    """Every live process of ours that carries the instance token (empty without /proc)."""
    if not PROC.is_dir():
        return []
    me = os.getpid()
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit() and int(entry.name) != me and carries(int(entry.name), instance):
            found.append(int(entry.name))
    return found


def of_cluster(pid: int, root: Path) -> bool:
    """Whether `pid` is ours and carries the cluster folder's marker (DIR_VAR) in its
    environment: true for the supervisor and everything its workers started, whatever
    became of state.json. Read again right before each signal, so a reused PID is not hit."""
    marker = f"{DIR_VAR}={root}".encode()
    try:
        if (PROC / str(pid)).stat().st_uid != os.getuid():
            return False
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return marker in environ.split(b"\0")


def of_cluster_pids(root: Path) -> list[int]:
    """Every live process of this user marked with the cluster folder (empty without /proc)."""
    if not PROC.is_dir():
        return []
    me = os.getpid()
    return [
        int(entry.name)
        for entry in PROC.iterdir()
        if entry.name.isdigit() and int(entry.name) != me and of_cluster(int(entry.name), root)
    ]


# The supervisor's module as it appears in its argv (`python -m MODULE DIR`); the second is
# its name before the local provider became one package, so clusters started by an older
# xcli are still found and stopped.
SUPERVISOR_MODULES = (b"xcli.providers.local.supervisor", b"xcli.gateways.local_supervisor")


def _is_supervisor(pid: int) -> bool:
    try:
        argv = (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(name in argv for name in SUPERVISOR_MODULES)


def sweep_cluster(root: Path, grace: float = 5.0, rounds: int = 20) -> list[int]:
    """Stop everything marked with the cluster folder `root`: supervisors first, with SIGTERM
    (they hang up their commands), then SIGKILL for whatever is left. Returns the PIDs found."""
    root = root.resolve()
    found = of_cluster_pids(root)
    supervisors = [pid for pid in found if _is_supervisor(pid)]
    for pid in supervisors:
        if of_cluster(pid, root):
            signal_pid(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(alive(p) for p in supervisors) and time.monotonic() < deadline:
        time.sleep(0.05)
    killed = set(found)
    for _ in range(rounds):  # a dying parent may still fork: repeat until nothing is left
        left = [pid for pid in of_cluster_pids(root) if alive(pid)]
        if not left:
            break
        for pid in left:
            if of_cluster(pid, root):
                signal_pid(pid, signal.SIGKILL)
        killed.update(left)
        time.sleep(0.05)
    return sorted(killed)


def signal_group(pgid: int, sig: int) -> None:
    if not valid_pid(pgid):  # never a group no process of ours leads (0, -1, overflows)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def signal_pid(pid: int, sig: int) -> None:
    if not valid_pid(pid):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def stop_supervisor(pid: int, instance: str, grace: float = 5.0) -> bool:
    """SIGTERM the supervisor (it stops its workers' commands), SIGKILL after `grace` seconds.
    Returns whether a live supervisor was found."""
    if not alive(pid) or carries(pid, instance) is False:
        return False
    signal_pid(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(pid):
        signal_group(pid, signal.SIGKILL)
    return True


def sweep(instance: str, groups: Iterable[int], rounds: int = 20) -> list[int]:
    """SIGKILL whatever is left of a cluster: its recorded process groups and every process
    carrying its token. Returns the PIDs that were killed."""
    killed: list[int] = []
    for pgid in groups:
        if carries(pgid, instance) is not False and group_exists(pgid):
            signal_group(pgid, signal.SIGKILL)
            killed.append(pgid)
    for _ in range(rounds):  # a dying parent may still fork: repeat until nothing is left
        left = [pid for pid in tagged(instance) if alive(pid)]
        if not left:
            break
        for pid in left:
            signal_pid(pid, signal.SIGKILL)
        killed.extend(left)
        time.sleep(0.05)
    return sorted(set(killed))


def group_exists(pgid: int) -> bool:
    """Whether process group `pgid` still has a member (one we may not signal counts)."""
    if not valid_pid(pgid):
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
