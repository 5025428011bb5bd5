"""Real OpenSSH sshd on loopback for tests, serving many "workers" on distinct ports.

Each sshd process listens on up to 16 ports of 127.0.0.1 (sshd's MAX_LISTEN_SOCKS), as many
processes as the ports need; each port is one worker, so known_hosts
entries (`[127.0.0.1]:port`) and connection-reuse sockets are per worker, as on a real slice.
A remote command can tell which worker it runs on from $SSH_CONNECTION (field 4: the port).
The server runs as the current user with its own config, host key and authorized_keys, and
`UsePAM no`. `stop()` ends exactly the listeners it started and the per-connection children
those listeners forked (found by parent PID), nothing else.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from xcli.plan.cluster import ClusterRef, SshAccess, Worker

PORTS_PER_SSHD = 16  # sshd refuses more listen sockets (MAX_LISTEN_SOCKS)


def sshd_binary() -> str | None:
    found = shutil.which("sshd")
    if found:
        return found
    for folder in ("/usr/sbin", "/usr/local/sbin"):
        if os.access(f"{folder}/sshd", os.X_OK):
            return f"{folder}/sshd"
    return None


def keygen(path: Path) -> str:
    """Make an ed25519 key pair at `path`; return the public key line."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
        check=True,
    )
    return path.with_suffix(".pub").read_text().strip()


def free_ports(count: int) -> list[int]:
    """Ports nobody listens on right now (the kernel picks them; closed before returning)."""
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@dataclass
class Sshd:
    """A running sshd. `ports[i]` is worker i."""

    folder: Path
    ports: list[int]
    host_key: str  # "ssh-ed25519 AAAA..."
    client_key: Path
    wrong_key: Path
    user: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def known_hosts_lines(self, ports: list[int] | None = None) -> str:
        key = " ".join(self.host_key.split()[:2])
        return "".join(f"[127.0.0.1]:{p} {key}\n" for p in ports or self.ports)

    def pin(self, known_hosts: Path, ports: list[int] | None = None) -> Path:
        known_hosts.parent.mkdir(parents=True, exist_ok=True)
        known_hosts.write_text(self.known_hosts_lines(ports))
        return known_hosts

    def start(self) -> None:
        binary = sshd_binary()
        assert binary, "sshd not installed"
        if os.geteuid() == 0:
            # sshd run as root wants its privilege-separation folder (the service unit makes it).
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        for n in range(0, len(self.ports), PORTS_PER_SSHD):
            config = self.folder / f"sshd_config.{n}"
            config.write_text(self._config(self.ports[n : n + PORTS_PER_SSHD], n))
            log = (self.folder / f"sshd.{n}.log").open("wb")
            proc = subprocess.Popen(
                [binary, "-D", "-e", "-f", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            self.procs.append(proc)
            self._wait_listening(proc, self.ports[n : n + PORTS_PER_SSHD], log.name)

    def _config(self, ports: list[int], n: int) -> str:
        lines = [f"ListenAddress 127.0.0.1:{port}" for port in ports]
        lines += [
            f"HostKey {self.folder / 'host_key'}",
            f"AuthorizedKeysFile {self.folder / 'authorized_keys'}",
            f"PidFile {self.folder / f'sshd.{n}.pid'}",
            "UsePAM no",
            "StrictModes no",
            "PermitRootLogin prohibit-password",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UseDNS no",
            "MaxStartups 1000",
            "MaxSessions 1000",
            "LogLevel ERROR",
            "Subsystem sftp internal-sftp",
            # bash skips ~/.bashrc when SHLVL says it is nested: keeps a heavy login
            # profile on the test machine (pyenv init ...) out of every remote command.
            "SetEnv SHLVL=1",
            # lets tests check that SendEnv / SetEnv reach the command (both engine paths)
            "AcceptEnv XCLI_TEST_*",
        ]
        return "\n".join(lines) + "\n"

    @staticmethod
    def _wait_listening(proc: subprocess.Popen[bytes], ports: list[int], log: str) -> None:
        deadline = time.monotonic() + 10
        for port in (ports[0], ports[-1]):
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"sshd exited: {Path(log).read_text(errors='replace')}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)

    def children(self) -> list[int]:
        """PIDs of the processes the listeners forked (one per open connection), recursively."""
        parents = {p.pid for p in self.procs}
        found: list[int] = []
        changed = True
        while changed:
            changed = False
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or int(entry.name) in found:
                    continue
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid in parents:
                    found.append(int(entry.name))
                    parents.add(int(entry.name))
                    changed = True
        return found

    def stop(self) -> None:
        children = self.children()
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait(timeout=10)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        self.procs = []


def make_sshd(folder: Path, workers: int) -> Sshd:
    folder.mkdir(parents=True, exist_ok=True)
    host_key = keygen(folder / "host_key")
    client = keygen(folder / "client_key")
    keygen(folder / "wrong_key")
    (folder / "authorized_keys").write_text(client + "\n")
    for name in ("client_key", "wrong_key"):
        (folder / name).chmod(0o600)
    return Sshd(
        folder=folder,
        ports=free_ports(workers),
        host_key=host_key,
        client_key=folder / "client_key",
        wrong_key=folder / "wrong_key",
        user=getpass.getuser(),
    )


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    """One sshd serving 32 workers for the whole test session."""
    if sshd_binary() is None or shutil.which("ssh-keygen") is None:
        pytest.skip("OpenSSH server (sshd) is not installed; scripts/test.sh installs it as root")
    server = make_sshd(tmp_path_factory.mktemp("sshd"), 32)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def blackhole() -> Iterator[int]:
    """A port that accepts TCP connections (kernel backlog) and never says a word."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    try:
        yield s.getsockname()[1]
    finally:
        s.close()


class SshdProvider:
    """A VM-style provider whose workers are the ports of a test sshd (for CLI tests).

    It reads the JSON file named by $XCLI_TEST_SSHD: {"ports": [...], "slices": N, "user": ...,
    "key": path, "known_hosts": path}, and "hosts" (one address per port) when the workers are
    not all on 127.0.0.1 (tests.support.sshd_ns). Tests register it in xcli.providers.PROVIDERS.
    """

    name = "local"

    def _info(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(Path(os.environ["XCLI_TEST_SSHD"]).read_text())
        return data

    def workers(self, ref: ClusterRef) -> list[Worker]:
        info = self._info()
        ports, slices = info["ports"], info.get("slices", 1)
        hosts = info.get("hosts") or ["127.0.0.1"] * len(ports)
        per = len(ports) // slices
        return [
            Worker(slice=n // per, index=n % per, host=h, port=p)
            for n, (h, p) in enumerate(zip(hosts, ports, strict=True))
        ]

    def ssh_access(self, ref: ClusterRef) -> SshAccess:
        info = self._info()
        return SshAccess(
            key_file=Path(info["key"]), known_hosts=Path(info["known_hosts"]), user=info["user"]
        )


def provider_file(folder: Path, server: Sshd, ports: list[int], slices: int = 1) -> Path:
    """Write the $XCLI_TEST_SSHD file for SshdProvider; pins the ports' host key."""
    known = server.pin(folder / "known_hosts", [p for p in ports if p in server.ports])
    info = {
        "ports": ports,
        "slices": slices,
        "user": server.user,
        "key": str(server.client_key),
        "known_hosts": str(known),
    }
    path = folder / "sshd.json"
    path.write_text(json.dumps(info))
    return path
