"""The one funnel through which xcli starts local processes: argv lists only, never a shell.

Worker names, IPs and user input are argv elements, so no local shell ever interprets them.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from xcli.errors import UserError
from xcli.state_files import open_private

PROC = Path("/proc")
# The largest pid Linux can hand out (PID_MAX_LIMIT, include/linux/threads.h: 4 * 1024 * 1024
# on 64-bit): a recorded pid outside 2..PID_MAX_LIMIT names no process of ours. 0 and
# negative pids are process groups to kill(2) (-1: every process the user may signal), 1 is
# init, and a pid past a C long overflows os.kill (issue 37: exit 3, and a blocked delete).
PID_MAX_LIMIT = 4 * 1024 * 1024


def valid_pid(pid: object) -> bool:
    """Whether `pid` (read from a record) can be a process xcli started."""
    return isinstance(pid, int) and not isinstance(pid, bool) and 1 < pid <= PID_MAX_LIMIT


def _check(argv: Sequence[str]) -> list[str]:
    if not argv or not all(isinstance(a, str) for a in argv):
        raise TypeError("argv must be a non-empty list of strings")
    return list(argv)


async def spawn(argv: Sequence[str], *, hold_stdin: bool = False) -> asyncio.subprocess.Process:
    """Start a child with stdout/stderr piped, in its own session (so a terminal's Ctrl-C
    reaches xcli only, and xcli decides what to stop). Its stdin is /dev/null, or with
    `hold_stdin` a pipe that xcli holds open (closing it is a signal)."""
    args = _check(argv)
    try:
        return await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE if hold_stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise UserError(
            f"{args[0]} is not installed", hint="install the OpenSSH client (ssh, scp)"
        ) from None


def run(argv: Sequence[str], timeout: float | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run to completion, capturing output (short helper commands such as `ssh -O exit`)."""
    return subprocess.run(
        _check(argv), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
    )


def replace(argv: Sequence[str]) -> None:
    """Become `argv` (an interactive ssh session owns the terminal from here on)."""
    args = _check(argv)
    try:
        os.execvp(args[0], args)
    except FileNotFoundError:
        raise UserError(f"{args[0]} is not installed", hint="install the OpenSSH client") from None


def detach(argv: Sequence[str], log: str) -> int:
    """Start a background process that outlives xcli: its own session, stdin closed, output
    appended to `log`. Returns its pid."""
    # owner-only: the log, and what the process writes (it works in xcli's state folder)
    with open_private(Path(log)) as out:
        proc = subprocess.Popen(
            _check(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            umask=0o077,
        )
    return proc.pid


def alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (never for a pid no process can have)."""
    if not valid_pid(pid):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = PROC / str(pid) / "stat"
    try:
        state = stat.read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"


def start_time(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (/proc/PID/stat field 22, proc(5)); None
    when it is gone or there is no /proc. A pid may be reused; the pair (pid, start) never is."""
    if not valid_pid(pid):
        return None
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[19])  # field 22 counted from the one after the command's name (3)
    except (OSError, IndexError, ValueError):
        return None


def same_process(pid: int, started: int | None) -> bool:
    """`pid` is alive and is still the process that started at `started` (start_time): a
    recycled pid reads as gone. Without /proc, only whether it is alive."""
    if not valid_pid(pid) or not alive(pid):
        return False
    if not PROC.is_dir():
        return True
    return started is not None and start_time(pid) == started
