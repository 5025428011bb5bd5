"""The supervisor of one local cluster: `python -m xcli.providers.local.supervisor DIR`.

Started detached by the start_supervisor step. It reads DIR/cluster.json, binds one SSH server
per worker on 127.0.0.1, chooses the multislice and JAX coordinator ports, then writes
DIR/state.json (status "running", or "failed" with the reason) and serves until SIGTERM or
SIGINT. On the way out it hangs up every command still running (SIGHUP, then SIGKILL to each
process group after a grace period).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import secrets
import signal
import socket
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from xcli.providers.local import hostnames
from xcli.providers.local.layout import (
    DIR_VAR,
    HOST,
    INSTANCE_VAR,
    ClusterFiles,
    ClusterSpecRecord,
    Ports,
    StateRecord,
    ports_from_base,
    read_spec,
    read_state,
    worker_env,
    write_state,
)
from xcli.providers.local.process import group_exists, signal_group
from xcli.providers.local.sshd import WorkerSite, serve
from xcli.state_files import private_dir

GRACE = 2.0


def login_env(user: str, shell: str) -> dict[str, str]:
    """What sshd gives a session before the worker's variables: a small login environment.
    PATH is the one xcli ran with, so tools installed for this user work, with the folder of
    the python running xcli first when PATH lacks it: `.venv/bin/xcli cluster create` from an
    inactive venv still gives workers that venv's `python3` (and its JAX), as a TPU VM's
    image gives its own."""
    env = {
        "HOME": os.environ.get("HOME", "/"),
        "USER": user,
        "LOGNAME": user,
        "SHELL": shell,
        "PATH": worker_path(os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), sys.executable),
    }
    for key in ("LANG", "TZ", "VIRTUAL_ENV"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def worker_path(path: str, executable: str) -> str:
    """`path` with the folder of `executable` (not resolved: a venv's python is a symlink)
    first, unless `path` already holds that folder."""
    folder = os.path.dirname(os.path.abspath(executable))
    if not executable or folder in path.split(os.pathsep):
        return path
    return os.pathsep.join([folder, path]) if path else folder


def _free_ports(count: int, avoid: set[int]) -> list[int]:
    """Ports nobody listens on now, all distinct (held open together while chosen), none of
    them promised to another local cluster."""
    socks: list[socket.socket] = []
    try:
        while len(socks) < count:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((HOST, 0))
            socks.append(sock)
        chosen = [s.getsockname()[1] for s in socks]
        return chosen if not avoid.intersection(chosen) else _free_ports(count, avoid)
    finally:
        for sock in socks:
            sock.close()


def promised_elsewhere(files: ClusterFiles) -> set[int]:
    """Ports other local clusters use without listening on them (multislice, JAX)."""
    taken: set[int] = set()
    for folder in files.root.parent.iterdir() if files.root.parent.is_dir() else []:
        other = read_state(ClusterFiles(folder))
        if folder != files.root and other is not None and other.ports is not None:
            taken.update(other.ports.all())
    return taken


class Supervisor:
    def __init__(self, files: ClusterFiles, spec: ClusterSpecRecord, instance: str) -> None:
        self.files = files
        self.spec = spec
        self.instance = instance
        self.sites: list[WorkerSite] = []
        self.servers: list[Any] = []
        self.holders: list[hostnames.Holder] = []  # each worker's namespaces
        self.avoid = promised_elsewhere(files)

    async def _listen(self, site: WorkerSite, port: int, host_key: Any) -> Any:
        """Bind one worker's server; with port 0, never on a port another cluster promised."""
        server = await serve(site, HOST, port, host_key)
        while not port and server.get_port() in self.avoid:
            retry = await serve(site, HOST, 0, host_key)  # bind the next one before closing
            server.close()
            server = retry
        return server

    async def start(self) -> Ports:
        import asyncssh

        layout = self.spec.layout
        fixed = ports_from_base(self.spec.base_port, layout.total) if self.spec.base_port else None
        client_key = asyncssh.read_private_key(self.files.client_key)
        shell = pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh"
        base_env = login_env(self.spec.user, shell)
        own_hostnames = hostnames.usable(self.files.root)
        ssh_ports: list[int] = []
        for n, (s, w) in enumerate(layout.workers()):
            directory = self.files.worker_dir(s, w)
            private_dir(directory)
            site = WorkerSite(
                f"s{s}/w{w}", directory, {}, self.spec.user, shell, client_key, self.files.procs
            )
            host_key = asyncssh.read_private_key(self.files.host_key(s, w))
            server = await self._listen(site, fixed.ssh[n] if fixed else 0, host_key)
            self.servers.append(server)
            self.sites.append(site)
            ssh_ports.append(server.get_port())
        if fixed:
            ports = fixed
            _check_free([*fixed.megascale, fixed.jax, *fixed.profiler])
        else:
            n = layout.total
            extra = _free_ports(2 * n + 1, self.avoid | set(ssh_ports))
            ports = Ports(tuple(ssh_ports), tuple(extra[:n]), extra[n], tuple(extra[n + 1 :]))
        for site, (s, w) in zip(self.sites, layout.workers(), strict=True):
            name = hostnames.hostname_for(layout.cluster, s, w)
            tmp = site.directory / "tmp"  # its own temporary folder, as its own disk has
            private_dir(tmp)
            if own_hostnames:
                hosts = hostnames.write_hosts(self.files.root / f"hosts-s{s}-w{w}", name)
                holder = hostnames.hold(name, hosts)
                self.holders.append(holder)
                site.wrap = holder.prefix(site.directory)
            site.env = {
                **base_env,
                # a worker's home is its own folder, as each TPU VM has its own: `~` in a
                # command means what it means to scp and sftp (the worker's folder)
                "HOME": str(site.directory),
                "TMPDIR": str(tmp),
                "HOSTNAME": name,
                **worker_env(layout, ports, s, w),
                "XCLI_WORKER_DIR": str(site.directory),
                INSTANCE_VAR: self.instance,
                DIR_VAR: os.environ.get(DIR_VAR) or str(self.files.root.resolve()),
            }
        return ports

    async def stop(self) -> None:
        for server in self.servers:
            server.close()
        groups = {pgid for site in self.sites for pgid in site.children}
        for pgid in groups:
            signal_group(pgid, signal.SIGHUP)
            signal_group(pgid, signal.SIGCONT)
        deadline = asyncio.get_running_loop().time() + GRACE
        while groups and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
            groups = {g for g in groups if group_exists(g)}
        for pgid in groups:
            signal_group(pgid, signal.SIGKILL)
        for holder in self.holders:
            holder.stop()


def _check_free(ports: list[int]) -> None:
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((HOST, port))  # OSError (address in use) goes to state.json


async def run(files: ClusterFiles) -> int:
    spec = read_spec(files)
    instance = os.environ.get(INSTANCE_VAR) or secrets.token_hex(8)
    if spec is None:
        print(f"no valid cluster.json in {files.root}", file=sys.stderr)
        return 2
    supervisor = Supervisor(files, spec, instance)
    try:
        ports = await supervisor.start()
    except OSError as exc:
        write_state(files, StateRecord(os.getpid(), instance, "failed", None, str(exc)))
        await supervisor.stop()
        return 1
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, stopping.set)
    shape = {k: v for k, v in asdict(spec).items() if k not in ("cluster", "user")}
    write_state(files, StateRecord(os.getpid(), instance, "running", ports, shape=shape))
    print(f"serving {len(supervisor.sites)} workers on {HOST}: ssh ports {list(ports.ssh)}")
    sys.stdout.flush()
    await stopping.wait()
    await supervisor.stop()
    print("stopped")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m xcli.providers.local.supervisor CLUSTER_DIR", file=sys.stderr)
        return 2
    files = ClusterFiles(Path(argv[0]))
    with contextlib.suppress(OSError):
        os.chdir(files.root)
    return asyncio.run(run(files))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
