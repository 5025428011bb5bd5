"""A real OpenSSH sshd on loopback for tests, serving many "workers" on distinct ports.

One sshd process listens on N ports of 127.0.0.1; each port is one worker, so known_hosts
entries (`[127.0.0.1]:port`) and connection-reuse sockets are per worker, as on a real slice.
A remote command can tell which worker it runs on from $SSH_CONNECTION (field 4: the port).
The server runs as the current user with its own config, host key and authorized_keys, and
`UsePAM no`. `stop()` ends exactly the listener it started and the per-connection children
that listener forked (found by parent PID), nothing else.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest


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
    proc: subprocess.Popen[bytes] | None = None
    extra: list[subprocess.Popen[bytes]] = field(default_factory=list)

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
        config = self.folder / "sshd_config"
        config.write_text(self._config())
        log = (self.folder / "sshd.log").open("wb")
        self.proc = subprocess.Popen(
            [binary, "-D", "-e", "-f", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self._wait_listening()

    def _config(self) -> str:
        lines = [f"ListenAddress 127.0.0.1:{port}" for port in self.ports]
        lines += [
            f"HostKey {self.folder / 'host_key'}",
            f"AuthorizedKeysFile {self.folder / 'authorized_keys'}",
            f"PidFile {self.folder / 'sshd.pid'}",
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
        ]
        return "\n".join(lines) + "\n"

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + 10
        for port in (self.ports[0], self.ports[-1]):
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    log = (self.folder / "sshd.log").read_text(errors="replace")
                    raise RuntimeError(f"sshd exited: {log}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)

    def children(self) -> list[int]:
        """PIDs of the processes the listener forked (one per open connection), recursively."""
        if self.proc is None:
            return []
        parents = {self.proc.pid}
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
        if self.proc is None:
            return
        children = self.children()
        self.proc.terminate()
        self.proc.wait(timeout=10)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        self.proc = None


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
