"""VM-style workloads on a real local cluster, tried as issue 26 did: logs written through
while a job runs and kept when its driver is killed (item 3), Ctrl-C on a foreground run
(item 2), secrets given with --env (item 5), recycled process ids (item 6) and a read-only
state folder (item 9)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import cli_env, create, delete, needs_openssh, pid_alive, xcli

NAME = "wlhard"
CLUSTER = ("--provider", "local", "--cluster", NAME)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("workload-hardening")
    create(home, NAME, "v5litepod-8")
    yield home
    delete(home, NAME, check=False)


def record(home: Path, workload: str) -> Path:
    return home / "state" / "workloads" / NAME / workload


def submit(home: Path, workload: str, command: str, *extra: str) -> None:
    run = xcli(home, "workload", "create", *CLUSTER, "--workload", workload,
               "--command", command, "--detach", *extra, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr


def wl(home: Path, *args: str) -> tuple[int, str, str]:
    run = xcli(home, "workload", *args, *CLUSTER, check=False)
    return run.returncode, run.stdout, run.stderr


def poll(check: object, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds}s")


def test_logs_show_output_while_it_runs_and_keep_it_when_the_driver_is_killed(
    home: Path,
) -> None:
    submit(home, "chatty", "echo started on $TPU_WORKER_ID; sleep 300")
    poll(lambda: "[w0] started on 0" in wl(home, "logs", "chatty")[1], "the first line")
    follow = subprocess.Popen(
        [sys.executable, "-m", "xcli", "workload", "logs", "chatty", *CLUSTER, "--follow"],
        env=cli_env(home), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert follow.stdout is not None
        assert follow.stdout.readline().startswith("[w0] started on 0")  # while it runs
    finally:
        follow.kill()
        follow.wait()
    driver = json.loads((record(home, "chatty") / "state.json").read_text())["pid"]
    os.kill(driver, signal.SIGKILL)
    poll(lambda: not pid_alive(driver), "the driver's end")
    code, out, _ = wl(home, "logs", "chatty")
    assert code == 0 and "[w0] started on 0" in out and "[w1] started on 1" in out
    assert wl(home, "delete", "chatty", "--yes")[0] == 0


def test_ctrl_c_on_a_foreground_run_stops_its_workers_and_records_stopped(home: Path) -> None:
    argv = [sys.executable, "-m", "xcli", "workload", "create", *CLUSTER, "--workload", "fg",
            "--command", 'echo "$$" > fg.pid; sleep 300']  # fmt: skip
    proc = subprocess.Popen(
        argv, env=cli_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        pids = worker_pids(home, "fg.pid")
        proc.send_signal(signal.SIGINT)  # what a terminal's Ctrl-C sends (xcli's group only:
        # each ssh runs in its own session)
        _, err = proc.communicate(timeout=15)  # generous; it takes about a second here
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "workers were stopped" in err
    poll(lambda: not any(pid_alive(p) for p in pids), "the workers' end", 10)
    state = json.loads((record(home, "fg") / "state.json").read_text())
    assert state["state"] == "stopped" and state["finished"]
    code, out, _ = wl(home, "status", "fg")
    assert code == 0 and "workload fg on cluster wlhard: stopped" in out


def worker_pids(home: Path, name: str, count: int = 2) -> list[int]:
    """The pids the workers' commands wrote (each worker has its own folder)."""
    found: list[Path] = []

    def written() -> bool:
        found[:] = [p for p in (home / "state").rglob(name) if p.read_text().strip()]
        return len(found) == count

    poll(written, f"{count} workers writing {name}")
    return [int(p.read_text()) for p in found]


def stranger() -> subprocess.Popen[bytes]:
    """An unrelated process in its own session, as a recycled pid would name."""
    return subprocess.Popen(["sleep", "300"], start_new_session=True)


def test_a_dead_drivers_recycled_pid_is_never_signalled(home: Path) -> None:
    submit(home, "orphan", "sleep 300")
    path = record(home, "orphan") / "state.json"
    poll(lambda: json.loads(path.read_text()).get("state") == "running", "the driver's start")
    driver = json.loads(path.read_text())["pid"]
    os.kill(driver, signal.SIGKILL)
    poll(lambda: not pid_alive(driver), "the driver's end")
    other = stranger()
    try:  # the dead driver's pid now names another process (its start time differs)
        state = json.loads(path.read_text())
        path.write_text(json.dumps({**state, "pid": other.pid}))
        code, out, _ = wl(home, "status", "orphan")
        assert "workload orphan on cluster wlhard: lost" in out
        code, _, err = wl(home, "delete", "orphan", "--yes")
        assert code == 0, err
        assert other.poll() is None, "workload delete signalled an unrelated process"
    finally:
        other.kill()
        other.wait()


def test_a_finished_runs_worker_pid_file_never_signals_a_recycled_pid(home: Path) -> None:
    submit(home, "done", "true")
    assert wl(home, "wait", "done", "--timeout", "60s")[0] == 0
    folders = list((home / "state").rglob(".xcli/workloads/done"))
    assert len(folders) == 2  # one per worker
    assert not [f for f in folders if (f / "pid").exists()]  # a run that ended leaves none
    other = stranger()
    try:  # as a run that ended left it (older xcli), its pid since given to another process
        (folders[0] / "pid").write_text(f"{other.pid}\n")
        (folders[1] / "pid").write_text(f"{other.pid} 1\n")
        code, _, err = wl(home, "delete", "done", "--yes")
        assert code == 0, err
        assert other.poll() is None, "workload delete signalled an unrelated process"
    finally:
        other.kill()
        other.wait()


def test_ssh_whose_process_cannot_be_recorded_runs_nothing(home: Path) -> None:
    """The local sshd records each command's process group before it starts; a write that
    fails (a full disk; here the registry folder replaced by a file) runs nothing."""
    procs = home / "state" / "local" / NAME / "procs"
    shutil.rmtree(procs, ignore_errors=True)
    procs.write_text("")
    try:
        run = xcli(home, "ssh", *CLUSTER, "--worker=all", "--command", "touch ran-anyway",
                   check=False)  # fmt: skip
        assert run.returncode != 0
        assert "cannot create the folder" in run.stdout + run.stderr
        time.sleep(0.5)
        assert not list((home / "state").rglob("ran-anyway")), "it ran unsupervised"
    finally:
        procs.unlink()
        procs.mkdir(mode=0o700)


def test_delete_on_a_read_only_state_folder_says_so_and_keeps_the_record(home: Path) -> None:
    if (
        shutil.which("unshare") is None
        or subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False).returncode
    ):
        pytest.skip("needs user namespaces (unshare -rm) to mount a folder read-only")
    submit(home, "kept", "true")
    assert wl(home, "wait", "kept", "--timeout", "60s")[0] == 0
    state = home / "state"
    argv = [sys.executable, "-m", "xcli", "workload", "delete", "kept", *CLUSTER, "--yes"]
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    run = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(state), *argv],
        env=cli_env(home), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "deleted" not in run.stderr
    assert "error: cannot change" in run.stderr and "read-only" in run.stderr
    assert (record(home, "kept") / "state.json").is_file()
    assert wl(home, "delete", "kept", "--yes")[0] == 0  # writable again: it goes
    assert not record(home, "kept").exists()


def command_lines() -> list[bytes]:
    """Every process's command line, as any local user can read it."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                found.append((proc / "cmdline").read_bytes())
            except OSError:
                continue  # ended meanwhile
    return found


def test_env_values_stay_off_command_lines_and_out_of_records(home: Path) -> None:
    secret = f"s3cret-{os.getpid()}-value"
    env_file = home / "vars.env"
    env_file.write_text(f"FROM_FILE='{secret}-2'\n")
    submit(home, "secret", 'echo "lengths ${#TOKEN} ${#FROM_FILE}"; sleep 300',
           "--env", f"TOKEN={secret}", "--env-file", str(env_file))  # fmt: skip
    expected = f"lengths {len(secret)} {len(secret) + 2}"
    poll(lambda: f"[w1] {expected}" in wl(home, "logs", "secret")[1], "the values' arrival")
    leaks = [line for line in command_lines() if secret.encode() in line]
    assert not leaks, f"a command line holds the value: {leaks[0]!r}"
    folder = record(home, "secret")
    for path in folder.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), f"{path.name} holds it"
    code, out, _ = wl(home, "status", "secret", "--output", "json")
    assert code == 0 and secret not in out
    worker_env = list((home / "state").rglob(".xcli/workloads/secret/env"))
    assert len(worker_env) == 2 and all(p.stat().st_mode & 0o077 == 0 for p in worker_env)
    assert wl(home, "delete", "secret", "--yes")[0] == 0


def test_local_workers_keys_are_checked_strictly_by_default(home: Path) -> None:
    """The local provider pins every worker's key itself: an unknown key is refused unless
    the user asks for accept-new (issue 26 item 10)."""
    base = ("ssh", *CLUSTER, "--worker=all", "--engine", "openssh", "--command", "true")
    run = xcli(home, *base, "--dry-run", "--output", "json")
    argv = json.loads(run.stdout)["plan"][0]["workers"][0]["argv"]
    assert "StrictHostKeyChecking=yes" in argv
    run = xcli(home, *base, "--dry-run", "--output", "json", "--strict-host-key-checking",
               "accept-new")  # fmt: skip
    assert (
        "StrictHostKeyChecking=accept-new"
        in json.loads(run.stdout)["plan"][0]["workers"][0]["argv"]
    )
    known = next((home / "state" / "local" / NAME).glob("known_hosts"))
    pins = known.read_text()
    try:
        known.write_text(pins.splitlines(keepends=True)[0])  # worker 1's key forgotten
        run = xcli(home, *base[:-2], "--command", "true", check=False)
        assert run.returncode != 0 and "no key pinned" in run.stdout + run.stderr
    finally:
        known.write_text(pins)
    submit(home, "strict", "true")
    assert wl(home, "wait", "strict", "--timeout", "60s")[0] == 0
    recorded = json.loads((record(home, "strict") / "run.json").read_text())
    assert recorded["settings"]["host_keys"] == "yes"
    assert wl(home, "delete", "strict", "--yes")[0] == 0


def test_a_second_ctrl_c_leaves_a_slow_stop_and_says_the_workers_may_run(home: Path) -> None:
    """The first Ctrl-C stops the workers, which may take the grace period (here a command
    that ignores SIGTERM, 60 s); a second one ends xcli at once and says what to do."""
    command = "trap '' TERM; echo \"$$\" > slow.pid; while :; do sleep 1; done"
    argv = [sys.executable, "-m", "xcli", "workload", "create", *CLUSTER, "--workload", "slow",
            "--command", command, "--termination-grace-period", "60s"]  # fmt: skip
    proc = subprocess.Popen(
        argv, env=cli_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    pids = worker_pids(home, "slow.pid")
    try:
        proc.send_signal(signal.SIGINT)
        time.sleep(3)  # the stop commands wait for the grace period
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "the workers may still run" in err
    assert "xcli workload delete slow --cluster wlhard --provider local" in err
    _, out, _ = wl(home, "status", "slow")
    assert "workload slow on cluster wlhard: lost" in out  # not `stopped`: nobody knows
