"""Ctrl-C and --timeout stop the remote commands themselves, not only the local clients.

Against a real OpenSSH sshd (running as this user, root in CI, whose `signal` requests sshd
ignores): commands that write nothing and read nothing, so neither SIGPIPE nor a signal request
would end them. Each writes its PID to a file on the "worker" (this machine); after the run,
those processes must be gone within a few seconds.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.ssh.test_broadcast import settings, targets
from tests.support.sshd import Sshd
from xcli.gateways.ssh.broadcast import run_broadcast
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.fanout import Broadcast, Exec, plan_broadcast

# openssh-reused: the openssh engine over masters a first run left open (it then speaks the
# multiplexing protocol to them instead of starting ssh; see gateways/ssh/mux.py).
ENGINES = ["openssh", "asyncssh", "openssh-reused"]
GONE_WITHIN = 5.0  # seconds


@pytest.fixture(autouse=True)
def _no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def silent_commands(folder: Path) -> list[Exec]:
    """w0: `sleep 300` (the shell execs it: the PID is sleep's); w1: a shell loop, whose
    `sleep` children come and go; w2: finishes at once (its exit code must survive)."""
    return [
        Exec(f"echo $$ > {folder}/sleep.pid; exec sleep 300"),
        Exec(f"echo $$ > {folder}/loop.pid; while true; do sleep 0.3; done"),
        Exec("exit 3"),
    ]


def pids(folder: Path) -> list[int]:
    return [int((folder / f"{name}.pid").read_text()) for name in ("sleep", "loop")]


def wait_for_pid_files(folder: Path, cancelled: threading.Event) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if all((folder / f"{n}.pid").is_file() for n in ("sleep", "loop")):
            time.sleep(0.3)
            break
        time.sleep(0.05)
    cancelled.set()


def assert_gone(folder: Path) -> None:
    started = pids(folder)
    deadline = time.monotonic() + GONE_WITHIN
    while any(alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in started if alive(p)] == [], "remote commands kept running"


@pytest.fixture
def control() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="xcm-"))  # short: socket paths are limited
    try:
        yield folder
    finally:
        for sock in folder.iterdir():
            subprocess.run(
                ["ssh", "-o", f"ControlPath={sock}", "-O", "exit", "x"],
                capture_output=True,
                check=False,
            )
        shutil.rmtree(folder, ignore_errors=True)


def broadcast(engine: str, sshd: Sshd, tmp_path: Path, control: Path, **kw: object) -> Broadcast:
    folder = tmp_path / "remote"
    folder.mkdir()
    reused = engine == "openssh-reused"
    masters = reused or engine == "openssh-masters"  # -masters: the first run opens them
    s = settings(tmp_path, sshd, control_dir=control if masters else None)
    tgts = targets(sshd, sshd.ports[:3])
    if reused:  # open the masters
        warm = plan_broadcast("t", tgts, Exec("true"), s).steps[0]
        assert isinstance(warm, Broadcast)
        assert run_broadcast(warm, OutputSink(None, None, None)).exit_code == 0
        assert len(list(control.iterdir())) == 3
    plan = plan_broadcast(
        "t",
        tgts,
        silent_commands(folder),
        s,
        engine="openssh" if masters else engine,  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    return step


@pytest.mark.parametrize("engine", ENGINES)
def test_cancel_stops_silent_remote_commands(
    engine: str, sshd: Sshd, tmp_path: Path, control: Path
) -> None:
    step = broadcast(engine, sshd, tmp_path, control)
    cancelled = threading.Event()
    watcher = threading.Thread(target=wait_for_pid_files, args=(tmp_path / "remote", cancelled))
    watcher.start()
    out, err = io.BytesIO(), io.BytesIO()
    result = run_broadcast(step, OutputSink(out, err, None), cancelled)
    watcher.join()
    assert result.interrupted and result.exit_code == 130
    statuses = [(o.status, o.exit_code) for o in result.outcomes]
    assert statuses == [("interrupted", None), ("interrupted", None), ("exit", 3)]
    assert out.getvalue() == b""  # the wrapper adds no output of its own
    assert_gone(tmp_path / "remote")


@pytest.mark.parametrize("engine", ENGINES)
def test_timeout_stops_silent_remote_commands(
    engine: str, sshd: Sshd, tmp_path: Path, control: Path
) -> None:
    # the timeout outlasts the connect timeout (3 s here), so the silent workers are known to
    # have been reached: the run exits 124 like timeout(1), not 255 (unreachable)
    step = broadcast(engine, sshd, tmp_path, control, timeout=5)
    out, err = io.BytesIO(), io.BytesIO()
    result = run_broadcast(step, OutputSink(out, err, None))
    statuses = [(o.status, o.exit_code) for o in result.outcomes]
    assert statuses == [("timed out", None), ("timed out", None), ("exit", 3)]
    assert result.exit_code == 124
    assert out.getvalue() == b""
    assert_gone(tmp_path / "remote")


@pytest.mark.parametrize("engine", ["asyncssh", "openssh", "openssh-masters", "openssh-reused"])
def test_a_silent_command_cut_by_a_timeout_shorter_than_the_connect_timeout_is_124(
    engine: str, sshd: Sshd, tmp_path: Path, control: Path
) -> None:
    # --timeout 2s, connect timeout 3 s: the engine itself says the session was open (the
    # asyncssh connection; ssh has read its stdin, which it does only once the session is
    # open; or the master's socket that OpenSSH creates once logged in)
    step = broadcast(engine, sshd, tmp_path, control, timeout=2)
    result = run_broadcast(step, OutputSink(None, None, None))
    statuses = [(o.status, o.code) for o in result.outcomes]
    assert statuses == [("timed out", 124), ("timed out", 124), ("exit", 3)]
    assert result.exit_code == 124
    assert_gone(tmp_path / "remote")


def test_cancel_leaves_no_open_transport_for_after_the_loop_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while an `ssh` is still connecting used to print "Exception ignored ... Event
    loop is closed": its pipes were still open (here: held by a process it started) when
    asyncio.run() closed the loop, and the garbage collector closed them afterwards."""
    import dataclasses
    import gc
    import signal as signals
    import sys

    from xcli.plan.fanout import SshSettings, Target

    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: unraisable.append(u.exc_value))
    pidfile = tmp_path / "grandchild.pid"
    settings_ = SshSettings(known_hosts=tmp_path / "known_hosts")
    plan = plan_broadcast("t", [Target("w0", "127.0.0.1")], Exec("true"), settings_)
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    # stands in for an ssh that is still connecting: it outlives nothing, but a process it
    # started keeps its stdout and stderr open
    script = f"sleep 30 & echo $! > {pidfile}; echo started; exec sleep 30"
    worker = dataclasses.replace(step.workers[0], argv=("sh", "-c", script))
    step = dataclasses.replace(step, workers=(worker,))
    cancelled = threading.Event()
    threading.Timer(1.0, cancelled.set).start()
    try:
        result = run_broadcast(step, OutputSink(None, None, None), cancelled)
        gc.collect()
    finally:
        if pidfile.is_file():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pidfile.read_text()), signals.SIGKILL)
    assert result.interrupted
    assert [e for e in unraisable if "Event loop is closed" in str(e)] == []
