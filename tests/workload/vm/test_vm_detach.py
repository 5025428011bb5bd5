"""`workload create --detach` on a real local cluster: a background driver runs the restart
loop after the CLI has exited; status, logs, wait, list and delete read or stop it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import (
    cli_env,
    create,
    delete,
    needs_openssh,
    pid_alive,
    xcli,
)
from tests.workload.vm.test_vm_local import FAILS_ONCE

CLUSTER = ("--provider", "local", "--cluster", "wldet")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("workload-detach")
    create(home, "wldet", "v5litepod-16")
    yield home
    delete(home, "wldet", check=False)


def submit(home: Path, name: str, command: str, *extra: str) -> None:
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", name,
               "--docker-image", "python:3.11", "--command", command, "--detach", *extra,
               check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "ran on worker" not in run.stdout  # it runs in the background
    assert "running in the background" in run.stderr


def wl(home: Path, *args: str) -> tuple[int, str, str]:
    run = xcli(home, "workload", *args, *CLUSTER, check=False)
    return run.returncode, run.stdout, run.stderr


def test_worker_2_fails_once_then_all_restart_and_succeed(home: Path) -> None:
    submit(home, "retry", FAILS_ONCE, "--max-restarts", "1")
    code, _, err = wl(home, "wait", "retry", "--timeout", "60s")
    assert code == 0, err
    code, out, _ = wl(home, "status", "retry", "--output", "json")
    report = json.loads(out)
    assert report["state"] == "succeeded" and report["restarts"] == 1
    assert {"attempt": 0, "worker": "w2", "code": 1, "reason": ""} in report["exits"]
    assert sorted(e["worker"] for e in report["exits"] if e["attempt"] == 1) == [
        "w0", "w1", "w2", "w3",
    ]  # fmt: skip
    code, out, _ = wl(home, "logs", "retry")
    lines = out.splitlines()
    for w in range(4):
        assert f"[w{w}] ran on worker {w}" in lines
    assert lines.count("[w2] ran on worker 2") == 1  # it failed before printing, once
    assert lines.count("[w0] xcli: restart 1 of 1: every worker starts again") == 1
    code, out, _ = wl(home, "logs", "retry", "--worker", "3")
    assert (
        out.splitlines()
        == [
            "[w3] ran on worker 3",  # the first attempt may not have got this far
            "[w3] xcli: restart 1 of 1: every worker starts again",
            "[w3] ran on worker 3",
        ][-len(out.splitlines()) :]
    )

    for args, error, hint in [
        (("--worker", "9"), "error: --worker 9 is out of range for workload retry",
         "hint: its workers are 0-3"),
        (("--worker", "x"), "error: --worker 'x' is not a number or 'all'",
         "hint: e.g. --worker 0"),
        (("--slice", "2"), "error: --slice 2 is out of range for workload retry",
         "hint: it runs on slice 0 only"),
    ]:  # fmt: skip
        code, out, err = wl(home, "logs", "retry", *args)
        assert (code, out, err.splitlines()) == (1, "", [error, hint])


def test_without_restarts_status_names_worker_2_and_its_exit_code(home: Path) -> None:
    submit(home, "once", FAILS_ONCE.replace("failed-once", "failed-once-b"), "--max-restarts", "0")
    code, _, _ = wl(home, "wait", "once", "--timeout", "60s")
    assert code == 1
    code, out, _ = wl(home, "status", "once")
    assert code == 0
    assert "workload once on cluster wldet: failed" in out
    assert "first failure: worker w2 exited with code 1" in out
    code, out, _ = wl(home, "list", "--state", "failed")
    assert "once" in out and "worker w2 exited with code 1" in out


def test_wait_times_out_with_124_and_delete_leaves_no_process(home: Path) -> None:
    submit(home, "long", 'echo "$$" > long.pid; sleep 300')
    code, _, _ = wl(home, "wait", "long", "--timeout", "1s")
    assert code == 124
    pids = worker_pids(home, 4)
    driver = json.loads((home / "state/workloads/wldet/long/state.json").read_text())["pid"]
    assert pid_alive(driver) and all(pid_alive(p) for p in pids)
    code, _, err = wl(home, "delete", "long")  # no --yes and no terminal: refused
    assert code == 1 and "needs confirmation" in err
    assert all(pid_alive(p) for p in pids)
    code, _, err = wl(home, "delete", "long", "--yes")
    assert code == 0, err
    assert not pid_alive(driver)
    assert not any(pid_alive(p) for p in pids)
    code, _, err = wl(home, "status", "long")
    assert code == 1 and "no workload long" in err


def worker_pids(home: Path, count: int, name: str = "long.pid") -> list[int]:
    """The pids the workers' commands wrote (each worker has its own folder), polled."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [p for p in (home / "state").rglob(name) if p.read_text().strip()]
        if len(found) == count:
            return [int(p.read_text()) for p in found]
        time.sleep(0.05)
    raise AssertionError("the workers never started")


def test_dry_run_shows_the_detached_step_and_starts_nothing(home: Path) -> None:
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", "plan", "--docker-image",
               "python:3.11", "--command", "true", "--detach", "--dry-run", "--output", "json",
               check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    (step,) = json.loads(run.stdout)["plan"]
    assert step["kind"] == "vm_workload" and step["detach"] is True
    assert "in the background" in step["summary"]
    assert not (home / "state/workloads/wldet/plan").exists()


def test_a_driver_that_dies_reads_as_lost_and_its_workers_stop(home: Path) -> None:
    submit(home, "orphan", 'echo "$$" > orphan.pid; sleep 300')
    pids = worker_pids(home, 4, "orphan.pid")
    driver = json.loads((home / "state/workloads/wldet/orphan/state.json").read_text())["pid"]
    os.kill(driver, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while pid_alive(driver) and time.monotonic() < deadline:
        time.sleep(0.05)
    code, out, _ = wl(home, "status", "orphan")
    assert "workload orphan on cluster wldet: lost" in out
    assert wl(home, "wait", "orphan")[0] == 1
    # the driver held the workers' SSH channels; when they close, the remote wrapper stops
    # each worker's command (xcli/plan/remote.py), so nothing is left running on the workers
    deadline = time.monotonic() + 15
    while any(pid_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(pid_alive(p) for p in pids)
    code, _, err = wl(home, "delete", "orphan", "--yes")
    assert code == 0, err


def test_delete_stops_a_foreground_run_from_another_terminal(home: Path) -> None:
    command = 'echo "$$" > fg.pid; sleep 300'
    argv = [sys.executable, "-m", "xcli", "workload", "create", *CLUSTER, "--workload", "fg",
            "--docker-image", "python:3.11", "--command", command]  # fmt: skip
    proc = subprocess.Popen(
        argv, env=cli_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        pids = worker_pids(home, 4, "fg.pid")
        code, out, _ = wl(home, "list", "--state", "running")
        assert "fg" in out
        code, _, err = wl(home, "delete", "fg", "--yes")
        assert code == 0, err
        assert proc.wait(timeout=30) != 0  # the foreground run was stopped
        assert not any(pid_alive(p) for p in pids)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
