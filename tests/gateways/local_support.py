"""Helpers for the local provider's end-to-end tests: the CLI as a real process, OpenSSH argv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.sshd import keygen
from xcli.plan.cluster import SshAccess, Worker

REPO = Path(__file__).resolve().parents[2]


def needs_openssh() -> None:
    if shutil.which("ssh") is None or shutil.which("scp") is None:
        pytest.skip("the OpenSSH client is not installed (scripts/test.sh installs it)")


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XCLI_", "SSH_AUTH"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XCLI_HOME=str(home / "state"),
        CLOUDSDK_CONFIG=str(home / ".config" / "gcloud"),
    )
    return env


def xcli(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `xcli ARGS` as its own process (so a supervisor must outlive it)."""
    proc = subprocess.run(
        [sys.executable, "-m", "xcli", *args],
        env=cli_env(home),
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"xcli {' '.join(args)} -> {proc.returncode}\n{proc.stderr}")
    return proc


def create(home: Path, name: str, tpu: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return xcli(
        home, "cluster", "create", "--provider", "local", "--cluster", name, "--tpu-type", tpu,
        *extra,
    )  # fmt: skip


def delete(home: Path, name: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return xcli(
        home, "cluster", "delete", "--provider", "local", "--cluster", name, "--yes", check=check
    )


def state(home: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((home / "state" / "local" / name / "state.json").read_text())
    return data


def ssh_argv(access: SshAccess, worker: Worker, command: str, *flags: str) -> list[str]:
    """The OpenSSH client as the broadcast engine runs it, with xcli's key and known_hosts."""
    return [
        "ssh",
        "-F",
        "/dev/null",
        "-i",
        str(access.key_file),
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        f"UserKnownHostsFile={access.known_hosts}",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=10",
        "-p",
        str(worker.port),
        *flags,
        f"{access.user}@{worker.host}",
        command,
    ]


def scp_argv(access: SshAccess, port: int, *args: str) -> list[str]:
    return [
        "scp",
        "-F",
        "/dev/null",
        "-i",
        str(access.key_file),
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        f"UserKnownHostsFile={access.known_hosts}",
        "-o",
        "BatchMode=yes",
        "-P",
        str(port),
        *args,
    ]


@dataclass
class Result:
    rc: int
    out: str
    err: str


def run_all(argvs: Sequence[Sequence[str]], stdin: str | None = None) -> list[Result]:
    """Run commands concurrently (as a broadcast would); results in the same order."""
    procs = [
        subprocess.Popen(
            list(a),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a in argvs
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(stdin, timeout=60)
        results.append(Result(proc.returncode, out, err))
    return results


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    return True


@dataclass
class LocalServers:
    """A running local cluster seen as the broadcast tests see an sshd: one port per worker
    (`ports[i]` is worker i), the cluster's client key, a key it does not accept, and its
    pinned host keys. Built from `xcli cluster describe --output json`, as a user would."""

    home: Path
    ports: list[int]
    host_keys: dict[int, str]  # port -> "ssh-ed25519 AAAA..."
    client_key: Path
    wrong_key: Path
    user: str

    @property
    def host_key(self) -> str:
        """Worker 0's host key (every worker has its own)."""
        return self.host_keys[self.ports[0]]

    def known_hosts_lines(self, ports: Sequence[int] | None = None) -> str:
        return "".join(f"[127.0.0.1]:{p} {self.host_keys[p]}\n" for p in ports or self.ports)

    def pin(self, known_hosts: Path, ports: Sequence[int] | None = None) -> Path:
        known_hosts.parent.mkdir(parents=True, exist_ok=True)
        known_hosts.write_text(self.known_hosts_lines(ports))
        return known_hosts


def local_servers(home: Path, name: str, tpu: str) -> LocalServers:
    """Create local cluster `name` under `home` (delete it with `delete(home, name)`)."""
    create(home, name, tpu)
    info = json.loads(
        xcli(
            home, "cluster", "describe", "--provider", "local", "--cluster", name,
            "--output", "json",
        ).stdout
    )  # fmt: skip
    ports = [int(w["ssh"].rsplit(":", 1)[1]) for w in info["workers"]]
    host_keys = {}
    for line in Path(info["ssh"]["known_hosts"]).read_text().splitlines():
        host, kind, blob = line.split()[:3]
        host_keys[int(host.rsplit(":", 1)[1])] = f"{kind} {blob}"
    wrong = home / "wrong_key"
    keygen(wrong)
    return LocalServers(
        home, ports, host_keys, Path(info["ssh"]["key"]), wrong, info["ssh"]["user"]
    )
