"""Faults on real OpenSSH sshd and on the local provider, both engines: a worker that freezes
(SIGSTOP) after xcli's connection to it is open. Every engine gives up within the connect
timeout plus a few seconds, not after OpenSSH's keepalives (30 s and more). And a silent command
cut by --timeout on the local provider's workers exits 124."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import (
    LocalServers,
    delete,
    local_servers,
    needs_openssh,
    state,
)
from tests.gateways.ssh.test_broadcast import SLACK, settings, targets
from tests.gateways.ssh.test_remote_stop import control  # noqa: F401  (a fixture)
from tests.support.sshd import Sshd, make_sshd, sshd_binary
from xcli.gateways.ssh.broadcast import run_broadcast
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.fanout import Broadcast, Exec, Target, plan_broadcast

CONNECT_TIMEOUT = 2


@pytest.fixture
def frozen_sshd(tmp_path: Path) -> Iterator[Sshd]:
    """A private sshd (two workers) that the test may freeze; thawed and stopped after."""
    if sshd_binary() is None:
        pytest.skip("OpenSSH server (sshd) is not installed; scripts/test.sh installs it")
    server = make_sshd(tmp_path / "sshd", 2)
    server.start()
    try:
        yield server
    finally:
        for pid in [p.pid for p in server.procs] + server.children():
            _signal(pid, signal.SIGCONT)
        server.stop()


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _step(server: Sshd, tmp_path: Path, engine: str, control_dir: Path | None) -> Broadcast:
    s = settings(tmp_path, server, connect_timeout=CONNECT_TIMEOUT, control_dir=control_dir)
    plan = plan_broadcast("t", targets(server), Exec("echo hi"), s, engine=engine)  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    return step


@pytest.mark.parametrize("engine", ["openssh-reused", "openssh", "asyncssh"])
def test_a_worker_frozen_after_its_connection_opened_is_given_up_within_the_connect_timeout(
    engine: str,
    frozen_sshd: Sshd,
    tmp_path: Path,
    control: Path,  # noqa: F811
) -> None:
    reused = engine == "openssh-reused"
    step = _step(frozen_sshd, tmp_path, engine.split("-")[0], control if reused else None)
    first = run_broadcast(step, OutputSink(None, None, None))
    assert first.exit_code == 0
    if reused:
        assert len(list(control.iterdir())) == 2  # the masters stay open
    # the "VMs" freeze: the listener and every connection it serves (the masters' too)
    for pid in [p.pid for p in frozen_sshd.procs] + frozen_sshd.children():
        _signal(pid, signal.SIGSTOP)
    err = io.BytesIO()
    start = time.monotonic()
    result = run_broadcast(step, OutputSink(None, err, None))
    elapsed = time.monotonic() - start
    assert elapsed < CONNECT_TIMEOUT + SLACK, f"took {elapsed:.1f}s"
    assert [o.status for o in result.outcomes] == ["timed out", "timed out"], err.getvalue()
    assert result.exit_code == 255
    if reused:
        assert b"no answer over the open connection within 2s; closed it" in err.getvalue()
        assert list(control.iterdir()) == []  # the stuck masters were closed


@pytest.fixture
def frozen_local(tmp_path: Path) -> Iterator[tuple[LocalServers, int]]:
    """A two-worker local cluster and its supervisor's PID (the test may freeze it)."""
    needs_openssh()
    home = tmp_path / "home"
    servers = local_servers(home, "froz", "v5litepod-8")
    pid = int(state(home, "froz")["pid"])
    try:
        yield servers, pid
    finally:
        _signal(pid, signal.SIGCONT)
        delete(home, "froz", check=False)


@pytest.mark.parametrize("engine", ["openssh-reused", "openssh", "asyncssh"])
def test_a_frozen_local_cluster_is_given_up_within_the_connect_timeout(
    engine: str,
    frozen_local: tuple[LocalServers, int],
    tmp_path: Path,
    control: Path,  # noqa: F811
) -> None:
    servers, supervisor = frozen_local
    reused = engine == "openssh-reused"
    s = settings(tmp_path, servers, connect_timeout=CONNECT_TIMEOUT)
    if reused:
        s = dataclasses.replace(s, control_dir=control)
    plan = plan_broadcast("t", targets(servers), Exec("echo hi"), s, engine=engine.split("-")[0])  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    assert run_broadcast(step, OutputSink(None, None, None)).exit_code == 0
    _signal(supervisor, signal.SIGSTOP)  # every worker's server is in this one process
    start = time.monotonic()
    result = run_broadcast(step, OutputSink(None, None, None))
    elapsed = time.monotonic() - start
    assert elapsed < CONNECT_TIMEOUT + SLACK, f"took {elapsed:.1f}s"
    assert [o.status for o in result.outcomes] == ["timed out", "timed out"]
    assert result.exit_code == 255


@pytest.mark.parametrize("engine", ["asyncssh", "openssh-reused"])
def test_a_silent_command_on_the_local_provider_cut_by_timeout_is_124(
    engine: str,
    frozen_local: tuple[LocalServers, int],
    tmp_path: Path,
    control: Path,  # noqa: F811
) -> None:
    servers, _ = frozen_local
    s = settings(tmp_path, servers, connect_timeout=5)
    if engine == "openssh-reused":
        s = dataclasses.replace(s, control_dir=control)
    name = engine.split("-")[0]
    plan = plan_broadcast("t", targets(servers), Exec("sleep 60"), s, engine=name, timeout=2)  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    result = run_broadcast(step, OutputSink(None, None, None))
    assert [(o.status, o.code) for o in result.outcomes] == [("timed out", 124)] * 2
    assert result.exit_code == 124


@pytest.mark.parametrize("engine", ["openssh", "asyncssh"])
def test_a_worker_still_connecting_when_the_timeout_hits_counts_as_unreached(
    engine: str, frozen_sshd: Sshd, blackhole: int, tmp_path: Path
) -> None:
    # the other half of the 124 rule: a server that accepted TCP but never spoke (its SSH
    # session never opened) is not a command that ran past --timeout, so 255, not 124
    s = settings(tmp_path, frozen_sshd, connect_timeout=5)
    tgts = [*targets(frozen_sshd)[:1], Target("w1", "127.0.0.1", blackhole, frozen_sshd.user)]
    plan = plan_broadcast("t", tgts, Exec("sleep 60"), s, engine=engine, timeout=2)  # type: ignore[arg-type]
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    result = run_broadcast(step, OutputSink(None, None, None))
    assert [(o.status, o.code) for o in result.outcomes] == [("timed out", 124), ("timed out", 255)]


def test_asyncssh_connections_kept_across_runs_do_not_wait_on_a_frozen_worker(
    frozen_sshd: Sshd, tmp_path: Path
) -> None:
    """Library use and workload restarts keep one AsyncSshEngine (its connections) across
    runs: a worker that froze meanwhile must not hold the next run for the keepalives."""
    import asyncio

    from xcli.gateways.ssh.asyncssh_engine import AsyncSshEngine
    from xcli.gateways.ssh.pool import run_pool

    step = _step(frozen_sshd, tmp_path, "asyncssh", None)

    async def both() -> tuple[int, list[str], float]:
        engine = AsyncSshEngine()
        try:
            first = await run_pool(step, engine, OutputSink(None, None, None))
            for pid in [p.pid for p in frozen_sshd.procs] + frozen_sshd.children():
                _signal(pid, signal.SIGSTOP)
            start = time.monotonic()
            second = await run_pool(step, engine, OutputSink(None, None, None))
            elapsed = time.monotonic() - start
        finally:
            for pid in [p.pid for p in frozen_sshd.procs] + frozen_sshd.children():
                _signal(pid, signal.SIGCONT)
            await engine.aclose()
        return first.exit_code, [o.status for o in second.outcomes], elapsed

    first_code, statuses, elapsed = asyncio.run(both())
    assert first_code == 0
    assert statuses == ["timed out", "timed out"]
    assert elapsed < CONNECT_TIMEOUT + SLACK, f"took {elapsed:.1f}s"


@pytest.mark.parametrize("engine", ["openssh", "asyncssh"])
def test_a_full_disk_is_said_as_such_not_as_a_timeout(
    engine: str, sshd: Sshd, tmp_path: Path
) -> None:
    """The worker's log cannot be written (its file is /dev/full: every write is ENOSPC, as on
    a full disk): the outcome says the disk is full and where, exit 1, not "timed out" and
    124 with no --timeout given (issue 37, Faults)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "w0.log").symlink_to("/dev/full")
    tgts = targets(sshd, sshd.ports[:2])
    plan = plan_broadcast("t", tgts, Exec("echo hello"), settings(tmp_path, sshd), engine=engine)
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    result = run_broadcast(step, OutputSink(io.BytesIO(), io.BytesIO(), logs))
    by_label = {o.label: o for o in result.outcomes}
    assert by_label["w1"].ok
    full = by_label["w0"]
    assert full.status == "local error"
    assert full.reason.startswith("failed on this machine (the disk is full: no space left")
    assert str(logs / "w0.log") in full.reason
    assert result.exit_code == 1


@pytest.mark.parametrize("engine", ["openssh", "asyncssh"])
def test_a_file_name_that_is_not_utf8_is_copied(engine: str, sshd: Sshd, tmp_path: Path) -> None:
    """`xcli scp` of a file whose name is not UTF-8 (argv holds it surrogate-escaped): sent
    under its own bytes, as OpenSSH's scp sends it; asyncssh failed to encode it and the run
    was reported as "timed out" (issue 37, Faults)."""
    from xcli.plan.fanout import Upload

    name = os.fsdecode(b"data-\xff.bin")
    (tmp_path / name).write_bytes(b"payload")
    dest = tmp_path / "dest"
    dest.mkdir()
    tgts = targets(sshd, sshd.ports[:1])
    action = Upload((str(tmp_path / name),), f"{dest}/")
    plan = plan_broadcast("t", tgts, action, settings(tmp_path, sshd), engine=engine)
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    result = run_broadcast(step, OutputSink(io.BytesIO(), io.BytesIO(), tmp_path / "logs"))
    assert result.exit_code == 0, result.summary_lines()
    assert (dest / name).read_bytes() == b"payload"
