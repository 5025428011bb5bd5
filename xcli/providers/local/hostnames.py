"""Each emulated worker's own hostname: a UTS namespace per session (`unshare --uts`).

The name must resolve, as a VM's does (JAX's CPU collectives, gloo, resolve the hostname to
bind): the session also gets a mount namespace in which the worker's own hosts file (the
machine's /etc/hosts plus `127.0.0.1 <name>`) is bind-mounted on /etc/hosts.

A TPU VM has its own hostname, and programs write per-host files under it (JAX's profiler
names its trace `<host>_<port>.xplane.pb`); emulated workers that all said the machine's name
overwrote each other's files. A worker's commands run in a UTS namespace of their own whose
hostname is the worker's (`<cluster>-s<S>-w<W>`). As root, `unshare --uts` is enough; otherwise
a user namespace maps us to root just long enough to set the name, and a second one maps us
back to our own uid, so `id -u`, file owners and signals are what they were (util-linux 2.38+
`--map-user`). The wrapper execs: the worker's process is the command itself, same pid.

Where namespaces are not allowed (a kernel or container that forbids unprivileged user
namespaces), `usable()` says so once, the commands run as before, and HOSTNAME still names the
worker (docs/local-provider.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
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


def prefix(name: str, hosts: Path) -> tuple[str, ...]:
    """The argv that runs the rest of an argv with hostname `name` and `hosts` as /etc/hosts."""
    if os.getuid() == 0:
        return ("unshare", "--uts", "--mount", "sh", "-c", f'{SET} && exec "$@"', name, str(hosts))
    back = f"--map-user={os.getuid()} --map-group={os.getgid()}"
    return (
        "unshare", "--user", "--map-root-user", "--uts", "--mount", "sh", "-c",
        f'{SET} && exec unshare --user {back} "$@"', name, str(hosts),
    )  # fmt: skip


def usable(folder: Path) -> bool:
    """Whether `prefix` works here: tried once; the name must come back, and resolve."""
    if shutil.which("unshare") is None:
        return False
    hosts = write_hosts(folder / "probe-hosts", "xcli-probe")
    check = "hostname && getent hosts xcli-probe"
    try:
        done = subprocess.run(
            [*prefix("xcli-probe", hosts), "sh", "-c", check], capture_output=True, text=True,
            timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        hosts.unlink(missing_ok=True)
    lines = done.stdout.split()
    return done.returncode == 0 and lines[:2] == ["xcli-probe", "127.0.0.1"]
