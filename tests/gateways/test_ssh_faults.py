"""Faults on real OpenSSH sshd, both engines: a worker that freezes (SIGSTOP) after xcli's
connection to it is open. Every engine gives up within the connect timeout plus a few seconds,
not after OpenSSH's keepalives (30 s and more)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.test_broadcast import SLACK, settings, targets
from tests.gateways.test_remote_stop import control  # noqa: F401  (a fixture)
from tests.support.sshd import Sshd, make_sshd, sshd_binary
from xcli.execute.fanout import OutputSink
from xcli.gateways.broadcast import run_broadcast
from xcli.plan.fanout import Broadcast, Exec, plan_broadcast

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
