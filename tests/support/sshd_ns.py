"""Thousands of SSH "workers" on one machine: one OpenSSH sshd in a private network namespace.

Linux routes all of 127.0.0.0/8 to `lo`, so an sshd listening on 0.0.0.0:2222 answers on every
127.a.b.c; inside a fresh network namespace (`unshare --net`, which has only `lo`) nothing
outside can reach it. Worker i is 127.1.(i // 250).(i % 250 + 1): its own address, as on a real
slice, for known_hosts and for the per-worker sockets and logs (the addresses and the
MAX_LISTEN_SOCKS / MaxStartups limits are the ones docs/ssh.md, "Large slices", describes).
A remote command learns its worker from $SSH_CONNECTION (field 3, the address it reached).

The namespace also gets its own mount table (`unshare --mount`), where /etc/passwd is replaced
by a copy that gives the login user the plain /bin/sh: no rc file runs per command. MaxStartups
is raised (the emulator must not measure its own limit) and, on OpenSSH 9.8 and later,
PerSourcePenalties turned off: every "worker" sees the same source address 127.0.0.1.

Needs root (unshare) and OpenSSH's sshd. Entry point, run by `in_namespace(...)`:

    unshare --mount --net -- python -m tests.support.sshd_ns --workers N --folder F -- CMD...

It brings `lo` up, swaps the login shell, starts sshd, writes F/sshd.json (the file
tests.support.sshd.SshdProvider reads, named by $XCLI_TEST_SSHD for CMD), runs CMD, stops
exactly the sshd it started, and exits with CMD's status.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from tests.support.sshd import keygen, sshd_binary

PORT = 2222
PER_OCTET = 250


def worker_address(i: int) -> str:
    return f"127.1.{i // PER_OCTET}.{i % PER_OCTET + 1}"


def available() -> str | None:
    """Why the emulator cannot run here, or None."""
    if os.geteuid() != 0:
        return "the emulator needs root (a network namespace of its own)"
    if sshd_binary() is None or shutil.which("ssh-keygen") is None:
        return "OpenSSH server (sshd) is not installed"
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare and mount (util-linux) are not installed"
    return None


def in_namespace(workers: int, folder: Path, argv: list[str], **options: str) -> list[str]:
    """The argv that runs `argv` beside an emulated slice of `workers` workers."""
    extra = [f"--{k.replace('_', '-')}={v}" for k, v in options.items()]
    return [
        "unshare",
        "--mount",
        "--net",
        "--",
        sys.executable,
        "-m",
        "tests.support.sshd_ns",
        f"--workers={workers}",
        f"--folder={folder}",
        *extra,
        "--",
        *argv,
    ]


def _lo_up() -> None:
    """`ip link set lo up` without iproute2: SIOCGIFFLAGS / SIOCSIFFLAGS on a socket."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        raw = fcntl.ioctl(s, siocgifflags, struct.pack("16sh", b"lo", 0))
        flags = struct.unpack("16sh", raw[:18])[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sh", b"lo", flags | iff_up))


def _plain_shell(folder: Path, user: str) -> None:
    """Bind-mount over /etc/passwd (in this mount namespace only) a copy where `user` logs in
    to /bin/sh."""
    lines = []
    for line in Path("/etc/passwd").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == user and len(fields) == 7:
            fields[6] = "/bin/sh"
        lines.append(":".join(fields))
    copy = folder / "passwd"
    copy.write_text("\n".join(lines) + "\n")
    copy.chmod(0o644)
    subprocess.run(["mount", "--bind", str(copy), "/etc/passwd"], check=True)


def _config(folder: Path, max_startups: str, fail: dict[str, int]) -> Path:
    lines = [
        f"Port {PORT}",
        "ListenAddress 0.0.0.0",
        f"HostKey {folder / 'host_key'}",
        f"AuthorizedKeysFile {folder / 'authorized_keys'}",
        f"PidFile {folder / 'sshd.pid'}",
        "UsePAM no",
        "StrictModes no",
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UseDNS no",
        "PrintMotd no",
        f"MaxStartups {max_startups}",
        "LoginGraceTime 120",
        "LogLevel ERROR",
        "Subsystem sftp internal-sftp",
        "PerSourcePenalties no",
    ]
    # a worker whose command fails: its address, the exit code (Match blocks come last)
    for address, code in fail.items():
        lines += [f"Match LocalAddress {address}", f"  ForceCommand exit {code}"]
    config = folder / "sshd_config"
    config.write_text("\n".join(lines) + "\n")
    test = subprocess.run([sshd_binary() or "sshd", "-t", "-f", str(config)], capture_output=True)
    if b"PerSourcePenalties" in test.stderr:  # OpenSSH before 9.8 has no such option
        config.write_text(config.read_text().replace("PerSourcePenalties no\n", ""))
    return config


def _wait_listening(proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 10
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"sshd exited: {log.read_text(errors='replace')}")
        try:
            socket.create_connection((worker_address(0), PORT), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def serve(workers: int, folder: Path, max_startups: str, fail: dict[str, int]) -> dict[str, object]:
    """Start the sshd (inside the namespace); the SshdProvider file's content."""
    import getpass

    user = getpass.getuser()
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("host_key", "client_key"):
        for path in (folder / name, folder / f"{name}.pub"):
            path.unlink(missing_ok=True)
    host_key = keygen(folder / "host_key")
    (folder / "authorized_keys").write_text(keygen(folder / "client_key") + "\n")
    (folder / "client_key").chmod(0o600)
    _lo_up()
    _plain_shell(folder, user)
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    addresses = [worker_address(i) for i in range(workers)]
    key = " ".join(host_key.split()[:2])
    known = folder / "known_hosts"
    # 127.0.0.1 too: the same sshd serves as the jump host of the tests that need one
    known.write_text("".join(f"[{a}]:{PORT} {key}\n" for a in [*addresses, "127.0.0.1"]))
    return {
        "hosts": addresses,
        "ports": [PORT] * workers,
        "slices": 1,
        "user": user,
        "key": str(folder / "client_key"),
        "known_hosts": str(known),
        "config": str(_config(folder, max_startups, fail)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--max-startups", default="4000:100:4000")
    parser.add_argument("--fail", default="", help="worker=code,... whose command exits so")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    fail = {}
    for item in filter(None, args.fail.split(",")):
        index, _, code = item.partition("=")
        fail[worker_address(int(index))] = int(code)
    info = serve(args.workers, args.folder, args.max_startups, fail)
    info_path = args.folder / "sshd.json"
    info_path.write_text(json.dumps(info))
    log = args.folder / "sshd.log"
    with log.open("wb") as out:
        sshd = subprocess.Popen(
            [sshd_binary() or "sshd", "-D", "-e", "-f", str(info["config"])],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_listening(sshd, log)
        env = {**os.environ, "XCLI_TEST_SSHD": str(info_path)}
        code = subprocess.run(args.command, env=env, check=False).returncode
    finally:
        sshd.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            sshd.wait(timeout=10)
    sys.exit(code)


if __name__ == "__main__":
    main()
