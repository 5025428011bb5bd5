"""Keys of a local cluster: one client key, one host key per worker, and their pinning.

Keys are generated once and kept across restarts (like a VM's host keys across reboots); the
known_hosts file is rewritten whenever ports are (re)assigned.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xcli.gateways.file_lock import locked, replace_text
from xcli.gateways.ssh.keys import generate_key_pair
from xcli.providers.local.layout import HOST, ClusterFiles, Layout


def ensure_key(path: Path, comment: str) -> str:
    """The OpenSSH public key line of the private key at `path`, generated if missing."""
    import asyncssh

    if not path.is_file():
        return generate_key_pair(path, comment)
    key = asyncssh.read_private_key(path)
    line: str = key.export_public_key("openssh").decode().strip()
    return line


def generate_keys(files: ClusterFiles, layout: Layout) -> dict[str, object]:
    """The client key and every worker's host key, each created only if missing."""
    client = ensure_key(files.client_key, f"xcli-local-{layout.cluster}")
    hosts = [
        ensure_key(files.host_key(s, w), f"xcli-local-{layout.cluster}-s{s}-w{w}")
        for s, w in layout.workers()
    ]
    return {"client_key": str(files.client_key), "public_key": client, "host_keys": hosts}


def known_hosts_lines(ports: Sequence[int], host_keys: Sequence[str]) -> list[str]:
    """`[127.0.0.1]:PORT ssh-ed25519 AAAA...`, as OpenSSH writes entries for non-22 ports."""
    if len(ports) != len(host_keys):
        raise ValueError(f"{len(ports)} ports but {len(host_keys)} host keys")
    lines = []
    for port, key in zip(ports, host_keys, strict=True):
        kind, blob = key.split()[:2]
        lines.append(f"[{HOST}]:{port} {kind} {blob}")
    return lines


def pin_host_keys(path: Path, ports: Sequence[int], host_keys: Sequence[str]) -> int:
    """Replace the cluster's known_hosts file; returns how many keys it pins."""
    lines = known_hosts_lines(ports, host_keys)
    with locked(path):
        replace_text(path, "\n".join(lines) + "\n")
    return len(lines)
