"""Each emulated worker's namespaces are the worker's, not each command's: every SSH command of
one worker sees the same hostname, UTS, mount and user namespaces, as the commands of one VM
do, so a py-spy started by one command may trace the program another one started (`workload
stacks`; without root, ptrace between sibling user namespaces is refused). The namespaces'
holders end with the cluster."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, run_all, ssh_argv
from xcli.plan.cluster import ClusterRef
from xcli.providers.local import hostnames
from xcli.providers.local.provider import LocalProvider

LOOK = "hostname; pwd; for n in uts mnt user; do readlink /proc/self/ns/$n; done"


def _in_namespace(uts: str) -> list[int]:
    """The processes in a UTS namespace (`uts:[N]`, as /proc/PID/ns/uts reads)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "ns" / "uts") == uts:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_every_command_of_a_worker_shares_its_namespaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_openssh()
    probe = tmp_path / "probe"
    probe.mkdir()
    if not hostnames.usable(probe):
        pytest.skip("namespaces (unshare, nsenter) are not allowed here")
    create(tmp_path, "ns", "v5litepod-8")
    try:
        monkeypatch.setenv("HOME", str(tmp_path))
        monkeypatch.setenv("XCLI_HOME", str(tmp_path / "state"))
        provider = LocalProvider()
        ref = ClusterRef("ns", "", "", "local")
        access, workers = provider.ssh_access(ref), provider.workers(ref)
        runs = run_all([ssh_argv(access, w, LOOK) for w in [*workers, *workers]])
        assert all(r.rc == 0 for r in runs), [r.err for r in runs]
        seen = [r.out.split() for r in runs]
        assert seen[0] == seen[2] and seen[1] == seen[3]  # each worker's two commands
        assert [s[0] for s in seen[:2]] == ["ns-s0-w0", "ns-s0-w1"]
        folder = tmp_path / "state" / "local" / "ns" / "workers"
        assert [s[1] for s in seen[:2]] == [str(folder / "s0-w0"), str(folder / "s0-w1")]
        assert seen[0][2] != seen[1][2]  # UTS: one per worker
        assert seen[0][2:] != [os.readlink(f"/proc/self/ns/{n}") for n in ("uts", "mnt", "user")]
        assert all(_in_namespace(s[2]) for s in seen[:2])  # held between commands
    finally:
        delete(tmp_path, "ns", check=False)
    assert [_in_namespace(s[2]) for s in seen[:2]] == [[], []]  # nothing left in them
