"""Ports of local clusters never collide: with each other, or between two creates at once."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from tests.gateways.local_support import REPO, cli_env, delete, needs_openssh, state
from xcli.providers.local.layout import ClusterFiles, Ports, StateRecord, write_state
from xcli.providers.local.supervisor import _free_ports, promised_elsewhere


def test_ports_promised_to_other_clusters_are_avoided(tmp_path: Path) -> None:
    root = tmp_path / "local"
    other = Ports((40001, 40002), (40003, 40004), 40005)
    write_state(ClusterFiles(root / "a"), StateRecord(1, "x", "running", other))
    write_state(ClusterFiles(root / "b"), StateRecord(2, "y", "failed", None, "boom"))
    mine = ClusterFiles(root / "mine")
    assert promised_elsewhere(mine) == set(other.all())

    with socket.socket() as sock:  # a port the OS would hand out: promise it elsewhere
        sock.bind(("127.0.0.1", 0))
        busy = sock.getsockname()[1]
    chosen = _free_ports(20, {busy})
    assert busy not in chosen and len(set(chosen)) == 20


def test_two_creates_at_once_start_one_supervisor(tmp_path: Path) -> None:
    needs_openssh()
    argv = [sys.executable, "-m", "xcli", "cluster", "create", "--provider", "local"]
    argv += ["--cluster", "twin", "--tpu-type", "v5litepod-8"]
    procs = [
        subprocess.Popen(
            argv, env=cli_env(tmp_path), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    try:
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        assert sum(b"already running" in err for _, err in outs) == 1
        first = state(tmp_path, "twin")
        assert first["status"] == "running"
    finally:
        delete(tmp_path, "twin", check=False)
