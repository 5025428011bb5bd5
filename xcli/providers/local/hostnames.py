"""Each emulated worker's own hostname: UTS and mount namespaces per worker (`unshare`).

The name must resolve, as a VM's does (JAX's CPU collectives, gloo, resolve the hostname to
bind): the worker also gets a mount namespace in which its own hosts file (the machine's
/etc/hosts plus `127.0.0.1 <name>`) is bind-mounted on /etc/hosts.

A TPU VM has its own hostname, and programs write per-host files under it (JAX's profiler
names its trace `<host>_<port>.xplane.pb`); emulated workers that all said the machine's name
overwrote each other's files. As root, `unshare --uts --mount` is enough; otherwise a user
namespace maps us to root just long enough to set the name, and a second one maps us back to
our own uid, so `id -u`, file owners and signals are what they were (util-linux 2.38+
`--map-user`).

The namespaces are the worker's, not each command's: a holder process per worker keeps them
(`hold`), and every SSH command enters them (`Holder.prefix`, nsenter; it execs, so the
command keeps its pid). As on a VM, every command of one worker then sees the others in its
own namespaces: py-spy (`xcli workload stacks`) run by one SSH command may trace the program
another one started. With a user namespace per command, as before, an unprivileged py-spy was
refused ("Permission Denied"): ptrace needs the tracer in the target's user namespace or one
that owns it (the kernel's cap_ptrace_access_check), and siblings are neither.

Where namespaces are not allowed (a kernel or container that forbids unprivileged user
namespaces), `usable()` says so once, the commands run as before, and HOSTNAME still names the
worker (docs/local-provider.md).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from xcli.state_files import write_private

# $0: the hostname, $1: the hosts file; then the command
SET = 'hostname "$0" && mount --bind "$1" /etc/hosts && shift'


def hostname_for(cluster: str, slice_: int, worker: int) -> str:
    return f"{cluster}-s{slice_}-w{worker}"[:63].rstrip("-")


def hosts_text(name: str) -> str:
    """The worker's /etc/hosts: the machine's, and its own name on loopback."""
    try:
        base = Path("/etc/hosts").read_text(encoding="utf-8")
    except OSError:
        base = "127.0.0.1 localhost\n"
    return base.rstrip("\n") + f"\n127.0.0.1 {name}\n"


def write_hosts(path: Path, name: str) -> Path:
    write_private(path, hosts_text(name))
    return path


def _hold_argv(name: str, hosts: Path) -> tuple[str, ...]:
    """The holder: sets the name and the hosts file, prints the pid(s) to enter, then waits
    for its stdin (the supervisor's pipe) to close. Without root, the outer shell stays in the
    first user namespace (the one that owns the UTS and mount namespaces) and its child maps
    the user back in a second one."""
    if os.getuid() == 0:
        return ("unshare", "--uts", "--mount", "sh", "-c", f"{SET} && {_WAIT}", name, str(hosts))
    back = f"--map-user={os.getuid()} --map-group={os.getgid()}"
    script = f"{SET} && echo $$ && unshare --user {back} sh -c '{_WAIT}'"
    return (
        "unshare", "--user", "--map-root-user", "--uts", "--mount", "sh", "-c", script, name,
        str(hosts),
    )  # fmt: skip


_WAIT = "echo $$; exec cat >/dev/null"  # the pid (of the namespaces to enter), then hold


@dataclass
class Holder:
    """One worker's namespaces, kept by a process that lives as long as the supervisor (its
    stdin is the supervisor's pipe: if the supervisor dies, so does the holder)."""

    process: subprocess.Popen[bytes]
    pids: tuple[int, ...]  # root: (holder,); else (outer, inner)

    def prefix(self, directory: Path) -> tuple[str, ...]:
        """The argv that runs the rest of an argv inside the worker's namespaces, in
        `directory` (entering a mount namespace moves to its root otherwise). nsenter execs,
        so the command keeps the pid it was started with."""
        first = ("nsenter", f"--target={self.pids[0]}", "--uts", "--mount", f"--wd={directory}")
        if len(self.pids) == 1:
            return first
        # the first user namespace owns the UTS and mount ones: enter it (and them), then the
        # second, which maps the user back
        return (
            *first[:2], "--user", *first[2:], "--preserve-credentials",
            "nsenter", f"--target={self.pids[1]}", "--user", "--preserve-credentials",
        )  # fmt: skip

    def stop(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        for pid in self.pids[1:]:  # the inner holder (the outer one is the process)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)


def hold(name: str, hosts: Path, timeout: float = 10.0) -> Holder:
    """Start a worker's holder; OSError (with what it said) if it does not come up."""
    process = subprocess.Popen(
        _hold_argv(name, hosts), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    wanted = 1 if os.getuid() == 0 else 2
    said = b""
    assert process.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while said.count(b"\n") < wanted and sel.select(max(0.0, deadline - time.monotonic())):
            chunk = os.read(process.stdout.fileno(), 256)
            if not chunk:
                break
            said += chunk
    pids = [int(x) for x in said.split()[:wanted] if x.isdigit()]
    process.stdout.close()
    holder = Holder(process, tuple(pids))
    if len(pids) < wanted:
        holder.stop()
        err = (process.stderr.read() if process.stderr else b"").decode(errors="replace")
        raise OSError(f"the namespaces of worker {name} did not start: {err.strip()}")
    if process.stderr is not None:
        process.stderr.close()
    return holder


def usable(folder: Path) -> bool:
    """Whether `hold` works here: tried once; the name must come back, and resolve."""
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return False
    hosts = write_hosts(folder / "probe-hosts", "xcli-probe")
    check = "hostname && getent hosts xcli-probe"
    holder = None
    try:
        holder = hold("xcli-probe", hosts)
        done = subprocess.run(
            [*holder.prefix(folder), "sh", "-c", check], capture_output=True, text=True,
            timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        if holder is not None:
            holder.stop()
        hosts.unlink(missing_ok=True)
    lines = done.stdout.split()
    return done.returncode == 0 and lines[:2] == ["xcli-probe", "127.0.0.1"]
