"""Local clusters over their whole life, with real processes: delete leaves nothing running,
a dead supervisor is seen as stale and cleaned, fixed ports and a port in use, and a CPU JAX
program joining jax.distributed across the emulated hosts (when JAX is installed)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gateways.local_support import (
    create,
    delete,
    needs_openssh,
    pid_alive,
    run_all,
    ssh_argv,
    state,
    xcli,
)
from xcli.errors import UserError
from xcli.plan.cluster import ClusterRef
from xcli.providers.local.provider import LocalProvider


@pytest.fixture(autouse=True)
def _openssh() -> None:
    needs_openssh()


def _provider(home: Path, monkeypatch: pytest.MonkeyPatch) -> LocalProvider:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XCLI_HOME", str(home / "state"))
    return LocalProvider()


def _wait_dead(pids: list[int], seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if pid_alive(p)]
        if not alive:
            return []
        time.sleep(0.05)
    return [p for p in pids if pid_alive(p)]


def _start_leftovers(home: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """A detached background job (own session, like `setsid nohup`) and a command still
    running in an open session: what delete must find and stop. Returns their PIDs."""
    provider = _provider(home, monkeypatch)
    ref = ClusterRef(name, "", "", "local")
    access, workers = provider.ssh_access(ref), provider.workers(ref)
    (bg,) = run_all(
        [ssh_argv(access, workers[0], "setsid sleep 300 >/dev/null 2>&1 </dev/null & echo $!")]
    )
    live = subprocess.Popen(
        ssh_argv(access, workers[-1], "echo $$; exec sleep 301"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert live.stdout is not None
    pids = [int(bg.out.strip()), int(live.stdout.readline().strip())]
    assert all(pid_alive(p) for p in pids)
    return pids


def test_delete_stops_every_process_and_removes_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(tmp_path, "gone", "v5litepod-8")
    supervisor = state(tmp_path, "gone")["pid"]
    pids = [supervisor, *_start_leftovers(tmp_path, monkeypatch, "gone")]
    out = delete(tmp_path, "gone")
    assert "2 of 2 steps done" in out.stdout
    assert _wait_dead(pids) == []
    assert not (tmp_path / "state" / "local" / "gone").exists()
    listed = xcli(tmp_path, "cluster", "list", "--provider", "local", "-o", "json")
    assert json.loads(listed.stdout) == []
    again = delete(tmp_path, "gone", check=False)
    assert again.returncode == 1 and "no local cluster gone" in again.stdout + again.stderr


def test_stale_supervisor_is_detected_restarted_and_cleaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(tmp_path, "stale", "v5litepod-8")
    first = state(tmp_path, "stale")
    leftovers = _start_leftovers(tmp_path, monkeypatch, "stale")
    os.kill(first["pid"], signal.SIGKILL)
    assert _wait_dead([first["pid"]]) == []
    rows = json.loads(xcli(tmp_path, "cluster", "list", "--provider", "local", "-o", "json").stdout)
    assert [(r["name"], r["status"]) for r in rows] == [("stale", "stale")]
    with pytest.raises(UserError, match="local cluster stale is stale"):
        _provider(tmp_path, monkeypatch).workers(ClusterRef("stale", "", "", "local"))

    restarted = create(tmp_path, "stale", "v5litepod-8")  # create again: cleaned, restarted
    assert "cleaned a stale supervisor" in restarted.stderr
    assert _wait_dead(leftovers) == []
    second = state(tmp_path, "stale")
    assert second["pid"] != first["pid"] and second["status"] == "running"
    pids = [second["pid"], *_start_leftovers(tmp_path, monkeypatch, "stale")]

    os.kill(second["pid"], signal.SIGKILL)  # stale again: delete cleans up what is left
    out = delete(tmp_path, "stale")
    assert "was not running" in out.stderr
    assert _wait_dead(pids) == []
    assert not (tmp_path / "state" / "local" / "stale").exists()


def _free_base(span: int) -> int:
    for base in range(20000, 60000, 97):
        try:
            for port in range(base, base + span):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no free port range")


def test_base_port_and_a_port_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _free_base(7)
    create(tmp_path, "fixed", "v5litepod-8", "--base-port", str(base))
    ports, supervisor = state(tmp_path, "fixed")["ports"], state(tmp_path, "fixed")["pid"]
    assert ports == {
        "ssh": [base, base + 1],
        "megascale": [base + 2, base + 3],
        "jax": base + 4,
        "profiler": [base + 5, base + 6],
    }
    provider = _provider(tmp_path, monkeypatch)
    ref = ClusterRef("fixed", "", "", "local")
    (hello,) = run_all([ssh_argv(provider.ssh_access(ref), provider.workers(ref)[1], "hostname")])
    assert hello.rc == 0 and hello.out.strip()

    clash = xcli(
        tmp_path, "cluster", "create", "--provider", "local", "--cluster", "clash",
        "--tpu-type", "v5litepod-8", "--base-port", str(base), check=False,
    )  # fmt: skip
    assert (clash.returncode, clash.stdout) == (1, "")
    assert clash.stderr.splitlines() == [
        f"error: --base-port {base}: port {base} (and 1 more) of {base}-{base + 6} is already "
        "in use",
        "hint: choose another --base-port, or drop it to use free ports",
    ]
    assert not (tmp_path / "state" / "local" / "clash").exists()  # no `failed` folder left
    rows = json.loads(xcli(tmp_path, "cluster", "list", "--provider", "local", "-o", "json").stdout)
    assert {r["name"]: r["status"] for r in rows} == {"fixed": "running"}
    delete(tmp_path, "fixed")
    assert _wait_dead([supervisor]) == []


def _jax_python() -> str | None:
    chosen = os.environ.get("XCLI_TEST_JAX_PYTHON")
    if chosen:
        return chosen
    probe = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True, check=False)
    return sys.executable if probe.returncode == 0 else None


JAX_PROGRAM = """
import os, jax
jax.distributed.initialize(
    num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
    process_id=int(os.environ["JAX_PROCESS_ID"]),
)
print(jax.process_index(), jax.process_count(), flush=True)
jax.distributed.shutdown()
"""


def test_cpu_jax_joins_across_emulated_hosts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _jax_python()
    if python is None:
        pytest.skip("JAX is not installed (set XCLI_TEST_JAX_PYTHON to a python that has it)")
    create(tmp_path, "jax", "v5litepod-8", "--num-slices", "2")
    try:
        provider = _provider(tmp_path, monkeypatch)
        ref = ClusterRef("jax", "", "", "local")
        script = tmp_path / "prog.py"
        script.write_text(JAX_PROGRAM)
        command = f"JAX_PLATFORMS=cpu {shutil.which(python) or python} {script}"
        access = provider.ssh_access(ref)
        results = run_all([ssh_argv(access, w, command) for w in provider.workers(ref)])
        assert [r.out.split()[-2:] for r in results] == [[str(n), "4"] for n in range(4)]
    finally:
        delete(tmp_path, "jax")


def _supervisors(home: Path) -> list[int]:
    """PIDs of the local supervisors serving clusters under `home` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"xcli.providers.local.supervisor" in argv and any(
            str(home).encode() in a for a in argv
        ):
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("damage", ["random bytes", "truncated", "deleted", "huge pid"])
def test_delete_stops_everything_when_state_json_is_damaged(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(tmp_path, "hurt", "v5litepod-8")
    supervisor = state(tmp_path, "hurt")["pid"]
    pids = [supervisor, *_start_leftovers(tmp_path, monkeypatch, "hurt")]
    path = tmp_path / "state" / "local" / "hurt" / "state.json"
    if damage == "random bytes":
        path.write_bytes(os.urandom(300))
    elif damage == "truncated":
        path.write_text(path.read_text()[:40])
    elif damage == "huge pid":  # issue 37: os.kill overflowed, exit 3, the delete blocked
        path.write_text(json.dumps({**json.loads(path.read_text()), "pid": 10**30}))
    else:
        path.unlink()
    out = delete(tmp_path, "hurt")
    assert out.returncode == 0 and "marked with the cluster's folder" in out.stderr
    assert _wait_dead(pids) == []
    assert not (tmp_path / "state" / "local" / "hurt").exists()


def test_create_after_a_lost_state_json_replaces_the_orphan_and_delete_finds_a_lost_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(tmp_path, "orph", "v5litepod-8")
    first = state(tmp_path, "orph")["pid"]
    leftovers = _start_leftovers(tmp_path, monkeypatch, "orph")
    (tmp_path / "state" / "local" / "orph" / "state.json").unlink()
    again = create(tmp_path, "orph", "v5litepod-8")
    assert "cleaned a stale supervisor" in again.stderr
    assert _wait_dead([first, *leftovers]) == []
    second = state(tmp_path, "orph")["pid"]
    assert _supervisors(tmp_path) == [second]  # one supervisor, not two side by side

    bg = _start_leftovers(tmp_path, monkeypatch, "orph")
    shutil.rmtree(tmp_path / "state" / "local" / "orph")  # the whole folder, by hand
    out = delete(tmp_path, "orph")
    assert "leftover processes" in out.stderr
    assert _wait_dead([second, *bg]) == [] and _supervisors(tmp_path) == []


def test_cluster_delete_ends_its_workload_records(tmp_path: Path) -> None:
    create(tmp_path, "wlend", "v5litepod-8")
    where = ("--provider", "local", "--cluster", "wlend")
    for name, command in (("long", "echo $$ > long.pid; exec sleep 300"), ("bad", "exit 1")):
        xcli(tmp_path, "workload", "create", *where, "--workload", name,
             "--docker-image", "python:3.11", "--command", command, "--detach")  # fmt: skip
    xcli(tmp_path, "workload", "wait", "bad", *where, check=False)
    workers = tmp_path / "state" / "local" / "wlend" / "workers"
    deadline = time.monotonic() + 20
    while len(list(workers.glob("*/long.pid"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    sleepers = [int(p.read_text()) for p in workers.glob("*/long.pid")]
    assert len(sleepers) == 2

    out = delete(tmp_path, "wlend")
    assert "stopping workload long (its cluster is being deleted)" in out.stderr
    assert _wait_dead(sleepers) == []
    listed = xcli(tmp_path, "workload", "list", *where, "-o", "json")
    states = {row["name"]: row["state"] for row in json.loads(listed.stdout)}
    assert states == {"long": "stopped", "bad": "failed"}
    gone = xcli(tmp_path, "workload", "delete", *where, "--state", "failed", "--yes")
    assert "deleted the record of workload bad (its cluster was deleted)" in gone.stderr
    assert "workers stopped" not in gone.stderr
